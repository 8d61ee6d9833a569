"""The resolver's lexical cuts (issue 41): a module whose file neither declares nor imports a
name, nor has a glob import that could pass it on, is answered without parsing it; a file's
spelled `mod NAME;` is read once. The cuts must never change what a lookup finds."""

from __future__ import annotations

from codemods import ItemTarget, Recipe
from codemods.languages.rust.resolve.scopes import spells_binding
from codemods.plan.planner import plan_recipe

from resolve_helpers import write_tree


def test_spells_binding_sees_declarations_and_imports_only():
    assert spells_binding(b"pub struct \n\n  Lantern;", "Lantern")
    assert spells_binding(b"fn r#Lantern() {}", "Lantern")
    assert spells_binding(b"use kiln::{ember, Lantern};", "Lantern")
    assert spells_binding(b"pub use kiln::Wick as Lantern;", "Lantern")
    assert spells_binding(b"macro_rules! Lantern { () => {} }", "Lantern")
    assert spells_binding(b"extern crate kiln as Lantern;", "Lantern")
    assert spells_binding(b'#[rust_name = "Lantern"] fn lantern();', "Lantern")
    assert not spells_binding(b"fn light() { let x = Lantern::new(); x.glow(); }", "Lantern")
    assert not spells_binding(b"// a Lantern here\nfn glow() {}", "Lantern")


def _tree() -> dict[str, str]:
    manifest = '[package]\nname = "{}"\nversion = "0.1.0"\nedition = "2021"\n'
    return {
        "Cargo.toml": '[workspace]\nmembers = ["kiln", "porch"]\n',
        "kiln/Cargo.toml": manifest.format("kiln"),
        # A glob chain: lib.rs re-exports `parts::*`, parts re-exports `deep::*`; only deep
        # declares the alias `Lamp` of the struct, `quiet` (reached by the glob too) never names it.
        # Were the chain cut, `Lamp` would be a type outside the tree and `w.trim()` no use.
        "kiln/src/lib.rs": "pub mod parts;\npub use parts::*;\n",
        "kiln/src/parts/mod.rs": "mod deep;\nmod quiet;\npub use deep::*;\npub use quiet::*;\n",
        "kiln/src/parts/quiet.rs": "pub fn hush() -> u8 {\n    0\n}\n",
        "kiln/src/parts/deep.rs": ("pub struct Wick {\n    pub size: usize,\n}\n\nimpl Wick {\n"
                                   "    pub fn trim(&self) -> usize {\n        self.size\n    }\n}\n\npub type Lamp = Wick;\n"),
        "porch/Cargo.toml": manifest.format("porch") + '[dependencies]\nkiln = { path = "../kiln" }\n',
        "porch/src/lib.rs": ("use kiln::*;\n\npub fn snip(w: Lamp) -> usize {\n    w.trim()\n}\n\n"
                             "pub fn other(v: Vec<u8>) -> usize {\n    v.len()\n}\n"),
    }


def test_a_glob_chain_still_resolves_through_files_that_do_not_name_the_type(tmp_path, monkeypatch):
    write_tree(tmp_path, _tree())
    for jobs in ("1", "2"):
        monkeypatch.setenv("CODEMOD_JOBS", jobs)
        recipe = Recipe(id="t", summary="",
                        deletions=(ItemTarget("kiln/src/parts/deep.rs", "rust", "fn", "crate::parts::deep::Wick::trim"),))
        plan = plan_recipe(tmp_path, recipe)
        found = [f for f in plan.findings if f.path == "porch/src/lib.rs"]
        assert [f.line for f in found] == [4], plan.findings
        assert "Wick::trim" in found[0].message
