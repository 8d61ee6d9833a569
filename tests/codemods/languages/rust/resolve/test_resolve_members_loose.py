"""The reference check for a deleted enum variant (resolved by its enum, never by its spelling
alone) and for a tree without a Cargo.toml (its files still form a crate): every line marked
`// REF` is reported as a definite use, and no other line."""

from __future__ import annotations

from pathlib import Path

from codemods import Code, ItemTarget, Recipe, plan_recipe

from resolve_helpers import expected, write_tree

CARGO = '[package]\nname = "kiln"\nversion = "0.1.0"\nedition = "2021"\n'


def _dangling(root: Path, path: str, kind: str, name: str) -> dict[tuple[str, int], str]:
    recipe = Recipe(id="t", summary="", deletions=(ItemTarget(path, "rust", kind, name),))
    plan = plan_recipe(root, recipe)
    return {(f.path, f.line): f.certainty for f in plan.findings if f.code == Code.DANGLING_REFERENCE}


def test_a_variant_of_another_enum_with_the_same_name_is_no_use(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        mod glaze;
        mod firing;
        use crate::glaze::Finish;
        use crate::firing::Stage;
        use crate::glaze::Finish as Coat;
        pub fn pick(f: &Finish) -> Stage {
            match f {
                Finish::Matte => Stage::Crackle(2),
                _ => Stage::Cool,
            }
        }
        pub fn again() -> Finish {
            Finish::Crackle(7) // REF
        }
        pub fn aliased() -> Coat {
            Coat::Crackle(8) // REF
        }
        pub fn shown() -> bool {
            matches!(pick(&Finish::Matte), Stage::Crackle(_))
        }
        """,
            "src/glaze.rs": """
        pub enum Finish {
            Crackle(u8),
            Matte,
        }
        impl Finish {
            pub fn rough() -> Self {
                Self::Crackle(1) // REF
            }
        }
        """,
            "src/firing.rs": """
        pub enum Stage {
            Crackle(u8),
            Cool,
        }
        impl Stage {
            pub fn hot() -> Self {
                Self::Crackle(9)
            }
        }
        pub fn bare() -> Stage {
            use Stage::*;
            Crackle(3)
        }
        """,
        },
    )
    assert _dangling(tmp_path, "src/glaze.rs", "variant", "crate::glaze::Finish::Crackle") == expected(tmp_path)


def test_a_variant_imported_bare_is_a_use_where_the_import_reaches(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "Cargo.toml": CARGO,
            "src/lib.rs": """
        pub enum Finish {
            Crackle(u8),
            Matte,
        }
        pub fn bare() -> Finish {
            use Finish::*;
            Crackle(3) // REF
        }
        pub fn listed() -> Finish {
            use self::Finish::{Crackle, Matte}; // REF
            if true { Matte } else { Crackle(4) } // REF
        }
        pub fn plain(Crackle: u8) -> u8 {
            Crackle
        }
        """,
        },
    )
    assert _dangling(tmp_path, "src/lib.rs", "variant", "crate::Finish::Crackle") == expected(tmp_path)


def test_a_tree_without_a_manifest_is_resolved_as_a_crate_rooted_at_its_lib(tmp_path: Path) -> None:
    # The re-export names the deleted item and nothing uses it (`kilns::vent()` goes by its path,
    # not through it): the plan removes it; the uses left are reported.
    write_tree(
        tmp_path,
        {
            "src/lib.rs": """
        mod kilns;
        pub use crate::kilns::vent;
        pub fn unload() -> u32 {
            kilns::vent() + 1 // REF
        }
        """,
            "src/kilns.rs": """
        pub fn vent() -> u32 {
            3
        }
        pub fn stack() -> u32 {
            vent() * 2 // REF
        }
        """,
        },
    )
    assert _dangling(tmp_path, "src/kilns.rs", "fn", "crate::kilns::vent") == expected(tmp_path)


def test_a_loose_file_without_a_manifest_is_its_own_crate_root(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "tools/sweep.rs": """
        fn brush() -> u8 {
            1
        }
        fn main() {
            let n = brush(); // REF
            println!("{n}");
        }
        """
        },
    )
    assert _dangling(tmp_path, "tools/sweep.rs", "fn", "brush") == expected(tmp_path)
