"""The dead-symbol settings of a recipe (its id, pattern and check scope), read from its TOML
file and the files it extends, without loading the engine: `codemod check` runs as a pre-commit
hook on every commit and must start fast. A recipe that is not a TOML file is loaded."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from codemods.edit.errors import RecipeError
from codemods.plan.catalog import bundled_files
from codemods.plan.extends import extended

if TYPE_CHECKING:
    from codemods.plan.recipe import Recipe


def _load(spec: str) -> Recipe:
    from codemods.plan.loader import load_recipe

    return load_recipe(spec)


def dead_symbol_settings(spec: str) -> tuple[str, str | None, tuple[str, ...]]:
    """(id, dead-symbol pattern, check scope) of a recipe, read from its TOML file (and the files
    it extends) without loading its code, so that `codemod check` stays fast; a .py recipe is
    loaded. RecipeError for a pattern that is not a valid regex."""
    recipe_id, pattern, scope = _dead_symbol_settings(spec)
    if pattern is not None:
        from codemods.search.files import search_pattern_problem

        problem = search_pattern_problem(pattern) if isinstance(pattern, str) else "not a string"
        if problem:
            raise RecipeError(f"{spec}: dead_symbol_pattern {pattern!r} is not a valid pattern: {problem}")
    return recipe_id, pattern, scope


def _dead_symbol_settings(spec: str) -> tuple[str, str | None, tuple[str, ...]]:
    import tomllib

    path = bundled_files().get(spec) or Path(spec)
    if path.suffix != ".toml":
        recipe = _load(spec)
        return recipe.id, recipe.dead_symbol_pattern, recipe.check_scope
    if not path.is_file():
        _load(spec)  # raises the loader's own error
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        recipe = _load(spec)  # raises the loader's own error
        return recipe.id, recipe.dead_symbol_pattern, recipe.check_scope
    if "extends" in data and str(data["extends"]) in bundled_files():
        base_id, pattern, scope = _dead_symbol_settings(str(data["extends"]))
        own: dict[str, Any] = {key: tuple(data[key]) if key == "check_scope" else data[key]
               for key in ("id", "dead_symbol_pattern", "check_scope") if key in data}
        merged = extended({"id": base_id, "dead_symbol_pattern": pattern, "check_scope": scope}, own, path.stem)
        return merged["id"], merged["dead_symbol_pattern"], merged["check_scope"]
    if "extends" in data or not isinstance(data.get("id"), str):
        recipe = _load(spec)  # raises the loader's own error
        return recipe.id, recipe.dead_symbol_pattern, recipe.check_scope
    return data["id"], data.get("dead_symbol_pattern"), tuple(data.get("check_scope", ()))
