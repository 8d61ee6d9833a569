"""codemods.testing.assert_recipe, the harness users test their own recipes with: it passes on
a recipe that does what its test says, and fails saying why on each check it makes."""

from __future__ import annotations

import pytest

from codemods import ItemTarget, PatternRewrite, Recipe
from codemods.testing import assert_recipe

LEDGER = """
    pub fn settle(total: u32) -> u32 {
        total
    }

    pub fn settle_legacy(total: u32) -> u32 {
        total + 0
    }
"""

SETTLED = """
    pub fn settle(total: u32) -> u32 {
        total
    }
"""

DROP_LEGACY = Recipe(
    id="drop-legacy-settle", summary="", deletions=(ItemTarget("src/ledger.rs", "rust", "fn", "crate::settle_legacy"),)
)


def test_a_recipe_that_does_what_the_test_says_passes() -> None:
    plan = assert_recipe(LEDGER, DROP_LEGACY, SETTLED, path="src/ledger.rs")
    assert [c.path for c in plan.changes] == ["src/ledger.rs"]


def test_trees_are_mappings_of_paths_and_unchanged_files_count() -> None:
    readme = "The ledger settles totals.\n"
    assert_recipe(
        {"src/ledger.rs": LEDGER, "README.md": readme}, DROP_LEGACY, {"src/ledger.rs": SETTLED, "README.md": readme}
    )


def test_another_result_fails_with_the_diff() -> None:
    with pytest.raises(AssertionError, match=r"(?s)not the expected one.*\+pub fn settle_legacy"):
        assert_recipe(LEDGER, Recipe(id="nothing", summary=""), SETTLED, path="src/ledger.rs")


def test_a_blocking_finding_fails_unless_expected() -> None:
    misspelt = Recipe(
        id="misspelt", summary="", deletions=(ItemTarget("src/ledger.rs", "rust", "fn", "crate::settle_legacyy"),)
    )
    with pytest.raises(AssertionError, match="no item crate::settle_legacyy"):
        assert_recipe(LEDGER, misspelt, LEDGER, path="src/ledger.rs")
    plan = assert_recipe(LEDGER, misspelt, LEDGER, path="src/ledger.rs", blocking=["no-such-item"])
    assert [f.target for f in plan.blocking] == list(misspelt.deletions)
    with pytest.raises(AssertionError, match="expected blocking findings of code dangling-reference"):
        assert_recipe(LEDGER, DROP_LEGACY, SETTLED, path="src/ledger.rs", blocking=["dangling-reference"])


def test_a_recipe_that_is_not_idempotent_fails() -> None:
    doubling = Recipe(
        id="doubling",
        summary="",
        rewrites=(PatternRewrite("src/ledger.rs", pattern="total + 0", replace="total + 0 + 0"),),
    )
    doubled = LEDGER.replace("total + 0", "total + 0 + 0")
    with pytest.raises(AssertionError, match="not idempotent"):
        assert_recipe(LEDGER, doubling, doubled, path="src/ledger.rs")


def test_a_text_without_a_path_is_refused() -> None:
    from codemods import CodemodError

    with pytest.raises(CodemodError, match="give its path"):
        assert_recipe(LEDGER, DROP_LEGACY, SETTLED)
