"""A lookup made inside another (through an import or a glob) is kept and given again
(`PathLookup._nested`): the answers must be those of a lookup that keeps nothing, whatever order
the questions come in. The tree below has cycles of globs, private and restricted globs and
items, renames and aliases; in particular a glob answer first computed where no cycle cuts it
short, then asked again from a module whose path so far would cut it."""

from __future__ import annotations

import random
from pathlib import Path

from codemods.languages.rust.resolve.lookup import PathLookup
from codemods.languages.rust.resolve.scopes import ModuleScopes
from codemods.languages.rust.resolve.values import MACRO, TYPE, VALUE

from resolve_helpers import write_tree

FILES = {
    "Cargo.toml": '[package]\nname = "foundry"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": """
        mod kiln;
        mod loom;
        mod press;
        mod quay;
        pub mod yard;
        mod vault {
            pub(crate) struct Lantern;
            pub(super) fn kindle() {}
            fn hidden() {}
            pub mod shelf {
                pub use super::*;
                pub struct Wick;
            }
        }
        pub use vault::shelf::*;
        use crate::loom::*;
        pub struct Torch;
    """,
    # A private glob (seen from `kiln` and what is inside it) beside a public one.
    "src/kiln.rs": """
        use crate::loom::*;
        pub use crate::press::*;
        pub mod kid {
            use super::*;
            pub(super) struct Ember;
        }
        pub use self::kid::*;
    """,
    # Back into `kiln` (whose private glob it does not see) and on into `yard`.
    "src/loom.rs": """
        pub use crate::kiln::*;
        pub use crate::yard::*;
        pub(crate) fn spark() {}
        pub type Flame = crate::Torch;
        fn smoke() {}
    """,
    "src/press.rs": """
        pub struct Gadget;
        pub use crate::vault::shelf::Wick as Candle;
        macro_rules! stamp { () => {} }
    """,
    "src/quay.rs": """
        pub use crate::loom::*;
        pub(in crate::quay) struct Ash;
    """,
    "src/yard.rs": """
        use super::*;
        pub mod fence {
            pub use super::super::kiln::*;
            pub use crate::loom::Flame as Blaze;
        }
        pub use self::fence::*;
    """,
}

ROOT = "src/lib.rs"
MODULES = [(), ("kiln",), ("kiln", "kid"), ("loom",), ("press",), ("quay",), ("yard",), ("yard", "fence"), ("vault",)]
MODULES += [("vault", "shelf")]
NAMES = ["Torch", "Lantern", "kindle", "hidden", "Wick", "Candle", "spark", "Ember", "Flame", "smoke", "Ash"]
NAMES += ["Blaze", "Gadget", "stamp", "Vec", "kid", "fence", "shelf", "vault"]
QUESTIONS = [(module, name, namespace) for module in MODULES for name in NAMES for namespace in (TYPE, VALUE, MACRO)]


class _KeepsNothing(dict):
    def __setitem__(self, key, value) -> None:
        pass


def _lookup(root: Path, keeps: bool) -> PathLookup:
    def read(path: str) -> bytes | None:
        try:
            return (root / path).read_bytes()
        except OSError:
            return None

    lookup = PathLookup(ModuleScopes(root, read))
    if not keeps:
        lookup._nested = _KeepsNothing()
    return lookup


def _answers(lookup: PathLookup, questions) -> dict:
    found = {}
    for module, name, namespace in questions:
        key = (ROOT, module)
        found[("lookup", module, name, namespace)] = lookup.lookup(key, name, namespace)
        found[("path", module, name, namespace)] = lookup.resolve_segments(
            key, None, ("crate", "loom", name), namespace
        )
    return found


def test_kept_answers_are_those_of_a_lookup_that_keeps_none_in_any_order(tmp_path):
    write_tree(tmp_path, FILES)
    expected = _answers(_lookup(tmp_path, keeps=False), QUESTIONS)
    assert any(expected.values())
    for seed in range(12):
        questions = list(QUESTIONS)
        random.Random(seed).shuffle(questions)
        lookup = _lookup(tmp_path, keeps=True)
        assert _answers(lookup, questions) == expected, seed
        assert lookup._nested, "answers inside other lookups were kept"


def test_an_answer_kept_where_no_cycle_cut_it_is_not_given_where_one_would(tmp_path):
    """`quay` asks `loom` through its glob, which asks `kiln` (whose private glob back to `loom`
    it does not see): nothing is cut, the answer is kept. Then `kiln::kid` asks `kiln`, whose
    private glob asks `loom` again: there `kiln` is on the path, and `loom`'s glob back to it is
    cut, as a lookup that keeps nothing answers."""
    write_tree(tmp_path, FILES)
    questions = [(("quay",), "Gadget", TYPE), (("kiln", "kid"), "Gadget", TYPE)]
    expected = _answers(_lookup(tmp_path, keeps=False), questions)
    assert _answers(_lookup(tmp_path, keeps=True), questions) == expected
