"""The dangling-reference check resolves Rust names: one test per rule, on small crates.

Each tree is written from a dict of files, its expectations are markers in
the sources (see tests/resolve_helpers.py).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from click.testing import CliRunner

from codemods.plan.planner import plan_recipe
from codemods.plan.references import DANGLING
from codemods.cli.main import main
from codemods import ItemTarget, Recipe

from resolve_helpers import expected, write_tree

CARGO = """
[package]
name = "{name}"
version = "0.1.0"
edition = "2021"
{extra}
"""


def package(name: str, extra: str = "") -> str:
    return CARGO.format(name=name, extra=extra)


def found(root: Path, path: str, kind: str, name: str, **options) -> dict[tuple[str, int], str]:
    plan = plan_recipe(root, Recipe(id="t", summary="", deletions=(ItemTarget(path, "rust", kind, name),)), **options)
    assert not [f for f in plan.findings if f.code not in (DANGLING,)], plan.findings
    return {(f.path, f.line): f.certainty for f in plan.findings if f.code == DANGLING}


def check(tmp_path: Path, files: dict[str, str], path: str, name: str, kind: str = "fn") -> None:
    write_tree(tmp_path, files)
    assert found(tmp_path, path, kind, name) == expected(tmp_path)


def test_a_twin_in_another_module_is_not_a_reference(tmp_path):
    check(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            mod a;
            mod b;
        """,
            "src/a.rs": """
            fn helper() -> u32 { 1 }
            pub fn run() -> u32 { helper() } // REF
        """,
            "src/b.rs": """
            fn helper() -> u32 { 2 }
            pub fn run() -> u32 { helper() + self::helper() }
        """,
        },
        "src/a.rs",
        "helper",
    )


def test_another_crate_sees_an_item_only_through_its_crate_name_or_a_reexport(tmp_path):
    check(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["core", "app"]\n',
            "core/Cargo.toml": package("core"),
            "core/src/lib.rs": """
            pub mod layers;
            pub use layers::frob as frob_again; // REF
        """,
            "core/src/layers.rs": """
            pub fn frob() -> u32 { 1 }
        """,
            "app/Cargo.toml": package("app", '[dependencies]\ncore = { path = "../core" }'),
            "app/src/main.rs": """
            mod local;
            use core::layers::frob; // REF
            fn main() {
                let _ = frob(); // REF
                let _ = core::layers::frob(); // REF
                // Uses of an alias are not reported: rustc reports the import that made it.
                let _ = core::frob_again();
                let _ = local::frob();
            }
        """,
            "app/src/local.rs": """
            pub fn frob() -> u32 { 2 }
        """,
        },
        "core/src/layers.rs",
        "frob",
    )


def test_a_glob_import_from_another_crate_reaches_the_deleted_item(tmp_path):
    """`use base::kv::*;` then a bare call: the glob is tried before the extern crate `base` is,
    and the second lookup of `base` must not be taken for an import cycle (it was, and the use
    went unreported)."""
    check(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["base", "app"]\n',
            "base/Cargo.toml": package("base"),
            "base/src/lib.rs": """
            pub mod kv;
        """,
            "base/src/kv.rs": """
            pub fn evict() -> u32 { 1 }
            pub fn keep() -> u32 { 2 }
        """,
            "app/Cargo.toml": package("app", '[dependencies]\nbase = { path = "../base" }'),
            "app/src/lib.rs": """
            use base::kv::*;
            pub fn run() -> u32 {
                evict() + keep() // REF
            }
        """,
        },
        "base/src/kv.rs",
        "evict",
    )


def test_a_lookup_through_globs_parses_only_the_modules_that_may_bind_the_name(tmp_path, monkeypatch):
    """A name looked up through the globs of a crate root that re-exports many modules: a module
    whose file spells no binding of the name (only a comment or a call names it) and has no glob
    another module could see through binds nothing of that name there and is not parsed for the
    question; one with a public glob is, and so is one whose `pub use` binds it, through which
    the use is found. A private `use` or glob binds nothing a module outside may see."""
    import codemods.parse as parsing

    write_tree(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["gears", "mill"]\n',
            "gears/Cargo.toml": package("gears"),
            "gears/src/lib.rs": """
            mod axles;
            mod cogs;
            mod belts;
            mod pulleys;
            mod levers;
            mod springs;
            pub use cogs::*;
            pub use belts::*;
            pub use pulleys::*;
            pub use levers::*;
            pub use springs::*;
            pub mod inner {
                pub fn shine() -> u32 { 5 }
            }
        """,
            "gears/src/axles.rs": "pub fn spin() -> u32 { 2 }\n",
            "gears/src/cogs.rs": "pub fn grind() -> u32 { 1 }\n",
            "gears/src/belts.rs": "pub use crate::inner::*;\npub fn loop_belt() -> u32 { 3 }\n",
            "gears/src/pulleys.rs": "// a pulley does not spin by itself\npub fn hoist() -> u32 { 4 }\n",
            "gears/src/levers.rs": "pub use crate::axles::spin; // REF\n",
            "gears/src/springs.rs": "use crate::axles::*;\npub fn coil() -> u32 { 6 }\n",
            "mill/Cargo.toml": package("mill", '[dependencies]\ngears = { path = "../gears" }'),
            "mill/src/lib.rs": """
            use gears::*;
            pub fn run() -> u32 {
                grind() + spin() // REF
            }
        """,
        },
    )
    parsed: list[bytes] = []
    real_parse = parsing.parse
    monkeypatch.setattr(
        "codemods.languages.rust.resolve.scopes.parse",
        lambda source, language: parsed.append(source) or real_parse(source, language),
    )
    assert found(tmp_path, "gears/src/axles.rs", "fn", "spin") == expected(tmp_path)
    for quiet in ("cogs", "pulleys", "springs"):
        assert (tmp_path / f"gears/src/{quiet}.rs").read_bytes() not in parsed, quiet
    for asked in ("belts", "levers"):
        assert (tmp_path / f"gears/src/{asked}.rs").read_bytes() in parsed, asked


@pytest.mark.parametrize(
    ("text", "public_imports", "binds"),
    [
        ("fn spin() {}", False, True),
        ("pub(crate) async unsafe fn spin() {}", True, True),
        ("static mut spin: u8 = 0;", True, True),
        ("fn /* odd */ spin() {}", True, True),
        ("fn /* odd */spin() {}", True, True),
        ("pub fn // a note\n    spin() {}", True, True),
        ("const r#spin: u8 = 0;", True, True),
        ("let mutspin = 0; // no binding of spin glued to a keyword", False, False),
        ("macro_rules! spin { () => {} }", True, True),
        ("extern crate wheels as spin;", True, True),
        ('#[rust_name = "spin"]\nfn spin_wheel();', True, True),
        ("use crate::axles::spin;", False, True),
        ("use crate::axles::spin;", True, False),
        ("pub(crate) use crate::axles::{turn, spin};", True, True),
        ("use a::{b, c as spin};", False, True),
        ("fn run(w: &Wheel) { w.spin(); } // spin", False, False),
        ("fn spinner() {}", False, False),
        # A banner of slashes after a keyword (the pattern once split it every way: exponential).
        ("fn\n" + "/" * 96 + "\n// " + "// " * 40 + "\nlet turns = 1; // spin", False, False),
    ],
)
def test_spells_binding_reads_what_a_file_may_bind_by_spelling(text, public_imports, binds):
    from codemods.languages.rust.resolve.scopes import spells_binding

    assert spells_binding(text.encode(), "spin", public_imports) is binds


def test_workspace_dependencies_and_renamed_packages(tmp_path):
    check(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["my-core", "app"]\n'
            '[workspace.dependencies]\nmy-core = { path = "my-core" }\n',
            "my-core/Cargo.toml": package("my-core"),
            "my-core/src/lib.rs": """
            pub fn frob() -> u32 { 1 }
        """,
            "app/Cargo.toml": package("app", "[dependencies]\nmy-core = { workspace = true }"),
            "app/src/lib.rs": """
            pub fn run() -> u32 { my_core::frob() } // REF
            pub fn frob() -> u32 { 3 }
            pub fn again() -> u32 { frob() }
        """,
        },
        "my-core/src/lib.rs",
        "frob",
    )


def test_dependency_cycles_through_dev_dependencies_are_resolved(tmp_path):
    # helix-view dev-depends on helix-tui, which depends on helix-view.
    check(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["view", "tui"]\n',
            "view/Cargo.toml": package("view", '[dev-dependencies]\ntui = { path = "../tui" }'),
            "view/src/lib.rs": """
            pub fn frob() -> u32 { 1 }
        """,
            "tui/Cargo.toml": package("tui", '[dependencies]\nview = { path = "../view" }'),
            "tui/src/lib.rs": """
            pub fn run() -> u32 { view::frob() } // REF
        """,
        },
        "view/src/lib.rs",
        "frob",
    )


def test_a_dependency_passes_on_its_library_dependencies_not_its_dev_dependencies(tmp_path):
    """A crate reaches the deleted method through a dependency's [dependencies] (a re-export can
    pass it on), never through that dependency's dev-dependencies (its library is built without
    them): a same-named call there on a receiver of unknown type is no possible use."""
    check(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["engine", "probe", "bench", "relay", "front"]\n',
            "engine/Cargo.toml": package("engine"),
            "engine/src/lib.rs": """
            pub struct Spool;
            impl Spool {
                pub fn unwind(&self) -> u32 { 1 }
            }
        """,
            "probe/Cargo.toml": package("probe", '[dev-dependencies]\nengine = { path = "../engine" }'),
            "probe/src/lib.rs": """
            pub fn wound<T: Clone>(t: T) -> T { t }
        """,
            "probe/tests/spool.rs": """
            fn check<S: Unwind>(spool: &S) -> u32 { spool.unwind() } // MAYBE
        """,
            "bench/Cargo.toml": package("bench", '[dependencies]\nprobe = { path = "../probe" }'),
            "bench/src/lib.rs": """
            pub fn run<R: Unwind>(reel: &R) -> u32 { reel.unwind() }
        """,
            "relay/Cargo.toml": package("relay", '[dependencies]\nengine = { path = "../engine" }'),
            "relay/src/lib.rs": """
            pub use engine::Spool;
        """,
            "front/Cargo.toml": package("front", '[dependencies]\nrelay = { path = "../relay" }'),
            "front/src/lib.rs": """
            pub fn run<R: Unwind>(reel: &R) -> u32 { reel.unwind() } // MAYBE
        """,
        },
        "engine/src/lib.rs",
        "crate::Spool::unwind",
    )


def test_a_method_call_is_resolved_by_the_receivers_evident_type(tmp_path):
    """`.tally()` is a use where the receiver's type resolves to the deleted method's type (a
    constructor's, a rename, an alias, a field of that type), possible where it may be (a
    generic), and none where its type is evidently another one (a constructor's type, a field
    of another type, a slice, a string, a type outside the tree)."""
    check(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["ledger", "office"]\n',
            "ledger/Cargo.toml": package("ledger"),
            "ledger/src/lib.rs": """
            pub struct Roster;
            impl Roster {
                pub fn new() -> Roster { Roster }
                pub fn tally(&self) -> u32 { 1 }
            }
            pub fn count() -> u32 {
                let roster = Roster::new();
                roster.tally() // REF
            }
        """,
            "office/Cargo.toml": package("office", '[dependencies]\nledger = { path = "../ledger" }'),
            "office/src/lib.rs": """
            use std::collections::BTreeSet;
            use ledger::Roster;
            use ledger::Roster as Team;
            pub type Crew = Roster;
            pub struct Ballot;
            impl Ballot {
                pub fn with_seats(_seats: u32) -> Ballot { Ballot }
                pub fn tally(&self) -> u32 { 2 }
            }
            pub struct Desk {
                roster: Roster,
                ballot: Ballot,
            }
            pub fn counts<T: Tally>(desk: &Desk, team: &Team, crew: &Crew, other: &T, seats: &[u8],
                                    names: &BTreeSet<u8>) -> u32 {
                let roster = Roster::new();
                let ballot = Ballot::with_seats(3);
                let label = "desk";
                roster.tally() // REF
                    + desk.roster.tally() // REF
                    + team.tally() // REF
                    + crew.tally() // REF
                    + other.tally() // MAYBE
                    + ballot.tally()
                    + desk.ballot.tally()
                    + seats.tally()
                    + label.tally()
                    + names.tally()
            }
        """,
        },
        "ledger/src/lib.rs",
        "crate::Roster::tally",
    )


# The workspace of the receiver tests: `ore` declares the types, `mill` depends on it.
ORE_MILL = {
    "Cargo.toml": '[workspace]\nmembers = ["ore", "mill"]\n',
    "ore/Cargo.toml": package("ore"),
    "mill/Cargo.toml": package("mill", '[dependencies]\nore = { path = "../ore" }'),
}
ORE_TYPES = """
            pub struct Ingot;
            impl Ingot {
                pub fn weigh(&self) -> u32 { 1 }
            }
            pub struct Slag;
            impl Slag {
                pub fn weigh(&self) -> u32 { 2 }
            }
"""


def test_a_receivers_type_written_as_a_path_is_resolved_by_its_path(tmp_path):
    """A type written `a::B` (a parameter's, or the target of an alias that re-exports a type under
    its own name, `pub type B = a::B;`) is resolved by the whole path, not by its last name in the
    module it is written in: there that name may be the alias itself, or another type. `.weigh()`
    on the other crate's `Ingot` is no use of `Slag::weigh`, through the alias or not, nor on a
    namesake `local::Slag`; on `ore`'s `Slag`, through the alias or not, it is one."""
    check(
        tmp_path,
        {
            **ORE_MILL,
            "ore/src/lib.rs": ORE_TYPES
            + """
            pub fn heap(slag: &crate::Slag, ingot: &self::Ingot) -> u32 {
                slag.weigh() // REF
                    + ingot.weigh()
            }
        """,
            "mill/src/lib.rs": """
            pub mod shapes {
                pub type Ingot = ore::Ingot;
                pub type Slag = ore::Slag;
            }
            pub mod local;
            use shapes::Ingot;
            pub fn total(a: &Ingot, b: &shapes::Slag, c: &ore::Ingot, d: &ore::Slag, e: &shapes::Ingot) -> u32 {
                a.weigh()
                    + b.weigh() // REF
                    + c.weigh()
                    + d.weigh() // REF
                    + e.weigh()
            }
            pub fn other(slag: &local::Slag) -> u32 {
                slag.weigh()
            }
        """,
            "mill/src/local.rs": """
            pub struct Slag;
            impl Slag {
                pub fn weigh(&self) -> u32 { 3 }
            }
        """,
        },
        "ore/src/lib.rs",
        "crate::Slag::weigh",
    )


def test_a_receiver_of_an_associated_type_has_the_type_its_impl_gives(tmp_path):
    """`x: &Self::Sample` (or `&Self::Piece<'_>`) inside an impl is the type that impl assigns to
    `Sample`; in a trait's own default method it is not known."""
    check(
        tmp_path,
        {
            **ORE_MILL,
            "ore/src/lib.rs": ORE_TYPES
            + """
            pub trait Assay {
                type Sample: ?Sized;
                type Piece<'a>;
                fn size(sample: &Self::Sample) -> u32;
                fn piece_size(piece: &Self::Piece<'_>) -> u32 { 0 }
            }
            impl Assay for Slag {
                type Sample = Slag;
                type Piece<'a> = &'a Slag;
                fn size(sample: &Self::Sample) -> u32 {
                    sample.weigh() // REF
                }
                fn piece_size(piece: &Self::Piece<'_>) -> u32 {
                    piece.weigh() // REF
                }
            }
            impl Assay for Ingot {
                type Sample = Ingot;
                type Piece<'a> = &'a Ingot;
                fn size(sample: &Self::Sample) -> u32 {
                    sample.weigh()
                }
                fn piece_size(piece: &Self::Piece<'_>) -> u32 {
                    piece.weigh()
                }
            }
        """,
            "mill/src/lib.rs": """
            pub trait Grade {
                type Lot: Weighed;
                fn grade(lot: &Self::Lot) -> u32 {
                    lot.weigh() // MAYBE
                }
            }
            pub trait Weighed {
                fn weigh(&self) -> u32;
            }
            pub struct Mill;
            impl ore::Assay for Mill {
                type Sample = ore::Slag;
                type Piece<'a> = u8;
                fn size(sample: &Self::Sample) -> u32 {
                    sample.weigh() // REF
                }
            }
            pub struct Press;
            impl ore::Assay for Press {
                type Sample = [u8];
                type Piece<'a> = u8;
                fn size(sample: &Self::Sample) -> u32 {
                    sample.weigh()
                }
            }
        """,
        },
        "ore/src/lib.rs",
        "crate::Slag::weigh",
    )


def test_a_call_on_a_type_that_derefs_to_the_deleted_methods_type_may_use_it(tmp_path):
    """`.weigh()` on a type without a `weigh` of its own reaches `Slag::weigh` by auto-deref where
    its `impl Deref` targets a `Slag`, a generic parameter, or a type that derefs on to a `Slag`;
    not where the type has its own `weigh`, or derefs to another type."""
    check(
        tmp_path,
        {
            **ORE_MILL,
            "ore/src/lib.rs": ORE_TYPES
            + """
        """,
            "mill/src/lib.rs": """
            use std::ops::Deref;
            pub mod yard;
            pub struct Cart(ore::Slag);
            impl Deref for Cart {
                type Target = ore::Slag;
                fn deref(&self) -> &ore::Slag { &self.0 }
            }
            impl Cart {
                pub fn load(&self) -> u32 {
                    self.weigh() // MAYBE
                }
            }
            pub struct Tray(ore::Ingot);
            impl Deref for Tray {
                type Target = ore::Ingot;
                fn deref(&self) -> &ore::Ingot { &self.0 }
            }
            pub struct Scale(ore::Slag);
            impl Deref for Scale {
                type Target = ore::Slag;
                fn deref(&self) -> &ore::Slag { &self.0 }
            }
            impl Scale {
                pub fn weigh(&self) -> u32 { 0 }
            }
            pub struct Holder<T>(T);
            impl<T> Deref for Holder<T> {
                type Target = T;
                fn deref(&self) -> &T { &self.0 }
            }
            pub struct Wagon(Cart);
            impl Deref for Wagon {
                type Target = Cart;
                fn deref(&self) -> &Cart { &self.0 }
            }
            pub fn haul(cart: &Cart, tray: &Tray, scale: &Scale, held: &Holder<ore::Slag>, wagon: &Wagon) -> u32 {
                cart.weigh() // MAYBE
                    + tray.weigh()
                    + scale.weigh()
                    + held.weigh() // MAYBE
                    + wagon.weigh() // MAYBE
            }
        """,
            "mill/src/yard.rs": """
            use crate::{Cart, Tray};
            pub fn count(cart: &Cart, tray: &Tray) -> u32 {
                cart.weigh() // MAYBE
                    + tray.weigh()
            }
        """,
        },
        "ore/src/lib.rs",
        "crate::Slag::weigh",
    )


def test_a_call_through_a_std_pointer_or_guard_reaches_the_wrapped_type(tmp_path):
    """A value made by `Arc::new(Type::new())` or `Box::new(..)`, or typed as a guard that derefs
    to its parameter (`MutexGuard<'_, T>`, `Cow<'_, T>`), has the wrapped type's methods: a call
    on an `Arc` of the deleted method's type is a use, on a guard of it may be one (the guard's
    name may be a type of the tree's own); on one wrapping a builtin type, or another type made
    by its constructor, it is not."""
    check(
        tmp_path,
        {
            **ORE_MILL,
            "ore/src/lib.rs": ORE_TYPES
            + """
            impl Ingot {
                pub fn new() -> Ingot { Ingot }
            }
            impl Slag {
                pub fn new() -> Slag { Slag }
            }
        """,
            "mill/src/lib.rs": """
            use std::borrow::Cow;
            use std::sync::{Arc, MutexGuard};
            pub fn guarded(slag: MutexGuard<'_, ore::Slag>, label: Cow<'_, str>) -> usize {
                slag.weigh() as usize // MAYBE
                    + label.weigh()
            }
            pub fn shared() -> u32 {
                let slag = Arc::new(ore::Slag::new());
                let ingot = Box::new(ore::Ingot::new());
                slag.weigh() // REF
                    + ingot.weigh()
            }
        """,
        },
        "ore/src/lib.rs",
        "crate::Slag::weigh",
    )


def test_a_method_call_in_an_expression_macros_arguments_is_typed_as_in_code(tmp_path):
    """In `assert_eq!(..)`, `format!(..)` and the other macros whose arguments are expressions, a
    call on a variable or on `self` has the variable's type as in code; on a closure parameter of
    the tokens, or in a macro not known to take expressions, it stays possible."""
    check(
        tmp_path,
        {
            **ORE_MILL,
            "ore/src/lib.rs": ORE_TYPES
            + """
            impl Slag {
                pub fn check(&self) {
                    debug_assert!(self.weigh() > 1); // REF
                }
            }
        """,
            "mill/src/lib.rs": """
            macro_rules! noted {
                ($e:expr) => { $e };
            }
            pub fn checks(slag: &ore::Slag, ingot: &ore::Ingot, slags: &[ore::Slag]) -> String {
                assert_eq!(slag.weigh(), 2); // REF
                assert_eq!(ingot.weigh(), 1);
                assert!(slags.iter().all(|ingot| ingot.weigh() > 0)); // MAYBE
                noted!(ingot.weigh()); // MAYBE
                format!("{}", ingot.weigh())
            }
        """,
        },
        "ore/src/lib.rs",
        "crate::Slag::weigh",
    )


def test_self_in_an_impl_of_a_type_declared_in_another_file_is_that_type(tmp_path):
    """`self.weigh()` in `impl Heavy for Slag` (or `for &crate::Slag`) written in another file
    than `Slag` calls the deleted `Slag::weigh`; in the impl of another type, or of a namesake
    of another crate (`slag_ext::Slag`), it does not."""
    check(
        tmp_path,
        {
            "Cargo.toml": package("ore", '[dependencies]\nslag_ext = "1"'),
            "src/lib.rs": ORE_TYPES + "\n            pub mod heavy;\n",
            "src/heavy.rs": """
            use crate::{Ingot, Slag};
            pub trait Heavy {
                fn heft(&self) -> u32;
            }
            impl Heavy for Slag {
                fn heft(&self) -> u32 {
                    self.weigh() // REF
                }
            }
            impl Heavy for Ingot {
                fn heft(&self) -> u32 {
                    self.weigh()
                }
            }
            impl Heavy for &crate::Slag {
                fn heft(&self) -> u32 {
                    self.weigh() // REF
                }
            }
            impl Heavy for slag_ext::Slag {
                fn heft(&self) -> u32 {
                    self.weigh()
                }
            }
        """,
        },
        "src/lib.rs",
        "crate::Slag::weigh",
    )


def test_a_call_on_a_type_whose_deleted_impl_covers_some_arguments_only_is_possible(tmp_path):
    """The deleted `weigh` is of `impl Sack<u8>`; `impl Sack<u16>` has one too: a call on a
    `Sack<..>` may reach either, so it is possible, in the declaring file or elsewhere; on a type
    whose impl is generic over all its arguments (`impl<T> Bag<T>`) it is definite."""
    check(
        tmp_path,
        {
            **ORE_MILL,
            "ore/src/lib.rs": """
            pub struct Sack<T>(pub T);
            impl Sack<u8> {
                pub fn weigh(&self) -> u32 { 1 }
            }
            impl Sack<u16> {
                pub fn weigh(&self) -> u32 { 2 }
            }
            pub fn own(sack: &Sack<u16>) -> u32 {
                sack.weigh() // MAYBE
            }
        """,
            "mill/src/lib.rs": """
            pub fn other(sack: &ore::Sack<u16>) -> u32 {
                sack.weigh() // MAYBE
            }
        """,
        },
        "ore/src/lib.rs",
        "crate::<Sack<u8>>::weigh",
    )
    check(
        tmp_path / "bag",
        {
            **ORE_MILL,
            "ore/src/lib.rs": """
            pub struct Bag<T>(pub T);
            impl<T> Bag<T> {
                pub fn weigh(&self) -> u32 { 1 }
            }
        """,
            "mill/src/lib.rs": """
            pub fn other(bag: &ore::Bag<u16>) -> u32 {
                bag.weigh() // REF
            }
        """,
        },
        "ore/src/lib.rs",
        "crate::Bag::weigh",
    )


def test_a_private_item_is_reachable_from_its_module_and_descendants_only(tmp_path):
    check(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            mod a;
            mod sibling {
                use crate::a::*;
                fn helper() -> u32 { 5 }
                pub fn run() -> u32 { helper() }
            }
        """,
            "src/a.rs": """
            fn helper() -> u32 { 1 }
            mod child {
                use super::*;
                fn run() -> u32 { helper() } // REF
                mod grandchild {
                    fn run() -> u32 { super::super::helper() } // REF
                }
            }
            #[cfg(test)]
            #[path = "a_tests.rs"]
            mod tests;
        """,
            "src/a_tests.rs": """
            use super::helper; // REF
            #[test]
            fn works() {
                assert_eq!(helper(), 1); // REF
            }
        """,
        },
        "src/a.rs",
        "helper",
    )


def test_restricted_visibility_reaches_through_globs(tmp_path):
    check(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            mod outer;
            mod other {
                use crate::outer::inner::*;
                pub fn run() -> u32 { helper() } // REF
            }
        """,
            "src/outer.rs": """
            pub mod inner {
                pub(crate) fn helper() -> u32 { 1 }
                pub(super) fn near() -> u32 { 2 }
                pub(in crate::outer) fn nearer() -> u32 { 3 }
            }
            mod user {
                use super::inner::*;
                fn run() -> u32 { helper() + near() + nearer() } // REF
            }
        """,
        },
        "src/outer.rs",
        "inner::helper",
    )


def test_use_forms_renames_groups_self_and_nested_groups(tmp_path):
    check(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            pub mod layers {
                pub fn frob() -> u32 { 1 }
                pub fn keep() -> u32 { 2 }
            }
            mod a {
                use crate::layers::frob as renamed; // REF
                use crate::layers::{keep, frob}; // REF
                use crate::{layers::{self, frob as again}}; // REF
                pub fn run() -> u32 { renamed() + keep() + frob() + layers::frob() + again() } // REF
            }
            mod b {
                use crate::layers::keep as frob;
                pub fn run() -> u32 { frob() }
            }
        """,
        },
        "src/lib.rs",
        "layers::frob",
    )


def test_glob_imports_are_shadowed_by_local_items(tmp_path):
    check(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            pub mod layers {
                pub fn frob() -> u32 { 1 }
            }
            pub mod a {
                use crate::layers::*;
                fn frob() -> u32 { 7 }
                pub fn run() -> u32 { frob() }
            }
            pub mod b {
                use crate::layers::*;
                pub fn run() -> u32 { frob() } // REF
            }
            pub mod c {
                pub use crate::layers::*;
            }
            pub mod d {
                pub fn run() -> u32 { crate::c::frob() } // REF
            }
        """,
        },
        "src/lib.rs",
        "layers::frob",
    )


def test_locals_parameters_closures_patterns_and_block_items_shadow(tmp_path):
    check(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            fn frob(x: u32) -> u32 { x }
            pub fn by_let() -> u32 {
                let frob = frob(1); // REF
                frob + 1
            }
            pub fn by_parameter(frob: u32) -> u32 { frob }
            pub fn by_closure() -> u32 { (|frob: u32| frob)(2) }
            pub fn by_pattern(v: Option<u32>) -> u32 {
                match v { Some(frob) => frob, None => frob(0) } // REF
            }
            pub fn by_if_let(v: Option<u32>) -> u32 {
                if let Some(frob) = v { frob } else { frob(3) } // REF
            }
            pub fn by_block_item() -> u32 {
                fn frob(y: u32) -> u32 { y + 1 }
                frob(4)
            }
            pub fn nested_fn_does_not_see_outer_locals() -> u32 {
                let frob = 5;
                fn inner() -> u32 { frob(6) } // REF
                frob + inner()
            }
            pub fn in_macros(values: &[u32]) -> bool {
                assert_eq!(frob(1), 1); // REF
                values.iter().all(|frob| *frob > 0) && values.iter().any(|v| { let frob = *v; frob > 1 })
            }
        """,
        },
        "src/lib.rs",
        "frob",
    )


def test_generics_shadow_types(tmp_path):
    check(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            pub struct Meta;
            pub fn with_generic<Meta: Default>() -> Meta { Meta::default() }
            pub fn uses() -> Meta { Meta } // REF
            pub struct Holder<Meta> { pub value: Meta }
        """,
        },
        "src/lib.rs",
        "Meta",
        kind="struct",
    )


def test_method_calls_resolve_only_on_a_known_receiver(tmp_path):
    check(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            pub struct Cache;
            impl Cache {
                pub fn frob(&self) -> u32 { 1 }
                pub fn run(&self) -> u32 { self.frob() + Self::frob(self) } // REF
            }
            pub struct Other {}
            impl Other {
                pub fn frob(&self) -> u32 { 2 }
                pub fn run(&self) -> u32 { self.frob() }
            }
            pub struct Holder { cache: Box<Cache>, others: Vec<Other>, caches: Vec<Cache> }
            impl Holder {
                pub fn run(&self) -> u32 { self.cache.frob() } // REF
                pub fn all(&self) -> u32 { self.others[0].frob() }
                pub fn each(&self) -> u32 {
                    let mut total = 0;
                    for other in &self.others {
                        total += other.frob();
                    }
                    for other in self.caches.iter() {
                        total += other.frob(); // REF
                    }
                    total
                }
            }
            pub fn typed(c: &Cache, o: &Other) -> u32 {
                c.frob() // REF
                    + o.frob()
                    + Cache::frob(c) // REF
            }
            pub fn by_let() -> u32 {
                let o = Other {};
                o.frob()
            }
            pub fn unknown(items: &[Cache]) -> u32 {
                items.iter().next().unwrap().frob() // MAYBE
            }
            pub fn generic<T: Frob>(t: T) -> u32 {
                t.frob() // MAYBE
            }
            mod namesake;
        """,
            "src/namesake.rs": """
            pub struct Cache;
            impl Cache {
                pub fn frob(&self) -> u32 { 3 }
            }
            pub fn own(c: &Cache) -> u32 { c.frob() + Cache::frob(c) }
        """,
        },
        "src/lib.rs",
        "Cache::frob",
    )


def test_serde_attribute_strings_name_functions(tmp_path):
    check(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            mod config {
                fn default_rope_theta() -> f32 { 1e4 }
                pub struct Config {
                    #[serde(default = "default_rope_theta")] // REF
                    pub theta: f32,
                    #[serde(rename = "default_rope_theta")]
                    pub other: f32,
                    #[serde(skip_serializing_if = "self::default_rope_theta")] // REF
                    pub third: f32,
                }
            }
            mod twin {
                fn default_rope_theta() -> f32 { 2e4 }
                pub struct Config {
                    #[serde(default = "default_rope_theta")]
                    pub theta: f32,
                }
            }
        """,
        },
        "src/lib.rs",
        "config::default_rope_theta",
    )


def test_macro_bodies_and_unknown_macros_are_possible(tmp_path):
    check(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            fn frob() -> u32 { 1 }
            macro_rules! call_frob {
                () => { frob() }; // MAYBE
            }
            pub fn run() -> u32 {
                let a = call_frob!();
                let b = my_macro!(frob()); // MAYBE
                let c = format!("{}", frob()); // REF
                a + b + c.len() as u32
            }
        """,
        },
        "src/lib.rs",
        "frob",
    )


def test_a_path_in_a_local_macro_body_of_the_declaring_file_is_a_use(tmp_path):
    check(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            pub struct Gauge;
            impl Gauge { pub fn zero() -> u8 { 0 } }
            macro_rules! floor {
                () => { Gauge::zero() }; // REF
            }
            macro_rules! named {
                () => { Gauge }; // MAYBE
            }
            #[macro_export]
            macro_rules! shared_floor {
                () => { $crate::Gauge::zero() }; // MAYBE
            }
        """,
        },
        "src/lib.rs",
        "Gauge",
        kind="struct",
    )


def test_files_reached_by_path_attributes_and_mod_rs(tmp_path):
    check(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            mod models;
        """,
            "src/models/mod.rs": """
            mod gemma;
            mod llama;
        """,
            "src/models/gemma.rs": """
            fn weight() -> u32 { 1 }
            pub fn run() -> u32 { weight() } // REF
            #[cfg(test)]
            #[path = "gemma_tests.rs"]
            mod tests;
        """,
            "src/models/gemma_tests.rs": """
            use super::*;
            #[test]
            fn loads() { assert_eq!(weight(), 1); } // REF
        """,
            "src/models/llama.rs": """
            fn weight() -> u32 { 2 }
            pub fn run() -> u32 { weight() }
            #[cfg(test)]
            #[path = "llama_tests.rs"]
            mod tests;
        """,
            "src/models/llama_tests.rs": """
            use super::*;
            #[test]
            fn loads() { assert_eq!(weight(), 2); }
        """,
        },
        "src/models/gemma.rs",
        "weight",
    )


def test_possible_uses_of_one_name_are_one_line_unless_verbose(tmp_path):
    write_tree(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            pub struct Abacus;
            impl Abacus {
                pub fn bead(&self) -> u32 { 1 }
                pub fn rod(&self) -> u32 { 2 }
            }
            pub fn slide<T: Frame>(a: &T, b: &T, c: &T) -> u32 {
                a.bead() + b.bead() + c.bead() + a.rod()
            }
        """,
        },
    )
    recipe = tmp_path / "r.toml"
    recipe.write_text(
        'id = "r"\n'
        + "".join(
            f'[[delete]]\npath = "src/lib.rs"\nlanguage = "rust"\nkind = "fn"\nname = "crate::Abacus::{name}"\n'
            for name in ("bead", "rod")
        )
    )
    runner = CliRunner()
    arguments = ["apply", "--dry-run", "--recipe", str(recipe), str(tmp_path)]
    grouped = runner.invoke(main, arguments).stderr.splitlines()
    assert (
        "codemod: bead: 3 possible uses (method call: 3) in 1 file(s), first src/lib.rs:7:7 (possible; "
        "--strict blocks them, --verbose or --json lists them)" in grouped
    )
    assert not [line for line in grouped if line.startswith("src/lib.rs:7:") and ": bead:" in line]
    assert [line for line in grouped if line.startswith("src/lib.rs:7:40: rod: may still refer")]
    verbose = runner.invoke(main, [*arguments, "--verbose"]).stderr.splitlines()
    assert len([line for line in verbose if ": bead: may still refer" in line]) == 3
    document = json.loads(runner.invoke(main, [*arguments, "--json"]).stdout)
    assert len([f for f in document["findings"] if f["symbol"] == "bead"]) == 3
    strict = runner.invoke(main, [*arguments, "--strict"]).stderr.splitlines()
    assert len([line for line in strict if ": bead: may still refer" in line]) == 3


def test_possible_findings_block_only_with_strict(tmp_path):
    write_tree(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            fn frob() -> u32 { 1 }
            pub fn run() -> u32 { my_macro!(frob()) }
        """,
        },
    )
    recipe = tmp_path / "r.toml"
    recipe.write_text('id = "r"\n[[delete]]\npath = "src/lib.rs"\nlanguage = "rust"\nkind = "fn"\nname = "frob"\n')
    runner = CliRunner()
    relaxed = runner.invoke(main, ["apply", "--dry-run", "--recipe", str(recipe), str(tmp_path)])
    assert relaxed.exit_code == 0, relaxed.output
    assert "src/lib.rs:2:33: frob: may still refer to an item the recipe deletes" in relaxed.stderr
    assert "(possible; --strict blocks it)" in relaxed.stderr
    strict = runner.invoke(main, ["apply", "--dry-run", "--strict", "--recipe", str(recipe), str(tmp_path)])
    assert strict.exit_code == 1
    document = json.loads(
        runner.invoke(main, ["apply", "--dry-run", "--json", "--recipe", str(recipe), str(tmp_path)]).stdout
    )
    [finding] = [f for f in document["findings"] if f["code"] == DANGLING]
    assert finding["certainty"] == "possible" and finding["severity"] == "note"
    assert finding["kind"] == "macro argument"
    assert "my_macro!" in finding["resolution"]


def test_json_carries_the_resolution_path(tmp_path):
    write_tree(
        tmp_path,
        {
            "Cargo.toml": package("core"),
            "src/lib.rs": """
            pub mod layers;
            mod a;
        """,
            "src/layers.rs": """
            pub fn frob() -> u32 { 1 }
        """,
            "src/a.rs": """
            use crate::layers::frob;
            pub fn run() -> u32 { frob() }
        """,
        },
    )
    recipe = tmp_path / "r.toml"
    recipe.write_text('id = "r"\n[[delete]]\npath = "src/layers.rs"\nlanguage = "rust"\nkind = "fn"\nname = "frob"\n')
    result = CliRunner().invoke(main, ["apply", "--dry-run", "--json", "--recipe", str(recipe), str(tmp_path)])
    assert result.exit_code == 1
    findings = {(f["line"], f["kind"]): f for f in json.loads(result.stdout)["findings"]}
    assert findings[(1, "import")]["resolution"] == "resolves to core::layers::frob (src/layers.rs:1)"
    call = findings[(2, "call")]
    assert call["certainty"] == "definite"
    assert (
        call["resolution"] == "use crate::layers::frob at src/a.rs:1; resolves to core::layers::frob (src/layers.rs:1)"
    )


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")
def test_the_path_attributes_searched_from_the_plans_start_are_each_folders_own(tmp_path):
    """The search of the whole tree (started with the plan) gives, for each package folder, what
    a search of that folder gives; a folder inside a `target/` is searched on its own."""
    from codemods.languages.rust.crates import PathAttributeSearch, path_attributes

    files = {
        "Cargo.toml": '[workspace]\nmembers = ["kiln", "glaze/inner"]\n',
        "kiln/src/lib.rs": '#[path = "firing_log.rs"]\nmod log;\n',
        "kiln/src/firing_log.rs": "pub fn cone() {}\n",
        "kiln/src/deep/mod.rs": '#[ path = "x/shelf.rs" ]\nmod shelf;\n',
        "glaze/inner/src/lib.rs": '#[path="wet.rs"] mod wet;\n',
        "glaze/src/lib.rs": "pub fn dry() {}\n",
        "target/debug/build/src/lib.rs": '#[path = "generated.rs"]\nmod generated;\n',
        "kilnwork/src/lib.rs": '#[path = "other.rs"]\nmod other;\n',
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    search = PathAttributeSearch(tmp_path, [""])
    for folder in ("", "kiln", "kiln/src/deep", "glaze", "glaze/inner", "kilnwork"):
        assert sorted(search.under(folder)) == sorted(path_attributes(tmp_path, folder)), folder
    assert sorted(search.under("kiln")) == [
        ("kiln/src/deep/mod.rs", "x/shelf.rs"),
        ("kiln/src/lib.rs", "firing_log.rs"),
    ]
    assert path_attributes(tmp_path, "target/debug/build") == [("target/debug/build/src/lib.rs", "generated.rs")]
    assert search.under("target/debug/build") == []  # why CrateIndex searches such a folder itself
    # A search of some packages answers for folders inside them, and only for those.
    some = PathAttributeSearch(tmp_path, ["glaze/inner", "kiln"])
    for folder in ("kiln", "kiln/src/deep", "glaze/inner"):
        assert sorted(some.under(folder)) == sorted(path_attributes(tmp_path, folder)), folder
    assert some.under("glaze") is None and some.under("kilnwork") is None and some.under("") is None


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")
def test_a_plan_leaves_no_search_of_its_own_running(tmp_path, monkeypatch):
    """The `#[path]` search a plan starts is read or stopped by the time the plan returns (its tree
    may be gone right after: a temporary copy)."""
    from codemods.languages.rust import crates

    started = []
    real = crates.PathAttributeSearch.__init__

    def spy(self, root, folders):
        real(self, root, folders)
        started.append(self)

    monkeypatch.setattr(crates.PathAttributeSearch, "__init__", spy)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text("pub fn kiln() {}\npub fn glaze() {}\n")
    plan_recipe(tmp_path, Recipe(id="t", summary="", deletions=(ItemTarget("src/lib.rs", "rust", "fn", "kiln"),)))
    assert len(started) == 1 and started[0]._process is None


def test_a_builder_chain_of_methods_returning_self_types_its_receiver(tmp_path: Path) -> None:
    files = {
        "Cargo.toml": '[package]\nname = "kite"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs": "pub mod frame;\npub mod fly;\n",
        "src/frame.rs": (
            "pub struct FrameBuilder { span: u32, taut: bool }\n\n"
            "impl FrameBuilder {\n"
            "    pub fn new(span: u32) -> Self { FrameBuilder { span, taut: false } }\n"
            "    pub fn span(mut self, span: u32) -> Self { self.span = span; self }\n"
            "    pub fn taut(mut self, taut: bool) -> FrameBuilder { self.taut = taut; self }\n"
            "    pub fn build(self) -> u32 { self.span }\n"
            "}\n\n"
            "pub struct Tail;\n\nimpl Tail {\n    pub fn taut(self, _t: bool) -> u32 { 0 }\n}\n"
        ),
        "src/fly.rs": (
            "use crate::frame::{FrameBuilder, Tail};\n\n"
            "pub fn launch() -> u32 {\n"
            "    let a = FrameBuilder::new(3).span(4).taut(true).build();\n"
            "    let b = FrameBuilder::new(3).taut(false).build();\n"
            "    let c = Tail.taut(true);\n"
            "    a + b + c\n"
            "}\n"
        ),
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    plan = plan_recipe(
        tmp_path,
        Recipe(
            id="t",
            summary="",
            deletions=(ItemTarget("src/frame.rs", "rust", "fn", "crate::frame::FrameBuilder::taut"),),
        ),
    )
    found = sorted((f.path, f.line, f.certainty) for f in plan.findings if f.code == DANGLING)
    # Lines 4 and 5 chain FrameBuilder's methods; line 6 is another type's `taut` (not shown: possible).
    assert [f for f in found if f[2] == "definite"] == [("src/fly.rs", 4, "definite"), ("src/fly.rs", 5, "definite")]


# A module whose `use` declarations take each form a name may be bound (or only spelled) by: a
# leaf, a rename, `self` in a group, a segment leading a path, a raw identifier, a comment, a glob
# (and a star in a comment), an `extern crate` binding a name a `use` before it binds, and two with a syntax error (the
# grammar reads `use coral::;` as binding `coral`, which leads a path).
_MANY_USES = """\
use tidal::basin::Reef;
use tidal::{basin::{self as pool, Shoal}, Drift as Current};
use tidal::mouth as estuary;
extern crate tidal as estuary;
use estuary::Reef as Atoll;
pub(crate) use crate::lagoon::{self, Spit};
use r#match::Kelp; // Reef again, in a comment
use tidal::basin::Dune /* tidal::Reef::* */;
use tidal::shore::*;
use tidal::Reef::{Grotto};
use tidal::current::{self, Eddy};
use broken::{Skerry,;
use coral::;
pub use tidal::Reef;
mod lagoon { pub struct Spit; }
fn shore() { let tidal = 1; }
"""


def test_a_scope_reads_its_use_declarations_as_asked_with_the_answers_of_a_scope_read_at_once(tmp_path):
    from codemods.languages.rust.resolve.scopes import DeferredImports, ModuleScopes
    from codemods.languages.rust.resolve.values import ModuleScope

    (tmp_path / "lib.rs").write_text(_MANY_USES)

    def fresh() -> tuple[ModuleScopes, ModuleScope]:
        scopes = ModuleScopes(tmp_path, lambda path: (tmp_path / path).read_bytes())
        scope = scopes.scope(("lib.rs", ()))
        assert scope is not None and isinstance(scope.imports, DeferredImports)
        return scopes, scope

    scopes, deferred = fresh()
    assert deferred.imports.pending, "the uses without a glob wait to be read"
    source, tree = scopes.tree("lib.rs")
    eager = ModuleScope({}, {}, [], {})
    for node in tree.root_node.named_children:
        scopes.declare(eager, node, "lib.rs", "", ("lib.rs", ()))
    assert deferred.globs == eager.globs
    names = sorted({w.decode() for w in re.findall(rb"[A-Za-z_][A-Za-z_0-9]*", source)} | {"r#match"})
    for name in names:  # each asked first of a scope, and then all of them of one
        assert fresh()[1].imports.get(name, []) == eager.imports.get(name, []), name
        assert deferred.imports.get(name, []) == eager.imports.get(name, []), name
    assert {k: v for k, v in eager.imports.items() if v} == {k: v for k, v in deferred.imports.items() if v}


@pytest.mark.parametrize(
    "text, public, spelled",
    [
        ("use harbor::*;", False, True),
        ("use harbor::{*, Quay};", False, True),
        ("use harbor::{Quay,\n    *};", False, True),
        ("use harbor :: \t*;", False, True),
        ("let area = width * height; /* a note */", False, False),
        ("fn deref(p: &u8) -> u8 { *p }", False, True),  # `{ *p`: spelled like `{*, ..}`; True costs a parse
        ("pub use harbor::*;", True, True),
        ("pub(crate)  use harbor::\n*;", True, True),
        ("pub(in crate::docks) use harbor::*;", True, True),
        ("use harbor::*;", True, False),
        ("pub use harbor::Quay; // *", True, False),
        ("repub use harbor::*;", True, False),
        ("pub usex::*;", True, False),
    ],
)
def test_spells_glob_use_finds_each_star_a_glob_may_be(text, public, spelled):
    from codemods.languages.rust.resolve.scopes import spells_glob_use

    assert spells_glob_use(text.encode(), public) is spelled


def test_a_module_scope_holds_no_syntax_tree_so_a_released_file_lets_its_tree_go(tmp_path):
    import gc
    import types

    import tree_sitter

    from codemods.languages.rust.resolve.scopes import ModuleScopes

    (tmp_path / "lib.rs").write_text("use tidal::basin::Reef;\nuse tidal::Drift;\npub struct Spit;\n")
    scopes = ModuleScopes(tmp_path, lambda path: (tmp_path / path).read_bytes())
    scope = scopes.scope(("lib.rs", ()))
    assert scope is not None and scope.imports.get("Drift")  # one use read, one still waiting

    def held(value: object) -> list[object]:
        """What `value` keeps alive, but modules (a function's globals are its module's) and the
        scopes' own cache of trees, which `release` lets go."""
        if isinstance(value, types.FunctionType):
            return [cell.cell_contents for cell in value.__closure__ or ()] + list(value.__defaults__ or ())
        return [] if value is scopes or isinstance(value, (types.ModuleType, type)) else gc.get_referents(value)

    seen, pending = set(), [scope]
    while pending:  # everything the scope reaches, its waiting uses' reader included
        current = pending.pop()
        if id(current) not in seen:
            seen.add(id(current))
            assert not isinstance(current, (tree_sitter.Node, tree_sitter.Tree)), "a scope keeps a tree alive"
            pending.extend(held(current))
