"""A deleted trait impl whose type, as the plan leaves it, derives the trait: the uses of its
methods are the derived impl's (`impl Default for T` replaced by `#[derive(Default)]`)."""

from __future__ import annotations

from pathlib import Path

from codemods import ItemTarget, PatternRewrite, Recipe, plan_recipe

CARGO = '[package]\nname = "brewery"\nversion = "0.1.0"\nedition = "2021"\n'


def test_a_trait_impl_the_plan_replaces_by_a_derive_leaves_its_uses_to_the_derived_one(tmp_path: Path) -> None:
    """`impl Default for Kettle` deleted while a rewrite adds `Default` to the struct's derive:
    `Kettle::default()` elsewhere is the derived method, no dangling use; without the rewrite it is."""
    files = {
        "Cargo.toml": CARGO,
        "src/lib.rs": "pub mod brew;\npub mod kettle;\n",
        "src/kettle.rs": (
            "#[derive(Clone)]\npub struct Kettle {\n    pub litres: u32,\n}\n\n"
            "impl Default for Kettle {\n    fn default() -> Self {\n        Kettle { litres: 0 }\n    }\n}\n"
        ),
        "src/brew.rs": "use crate::kettle::Kettle;\n\npub fn boil() -> u32 {\n    Kettle::default().litres\n}\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    target = ItemTarget("src/kettle.rs", "rust", "impl", "<Kettle as Default>")
    derive = PatternRewrite("src/kettle.rs", "#[derive(Clone)]", "#[derive(Clone, Default)]", language="text")
    plan = plan_recipe(tmp_path, Recipe(id="t", summary="", deletions=(target,), rewrites=(derive,)))
    assert plan.blocking == [], [f.render() for f in plan.blocking]
    plan = plan_recipe(tmp_path, Recipe(id="t", summary="", deletions=(target,)))
    assert [(f.path, f.line) for f in plan.blocking] == [("src/brew.rs", 4)]
