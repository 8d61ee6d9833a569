"""Rust removals that used to go wrong silently or be refused wrongly: an impl named among several
of one type, a method a trait elsewhere still requires, qualified trait paths, uses the whole plan
leaves dangling, cxx bridge types, fields read by a method of their name, edition 2015 code."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codemods import ItemTarget, Recipe, plan_recipe
from codemods.languages.rust.imports import name_uses
from codemods.parse import parse

from codemod_helpers import assert_deletes, run_deletion
from resolve_helpers import write_tree

CARGO = '[package]\nname = "gauges"\nversion = "0.1.0"\nedition = "2021"\n'


def _plan(root: Path, *targets: tuple[str, str, str], **options):
    recipe = Recipe(id="t", summary="", deletions=tuple(ItemTarget(p, "rust", k, n) for p, k, n in targets))
    return plan_recipe(root, recipe, **options)


def _after(plan, path: str) -> str:
    return next(c.after.decode() for c in plan.changes if c.path == path)


def _text(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


GAUGE = """
pub struct Gauge(u32);

impl Gauge {
    pub fn new() -> Self { Gauge(0) }
}

impl Gauge {
    pub fn reset(&mut self) { self.0 = 0; }
}
"""


@pytest.mark.parametrize("name", ["<Gauge>", "impl Gauge", "crate::<Gauge>", "Gauge"])
def test_an_impl_name_that_selects_several_inherent_impls_is_refused_listing_each(name):
    source = textwrap.dedent(GAUGE).lstrip().encode()
    result, findings = run_deletion("rust", source, [("impl", name)])
    assert result == source
    assert [f.code for f in findings] == ["ambiguous"]
    assert "crate::<Gauge>#1 (line 3, fn new)" in findings[0].message
    assert "crate::<Gauge>#2 (line 7, fn reset)" in findings[0].message


@pytest.mark.parametrize("name", ["crate::<Gauge>#2", "impl Gauge #2", "<Gauge>#2"])
def test_the_nth_impl_of_a_header_is_named_by_its_number(name):
    assert_deletes(
        "rust",
        GAUGE,
        [("impl", name)],
        GAUGE.replace("\nimpl Gauge {\n    pub fn reset(&mut self) { self.0 = 0; }\n}\n", ""),
    )


def test_the_methods_an_impl_deletion_removes_are_checked_like_a_method_deletion(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": GAUGE
            + _text("""
        pub fn zero(gauge: &mut Gauge) {
            Gauge::reset(gauge);
        }
    """),
        },
    )
    plan = _plan(tmp_path, ("src/lib.rs", "impl", "<Gauge>#2"))
    dangling = [(f.line, f.symbol, f.certainty) for f in plan.blocking]
    assert dangling == [(11, "reset", "definite")]


SHOWN = """
use std::fmt;

pub struct Reading(u8);

impl fmt::Display for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "{}", self.0) }
}

impl std::fmt::Debug for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "R{}", self.0) }
}
"""
DISPLAY_IMPL = """
impl fmt::Display for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "{}", self.0) }
}
"""
DEBUG_IMPL = """
impl std::fmt::Debug for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "R{}", self.0) }
}
"""


@pytest.mark.parametrize(
    "name",
    [
        "impl fmt::Display for Reading",
        "<Reading as fmt::Display>",
        "impl Display for Reading",
        "<Reading as std::fmt::Display>",
        "<crate::Reading as Display>",
    ],
)
def test_an_impl_of_a_trait_named_by_a_path_is_found_by_any_spelling_of_that_path(name):
    assert_deletes("rust", SHOWN, [("impl", name)], SHOWN.replace(DISPLAY_IMPL, ""))


@pytest.mark.parametrize(
    "name", ["impl std::fmt::Debug for Reading", "<Reading as Debug>", "impl fmt::Debug for Reading"]
)
def test_an_impl_of_a_fully_qualified_trait_is_found(name):
    assert_deletes("rust", SHOWN, [("impl", name)], SHOWN.replace(DEBUG_IMPL, ""))


def test_a_method_of_an_impl_of_a_qualified_trait_is_named_through_it():
    source = (
        _text(SHOWN)
        + _text("""
        impl fmt::Binary for Reading {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "{:b}", self.0) }
            fn describe(&self) {}
        }
    """)
    ).encode()
    result, findings = run_deletion("rust", source, [("fn", "<Reading as std::fmt::Binary>::describe")])
    assert not findings and b"fn describe" not in result


def test_a_trait_name_two_paths_share_is_refused_listing_both():
    source = _text("""
        use std::{fmt, io};
        pub struct Sink;
        impl fmt::Write for Sink {
            fn write_str(&mut self, _: &str) -> fmt::Result { Ok(()) }
        }
        impl io::Write for Sink {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> { Ok(b.len()) }
            fn flush(&mut self) -> io::Result<()> { Ok(()) }
        }
    """).encode()
    result, findings = run_deletion("rust", source, [("impl", "<Sink as Write>")])
    assert result == source and [f.code for f in findings] == ["ambiguous"]
    assert "crate::<Sink as fmt::Write>" in findings[0].message and "crate::<Sink as io::Write>" in findings[0].message


def _codec_tree(root: Path, impl_body: str) -> None:
    write_tree(
        root,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub mod codec;
        pub mod frames;
    """,
            "src/codec.rs": """
        pub trait Codec {
            fn encode(&self) -> Vec<u8>;
            fn name(&self) -> &str {
                "codec"
            }
        }
    """,
            "src/frames.rs": f"""
        use crate::codec::Codec as Wire;

        pub struct Frame;

        impl Wire for Frame {{
        {impl_body}
        }}
    """,
        },
    )


def test_a_method_a_trait_of_another_file_requires_is_refused(tmp_path: Path) -> None:
    _codec_tree(tmp_path, "    fn encode(&self) -> Vec<u8> { Vec::new() }")
    plan = _plan(tmp_path, ("src/frames.rs", "fn", "crate::<Frame as Wire>::encode"))
    assert [(f.path, f.line, f.code) for f in plan.blocking] == [("src/frames.rs", 6, "required-method")]
    assert "src/codec.rs:1" in plan.blocking[0].message


def test_a_method_with_a_default_in_a_trait_of_another_file_may_go(tmp_path: Path) -> None:
    _codec_tree(tmp_path, '    fn encode(&self) -> Vec<u8> { Vec::new() }\n    fn name(&self) -> &str { "frame" }')
    plan = _plan(tmp_path, ("src/frames.rs", "fn", "crate::<Frame as Wire>::name"))
    assert not plan.blocking, [f.render() for f in plan.blocking]
    assert "fn name" not in _after(plan, "src/frames.rs")


def test_a_method_of_an_impl_of_a_trait_outside_the_tree_is_refused_when_it_empties_the_impl(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Cargo.toml": CARGO, "src/lib.rs": SHOWN})
    plan = _plan(tmp_path, ("src/lib.rs", "fn", "<Reading as fmt::Display>::fmt"))
    assert [f.code for f in plan.blocking] == ["required-method"]
    assert "not defined in the tree" in plan.blocking[0].message


EDITION_2015 = """
pub fn parsed(text: &str) -> Result<u32, std::num::ParseIntError> {
    text.parse()
}

pub fn doubled(text: &str) -> Result<u32, std::num::ParseIntError> {
    let value = try!(parsed(text));
    Ok(value * 2)
}
"""


def test_edition_2015_code_inside_a_deleted_item_does_not_block_its_deletion(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Cargo.toml": '[package]\nname = "old"\nversion = "0.1.0"\n', "src/lib.rs": EDITION_2015})
    plan = _plan(tmp_path, ("src/lib.rs", "fn", "crate::doubled"))
    assert not plan.blocking, [f.render() for f in plan.blocking]
    assert _after(plan, "src/lib.rs") == _text("""
        pub fn parsed(text: &str) -> Result<u32, std::num::ParseIntError> {
            text.parse()
        }
    """)


PROBE = """
pub struct Probe {
    label: String,
    pub samples: Vec<u32>,
}

impl Probe {
    pub fn label(&self) -> &str {
        "probe"
    }

    pub fn describe(&self) -> String {
        let label = self.label();
        format!("{} of {}", label, self.samples.len())
    }
}
"""


def test_a_method_call_of_the_fields_name_is_no_read_of_the_field(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Cargo.toml": CARGO, "src/lib.rs": PROBE})
    plan = _plan(tmp_path, ("src/lib.rs", "field", "crate::Probe::label"))
    assert not plan.blocking, [f.render() for f in plan.blocking]
    assert "label: String" not in _after(plan, "src/lib.rs")


def test_a_field_whose_reads_the_recipes_rewrites_remove_may_go(tmp_path: Path) -> None:
    from codemods import load_recipe

    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": PROBE.replace('"probe"', "&self.label"),
            "r.toml": """
        id = "drop-label"

        [[delete]]
        path = "src/lib.rs"
        language = "rust"
        kind = "field"
        name = "crate::Probe::label"

        [[rewrite]]
        path = "src/lib.rs"
        pattern = "&self.label"
        replace = "\\"probe\\""
    """,
        },
    )
    plan = plan_recipe(tmp_path, load_recipe(str(tmp_path / "r.toml")))
    assert not plan.blocking, [f.render() for f in plan.blocking]
    assert _after(plan, "src/lib.rs") == _text(PROBE).replace("    label: String,\n", "")
    without_rewrite = _plan(tmp_path, ("src/lib.rs", "field", "crate::Probe::label"))
    assert [(f.line, f.symbol) for f in without_rewrite.blocking] == [(8, "label")]


def _bridge_tree(root: Path) -> None:
    write_tree(
        root,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        #[cxx::bridge(namespace = "dsp")]
        pub mod ffi {
            unsafe extern "C++" {
                include!("gauges/cpp/dsp.h");

                /// A resampler kept on the C++ side.
                type Resampler;
                type Window;

                fn window_len(window: &Window) -> usize;
            }
        }

        pub fn length(window: &ffi::Window) -> usize {
            ffi::window_len(window)
        }
    """,
            "cpp/dsp.h": """
        #pragma once
        namespace dsp {
        class Resampler {
         public:
          int rate = 0;
        };
        class Window {};
        }  // namespace dsp
    """,
        },
    )


def _cpp_and_rust(*targets: tuple[str, str, str, str]) -> Recipe:
    return Recipe(id="t", summary="", deletions=tuple(ItemTarget(*t) for t in targets))


def test_a_bridge_type_left_declaring_a_deleted_cpp_class_is_a_definite_finding(tmp_path: Path) -> None:
    _bridge_tree(tmp_path)
    plan = plan_recipe(tmp_path, _cpp_and_rust(("cpp/dsp.h", "cpp", "class", "dsp::Resampler")))
    assert [(f.path, f.line, f.certainty) for f in plan.blocking] == [("src/lib.rs", 7, "definite")]
    assert "bridge_type" in plan.blocking[0].resolution


def test_a_bridge_type_goes_with_the_cpp_class_it_declares(tmp_path: Path) -> None:
    _bridge_tree(tmp_path)
    plan = plan_recipe(
        tmp_path,
        _cpp_and_rust(
            ("cpp/dsp.h", "cpp", "class", "dsp::Resampler"), ("src/lib.rs", "rust", "bridge_type", "ffi::Resampler")
        ),
    )
    assert not plan.blocking, [f.render() for f in plan.blocking]
    after = _after(plan, "src/lib.rs")
    assert "Resampler" not in after and "type Window;" in after


def test_the_uses_of_a_deleted_bridge_type_dangle(tmp_path: Path) -> None:
    _bridge_tree(tmp_path)
    plan = plan_recipe(
        tmp_path,
        _cpp_and_rust(
            ("cpp/dsp.h", "cpp", "class", "dsp::Window"), ("src/lib.rs", "rust", "bridge_type", "ffi::Window")
        ),
    )
    assert [(f.line, f.symbol, f.certainty) for f in plan.blocking] == [
        (10, "Window", "definite"),
        (14, "Window", "definite"),
    ]


def test_a_bridge_type_of_another_namespace_is_not_the_deleted_class(tmp_path: Path) -> None:
    _bridge_tree(tmp_path)
    (tmp_path / "cpp/other.h").write_text("#pragma once\nnamespace audio {\nclass Resampler {};\n}\n")
    plan = plan_recipe(tmp_path, _cpp_and_rust(("cpp/other.h", "cpp", "class", "audio::Resampler")))
    assert not plan.blocking, [f.render() for f in plan.blocking]


def test_an_extern_rust_entry_exporting_a_deleted_rust_type_is_a_definite_finding(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        #[cxx::bridge]
        mod ffi {
            extern "Rust" {
                type Ledger;
                type Journal;
            }
        }

        pub struct Ledger;
        pub struct Journal;
    """,
        },
    )
    plan = _plan(tmp_path, ("src/lib.rs", "struct", "crate::Ledger"))
    assert [(f.line, f.symbol, f.certainty) for f in plan.blocking] == [(4, "Ledger", "definite")]
    both = _plan(tmp_path, ("src/lib.rs", "struct", "crate::Ledger"), ("src/lib.rs", "bridge_type", "ffi::Ledger"))
    assert not both.blocking, [f.render() for f in both.blocking]
    assert "Ledger" not in _after(both, "src/lib.rs")


def test_a_macro_argument_that_is_a_path_to_a_deleted_item_is_definite(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        macro_rules! register {
            ($($kind:ty),*) => { $(let _ = std::mem::size_of::<$kind>();)* };
        }
        macro_rules! with_meter {
            () => { Meter::default() };
        }

        #[derive(Default)]
        pub struct Meter;
        pub struct Dial;

        pub fn setup() {
            register!(Dial, Meter);
            register!(crate::Meter);
            register!(Vec<Meter>);
        }
    """,
        },
    )
    plan = _plan(tmp_path, ("src/lib.rs", "struct", "crate::Meter"))
    found = sorted((f.line, f.certainty) for f in plan.findings if f.code == "dangling-reference")
    # Line 5: `Meter::default()` in a macro_rules! body of this file, not exported: definite too.
    assert found == [(5, "definite"), (13, "definite"), (14, "definite"), (15, "possible")]


def test_a_blank_line_an_insert_ends_with_is_kept(tmp_path: Path) -> None:
    from codemods import load_recipe

    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub fn first() {}

        pub fn second() {}
    """,
            "r.toml": '''
        id = "r"
        [[insert]]
        path = "src/lib.rs"
        item = "crate::second"
        text = """pub fn between() {}

        """
    ''',
        },
    )
    plan = plan_recipe(tmp_path, load_recipe(str(tmp_path / "r.toml")))
    assert not plan.blocking, [f.render() for f in plan.blocking]
    assert _after(plan, "src/lib.rs") == "pub fn first() {}\n\npub fn between() {}\n\npub fn second() {}\n"


def test_a_multi_line_rewrite_is_indented_to_its_site(tmp_path: Path) -> None:
    from codemods import load_recipe

    # Tabs keep rustfmt off the file (it was not clean before): the indentation is the rewrite's own.
    source = "pub fn total(values: &[u32]) -> u32 {\n\tlet sum = values.iter().sum::<u32>();\n\tsum\n}\n"
    (tmp_path / "src").mkdir()
    (tmp_path / "Cargo.toml").write_text(CARGO)
    (tmp_path / "src/lib.rs").write_text(source)
    (tmp_path / "r.toml").write_text(
        _text('''
        id = "r"
        [[rewrite]]
        path = "src/lib.rs"
        pattern = "let $N = $E;"
        replace = """let $N = {
            let folded = $E;
            folded
        };"""
    ''')
    )
    plan = plan_recipe(tmp_path, load_recipe(str(tmp_path / "r.toml")))
    assert not plan.blocking, [f.render() for f in plan.blocking]
    assert _after(plan, "src/lib.rs").splitlines()[1:5] == [
        "\tlet sum = {",
        "\t    let folded = values.iter().sum::<u32>();",
        "\t    folded",
        "\t};",
    ]


@pytest.mark.parametrize("tail", ["\n", "\n\n", "\r\n\r\n"])
def test_deleting_the_last_item_leaves_no_blank_line_at_the_end_of_the_file(tail):
    source = f"fn kept() {{}}\n\n/// Gone.\nfn gone() {{}}{tail}"
    result, findings = run_deletion("rust", source.encode(), [("fn", "crate::gone")])
    assert not findings and result == b"fn kept() {}\n"


def test_an_import_a_doc_link_names_is_kept(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub mod units;
        use crate::units::{Celsius, Kelvin, Rankine};

        /// Converts into [`Kelvin`]; see also [Celsius::zero].
        pub fn convert(value: f64) -> f64 {
            value + 273.15
        }

        pub fn old(r: Rankine) -> Kelvin {
            Kelvin(r.0 * 5.0 / 9.0)
        }
    """,
            "src/units.rs": """
        pub struct Celsius(pub f64);
        pub struct Kelvin(pub f64);
        pub struct Rankine(pub f64);
    """,
        },
    )
    plan = _plan(tmp_path, ("src/lib.rs", "fn", "crate::old"))
    assert not plan.blocking, [f.render() for f in plan.blocking]
    assert _after(plan, "src/lib.rs").splitlines()[:2] == ["pub mod units;", "use crate::units::{Celsius, Kelvin};"]


@pytest.mark.parametrize(
    ("doc", "uses"),
    [
        ("/// See [`Kelvin`].", 1),
        ("/// See [`Kelvin`](crate::units::Kelvin).", 0),  # link text: the target is its own path
        ("/// See [Kelvin][scale].", 0),  # a reference-style link's text
        ("/// See [`crate::Kelvin`].", 0),  # from the crate root, not through the import
        ("/// See [`self::Kelvin`].", 1),  # `self::` reaches the module's imports
    ],
)
def test_an_imports_uses_in_doc_links(doc: str, uses: int) -> None:
    source = f"use crate::units::Kelvin;\n{doc}\npub fn f() {{}}\n".encode()
    assert name_uses(parse(source, "rust"), {"Kelvin"}, through_paths=False)["Kelvin"] == uses


GAUGE_MACROS = """
macro_rules! register {
    ($($kind:ident),*) => {};
}

register!(Dial, Meter);

pub fn setup() {
    // Meters go first.
    register!(Meter);
    register!(Dial);
}
"""


@pytest.mark.parametrize("name", ["register!(Dial, Meter)", "register! ( Dial,Meter )"])
def test_an_item_level_macro_invocation_by_its_text(name):
    assert_deletes(
        "rust", GAUGE_MACROS, [("macro_call", name)], GAUGE_MACROS.replace("register!(Dial, Meter);\n\n", "")
    )


def test_a_statement_macro_invocation_goes_with_its_comment():
    assert_deletes(
        "rust",
        GAUGE_MACROS,
        [("macro_call", "register!(Meter)")],
        GAUGE_MACROS.replace("    // Meters go first.\n    register!(Meter);\n", ""),
    )


def test_a_macro_name_naming_several_invocations_is_refused_listing_each_and_numbered_selects_one():
    source = _text(GAUGE_MACROS).encode()
    result, findings = run_deletion("rust", source, [("macro_call", "register!")])
    assert result == source and [f.code for f in findings] == ["ambiguous"]
    assert "register!(Dial,Meter)#1 (line 5)" in findings[0].message
    assert_deletes(
        "rust", GAUGE_MACROS, [("macro_call", "register!#3")], GAUGE_MACROS.replace("    register!(Dial);\n", "")
    )


STATES = """
pub enum State {
    Idle,
    Busy(u8),
    Done,
}

pub fn label(state: &State) -> &'static str {
    match state {
        State::Idle => "idle",
        State::Busy(n) if *n > 9 => {
            "swamped"
        }
        State::Busy(_) => "busy",
        _ => "done",
    }
}

pub fn rank(state: &State) -> u8 {
    match state {
        State::Idle => 0,
        State::Busy(_) | State::Done => 1,
    }
}
"""


def test_a_match_arm_by_its_item_and_pattern():
    assert_deletes(
        "rust",
        STATES,
        [("match_arm", "crate::label => State::Idle")],
        STATES.replace('        State::Idle => "idle",\n', ""),
    )


def test_a_guarded_match_arm_with_a_block_body():
    assert_deletes(
        "rust",
        STATES,
        [("match_arm", "State::Busy(n) if *n > 9")],
        STATES.replace('        State::Busy(n) if *n > 9 => {\n            "swamped"\n        }\n', ""),
    )


def test_a_match_arm_whose_removal_may_leave_the_match_not_exhaustive_is_refused():
    source = _text(STATES).encode()
    result, findings = run_deletion("rust", source, [("match_arm", "rank => State::Idle")])
    assert result == source and [(f.code, f.line) for f in findings] == [("non-exhaustive-match", 20)]
    _, several = run_deletion("rust", source, [("match_arm", "State::Idle")])
    assert [f.code for f in several] == ["ambiguous"]


def test_a_parse_error_in_a_deleted_item_of_a_later_edition_still_refuses(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Cargo.toml": CARGO, "src/lib.rs": EDITION_2015})
    plan = _plan(tmp_path, ("src/lib.rs", "fn", "crate::doubled"))
    assert [f.code for f in plan.blocking] == ["unparseable-target"]


@pytest.mark.parametrize("name", ["register!(Dial, $$$REST)", "register!($A, $B)", "register!($$$ALL, Meter)"])
def test_a_macro_invocation_by_a_token_pattern(name):
    assert_deletes(
        "rust", GAUGE_MACROS, [("macro_call", name)], GAUGE_MACROS.replace("register!(Dial, Meter);\n\n", "")
    )


def test_a_macro_pattern_whose_metavariable_repeats_needs_equal_tokens():
    source = _text(GAUGE_MACROS).encode()
    result, findings = run_deletion("rust", source, [("macro_call", "register!($A, $A)")])
    assert result == source and [f.code for f in findings] == ["no-such-item"]


def test_skipping_a_change_whose_target_name_is_no_slug_keeps_it(tmp_path: Path) -> None:
    from codemods import changes_of, plan_subset

    write_tree(tmp_path, {"Cargo.toml": CARGO, "src/lib.rs": GAUGE})
    plan = _plan(tmp_path, ("src/lib.rs", "fn", "crate::<Gauge>::new"), ("src/lib.rs", "impl", "<Gauge>#2"))
    ids = [c.id for c in changes_of(plan)]
    assert ids == ["t:fn:crate::Gauge::new", "t:impl:Gauge-2"]
    kept_impl = plan_subset(plan, skip=["t:impl:Gauge-2"]).plan.changes[0].after.decode()
    assert "fn reset" in kept_impl and "fn new" not in kept_impl


def test_a_rewrite_scoped_to_a_numbered_impl(tmp_path: Path) -> None:
    from codemods import load_recipe

    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": GAUGE.replace("{ Gauge(0) }", "{ let g = Gauge(0); g }").replace(
                "{ self.0 = 0; }", "{ *self = Gauge(0); }"
            ),
            "r.toml": """
        id = "r"
        [[rewrite]]
        path = "src/lib.rs"
        item = "<Gauge>#2"
        pattern = "Gauge(0)"
        replace = "Gauge(1)"
    """,
        },
    )
    plan = plan_recipe(tmp_path, load_recipe(str(tmp_path / "r.toml")))
    assert not plan.blocking, [f.render() for f in plan.blocking]
    after = _after(plan, "src/lib.rs")
    assert "let g = Gauge(0);" in after and "*self = Gauge(1);" in after


def test_in_an_edition_2015_crate_use_paths_start_at_the_crate_root(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "old"\nversion = "0.1.0"\n',
            "src/lib.rs": """
        pub mod wire;
        pub mod frames;
        pub use wire::Codec;
    """,
            "src/wire.rs": """
        pub trait Codec {
            fn encode(&self) -> Vec<u8>;
        }
    """,
            "src/frames.rs": """
        use Codec;
        use wire::{self};

        pub struct Frame;

        impl Codec for Frame {
            fn encode(&self) -> Vec<u8> { Vec::new() }
        }

        pub fn boxed() -> Box<wire::Codec> { Box::new(Frame) }
    """,
        },
    )
    plan = _plan(tmp_path, ("src/wire.rs", "trait", "crate::Codec"))
    assert sorted((f.path, f.line) for f in plan.blocking) == [
        ("src/frames.rs", 1),
        ("src/frames.rs", 6),
        ("src/frames.rs", 10),
        ("src/lib.rs", 3),
    ]
    method = _plan(tmp_path, ("src/frames.rs", "fn", "crate::<Frame as Codec>::encode"))
    assert [(f.path, f.code) for f in method.blocking] == [("src/frames.rs", "required-method")]


REPLAY = Path(__file__).resolve().parents[4].parent / "shared" / "corpora" / "replay"


def test_on_a_real_edition_2015_tree_every_use_of_a_deleted_trait_is_found(tmp_path: Path) -> None:
    import tarfile

    archive = REPLAY / "18-mio-socket-module" / "parent.tar.xz"
    if not archive.is_file():
        pytest.skip(f"the replay corpus is not here ({archive} is absent)")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path, filter="data")
    root = tmp_path / "18-mio-socket-module"
    plan = _plan(root, ("src/io.rs", "trait", "crate::TryAccept"))
    # The crate root's re-export, and each `use {..., TryAccept}` and `impl TryAccept for` of the net modules.
    assert {f.path for f in plan.blocking} == {"src/lib.rs", "src/net/tcp.rs", "src/net/unix.rs", "src/sys/unix/uds.rs"}
    assert len(plan.blocking) >= 6
    required = _plan(root, ("src/net/udp.rs", "fn", "crate::<UdpSocket as Evented>::deregister"))
    assert [(f.path, f.code) for f in required.blocking] == [("src/net/udp.rs", "required-method")]


LANTERN = """
pub struct Lantern { lit: bool }

impl Lantern {
    pub fn unlit() -> Self { Lantern { lit: false } }
    pub fn kindle(&mut self) { self.lit = true; }
}

impl Default for Lantern {
    fn default() -> Lantern { Lantern::unlit() }
}

pub struct Torch;

impl Torch {
    pub fn fresh() -> Torch { Torch }
    pub fn kindle(&mut self) {}
}
"""


@pytest.mark.parametrize("binding", ["Lantern::unlit()", "Lantern::default()", "crate::Lantern::unlit()"])
def test_a_local_bound_to_a_constructor_of_the_type_is_of_that_type(tmp_path: Path, binding) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": LANTERN
            + _text(f"""
        pub fn light() {{
            let mut lantern = {binding};
            lantern.kindle();
        }}
    """),
        },
    )
    plan = _plan(tmp_path, ("src/lib.rs", "fn", "crate::Lantern::kindle"))
    assert [(f.symbol, f.certainty) for f in plan.findings] == [("kindle", "definite")]


def test_a_local_bound_to_another_types_constructor_is_no_call_of_the_deleted_method(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": LANTERN
            + _text("""
        pub fn light() {
            let mut torch = Torch::fresh();
            torch.kindle();
        }
    """),
        },
    )
    plan = _plan(tmp_path, ("src/lib.rs", "fn", "crate::Lantern::kindle"))
    assert not plan.findings, [f.render() for f in plan.findings]


def test_a_module_file_goes_with_its_trait_impls_whatever_their_trait(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": "mod knob;\n\npub trait Turn {\n    fn turn(&mut self);\n}\n",
            "src/knob.rs": _text("""
                              use std::fmt;

                              pub struct Knob(u8);

                              impl fmt::Display for Knob {
                                  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "{}", self.0) }
                              }

                              impl crate::Turn for Knob {
                                  fn turn(&mut self) { self.0 += 1; }
                              }
                          """),
        },
    )
    plan = _plan(tmp_path, ("src/lib.rs", "mod", "crate::knob"))
    assert not plan.findings, [f.render() for f in plan.findings]
    assert [c.path for c in plan.changes if c.after is None or not c.after] == ["src/knob.rs"]


@pytest.mark.parametrize(
    ("clock", "refused"),
    [
        ("use std::time::Instant;\n\npub fn now() -> Instant { Instant::now() }\n", False),
        ("use std::time::Instant;\n\npub fn mark() -> crate::Instant { crate::Instant }\n", True),
        ("use crate::Instant;\n\npub fn mark() -> Instant { Instant }\n", True),
    ],
)
def test_a_reexport_goes_when_other_files_use_only_another_crates_item_of_its_name(
    tmp_path: Path, clock, refused
) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": "mod clock;\nmod tick;\n\npub use self::tick::Instant;\n",
            "src/tick.rs": "pub struct Instant;\n",
            "src/clock.rs": clock,
        },
    )
    plan = _plan(tmp_path, ("src/lib.rs", "mod", "crate::tick"))
    assert bool(plan.blocking) == refused, [f.render() for f in plan.findings]
    if not refused:
        assert _after(plan, "src/lib.rs") == "mod clock;\n"


# A field deleted from one struct; other structs, here and in another file, have fields of the
# same name: `Self { .. }`, `self.name` and `Other { .. }` show the other struct, so they are no use.
LEDGER = """
pub struct Ledger {
    pub tally: u64,
    pub owner: String,
}

pub struct Journal {
    pub tally: u64,
}

impl Journal {
    pub fn fresh() -> Self {
        Self { tally: 0 }
    }

    pub fn bump(&mut self) {
        self.tally += 1;
    }
}

pub fn blank_journal() -> Journal {
    Journal { tally: 7 }
}

pub fn owner_of(ledger: &Ledger) -> &str {
    &ledger.owner
}
"""

SHELF = """
pub struct Shelf {
    tally: u32,
}

impl Shelf {
    pub fn empty() -> Self {
        Self { tally: 0 }
    }

    pub fn grow(&mut self) -> u32 {
        self.tally += 2;
        self.tally
    }
}
"""


def test_fields_of_another_struct_of_the_same_name_are_no_use(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": "pub mod ledger;\npub mod shelf;\n",
            "src/ledger.rs": LEDGER,
            "src/shelf.rs": SHELF,
        },
    )
    plan = _plan(tmp_path, ("src/ledger.rs", "field", "crate::ledger::Ledger::tally"))
    assert not plan.blocking, [f.render() for f in plan.blocking]
    assert "    pub tally: u64,\n    pub owner" not in _after(plan, "src/ledger.rs")


def test_self_of_the_struct_itself_still_uses_the_deleted_field(tmp_path: Path) -> None:
    kept = SHELF.replace("impl Shelf", "impl Journal").replace("pub struct Shelf", "pub struct Journal")
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": "pub mod ledger;\npub mod shelf;\n",
            "src/ledger.rs": LEDGER.replace("impl Journal", "impl Ledger").replace(
                "Self { tally: 0 }", "Self { tally: 0, owner: String::new() }"
            ),
            "src/shelf.rs": kept,
        },
    )
    plan = _plan(tmp_path, ("src/ledger.rs", "field", "crate::ledger::Ledger::tally"))
    lines = sorted((f.path, f.line) for f in plan.blocking if f.symbol == "tally")
    # the ledger file: `Self { tally: .. }` and `self.tally` in `impl Ledger` are definite uses
    assert ("src/ledger.rs", 12) in lines and ("src/ledger.rs", 16) in lines, lines
    # `Journal { tally: 7 }` names another struct; the other file's `Journal` is another struct too
    assert ("src/ledger.rs", 21) not in lines and not any(p == "src/shelf.rs" for p, _ in lines), lines


def test_a_use_under_a_cfg_flag_nothing_in_the_tree_sets_is_possible(tmp_path: Path) -> None:
    lib = """
        pub struct Dial { pub turns: u32 }

        impl Dial {
            pub fn fresh() -> Dial { Dial { turns: 0 } }
            pub fn spun() -> Dial { Dial { turns: 3 } }
        }

        #[cfg(stale_probe)]
        mod probe {
            use super::Dial;
            pub fn spin() -> Dial { Dial::spun() }
        }

        #[cfg(all(test, lab_rig))]
        mod rig {
            pub fn spin() -> super::Dial { super::Dial::spun() }
        }

        #[cfg(test)]
        mod tests {
            #[test]
            fn spins() { assert_eq!(super::Dial::spun().turns, 3); }
        }
    """
    write_tree(
        tmp_path,
        {"Cargo.toml": CARGO, "src/lib.rs": lib, "build.rs": 'fn main() { println!("cargo:rustc-cfg=lab_rig"); }\n'},
    )
    plan = _plan(tmp_path, ("src/lib.rs", "fn", "crate::Dial::spun"))
    blocking = sorted((f.line, f.certainty) for f in plan.blocking if f.symbol == "spun")
    noted = sorted((f.line, f.certainty) for f in plan.findings if f.symbol == "spun" and f not in plan.blocking)
    # `lab_rig` is set by the build script and `test` is built in: definite; `stale_probe` is set by nothing
    assert blocking == [(16, "definite"), (22, "definite")], blocking
    assert noted == [(11, "possible")], noted
