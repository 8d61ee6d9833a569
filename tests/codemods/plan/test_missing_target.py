"""A `[[delete]]` target that is not found gives one finding, with a place (issue 37, point 10).

A misspelt target deletes nothing, so the item it meant is still there; its definition and
uses named by the dead-symbol pattern used to be reported as "code still names a removed
symbol" beside the `no-such-item` finding, and a finding without a closest name had no line.
"""

from __future__ import annotations

from pathlib import Path

from codemods import Code, ItemTarget, Recipe, plan_recipe
from codemod_helpers import dedent_text

FILES = {
    "src/lib.rs": """
        mod ledger;

        pub use ledger::tally_coins;

        /// Counts with tally_coins.
        pub fn total() -> u32 {
            tally_coins() + 1
        }
    """,
    "src/ledger.rs": """
        /// Adds the coins up.
        pub fn tally_coins() -> u32 {
            7
        }

        pub struct Purse {
            pub coins: u32,
        }
    """,
    "tools/audit.py": """
        import os


        def sum_receipts(paths):
            return len(paths)
    """,
}


def _tree(tmp_path: Path) -> Path:
    for path, text in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(dedent_text(text))
    return tmp_path


def _plan(tmp_path: Path, target: ItemTarget, pattern: str) -> list[str]:
    recipe = Recipe(id="ledger-cleanup", summary="", deletions=(target,), dead_symbol_pattern=pattern)
    plan = plan_recipe(_tree(tmp_path), recipe)
    assert plan.changes == ()
    return [f.render() for f in plan.findings]


def test_a_misspelt_rust_target_is_one_finding_at_the_item_it_meant(tmp_path: Path) -> None:
    assert _plan(tmp_path, ItemTarget("src/ledger.rs", "rust", "fn", "tally_coin"), "tally_coins") == [
        "src/ledger.rs:2:1: no item tally_coin of kind fn in src/ledger.rs; did you mean tally_coins?"
    ]


def test_a_misspelt_python_target_lies_at_the_definition_it_meant(tmp_path: Path) -> None:
    assert _plan(tmp_path, ItemTarget("tools/audit.py", "python", "function", "sum_receipt"), "sum_receipts") == [
        "tools/audit.py:4:5: no item sum_receipt of kind function in tools/audit.py; did you mean sum_receipts?"
    ]


def test_a_target_with_no_closest_name_lies_at_the_files_first_line(tmp_path: Path) -> None:
    findings = plan_recipe(
        _tree(tmp_path),
        Recipe(
            id="r",
            summary="",
            deletions=(
                ItemTarget("src/ledger.rs", "rust", "field", "Purse::bills"),
                ItemTarget("src/ledger.rs", "rust", "fn", "zzz"),
            ),
        ),
    ).findings
    assert [(f.code, f.line, f.col) for f in findings] == [(Code.NO_SUCH_ITEM, 1, 1)] * 2


def test_a_name_the_plan_does_delete_keeps_its_mentions(tmp_path: Path) -> None:
    """A missing target whose closest name another target deletes hides nothing: that name's
    uses are dangling, its mentions unreworded."""
    recipe = Recipe(
        id="ledger-cleanup",
        summary="",
        dead_symbol_pattern="tally_coins",
        deletions=(
            ItemTarget("src/ledger.rs", "rust", "fn", "tally_coins"),
            ItemTarget("src/ledger.rs", "rust", "fn", "tally_coin"),
        ),
    )
    findings = {(f.code, f.path, f.line) for f in plan_recipe(_tree(tmp_path), recipe).blocking}
    assert findings == {
        (Code.NO_SUCH_ITEM, "src/ledger.rs", 2),
        (Code.DANGLING_REFERENCE, "src/lib.rs", 3),
        (Code.DANGLING_REFERENCE, "src/lib.rs", 7),
        (Code.UNREWORDED_MENTION, "src/lib.rs", 5),
    }
