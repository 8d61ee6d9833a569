"""The catalog of bundled recipes, discovered as files: every `*.toml` file with an `id` in a
package folder under `codemods/recipes/` is a recipe.

A bundled recipe is registered by its file alone: drop `NAME.toml` (the
schema of docs/recipes.md, `id` included) into a package folder there, with
an optional Python module `NAME.py` beside it that registers its builder
(`codemods.builds`), and `codemod recipes` lists it and `--recipe ID` loads
it. The loader asks the catalog for the file of an id and loads it like any
recipe file; the engine never imports a recipe package but through this.
Standard library only: `codemod check` reads the catalog without the engine.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

from codemods.edit.errors import RecipeError

HERE = Path(__file__).resolve().parents[1] / "recipes"
PACKAGE = "codemods.recipes"


@functools.cache
def bundled_files() -> dict[str, Path]:
    """Recipe id -> its TOML file, for every bundled recipe (sorted by id).

    The id is read from the file's `id = "..."` line; a file without one is
    not a recipe (it is a rule file another recipe reads, say).
    """
    found: dict[str, Path] = {}
    for path in sorted(HERE.glob("*/*.toml")):
        recipe_id = _declared_id(path)
        if recipe_id is not None:
            if recipe_id in found:
                raise RecipeError(f"bundled recipe id {recipe_id!r} is declared by {found[recipe_id]} and {path}")
            found[recipe_id] = path
    return dict(sorted(found.items()))


def _declared_id(path: Path) -> str | None:
    try:
        value = tomllib.loads(path.read_text(encoding="utf-8")).get("id")
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    return value if isinstance(value, str) and value else None


def module_name(toml: Path, module: str) -> str | None:
    """The importable name of `module` beside a bundled recipe file (None for a file elsewhere)."""
    try:
        folder = toml.resolve().parent.relative_to(HERE.resolve())
    except ValueError:
        return None
    return ".".join([PACKAGE, *folder.parts, module])


def recipe_files(spec: str) -> tuple[Path, ...]:
    """The files a recipe given as a path is read from (resolved): the file, and the builder module
    beside a TOML file (NAME.py beside NAME.toml). They name what the recipe removes by design, so
    the dead-symbol scans leave them out; a bundled recipe has none in any tree."""
    path = Path(spec)
    if spec in bundled_files() or not path.is_file():
        return ()
    companion = path.with_suffix(".py")
    return (path.resolve(), *((companion.resolve(),) if path.suffix == ".toml" and companion.is_file() else ()))


__all__ = ["bundled_files", "module_name", "recipe_files"]
