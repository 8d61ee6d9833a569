"""A trait method deleted while a `macro_rules!` body still writes `impl Trait for $t { fn method
.. }`: each expansion defines a method the trait no longer declares, so the plan refuses at the
macro's `fn` (a definite use); the same name in an inherent impl a macro writes, or in an impl
of another trait, is none."""

from __future__ import annotations

from pathlib import Path

from codemods import ItemTarget, Recipe, plan_recipe

LIB = """pub trait Widen {
    fn widen_u8(v: u8) -> Self;
    fn widen_u16(v: u16) -> Self;
}

pub trait Narrow {
    fn widen_u8(v: u8) -> Self;
}

macro_rules! widen_for {
    ($t:ident) => {
        impl Widen for $t {
            fn widen_u8(v: u8) -> Self {
                v as $t
            }
            fn widen_u16(v: u16) -> Self {
                v as $t
            }
        }
    };
}

macro_rules! narrow_for {
    ($t:ident) => {
        impl $t {
            pub fn widen_u8(v: u8) -> Self {
                v as $t
            }
        }
        impl Narrow for $t {
            fn widen_u8(v: u8) -> Self {
                v as $t
            }
        }
    };
}

widen_for!(u32);
widen_for!(u64);
"""


def test_a_macro_written_impl_of_the_trait_still_defining_the_deleted_method_is_a_use(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "widen"\nversion = "0.1.0"\nedition = "2021"\n')
    (tmp_path / "src/lib.rs").write_text(LIB)
    plan = plan_recipe(
        tmp_path,
        Recipe(
            id="t", summary="", deletions=(ItemTarget("src/lib.rs", "rust", "trait_method", "crate::Widen::widen_u8"),)
        ),
    )
    assert [(f.path, f.line, f.certainty) for f in plan.findings if f.code == "dangling-reference"] == [
        ("src/lib.rs", 13, "definite")
    ]
