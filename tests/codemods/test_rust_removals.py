"""Rust removals that used to go wrong silently or be refused wrongly: an impl named among several
of one type, a method a trait elsewhere still requires, qualified trait paths, uses the whole plan
leaves dangling, cxx bridge types, fields read by a method of their name, edition 2015 code."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codemods import ItemTarget, Recipe, plan_recipe

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
    assert_deletes("rust", GAUGE, [("impl", name)], GAUGE.replace(
        "\nimpl Gauge {\n    pub fn reset(&mut self) { self.0 = 0; }\n}\n", ""))


def test_the_methods_an_impl_deletion_removes_are_checked_like_a_method_deletion(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Cargo.toml": CARGO, "src/lib.rs": GAUGE + _text("""
        pub fn zero(gauge: &mut Gauge) {
            Gauge::reset(gauge);
        }
    """)})
    plan = _plan(tmp_path, ("src/lib.rs", "impl", "<Gauge>#2"))
    dangling = [(f.line, f.symbol, f.certainty) for f in plan.blocking]
    assert dangling == [(11, "reset", "definite")]
