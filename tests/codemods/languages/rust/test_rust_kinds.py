"""The Rust kinds beyond whole items, planned on small crates: enum variants with their match
arms, struct fields, `use` entries, attributes, a module with its file; and what a plan does
around them: imports it leaves unused go, files rustfmt kept clean stay clean, a comment block
goes by `block = true`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codemods import Code, ItemTarget, PatternRewrite, Recipe, Rewording, apply_recipe, plan_recipe
from codemods.testing import assert_recipe
from codemods.write import journal

from resolve_helpers import write_tree

CARGO = '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n'


def _recipe(*targets: tuple[str, str, str], rewordings=()) -> Recipe:
    return Recipe(
        id="t",
        summary="",
        deletions=tuple(ItemTarget(p, "rust", k, n) for p, k, n in targets),
        rewordings=tuple(rewordings),
    )


def _plan(root: Path, *targets: tuple[str, str, str], rewordings=()):
    return plan_recipe(root, _recipe(*targets, rewordings=rewordings))


def _after(plan, path: str) -> str:
    """The planned text of `path`."""
    return next(c.after.decode() for c in plan.changes if c.path == path)


def test_a_variant_goes_with_the_match_arms_and_alternatives_naming_only_it() -> None:
    assert_recipe(
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub enum Error {
            Io,
            /// Gone soon.
            Disk(String),
            Utf8,
        }

        impl Error {
            pub fn describe(&self) -> &str {
                match self {
                    Error::Io => "io",
                    Self::Disk(_) => "disk",
                    Error::Utf8 | Error::Disk(..) => "utf8",
                }
            }
        }
    """,
        },
        _recipe(("src/lib.rs", "variant", "crate::Error::Disk")),
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub enum Error {
            Io,
            Utf8,
        }

        impl Error {
            pub fn describe(&self) -> &str {
                match self {
                    Error::Io => "io",
                    Error::Utf8 => "utf8",
                }
            }
        }
    """,
        },
    )


@pytest.mark.parametrize("imported", ["use self::Mood::*;", "use crate::Mood::{Calm, Gloomy};", "use Mood::Gloomy;"])
def test_a_variant_imported_by_a_use_goes_with_the_arms_naming_it_bare(tmp_path: Path, imported) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": f"""
        pub enum Mood {{
            Calm,
            Gloomy(u8),
        }}

        pub fn tone(mood: &Mood) -> u8 {{
            {imported}
            match mood {{
                Calm => 0,
                Gloomy(depth) => *depth,
            }}
        }}
    """,
        },
    )
    plan = _plan(tmp_path, ("src/lib.rs", "variant", "crate::Mood::Gloomy"))
    assert not plan.blocking, [f.render() for f in plan.blocking]
    assert "Gloomy(depth)" not in _after(plan, "src/lib.rs")
    assert "Calm => 0," in _after(plan, "src/lib.rs")


def test_a_bare_arm_of_the_variants_name_without_its_import_is_a_binding_and_stays(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub enum Mood { Calm, Gloomy }

        pub fn tone(level: u8) -> u8 {
            match level {
                0 => 0,
                Gloomy => Gloomy,
            }
        }
    """,
        },
    )
    plan = _plan(tmp_path, ("src/lib.rs", "variant", "crate::Mood::Gloomy"))
    assert "Gloomy => Gloomy," in _after(plan, "src/lib.rs")


def test_a_variant_still_constructed_blocks(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub enum Error { Io, Disk }
        pub fn make() -> Error { Error::Disk }
    """,
        },
    )
    plan = _plan(tmp_path, ("src/lib.rs", "variant", "crate::Error::Disk"))
    assert [(f.line, f.symbol) for f in plan.blocking] == [(2, "Disk")]


def test_a_field_is_refused_while_it_is_read_or_initialised(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub struct Args {
            pub overlapping: bool,
            pub quiet: bool,
        }
        pub fn new() -> Args { Args { overlapping: false, quiet: true } }
        pub fn quiet(a: &Args) -> bool { a.quiet }
    """,
        },
    )
    refused = _plan(tmp_path, ("src/lib.rs", "field", "crate::Args::quiet"))
    assert [(f.code, f.line) for f in refused.blocking] == [("dangling-reference", 5), ("dangling-reference", 6)]
    plan = _plan(tmp_path, ("src/lib.rs", "field", "crate::Args::overlapping"))
    assert [f.line for f in plan.blocking] == [5]


def test_a_use_entry_and_an_attribute() -> None:
    assert_recipe(
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        #![feature(unicode)]
        #![allow(dead_code)]
        use std::io::{Read, Write};

        pub fn f() {}
    """,
        },
        _recipe(("src/lib.rs", "use", "std::io::Write"), ("src/lib.rs", "attribute", "feature(unicode)")),
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        #![allow(dead_code)]
        use std::io::Read;

        pub fn f() {}
    """,
        },
    )


def test_several_use_entries_of_one_declaration_go_in_one_edit() -> None:
    # Each entry alone would reshape the same `{...}` list: the plan joins them, whatever the
    # order the recipe names them in, and the entries an import is still used by stay.
    assert_recipe(
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        use std::collections::{BTreeMap, HashSet, VecDeque, BinaryHeap};
        use std::io::Write;

        pub fn depth(q: &VecDeque<u8>) -> usize { q.len() }
    """,
        },
        _recipe(
            ("src/lib.rs", "use", "std::collections::BinaryHeap"),
            ("src/lib.rs", "use", "std::io::Write"),
            ("src/lib.rs", "use", "std::collections::BTreeMap"),
            ("src/lib.rs", "use", "std::collections::HashSet"),
        ),
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        use std::collections::VecDeque;

        pub fn depth(q: &VecDeque<u8>) -> usize { q.len() }
    """,
        },
    )


def test_imports_left_unused_go_and_used_ones_stay() -> None:
    args = """
        pub trait Configurable {}
        pub struct Usage;
        pub fn usage() -> Usage { Usage }
    """
    assert_recipe(
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        mod args;
        use crate::args::{self, Configurable, Usage};
        use std::fmt::Write;

        pub struct Args;
        impl Configurable for Args {}
        pub fn usage() -> Usage { args::usage() }
    """,
            "src/args.rs": args,
        },
        _recipe(("src/lib.rs", "struct", "crate::Args")),
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        mod args;
        use crate::args::{self, Usage};
        use std::fmt::Write;

        pub fn usage() -> Usage { args::usage() }
    """,
            "src/args.rs": args,
        },
    )


def test_an_import_still_used_stays_in_a_file_that_opens_with_blank_lines(tmp_path: Path) -> None:
    # tree-sitter's root node starts at the first token: uses are counted from there.
    (tmp_path / "src").mkdir()
    (tmp_path / "Cargo.toml").write_text(CARGO)
    (tmp_path / "src" / "lib.rs").write_text("pub mod tide;\npub mod shore;\n")
    (tmp_path / "src" / "tide.rs").write_text("pub struct Ebb;\npub struct Flow;\n")
    shore = "\n\nuse crate::tide::{Ebb, Flow};\n\npub fn rising() -> Flow {\n    Flow\n}\n\npub fn low() -> Option<Ebb> {\n    None\n}\n"
    (tmp_path / "src" / "shore.rs").write_text(shore)
    plan = plan_recipe(tmp_path, _recipe(("src/tide.rs", "struct", "Ebb")))
    assert [c.path for c in plan.changes] == ["src/tide.rs"]  # shore.rs keeps `Ebb` imported
    assert sorted((f.path, f.line) for f in plan.blocking) == [("src/shore.rs", 3), ("src/shore.rs", 9)]


def test_a_module_goes_with_its_file_in_the_same_write(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub mod net;
        pub mod util;

        pub use self::util::Socket;
    """,
            "src/util.rs": """
        mod inner;
        pub trait Socket {}
    """,
            "src/util/inner.rs": """
        pub fn helper() {}
    """,
            "src/net.rs": """
        use crate::{util::Socket, util::inner};
        pub struct Tcp;
    """,
        },
    )
    run = apply_recipe(
        tmp_path, Recipe(id="t", summary="", deletions=(ItemTarget("src/lib.rs", "rust", "mod", "crate::util"),))
    )
    assert run.written, run.plan.findings
    assert not (tmp_path / "src/util.rs").exists() and not (tmp_path / "src/util/inner.rs").exists()
    assert (tmp_path / "src/lib.rs").read_text() == "pub mod net;\n"
    assert (tmp_path / "src/net.rs").read_text() == "pub struct Tcp;\n"
    assert not journal.journal_present(tmp_path)


def test_an_interrupted_write_that_deleted_a_file_is_rolled_back(tmp_path: Path, monkeypatch) -> None:
    write_tree(
        tmp_path,
        {"Cargo.toml": CARGO, "src/lib.rs": "pub mod util;\npub fn f() {}\n", "src/util.rs": "pub fn g() {}\n"},
    )
    plan = _plan(tmp_path, ("src/lib.rs", "mod", "crate::util"))
    from codemods.write import atomic

    calls = []
    real_replace = atomic._replace

    def dies_after_the_first(target):
        if calls:
            raise KeyboardInterrupt
        calls.append(target)
        real_replace(target)

    monkeypatch.setattr(atomic, "_replace", dies_after_the_first)
    with pytest.raises(KeyboardInterrupt):
        atomic.write_changes(tmp_path, list(plan.changes))
    assert (tmp_path / "src/util.rs").read_text() == "pub fn g() {}\n"
    assert (tmp_path / "src/lib.rs").read_text() == "pub mod util;\npub fn f() {}\n"


def test_a_journaled_deletion_is_recovered_after_a_crash(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Cargo.toml": CARGO, "src/lib.rs": "pub mod util;\n", "src/util.rs": "pub fn g() {}\n"})
    plan = _plan(tmp_path, ("src/lib.rs", "mod", "crate::util"))
    deleted = next(c for c in plan.changes if c.deleted)
    journal.begin(
        tmp_path,
        [
            (
                journal.JournalEntry(deleted.path, 0o644, deleted.before_digest, deleted.after_digest, True),
                deleted.before,
            )
        ],
    )
    (tmp_path / "src/util.rs").unlink()  # the run died right after deleting the file
    assert journal.recover(tmp_path).action == "completed"
    assert not journal.journal_present(tmp_path)


def test_a_comment_block_goes_by_a_phrase_of_it() -> None:
    assert_recipe(
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub struct S;

        impl S {
            pub fn a(&self) {}

            // pub fn old(&self) {
            //     todo!()
            // }

            pub fn b(&self) {}
        }
    """,
        },
        _recipe(rewordings=[Rewording("src/lib.rs", find="pub fn old", replace="", item="crate::S", block=True)]),
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub struct S;

        impl S {
            pub fn a(&self) {}

            pub fn b(&self) {}
        }
    """,
        },
    )


@pytest.mark.skipif(shutil.which("rustfmt") is None, reason="rustfmt is not installed")
def test_a_file_rustfmt_kept_clean_is_formatted_after_the_plan() -> None:
    assert_recipe(
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        use std::io::{Read, Write};

        pub fn f<R: Read>(r: R) -> R {
            r
        }

        pub fn g<W: Write>(w: W) -> W {
            w
        }
    """,
            "src/messy.rs": "use std::io::{Read,   Write};\npub fn g<W: Write>(w: W) -> W { w }\n"
            "pub fn f<R: Read>(r: R) -> R { r }\n",
        },
        _recipe(("src/lib.rs", "fn", "crate::g"), ("src/messy.rs", "fn", "crate::g")),
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        use std::io::Read;

        pub fn f<R: Read>(r: R) -> R {
            r
        }
    """,
            "src/messy.rs": "use std::io::Read;\npub fn f<R: Read>(r: R) -> R { r }\n",
        },
    )


def test_a_trait_method_goes_with_its_impls_in_other_files() -> None:
    assert_recipe(
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        mod float;
        pub trait Float {
            fn is_sign_positive(self) -> bool;
            fn is_sign_negative(self) -> bool;
        }
        impl Float for f64 {
            fn is_sign_positive(self) -> bool { true }
            fn is_sign_negative(self) -> bool { false }
        }
    """,
            "src/float.rs": """
        use crate::Float;
        impl Float for f32 {
            fn is_sign_positive(self) -> bool { true }

            #[inline]
            fn is_sign_negative(self) -> bool { false }
        }
    """,
        },
        _recipe(("src/lib.rs", "trait_method", "crate::Float::is_sign_negative")),
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        mod float;
        pub trait Float {
            fn is_sign_positive(self) -> bool;
        }
        impl Float for f64 {
            fn is_sign_positive(self) -> bool { true }
        }
    """,
            "src/float.rs": """
        use crate::Float;
        impl Float for f32 {
            fn is_sign_positive(self) -> bool { true }
        }
    """,
        },
    )


def test_insert_a_comment_before_an_item_and_after_each_match() -> None:
    from codemods import Insertion

    before = {
        "Cargo.toml": CARGO,
        "src/lib.rs": """
        /// Docs.
        pub fn pooled() -> u32 {
            let x = frob(1);
            x
        }
        fn frob(n: u32) -> u32 { n }
    """,
    }
    recipe = Recipe(
        id="t",
        summary="",
        insertions=(
            Insertion("src/lib.rs", "// The only route.", item="crate::pooled"),
            Insertion("src/lib.rs", "// frob is cheap", pattern="let $X = frob($$$A);", position="after"),
        ),
    )
    after = {
        "Cargo.toml": CARGO,
        "src/lib.rs": """
        // The only route.
        /// Docs.
        pub fn pooled() -> u32 {
            let x = frob(1);
            // frob is cheap
            x
        }
        fn frob(n: u32) -> u32 { n }
    """,
    }
    assert_recipe(before, recipe, after)
    again = assert_recipe(after, recipe, after)
    assert {f.code for f in again.findings} == {"insert-present"}
    assert_recipe(
        after,
        Recipe(id="t", summary="", insertions=(Insertion("src/lib.rs", "// x", item="crate::absent"),)),
        after,
        blocking=(Code.INSERT_NOT_FOUND,),
    )


def test_reword_the_content_of_string_literals() -> None:
    before = {
        "Cargo.toml": CARGO,
        "src/lib.rs": """
        // the dense fallback
        pub fn f() -> &'static str { "uses the dense fallback" }
        pub fn g() -> &'static str { "the dense fallback again" }
    """,
    }
    rule = Rewording("src/lib.rs", find="dense fallback", replace="dense reference", item="crate::f", strings=True)
    assert_recipe(
        before,
        _recipe(rewordings=[rule]),
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        // the dense fallback
        pub fn f() -> &'static str { "uses the dense reference" }
        pub fn g() -> &'static str { "the dense fallback again" }
    """,
        },
    )
    assert_recipe(
        before,
        _recipe(rewordings=[Rewording("src/lib.rs", find="absent", replace="x", strings=True)]),
        before,
        blocking=(Code.REWORDING_NOT_FOUND,),
    )


def test_a_variant_goes_with_the_arms_of_other_files() -> None:
    assert_recipe(
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub mod show;
        pub enum Error {
            Io,
            Disk,
        }
    """,
            "src/show.rs": """
        use crate::Error;
        pub fn show(e: &Error) -> u8 {
            match e {
                Error::Io => 1,
                crate::Error::Disk => 2,
            }
        }
    """,
        },
        _recipe(("src/lib.rs", "variant", "crate::Error::Disk")),
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub mod show;
        pub enum Error {
            Io,
        }
    """,
            "src/show.rs": """
        use crate::Error;
        pub fn show(e: &Error) -> u8 {
            match e {
                Error::Io => 1,
            }
        }
    """,
        },
    )


def test_a_field_initialised_in_another_file_blocks_and_an_access_is_listed(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub mod make;
        pub struct Args { pub quiet: bool, pub loud: bool }
    """,
            "src/make.rs": """
        use crate::Args;
        pub fn new() -> Args { Args { quiet: true, loud: false } }
        pub fn quiet(a: &Args) -> bool { a.quiet }
    """,
        },
    )
    plan = _plan(tmp_path, ("src/lib.rs", "field", "crate::Args::quiet"))
    assert [(f.path, f.line, f.blocking) for f in plan.findings if f.code == "dangling-reference"] == [
        ("src/make.rs", 2, True),
        ("src/make.rs", 3, False),
    ]


def test_a_use_entry_whose_name_is_still_used_blocks(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        use std::io::{Read, Write};
        pub fn f<W: Write>(w: W) -> W { w }
    """,
        },
    )
    plan = _plan(tmp_path, ("src/lib.rs", "use", "std::io::Write"))
    # Said at the use that is left (the line to fix), naming the import's line.
    assert [(f.code, f.line, f.col) for f in plan.blocking] == [("import-still-used", 2, 13)]
    assert "deletes its import (line 1)" in plan.blocking[0].message


def test_a_use_entry_whose_last_use_a_rewrite_takes_is_no_finding(tmp_path: Path) -> None:
    # The deletion alone leaves `Lantern` used (inside a macro's tokens, which no path resolves);
    # the recipe's rewrite takes that use away: the file as the whole plan leaves it decides.
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/glow.rs": "pub struct Lantern;\npub struct Wick;\n",
            "src/lib.rs": """
        pub mod glow;
        use glow::{Lantern, Wick};
        macro_rules! lit { () => { Lantern } }
        pub fn wick() -> Wick { Wick }
    """,
        },
    )
    deletion = ItemTarget("src/lib.rs", "rust", "use", "glow::Lantern")
    rewrite = PatternRewrite(
        "src/lib.rs", "macro_rules! lit { () => { Lantern } }", "macro_rules! lit { () => { () } }"
    )
    blocked = plan_recipe(tmp_path, Recipe(id="t", summary="", deletions=(deletion,)))
    assert [f.code for f in blocked.blocking] == ["import-still-used"]
    plan = plan_recipe(tmp_path, Recipe(id="t", summary="", deletions=(deletion,), rewrites=(rewrite,)))
    assert not plan.findings, [f.render() for f in plan.findings]
    assert "use glow::Wick;" in _after(plan, "src/lib.rs")
    # A rewrite that keeps the use keeps the finding.
    kept = PatternRewrite("src/lib.rs", "pub fn wick() -> Wick { Wick }", "pub fn wick() -> Wick { Wick {} }")
    plan = plan_recipe(tmp_path, Recipe(id="t", summary="", deletions=(deletion,), rewrites=(kept,)))
    assert [f.code for f in plan.blocking] == ["import-still-used"]


@pytest.mark.parametrize(
    ("edition", "extra", "blocks"),
    [
        ("2024", "", False),  # the 2024 prelude brings `Future`
        ("2021", "", True),  # the 2021 one does not
        ("2024", "use helpers::*;\n", True),  # a glob import would shadow the prelude
    ],
)
def test_a_deleted_import_of_a_prelude_item_leaves_its_uses_to_the_prelude(
    tmp_path: Path, edition: str, extra: str, blocks: bool
) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO.replace("2021", edition),
            "src/lib.rs": "pub mod helpers { pub fn one() -> u8 { 1 } }\n"
            + extra
            + "use std::future::Future;\n"
            + "pub fn ready() -> impl Future<Output = u8> { async { helpers::one() } }\n",
        },
    )
    plan = _plan(tmp_path, ("src/lib.rs", "use", "std::future::Future"))
    assert [f.code for f in plan.blocking] == (["import-still-used"] if blocks else [])


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("src/meter/mod.rs", "crate::meter::tests"),
        ("src/meter/dial.rs", "crate::meter::dial::tests"),
        ("src/meter/dial.rs", "crate::tests"),
    ],
)
def test_an_item_is_named_by_its_crate_path_or_its_files_top_level(tmp_path: Path, path, name) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": "pub mod meter;\n",
            "src/meter/mod.rs": "pub mod dial;\n\n#[cfg(test)]\nmod tests {}\n",
            "src/meter/dial.rs": "pub fn read() -> u8 { 3 }\n\n#[cfg(test)]\nmod tests {}\n",
        },
    )
    plan = _plan(tmp_path, (path, "mod", name))
    assert not plan.findings, [f.render() for f in plan.findings]
    assert "mod tests" not in _after(plan, path)


def test_a_crate_path_through_an_inline_module_of_the_files_name_is_that_module(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": "pub mod meter;\n",
            "src/meter.rs": "pub fn probe() {}\n\npub mod meter {\n    pub fn probe() {}\n}\n",
        },
    )
    plan = _plan(tmp_path, ("src/meter.rs", "fn", "crate::meter::probe"))
    assert _after(plan, "src/meter.rs") == "pub fn probe() {}\n\npub mod meter {}\n"


def test_a_member_sharing_its_line_keeps_one_separator_between_its_neighbours() -> None:
    # Written on one line, as rustfmt would not: the file is left as edited, so the edit's own
    # spacing is what is written.
    before = """
        pub enum Tide { Neap, Spring, Ebb }
        pub enum Wind { Gale }
        pub struct Buoy { lat: f32, lon: f32 }
        pub fn height(t: Tide) -> u8 { match t { Tide::Neap => 1, Tide::Spring => 2, Tide::Ebb => 3 } }
        pub fn last(t: Tide) -> u8 { match t { Tide::Neap => {} Tide::Ebb => {} _ => {} } 0 }
    """
    after = """
        pub enum Tide { Neap, Spring }
        pub enum Wind {}
        pub struct Buoy { lat: f32 }
        pub fn height(t: Tide) -> u8 { match t { Tide::Neap => 1, Tide::Spring => 2 } }
        pub fn last(t: Tide) -> u8 { match t { Tide::Neap => {} _ => {} } 0 }
    """
    assert_recipe(
        {"Cargo.toml": CARGO, "src/lib.rs": before},
        _recipe(
            ("src/lib.rs", "variant", "Tide::Ebb"),
            ("src/lib.rs", "variant", "Wind::Gale"),
            ("src/lib.rs", "field", "Buoy::lon"),
        ),
        {"Cargo.toml": CARGO, "src/lib.rs": after},
    )
    between = """
        pub enum Tide { Neap, Ebb, Spring }
        pub fn height(t: Tide) -> u8 { match t { Tide::Neap => 1, Tide::Ebb => 3, Tide::Spring => 2 } }
    """
    assert_recipe(
        {"Cargo.toml": CARGO, "src/lib.rs": between},
        _recipe(("src/lib.rs", "variant", "Tide::Ebb")),
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub enum Tide { Neap, Spring }
        pub fn height(t: Tide) -> u8 { match t { Tide::Neap => 1, Tide::Spring => 2 } }
    """,
        },
    )


def test_an_import_whose_name_is_spelt_only_behind_another_path_goes() -> None:
    # `fmt::Result` is not a use of the `Result` this file imports: once `tally` goes, nothing is.
    assert_recipe(
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        use std::fmt;
        use std::io::Result;

        pub fn show(f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "abacus") }

        pub fn tally() -> Result<u8> { Ok(1) }
    """,
        },
        _recipe(("src/lib.rs", "fn", "crate::tally")),
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        use std::fmt;

        pub fn show(f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "abacus") }
    """,
        },
    )
