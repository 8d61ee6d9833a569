"""A rewrite rule that matches nothing in a file as read applies to the file as the deletions
leave it: an emptied trait, a shortened list. Its change goes on the bytes it came from, the
deletions stay whole; a change of text the engine wrote (the `pass` of an emptied class) is no
place for it."""

from __future__ import annotations

from pathlib import Path

from codemods import ItemTarget, PatternRewrite, Recipe, plan_recipe
from codemods.edit.splice import edit_through, splice
from codemods.edit.values import Edit

from resolve_helpers import write_tree

CARGO = '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n'


def test_an_edit_of_the_deleted_text_goes_on_the_bytes_it_came_from() -> None:
    original = b"alpha beta gamma delta"
    prior = [Edit("f", 6, 11, b"", "d")]  # "beta " goes
    edited = splice(original, prior)
    assert edited == b"alpha gamma delta"
    # "alpha gamma" -> "alpha omega": only "gamm" -> "omeg" changes, on the original's bytes 11..15.
    placed = edit_through(original, prior, Edit("f", 0, 11, b"alpha omega", "r"))
    assert placed is not None and splice(original, prior + placed) == b"alpha omega delta"
    assert [(e.start, e.end) for e in placed] == [(11, 15)]
    # A change spanning the deletion: the deletion stays its own, the change is split around it.
    placed = edit_through(original, prior, Edit("f", 0, 11, b"one", "r"))
    assert placed is not None and splice(original, prior + placed) == b"one delta"
    # A change of text a prior edit wrote is refused.
    wrote = [Edit("f", 6, 11, b"BETA ", "d")]
    assert edit_through(original, wrote, Edit("f", 6, 10, b"beta", "r")) is None


def test_a_trait_emptied_by_a_deletion_is_rewritten_as_the_deletion_leaves_it(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub trait Chime: Send {
            fn ring(&self);
        }

        pub struct Bell;
    """,
        },
    )
    recipe = Recipe(
        id="t",
        summary="",
        deletions=(ItemTarget("src/lib.rs", "rust", "trait_method", "crate::Chime::ring"),),
        rewrites=(PatternRewrite("src/lib.rs", "pub trait Chime: Send {}", "pub trait Chime: Send + Sync {}"),),
    )
    plan = plan_recipe(tmp_path, recipe)
    assert not plan.findings, [f.render() for f in plan.findings]
    after = next(c.after.decode() for c in plan.changes if c.path == "src/lib.rs")
    assert "pub trait Chime: Send + Sync {" in after and "ring" not in after


def test_a_rewrite_of_what_the_engine_wrote_finds_no_place(tmp_path: Path) -> None:
    (tmp_path / "lamp.py").write_text("class Lamp:\n    def glow(self):\n        return 1\n")
    recipe = Recipe(
        id="t",
        summary="",
        deletions=(ItemTarget("lamp.py", "python", "function", "Lamp.glow"),),
        rewrites=(PatternRewrite("lamp.py", "class Lamp:\n    pass", 'class Lamp:\n    """Dark."""'),),
    )
    plan = plan_recipe(tmp_path, recipe)
    assert [f.code for f in plan.blocking] == ["rewrite-not-found"]


def test_a_match_across_a_deletion_is_taken_from_the_file_as_the_deletion_leaves_it(tmp_path: Path) -> None:
    # The rule matches the whole function as read, around the statement the recipe deletes: on
    # the file as the deletion leaves it, its change (the function's name) misses the statement.
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub fn tally(n: u8) -> u8 {
            println!("counting");
            n + 1
        }
    """,
        },
    )
    recipe = Recipe(
        id="t",
        summary="",
        deletions=(ItemTarget("src/lib.rs", "rust", "macro_call", 'println!("counting")'),),
        rewrites=(
            PatternRewrite("src/lib.rs", "pub fn tally($$$P) -> u8 { $$$S }", "pub fn total($$$P) -> u8 { $$$S }"),
        ),
    )
    plan = plan_recipe(tmp_path, recipe)
    assert not plan.findings, [f.render() for f in plan.findings]
    after = next(c.after.decode() for c in plan.changes if c.path == "src/lib.rs")
    assert "pub fn total(n: u8) -> u8 {" in after and "counting" not in after
