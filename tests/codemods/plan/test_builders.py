"""A recipe file's Python: the module of its name beside it registers the builder by recipe id
(`codemods.builds`), typed, found by the loader; no `module:function` strings."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods import RecipeError, load_recipe

LEDGER_TOML = 'id = "tidy-ledger"\nsummary = "tidy the ledger"\n'

LEDGER_PY = """
import dataclasses

from codemods import Parameter, Recipe, StepResult, Workspace, builds


def settle(workspace: Workspace) -> StepResult:
    return StepResult()


@builds("{recipe_id}")
def tidy_ledger(recipe: Recipe) -> Recipe:
    return dataclasses.replace(recipe, steps=(settle,), parameters=(Parameter("limit", default="3"),))
"""


def _recipe(
    folder: Path,
    toml: str = LEDGER_TOML,
    module: str | None = LEDGER_PY,
    recipe_id: str = "tidy-ledger",
    name: str = "tidy_ledger",
) -> Path:
    (folder / f"{name}.toml").write_text(toml)
    if module is not None:
        (folder / f"{name}.py").write_text(module.replace("{recipe_id}", recipe_id))
    return folder / f"{name}.toml"


def test_the_module_beside_the_file_builds_the_recipe(tmp_path: Path) -> None:
    recipe = load_recipe(str(_recipe(tmp_path)))
    assert ([s.__name__ for s in recipe.steps], recipe.parameter_names) == (["settle"], ("limit",))
    assert load_recipe(str(tmp_path / "tidy_ledger.toml")).parameter_names == ("limit",)  # loads again


def test_a_file_without_a_module_is_its_data(tmp_path: Path) -> None:
    assert load_recipe(str(_recipe(tmp_path, module=None))).steps == ()


def test_a_module_that_builds_another_recipe_is_refused(tmp_path: Path) -> None:
    with pytest.raises(
        RecipeError,
        match=r"registers no builder for recipe 'tidy-ledger' \(it registers "
        r"tidy-journal\); decorate its function with @codemods.builds",
    ):
        load_recipe(str(_recipe(tmp_path, recipe_id="tidy-journal")))


def test_the_build_key_is_refused_with_the_new_way(tmp_path: Path) -> None:
    path = _recipe(tmp_path, toml=LEDGER_TOML + 'build = "tidy_ledger:build"\n')
    with pytest.raises(RecipeError, match=r"the key 'build' is gone: .*tidy_ledger.py.*@codemods.builds"):
        load_recipe(str(path))


def test_the_bundled_recipes_are_built_by_their_modules() -> None:
    assert load_recipe("perturb-pooled-output").parameter_names == ("factor", "function")
    assert load_recipe("paged-flag").parameter_names == ("decision",)
    assert len(load_recipe("paged-compat-removal").steps) == 3
