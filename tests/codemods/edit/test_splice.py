"""edit/splice.py: deletions that overlap are joined, and an edit whose text a deletion takes
whole goes with it instead of conflicting."""

from __future__ import annotations

from pathlib import Path

from codemods import ItemTarget, PatternRewrite, Recipe, plan_recipe
from codemods.edit.splice import conflicts, joined_deletions, splice
from codemods.edit.values import Edit


def test_an_edit_inside_a_deletion_is_moot_and_one_over_its_edge_still_conflicts() -> None:
    source = b"keep(); fn gone() { rename_me(); } keep();"
    deletion = Edit("a.rs", 8, 35, b"", "t:fn:gone")
    inside = Edit("a.rs", 20, 29, b"renamed", "t:rewrite")
    assert joined_deletions([deletion, inside]) == [deletion]
    across = Edit("a.rs", 30, 40, b"x", "t:rewrite")
    joined = joined_deletions([deletion, across])
    assert conflicts(joined, source) != []
    assert splice(source, joined_deletions([deletion])) == b"keep(); keep();"


def test_a_rename_of_a_deleted_functions_callers_is_no_overlap(tmp_path: Path) -> None:
    (tmp_path / "abacus.py").write_text(
        "from bisect import bisect_left\n\n\ndef tally(beads):\n    return first_bead(beads, 0)\n\n\n"
        "def first_bead(beads, at):\n    return bisect_left(beads, at)\n",
        encoding="utf-8",
    )
    recipe = Recipe(
        id="t",
        summary="",
        deletions=(ItemTarget("abacus.py", "python", "function", "first_bead"),),
        rewrites=(PatternRewrite("abacus.py", "first_bead", "bisect_left"),),
    )
    plan = plan_recipe(tmp_path, recipe)
    assert plan.blocking == []
    assert plan.changes[0].after == (
        b"from bisect import bisect_left\n\n\ndef tally(beads):\n    return bisect_left(beads, 0)\n"
    )
