"""Bundled recipes and loading a recipe by id or from a file."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

from ._model import ItemTarget, Recipe, RecipeInputError, Rewording, StepResult, Workspace

# Bundled recipes: id -> module defining RECIPE.
BUILTIN = {
    "paged-compat-removal": "codemods.recipes.paged_compat_removal",
    "paged-flag": "codemods.recipes.paged_flag",
}
DEFAULT_RECIPE = "paged-compat-removal"


class RecipeError(Exception):
    """A recipe id that is unknown or a recipe file that does not load."""


def builtin_recipes() -> list[Recipe]:
    return [load_recipe(recipe_id) for recipe_id in BUILTIN]


def _from_module_file(path: Path) -> Recipe:
    spec = importlib.util.spec_from_file_location(f"codemod_recipe_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise RecipeError(f"{path}: cannot load as a Python module")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        raise RecipeError(f"{path}: recipe failed to load: {type(error).__name__}: {error}") from None
    recipe = getattr(module, "RECIPE", None)
    if not isinstance(recipe, Recipe):
        raise RecipeError(f"{path}: defines no RECIPE of type codemods.recipes.Recipe")
    return recipe


def _from_toml_file(path: Path) -> Recipe:
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise RecipeError(f"{path}: not valid TOML: {error}") from None
    try:
        return Recipe(
            id=str(data["id"]),
            summary=str(data.get("summary", "")),
            deletions=tuple(ItemTarget(**d) for d in data.get("delete", [])),
            rewordings=tuple(Rewording(**r) for r in data.get("reword", [])),
            dead_symbol_pattern=data.get("dead_symbol_pattern"),
            check_scope=tuple(data.get("check_scope", ["src"])),
            protected=tuple(data.get("protected", ["docs"])),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise RecipeError(f"{path}: recipe does not match the schema: {error}") from None


def load_recipe(spec: str) -> Recipe:
    """A bundled recipe by id, or a recipe file (.py defining RECIPE, or .toml)."""
    if spec in BUILTIN:
        return importlib.import_module(BUILTIN[spec]).RECIPE
    path = Path(spec)
    if path.suffix in (".py", ".toml"):
        if not path.is_file():
            raise RecipeError(f"{spec}: recipe file not found")
        return _from_module_file(path) if path.suffix == ".py" else _from_toml_file(path)
    known = ", ".join(sorted(BUILTIN))
    raise RecipeError(f"unknown recipe {spec!r} (bundled: {known}; or give a .py or .toml file)")


__all__ = [
    "BUILTIN",
    "DEFAULT_RECIPE",
    "ItemTarget",
    "Recipe",
    "RecipeError",
    "RecipeInputError",
    "Rewording",
    "StepResult",
    "Workspace",
    "builtin_recipes",
    "load_recipe",
]
