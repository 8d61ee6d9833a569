"""The dead-symbol settings of a recipe (its id, pattern and check scope), read from its TOML
file and the files it extends, without loading the engine: `codemod check` runs as a pre-commit
hook on every commit and must start fast. A recipe that is not a TOML file is loaded."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from codemods.edit.errors import RecipeError
from codemods.config.catalog import bundled_files
from codemods.config.extends import extended
from codemods.search.files import search_pattern_problem

if TYPE_CHECKING:
    from codemods.config.recipe import Recipe


def _load(spec: str) -> Recipe:
    # here: `codemod check` reads its settings without loading the recipe loader
    from codemods.config.loader import load_recipe

    return load_recipe(spec)


class DeadSymbolSettings(NamedTuple):
    """What `codemod check` needs of a recipe: its id, dead-symbol pattern and check scope, and
    its summary (what it removed, said with each failure)."""

    id: str
    pattern: str | None
    scope: tuple[str, ...]
    summary: str = ""


def dead_symbol_settings(spec: str) -> DeadSymbolSettings:
    """The dead-symbol settings of a recipe, read from its TOML file (and the files it extends)
    without loading its code, so that `codemod check` stays fast; a .py recipe is loaded.
    RecipeError for a pattern that is not a valid regex."""
    settings = _dead_symbol_settings(spec)
    pattern = settings.pattern
    if pattern is not None:
        problem = search_pattern_problem(pattern) if isinstance(pattern, str) else "not a string"
        if problem:
            raise RecipeError(f"{spec}: dead_symbol_pattern {pattern!r} is not a valid pattern: {problem}")
    return settings


def _of_recipe(recipe: Recipe) -> DeadSymbolSettings:
    return DeadSymbolSettings(recipe.id, recipe.dead_symbol_pattern, recipe.check_scope, recipe.summary)


def _dead_symbol_settings(spec: str) -> DeadSymbolSettings:
    path = bundled_files().get(spec) or Path(spec)
    if path.suffix != ".toml":
        return _of_recipe(_load(spec))
    if not path.is_file():
        _load(spec)  # raises the loader's own error
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return _of_recipe(_load(spec))  # raises the loader's own error
    if "extends" in data and str(data["extends"]) in bundled_files():
        base = _dead_symbol_settings(str(data["extends"]))
        own: dict[str, Any] = {
            key: tuple(data[key]) if key == "check_scope" else data[key]
            for key in ("id", "summary", "dead_symbol_pattern", "check_scope")
            if key in data
        }
        merged = extended(
            {"id": base.id, "summary": base.summary, "dead_symbol_pattern": base.pattern, "check_scope": base.scope},
            own,
            path.stem,
        )
        return DeadSymbolSettings(
            merged["id"], merged["dead_symbol_pattern"], merged["check_scope"], _text(merged["summary"])
        )
    if "extends" in data or not isinstance(data.get("id"), str):
        return _of_recipe(_load(spec))  # raises the loader's own error
    return DeadSymbolSettings(
        data["id"], data.get("dead_symbol_pattern"), tuple(data.get("check_scope", ())), _text(data.get("summary", ""))
    )


def _text(value: object) -> str:
    """A summary as said with a failure (a recipe the loader would refuse for its summary still
    has its mentions checked)."""
    return value if isinstance(value, str) else ""
