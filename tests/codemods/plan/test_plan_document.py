"""The library and the CLI give one JSON document (issue 37, point 14): `Plan.to_dict()` is the
plan's (with its item-level changes and exit code), `Plan.to_json()` the same as text, and a
run's (`RunResult.to_dict()` / `to_json()`) is what `codemod apply --json` prints."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from codemods import ItemTarget, Recipe, apply_recipe, changes_of, plan_recipe
from codemod_helpers import dedent_text, run_codemod

SOURCE = """
    /// Counts the sails.
    pub fn count_sails() -> u32 {
        3
    }

    pub fn hoist() -> u32 {
        count_sails()
    }

    pub fn anchor() {}
"""
RECIPE = """
    id = "rigging-cleanup"
    summary = "Drop the anchor helper"

    [[delete]]
    path = "src/lib.rs"
    language = "rust"
    kind = "fn"
    name = "anchor"
"""


def _tree(folder: Path) -> tuple[Path, Path]:
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "lib.rs").write_text(dedent_text(SOURCE))
    (folder / "Cargo.toml").write_text('[package]\nname = "ship"\nversion = "0.1.0"\nedition = "2021"\n')
    recipe = folder.parent / f"{folder.name}.toml"
    recipe.write_text(dedent_text(RECIPE))
    return folder, recipe


def _recipe(name: str) -> Recipe:
    return Recipe(
        id="rigging-cleanup",
        summary="Drop the anchor helper",
        deletions=(ItemTarget("src/lib.rs", "rust", "fn", name),),
    )


def test_to_json_is_text_that_loads_as_to_dict_with_items_and_exit_code(tmp_path: Path) -> None:
    root, _ = _tree(tmp_path / "ship")
    plan = plan_recipe(root, _recipe("anchor"))
    document = plan.to_dict()
    assert isinstance(plan.to_json(), str) and json.loads(plan.to_json()) == document
    assert document["items"] == [
        {"id": c.id, "path": c.path, "origins": list(c.origins), "item": c.item, "removes": list(c.removes)}
        for c in changes_of(plan)
    ]
    assert [item["id"] for item in document["items"]] == ["rigging-cleanup:fn:anchor"]
    assert document["exit_code"] == 0
    assert plan_recipe(root, _recipe("count_sails")).to_dict()["exit_code"] == 1  # hoist() still calls it
    assert plan_recipe(root / "nowhere", _recipe("anchor")).to_dict()["exit_code"] == 2


def test_a_dry_run_prints_the_runs_document(tmp_path: Path) -> None:
    root, recipe_file = _tree(tmp_path / "ship")
    printed = run_codemod("apply", "--dry-run", "--json", "--recipe", str(recipe_file), str(root))
    assert printed.exit_code == 0
    run = apply_recipe(root, _recipe("anchor"), dry_run=True)
    assert printed.stdout == run.to_json() + "\n"
    assert json.loads(printed.stdout) == {
        **plan_recipe(root, _recipe("anchor")).to_dict(),
        "dry_run": True,
        "written": False,
        "write_error": None,
        "recovered": None,
    }


def test_a_written_run_and_a_blocked_one_print_the_runs_document(tmp_path: Path) -> None:
    root, recipe_file = _tree(tmp_path / "ship")
    twin = tmp_path / "twin"
    shutil.copytree(root, twin)
    printed = json.loads(run_codemod("apply", "--json", "--recipe", str(recipe_file), str(root)).stdout)
    run = json.loads(apply_recipe(twin, _recipe("anchor")).to_json())
    assert printed == {**run, "root": str(root)}
    assert (printed["written"], printed["exit_code"]) == (True, 0)
    blocked = apply_recipe(twin, _recipe("count_sails"))
    assert (blocked.to_dict()["written"], blocked.to_dict()["exit_code"], blocked.exit_code) == (False, 1, 1)
