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


def test_unused_imports_keep_leaves_what_the_plan_unuses_and_still_takes_a_deleted_name(tmp_path: Path) -> None:
    """`unused_imports = "keep"`: the entry the deletion leaves used by nothing (`VecDeque`) stays,
    the one naming the deleted item (`Hopper`) goes all the same; the default removes both."""
    stones = "pub struct Quern;\npub struct Hopper;\n"
    grind = (
        "use std::collections::{BTreeSet, VecDeque};\n"
        "use crate::stones::{Hopper, Quern};\n\n"
        "pub fn queue() -> VecDeque<u8> {\n    VecDeque::new()\n}\n\n"
        "pub fn sorted() -> BTreeSet<u8> {\n    BTreeSet::new()\n}\n\n"
        "pub fn stone() -> Quern {\n    Quern\n}\n"
    )
    files = {
        "Cargo.toml": CARGO,
        "src/lib.rs": "pub mod grind;\npub mod stones;\n",
        "src/stones.rs": stones,
        "src/grind.rs": grind,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    deletions = (
        ItemTarget("src/grind.rs", "rust", "fn", "queue"),
        ItemTarget("src/stones.rs", "rust", "struct", "Hopper"),
    )

    def grind_after(unused_imports: str) -> str:
        plan = plan_recipe(tmp_path, Recipe(id="t", summary="", deletions=deletions, unused_imports=unused_imports))
        assert plan.blocking == [], [f.render() for f in plan.blocking]
        return next(c for c in plan.changes if c.path == "src/grind.rs").after.decode()

    kept = grind_after("keep")
    assert kept.startswith("use std::collections::{BTreeSet, VecDeque};\nuse crate::stones::Quern;\n")
    assert "fn queue" not in kept
    removed = grind_after("remove")
    assert removed.startswith("use std::collections::BTreeSet;\nuse crate::stones::Quern;\n")


def test_unused_imports_takes_remove_or_keep_only(tmp_path: Path) -> None:
    from codemods import load_recipe
    from codemods.edit.errors import CodemodError

    recipe = tmp_path / "r.toml"
    recipe.write_text('id = "r"\nunused_imports = "keep"\n')
    assert load_recipe(str(recipe)).unused_imports == "keep"
    recipe.write_text('id = "r"\nunused_imports = "drop"\n')
    try:
        load_recipe(str(recipe))
    except CodemodError as error:
        assert "unused_imports must be one of 'remove', 'keep', not 'drop'" in str(error)
    else:
        raise AssertionError("an unknown unused_imports value was taken")
