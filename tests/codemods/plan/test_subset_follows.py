"""A subset of a plan (`--skip/--accept`, the `--interactive` walk, `plan_subset`) keeps nothing
that follows only from the changes it skips: the imports a change leaves unused and the files
that go with a deleted module are made again from what is kept, never choices of their own, and
the written tree builds."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from codemods import load_recipe, plan_recipe
from codemods.cli.interactive import Walk
from codemods.plan.subset import changes_of, plan_subset
from codemod_helpers import run_codemod

LIB = """\
mod glyphs;
mod ornaments;

use glyphs::stroke_width;

pub fn outline(weight: u32) -> u32 {
    stroke_width(weight) * 2
}

pub fn serif(weight: u32) -> u32 {
    weight + 3
}
"""
TREE = {
    "Cargo.toml": '[package]\nname = "quillwork"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    "src/lib.rs": LIB,
    "src/glyphs.rs": "pub fn stroke_width(weight: u32) -> u32 {\n    weight / 4\n}\n\n"
    "pub fn kerning(pair: u32) -> u32 {\n    pair % 7\n}\n",
    "src/ornaments.rs": "pub fn flourish() -> u32 {\n    9\n}\n",
}
RECIPE = """\
id = "inline-stroke"
summary = "inline stroke_width where it is called, and delete it"
dead_symbol_pattern = "stroke_width"

[[delete]]
path = "src/glyphs.rs"
language = "rust"
kind = "fn"
name = "stroke_width"

[[delete]]
path = "src/lib.rs"
language = "rust"
kind = "mod"
name = "ornaments"

[[delete]]
path = "src/lib.rs"
language = "rust"
kind = "fn"
name = "serif"

[[rewrite]]
path = "src/lib.rs"
pattern = "stroke_width($W)"
replace = "$W / 4"
"""
DELETION = "inline-stroke:fn:stroke_width"
MODULE = "inline-stroke:mod:ornaments"
REWRITE = "inline-stroke:rewrite"
SERIF = "inline-stroke:fn:serif"


def _tree(folder: Path) -> tuple[Path, Path]:
    root = folder / "quillwork"
    for path, text in TREE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    recipe = folder / "inline_stroke.toml"
    recipe.write_text(RECIPE)
    return root, recipe


class Keys:
    def __init__(self, *keys: str) -> None:
        self.keys = list(keys)

    def __call__(self) -> str:
        assert self.keys, "the walk asked for more keys than the reviewer typed"
        return self.keys.pop(0)


@pytest.fixture
def planned(tmp_path: Path):
    root, recipe = _tree(tmp_path)
    return root, recipe, plan_recipe(root, load_recipe(str(recipe)))


def _after(plan, path: str) -> str | None:
    """The file as `plan` leaves it (None: deleted), or as it is when the plan does not change it."""
    change = next((c for c in plan.changes if c.path == path), None)
    if change is None:
        return TREE[path]
    return None if change.deleted else change.after.decode()


def test_what_follows_from_the_changes_is_no_choice_of_its_own(planned) -> None:
    _, _, plan = planned
    assert not plan.blocking
    # The whole plan removes the import and ornaments.rs, but only as consequences.
    assert "use glyphs" not in _after(plan, "src/lib.rs") and _after(plan, "src/ornaments.rs") is None
    assert [c.id for c in changes_of(plan)] == [DELETION, MODULE, REWRITE, SERIF]


def test_plan_subset_keeps_the_import_a_skipped_rewrite_still_uses(planned) -> None:
    _, _, plan = planned
    subset = plan_subset(plan, [REWRITE, DELETION, MODULE])
    assert not subset.plan.blocking and subset.new_findings == ()
    assert [c.path for c in subset.plan.changes] == ["src/lib.rs"]
    lib = _after(subset.plan, "src/lib.rs")
    assert "use glyphs::stroke_width;" in lib and "stroke_width(weight) * 2" in lib
    assert "mod ornaments;" in lib and "fn serif" not in lib


def test_skipping_the_rewrite_alone_leaves_a_dangling_call_that_blocks(planned) -> None:
    _, _, plan = planned
    subset = plan_subset(plan, [REWRITE])
    # As a recipe without the rewrite would plan it: the import and the call both name the deleted item.
    assert [(f.path, f.line, f.code) for f in subset.plan.blocking] == [
        ("src/lib.rs", 4, "dangling-reference"),
        ("src/lib.rs", 7, "dangling-reference"),
    ]
    assert subset.needed_by == {REWRITE: (DELETION,)}


def test_keeping_the_rewrite_of_a_function_kept_removes_the_import_it_leaves_unused(planned) -> None:
    _, _, plan = planned
    subset = plan_subset(plan, [DELETION])
    assert not subset.plan.blocking
    assert "use glyphs" not in _after(subset.plan, "src/lib.rs")
    assert "pub fn stroke_width" in _after(subset.plan, "src/glyphs.rs")


def test_the_walk_skipping_the_deletion_a_skipped_rewrite_needs_keeps_the_import(planned, capsys) -> None:
    _, _, plan = planned
    # y: the deletion; n: the module; n: the rewrite, s(kip) the deletion that needs it too; y: serif.
    walk = Walk(plan, colour=False, getkey=Keys("y", "n", "n", "s", "y"))
    skipped = walk.run()
    assert skipped == {DELETION, MODULE, REWRITE}
    assert DELETION in capsys.readouterr().out
    subset = plan_subset(plan, skipped)
    assert not subset.plan.blocking
    assert "use glyphs::stroke_width;" in _after(subset.plan, "src/lib.rs")
    assert _after(subset.plan, "src/ornaments.rs") == TREE["src/ornaments.rs"]


def test_skip_on_the_command_line_writes_a_tree_that_builds(tmp_path: Path) -> None:
    root, recipe = _tree(tmp_path)
    result = run_codemod(
        "apply", "--recipe", str(recipe), "--skip", REWRITE, "--skip", DELETION, "--skip", MODULE, str(root)
    )
    assert result.exit_code == 0, result.stderr
    assert "1 of 4 change(s) accepted" in result.stderr
    lib = (root / "src/lib.rs").read_text()
    assert "use glyphs::stroke_width;" in lib and "fn serif" not in lib
    assert (root / "src/ornaments.rs").read_text() == TREE["src/ornaments.rs"]
    _build(root, tmp_path)


HUES = {
    "Cargo.toml": '[package]\nname = "hues"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "mod paint;\nmod shade;\n\npub use paint::code;\n",
    "src/shade.rs": "pub enum Hue {\n    Umber,\n    Ochre,\n    Teal,\n}\n",
    "src/paint.rs": "use crate::shade::Hue;\n\npub fn code(hue: Hue) -> u8 {\n    match hue {\n"
    "        Hue::Umber => 1,\n        Hue::Ochre => 2,\n        Hue::Teal => 3,\n    }\n}\n",
}
HUES_RECIPE = """\
id = "fewer-hues"
summary = "drop two hues"

[[delete]]
path = "src/shade.rs"
language = "rust"
kind = "variant"
name = "Hue::Umber"

[[delete]]
path = "src/shade.rs"
language = "rust"
kind = "variant"
name = "Hue::Ochre"
"""


def test_a_skipped_variant_keeps_its_match_arms_in_other_files_and_the_crate_builds(tmp_path: Path) -> None:
    root = tmp_path / "hues"
    for path, text in HUES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (tmp_path / "fewer_hues.toml").write_text(HUES_RECIPE)
    plan = plan_recipe(root, load_recipe(str(tmp_path / "fewer_hues.toml")))
    # The arms in paint.rs go with their variants: no change of their own.
    assert [c.id for c in changes_of(plan)] == ["fewer-hues:variant:Hue::Umber", "fewer-hues:variant:Hue::Ochre"]
    result = run_codemod(
        "apply", "--recipe", str(tmp_path / "fewer_hues.toml"), "--skip", "fewer-hues:variant:Hue::Ochre", str(root)
    )
    assert result.exit_code == 0, result.stderr
    paint = (root / "src/paint.rs").read_text()
    assert "Hue::Umber" not in paint and "Hue::Ochre => 2," in paint
    _build(root, tmp_path)


def _build(root: Path, folder: Path) -> None:
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("cargo is not installed: the written tree was checked, not built")
    env = {
        **os.environ,
        "RUSTUP_TOOLCHAIN": os.environ.get("RUSTUP_TOOLCHAIN", "stable"),
        "CARGO_TARGET_DIR": str(folder / "target"),
        "CARGO_TERM_COLOR": "never",
    }
    built = subprocess.run([cargo, "build", "--offline", "-q"], cwd=root, capture_output=True, text=True, env=env)
    assert built.returncode == 0, built.stderr
