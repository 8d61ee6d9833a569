"""The `use` entries a Rust plan leaves unused: a trait the tree declares is used by calls of its
methods (its name never spelt), so its import stays where the file still calls one; an entry
taken from the end of a line of a `{...}` list leaves no blanks behind."""

from __future__ import annotations

from pathlib import Path

from codemods import ItemTarget, Recipe, plan_recipe

CARGO = '[package]\nname = "mill"\nversion = "0.1.0"\nedition = "2021"\n'
LEDGER = (
    "pub trait Ledger {\n    fn tally(&self) -> u32;\n}\n\npub struct Sack;\n\n"
    "impl Ledger for Sack {\n    fn tally(&self) -> u32 {\n        3\n    }\n}\n"
)


def _after(root: Path, files: dict[str, str], target: ItemTarget, path: str) -> str:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    plan = plan_recipe(root, Recipe(id="t", summary="", deletions=(target,)))
    assert plan.blocking == [], [f.render() for f in plan.blocking]
    change = next(c for c in plan.changes if c.path == path)
    return change.after.decode()


def test_a_trait_import_stays_while_the_file_calls_its_methods(tmp_path: Path) -> None:
    grind = (
        "use crate::ledger::{Ledger, Sack};\n\n"
        "pub fn weigh<L: Ledger>(l: &L) -> u32 {\n    l.tally()\n}\n\n"
        "pub fn count() -> u32 {\n    Sack.tally()\n}\n"
    )
    files = {"Cargo.toml": CARGO, "src/lib.rs": "pub mod grind;\npub mod ledger;\n", "src/ledger.rs": LEDGER}
    after = _after(
        tmp_path, {**files, "src/grind.rs": grind}, ItemTarget("src/grind.rs", "rust", "fn", "weigh"), "src/grind.rs"
    )
    assert after.startswith("use crate::ledger::{Ledger, Sack};\n")
    quiet = grind.replace("    Sack.tally()\n", "    let _ = Sack;\n    0\n")
    after = _after(
        tmp_path / "quiet",
        {**files, "src/grind.rs": quiet},
        ItemTarget("src/grind.rs", "rust", "fn", "weigh"),
        "src/grind.rs",
    )
    assert after.startswith("use crate::ledger::Sack;\n")


def test_an_entry_taken_from_the_end_of_a_line_leaves_no_trailing_blank(tmp_path: Path) -> None:
    stones = "pub struct Quern;\npub struct Millstone;\npub struct Hopper;\npub struct Chute;\n"
    grind = (
        "use crate::stones::{\n    Chute, Hopper, Millstone, Quern,\n};\n\n"
        "pub fn load() -> (Hopper, Millstone) {\n    (Hopper, Millstone)\n}\n\n"
        "pub fn spill() -> (Chute, Quern) {\n    (Chute, Quern)\n}\n"
    )
    files = {"Cargo.toml": CARGO, "src/lib.rs": "pub mod grind;\npub mod stones;\n", "src/stones.rs": stones}
    after = _after(
        tmp_path, {**files, "src/grind.rs": grind}, ItemTarget("src/grind.rs", "rust", "fn", "spill"), "src/grind.rs"
    )
    assert after.startswith("use crate::stones::{\n    Hopper, Millstone,\n};\n")
