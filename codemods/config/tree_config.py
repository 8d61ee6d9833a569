"""The recipe a tree names for itself, so that `codemod apply ROOT` and `codemod check` need no
`--recipe`: `recipe = "ID-OR-PATH"` in `.codemod.toml`, or under `[tool.codemod]` in
`pyproject.toml`, in ROOT or the nearest folder above it that has either. A path is relative to
the folder of the file that names it. Read without the engine (`codemod check` starts fast)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from codemods.edit.errors import RecipeError
from codemods.config.catalog import bundled_files

# Where a tree names its recipe, in the order they are looked for in each folder.
CONFIG_FILES = (".codemod.toml", "pyproject.toml")


def _declared(path: Path) -> str | None:
    """The recipe `path` names (None when it names none); RecipeError when it cannot be read or
    its `recipe` is not a non-empty string."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise RecipeError(f"{path}: cannot read it: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise RecipeError(f"{path}: not valid TOML: {' '.join(str(error).split())}") from None
    table = data.get("tool", {}).get("codemod", {}) if path.name == "pyproject.toml" else data
    where = "[tool.codemod] recipe" if path.name == "pyproject.toml" else "recipe"
    if not isinstance(table, dict) or "recipe" not in table:
        if path.name == ".codemod.toml":
            raise RecipeError(f'{path}: names no recipe (write recipe = "ID" or recipe = "PATH.toml")')
        return None
    value = table["recipe"]
    if not isinstance(value, str) or not value:
        raise RecipeError(f"{path}: {where} must be a recipe id or a file path, not {value!r}")
    return value


def configured_recipe(root: Path) -> str | None:
    """The recipe (a bundled id, or a file path as the caller can open it) that ROOT's config names,
    or None when neither ROOT nor a folder above it has one."""
    folder = Path(root).resolve()
    for candidate in (folder, *folder.parents):
        for name in CONFIG_FILES:
            path = candidate / name
            if path.is_file():
                declared = _declared(path)
                if declared is None:
                    continue
                if declared in bundled_files() or not declared.endswith((".toml", ".py")):
                    return declared
                return str(candidate / declared)
    return None


NO_RECIPE = (
    "no recipe given: pass --recipe ID|PATH (`codemod recipes` lists the bundled ones), or name it "
    'in the tree: recipe = "ID" in .codemod.toml, or [tool.codemod] recipe = "ID" in pyproject.toml'
)

__all__ = ["CONFIG_FILES", "NO_RECIPE", "configured_recipe"]
