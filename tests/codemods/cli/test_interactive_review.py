"""What the `--interactive` walk (and `--json`'s `items`) tell a reviewer: each change labelled
with the item that holds it, its diff as it will be written (formatted, as `--dry-run` shows
it), and a plan that is blocked as a whole said to be so before the first change."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from codemods import load_recipe, plan_recipe
from codemods.cli.interactive import Walk
from codemods.plan.subset import changes_of
from codemod_helpers import run_codemod

TREE = {
    "Cargo.toml": '[package]\nname = "nibworks"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": """\
mod tally;

use tally::ink_units;

pub struct Pen {
    pub width: u32,
}

pub fn nib(weight: u32) -> Pen {
    Pen {
        width: ink_units(weight),
    }
}

pub fn blot(weight: u32) -> u32 {
    ink_units(weight) * 2
}
""",
    "src/tally.rs": "pub fn ink_units(weight: u32) -> u32 {\n    weight / 4\n}\n",
}
RECIPE = """\
id = "drop-ink"
summary = "inline ink_units and delete it"

[[delete]]
path = "src/tally.rs"
language = "rust"
kind = "fn"
name = "ink_units"
"""
REWRITE = """
[[rewrite]]
path = "src/lib.rs"
pattern = "ink_units($W)"
replace = "$W/4"
"""


class Keys:
    def __init__(self, *keys: str) -> None:
        self.keys = list(keys)

    def __call__(self) -> str:
        assert self.keys, "the walk asked for more keys than the reviewer typed"
        return self.keys.pop(0)


def _tree(folder: Path, recipe: str) -> tuple[Path, Path]:
    root = folder / "nibworks"
    for path, text in TREE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (folder / "drop_ink.toml").write_text(recipe)
    return root, folder / "drop_ink.toml"


def test_a_rewrite_inside_a_function_is_labelled_with_that_function(tmp_path: Path) -> None:
    root, recipe = _tree(tmp_path, RECIPE + REWRITE)
    result = run_codemod("apply", "--dry-run", "--json", "--recipe", str(recipe), str(root))
    items = {item["id"]: item["item"] for item in json.loads(result.stdout)["items"]}
    # The call inside `Pen { ... }` is in fn nib, not in an item named Pen; the import removal is
    # no item of its own (it follows from the others).
    assert items == {
        "drop-ink:fn:ink_units": "ink_units",
        "drop-ink:rewrite@nib": "nib",
        "drop-ink:rewrite@blot": "blot",
    }


def test_the_walk_shows_each_change_formatted_as_dry_run_does(tmp_path: Path, capsys) -> None:
    if shutil.which("rustfmt") is None:
        pytest.skip("rustfmt is not installed: nothing is formatted")
    root, recipe = _tree(tmp_path, RECIPE + REWRITE)
    dry_run = run_codemod("apply", "--dry-run", "--recipe", str(recipe), str(root)).stdout
    assert "+    weight / 4 * 2\n" in dry_run and "weight/4" not in dry_run
    plan = plan_recipe(root, load_recipe(str(recipe)))
    walk = Walk(plan, colour=False, getkey=Keys("y", "y", "y"))
    assert walk.run() == set()
    shown = capsys.readouterr().out
    assert "+    weight / 4 * 2\n" in shown and "+    Pen { width: weight / 4 }\n" in shown
    assert "weight/4" not in shown
    # The import the changes leave unused is shown (with the deletion of what it imports).
    assert "-use tally::ink_units;\n" in shown


def test_a_blocked_plan_is_said_to_be_so_first_and_the_walk_can_stop(tmp_path: Path, capsys) -> None:
    root, recipe = _tree(tmp_path, RECIPE)
    plan = plan_recipe(root, load_recipe(str(recipe)))
    assert plan.blocking
    walk = Walk(plan, colour=False, getkey=Keys("q"))
    assert walk.run() is None
    out = capsys.readouterr().out
    assert out.startswith(f"The whole plan is refused as it stands ({len(plan.blocking)} blocking finding(s)):")
    assert "  src/lib.rs:16:5: ink_units: code still refers to an item the recipe deletes\n" in out
    assert "Apply this change?" not in out and walk.accepted == set()


def test_a_blocked_plan_can_still_be_reviewed(tmp_path: Path, capsys) -> None:
    root, recipe = _tree(tmp_path, RECIPE)
    plan = plan_recipe(root, load_recipe(str(recipe)))
    ids = [c.id for c in changes_of(plan)]
    walk = Walk(plan, colour=False, getkey=Keys("r", "n"))
    assert walk.run() == set(ids)
    assert f"[1/{len(ids)}] {ids[0]}" in capsys.readouterr().out


def test_a_cpp_rewrite_is_labelled_with_its_function_not_its_class_or_namespace(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/dial.cpp").write_text(
        "namespace gauge {\n\nint legacy_scale(int v) { return v * 3; }\n\nclass Dial {\n public:\n"
        "  int read(int v) const { return legacy_scale(v) + 1; }\n};\n\nint face(int v) {\n"
        "  return legacy_scale(v);\n}\n\n}  // namespace gauge\n"
    )
    recipe = tmp_path / "drop_scale.toml"
    recipe.write_text(
        'id = "drop-scale"\nsummary = ""\n\n[[delete]]\npath = "src/dial.cpp"\nlanguage = "cpp"\n'
        'kind = "function"\nname = "gauge::legacy_scale"\n\n[[rewrite]]\npath = "src/dial.cpp"\n'
        'pattern = "legacy_scale($V)"\nreplace = "$V * 3"\n'
    )
    plan = plan_recipe(tmp_path, load_recipe(str(recipe)))
    assert [(c.id, c.item) for c in changes_of(plan)] == [
        ("drop-scale:cpp-function:gauge::legacy_scale", "gauge::legacy_scale"),
        ("drop-scale:rewrite@gauge::Dial::read", "gauge::Dial::read"),
        ("drop-scale:rewrite@gauge::face", "gauge::face"),
    ]
