import shutil
from pathlib import Path

import pytest

from codemods import ItemTarget, Recipe, plan_recipe
from codemods.languages.rust.items import RustTarget, delete_rust_items, rust_items

from codemod_helpers import assert_deletes, dedent, run_deletion, rustfmt_clean


def test_function_with_doc_comment_intra_doc_links_and_attributes():
    assert_deletes(
        "rust",
        """
        use crate::ffi;

        /// Runs the dense fallback.
        ///
        /// See [`crate::cache::FrobMeta`] and [`frob_compat`].
        #[inline]
        #[cfg(feature = "cuda")]
        pub fn frob_fallback(x: i32) -> i32 {
            x + 1
        }

        /// Stays.
        pub fn keep() {}
        """,
        [("fn", "frob_fallback")],
        """
        use crate::ffi;

        /// Stays.
        pub fn keep() {}
        """,
    )


def test_first_item_of_file_takes_following_blank_line():
    assert_deletes(
        "rust",
        """
        /// Gone.
        fn gone() {}

        fn keep() {}
        """,
        [("fn", "gone")],
        """
        fn keep() {}
        """,
    )


def test_last_item_of_file_takes_preceding_blank_line():
    assert_deletes(
        "rust",
        """
        fn keep() {}

        /// Gone.
        fn gone() {}
        """,
        [("fn", "gone")],
        """
        fn keep() {}
        """,
    )


def test_last_item_in_module_block():
    assert_deletes(
        "rust",
        """
        #[cfg(test)]
        mod tests {
            #[test]
            fn stays() {}

            /// Doc above the attribute.
            #[test]
            fn gone() {
                assert!(true);
            }
        }
        """,
        [("test", "tests::gone")],
        """
        #[cfg(test)]
        mod tests {
            #[test]
            fn stays() {}
        }
        """,
    )


def test_first_item_in_module_block():
    assert_deletes(
        "rust",
        """
        mod tests {
            #[test]
            fn gone() {}

            #[test]
            fn stays() {}
        }
        """,
        [("test", "tests::gone")],
        """
        mod tests {
            #[test]
            fn stays() {}
        }
        """,
    )


def test_adjacent_items_are_settled_together():
    assert_deletes(
        "rust",
        """
        fn a() {}

        fn gone_one() {}

        fn gone_two() {}

        fn b() {}
        """,
        [("fn", "gone_one"), ("fn", "gone_two")],
        """
        fn a() {}

        fn b() {}
        """,
    )


def test_adjacent_items_last_in_block():
    assert_deletes(
        "rust",
        """
        mod m {
            fn a() {}

            fn gone_one() {}

            fn gone_two() {}
        }
        """,
        [("fn", "m::gone_one"), ("fn", "m::gone_two")],
        """
        mod m {
            fn a() {}
        }
        """,
    )


def test_struct_takes_every_impl_block_even_when_not_adjacent():
    assert_deletes(
        "rust",
        """
        /// Metadata.
        #[derive(Debug, Clone)]
        pub struct FrobMeta {
            pub lengths: Vec<i32>,
        }

        pub fn keep() {}

        impl FrobMeta {
            pub fn new() -> Self {
                Self { lengths: vec![] }
            }
        }

        pub struct Other;

        impl Default for FrobMeta {
            fn default() -> Self {
                Self::new()
            }
        }

        impl FrobMeta {
            /// Second inherent block.
            pub fn len(&self) -> usize {
                self.lengths.len()
            }
        }

        impl Other {
            pub fn stays(&self) {}
        }
        """,
        [("type", "FrobMeta")],
        """
        pub fn keep() {}

        pub struct Other;

        impl Other {
            pub fn stays(&self) {}
        }
        """,
    )


def test_bridge_entry_with_rust_name_and_cfg():
    assert_deletes(
        "rust",
        """
        #[cxx::bridge]
        pub mod ffi {
            unsafe extern "C++" {
                include!("frob.h");

                type MlxArray;

                /// Frobs the cache.
                /// More text.
                #[rust_name = "frob_compat_rs"]
                unsafe fn frob_compat(q: &MlxArray, keys: &[*const MlxArray], n: i32) -> UniquePtr<MlxArray>;

                /// Stays.
                #[cfg(feature = "cuda")]
                fn frob_pooled(q: &MlxArray) -> UniquePtr<MlxArray>;
            }
        }
        """,
        [("bridge_fn", "ffi::frob_compat")],
        """
        #[cxx::bridge]
        pub mod ffi {
            unsafe extern "C++" {
                include!("frob.h");

                type MlxArray;

                /// Stays.
                #[cfg(feature = "cuda")]
                fn frob_pooled(q: &MlxArray) -> UniquePtr<MlxArray>;
            }
        }
        """,
    )


def test_bridge_entry_reports_its_rust_name_as_a_visible_name():
    source = dedent(
        """
        #[cxx::bridge]
        mod ffi {
            unsafe extern "C++" {
                #[rust_name = "frob_rs"]
                fn frob(x: i32) -> i32;
            }
        }
        """
    )
    resolved = delete_rust_items("t.rs", source, [RustTarget("bridge_fn", "ffi::frob")]).gone
    assert resolved[0].removed_names == ("frob", "frob_rs")


@pytest.mark.parametrize(
    ("literal", "name"),
    [
        (r'"frob_\u{72}s"', "frob_rs"),
        (r'"frob_\x72s"', "frob_rs"),
        ('r#"frob_rs"#', "frob_rs"),
        ('"frob_\\\n                 rs"', "frob_rs"),
    ],
)
def test_a_rust_name_with_escapes_is_read_as_rustc_reads_it(literal: str, name: str):
    source = (
        '#[cxx::bridge]\nmod ffi {\n    unsafe extern "C++" {\n'
        f"        #[rust_name = {literal}]\n        fn frob(x: i32) -> i32;\n    }}\n}}\n"
    )
    resolved = delete_rust_items("t.rs", source.encode(), [RustTarget("bridge_fn", "ffi::frob")]).gone
    assert resolved[0].removed_names == ("frob", name)


def test_plain_comment_directly_above_belongs_to_item_but_not_across_blank_line():
    assert_deletes(
        "rust",
        """
        // Section header, separated by a blank line: stays.

        // Directly above: goes.
        fn gone() {}
        fn keep() {}
        """,
        [("fn", "gone")],
        """
        // Section header, separated by a blank line: stays.

        fn keep() {}
        """,
    )


def test_inner_doc_comment_stays_with_module():
    assert_deletes(
        "rust",
        """
        //! Crate docs.
        fn gone() {}

        fn keep() {}
        """,
        [("fn", "gone")],
        """
        //! Crate docs.

        fn keep() {}
        """,
    )


def test_trailing_comment_on_previous_item_is_not_taken():
    source = dedent(
        """
        fn keep() {} // about keep
        fn gone() {}
        """
    )
    result, _ = run_deletion("rust", source, [("fn", "gone")])
    assert result == b"fn keep() {} // about keep\n"


def test_missing_target_blocks_with_the_closest_names():
    source = dedent("pub fn merge() {}\n\nimpl Handle {\n    pub fn merge(&self) {}\n}\n")
    result, findings = run_deletion("rust", source, [("fn", "crate::mrege"), ("fn", "absent")])
    assert result == source
    assert [(f.code, f.blocking, f.message) for f in findings] == [
        (
            "no-such-item",
            True,
            "no item crate::mrege of kind fn in t.rs; did you mean crate::merge or crate::Handle::merge?",
        ),
        ("no-such-item", True, "no item absent of kind fn in t.rs"),
    ]


def test_missing_target_in_a_file_already_clean_is_a_note():
    source = dedent("fn keep() {}\n")
    findings = delete_rust_items("t.rs", source, [RustTarget("fn", "absent")], already_absent=lambda: True).findings
    assert [(f.code, f.blocking, f.message) for f in findings] == [
        ("not-found", False, "fn absent already absent (no code in the file names the recipe's dead symbols)")
    ]


def test_wrong_kind_is_a_blocking_shape_mismatch():
    source = dedent("pub struct Frob;\n")
    result, findings = run_deletion("rust", source, [("fn", "Frob")])
    assert result == source
    assert [(f.code, f.blocking, f.line) for f in findings] == [("shape-mismatch", True, 1)]


def test_same_name_in_two_modules_is_ambiguous():
    source = dedent(
        """
        fn frob() {}
        mod inner {
            fn frob() {}
        }
        """
    )
    _, findings = run_deletion("rust", source, [("fn", "frob")])
    assert [f.code for f in findings] == ["ambiguous"]
    result, findings = run_deletion("rust", source, [("fn", "inner::frob")])
    assert not findings
    assert b"mod inner {}" in result


def test_methods_are_named_through_their_type():
    source = dedent(
        """
        struct W;
        impl W {
            fn new() -> Self {
                W
            }
        }
        fn new() {}
        """
    )
    names = [i.qualified_name for i in rust_items(source)]
    assert "W::new" in names and "new" in names


def test_let_chains_parse_and_delete():
    assert_deletes(
        "rust",
        """
        fn keep(a: bool, f: Option<i32>) -> i32 {
            if a && let Some(x) = f {
                return x;
            }
            0
        }

        fn gone() {}
        """,
        [("fn", "gone")],
        """
        fn keep(a: bool, f: Option<i32>) -> i32 {
            if a && let Some(x) = f {
                return x;
            }
            0
        }
        """,
    )


ISSUE_12_LIB_RS = """\
pub fn keep() {}

#[link_section = ".vectors"]
#[no_mangle] // stays with the item
#[cfg_attr(feature = "x", allow(dead_code))]
pub static TABLE: [i32; 2] = [1, 2];

pub fn also_keep() {}

pub fn merge() {}

impl Handle {
    pub fn merge(&self) {}
}
"""


def _plan_lib_rs(tmp_path: Path, *targets: ItemTarget):
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / "lib.rs").write_text(ISSUE_12_LIB_RS)
    return plan_recipe(tmp_path, Recipe(id="issue-12", summary="", deletions=targets), allow_dangling=True)


@pytest.mark.skipif(shutil.which("rustfmt") is None, reason="rustfmt not installed")
def test_static_goes_with_every_attribute_and_trailing_comment(tmp_path: Path):
    plan = _plan_lib_rs(tmp_path, ItemTarget("src/lib.rs", "rust", "const", "TABLE"))
    assert not plan.blocking, plan.blocking
    (change,) = plan.changes
    assert change.after.decode() == ISSUE_12_LIB_RS.replace(
        '#[link_section = ".vectors"]\n#[no_mangle] // stays with the item\n'
        '#[cfg_attr(feature = "x", allow(dead_code))]\npub static TABLE: [i32; 2] = [1, 2];\n\n',
        "",
    )
    assert rustfmt_clean(change.before) and rustfmt_clean(change.after)


@pytest.mark.skipif(shutil.which("rustfmt") is None, reason="rustfmt not installed")
@pytest.mark.parametrize("name", ["crate::merge", "self::merge"])
def test_an_anchored_name_deletes_the_top_level_item_only(tmp_path: Path, name: str):
    plan = _plan_lib_rs(tmp_path, ItemTarget("src/lib.rs", "rust", "fn", name))
    assert not plan.blocking, plan.blocking
    (change,) = plan.changes
    assert change.after.decode() == ISSUE_12_LIB_RS.replace("pub fn merge() {}\n\n", "")
    assert rustfmt_clean(change.after)


def test_anchored_names_address_exactly():
    source = dedent(
        """
        mod inner {
            pub fn frob() {}
        }

        impl Handle {
            pub fn frob(&self) {}
        }
        """
    )
    _, findings = run_deletion("rust", source, [("fn", "crate::frob")])
    assert [f.code for f in findings] == ["no-such-item"]
    _, findings = run_deletion("rust", source, [("fn", "frob")])
    assert [f.message for f in findings] == [
        "frob matches items in several modules (crate::Handle::frob, crate::inner::frob); name one exactly"
    ]
    result, findings = run_deletion("rust", source, [("fn", "crate::Handle::frob")])
    assert not findings
    assert b"impl Handle {}" in result and b"pub fn frob() {}" in result


def test_attributes_and_docs_belong_to_the_item_across_blank_lines_but_inner_ones_stay():
    assert_deletes(
        "rust",
        """
        //! Crate docs.
        #![allow(dead_code)]
        /// Doc of gone.

        // Between the doc and the attribute.
        #[inline] /* trailing */

        fn gone() {}

        // About keep.
        #[cold]
        fn keep() {}
        """,
        [("fn", "crate::gone")],
        """
        //! Crate docs.
        #![allow(dead_code)]

        // About keep.
        #[cold]
        fn keep() {}
        """,
    )


SERDE_ERROR = """
use std::io;
pub struct Error;
struct ErrorImpl;
impl From<ErrorImpl> for Error {
    fn from(e: ErrorImpl) -> Self { Error }
}
impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self { Error }
}
impl From<Error> for io::Error {
    fn from(e: Error) -> Self { todo!() }
}
"""


def test_a_target_naming_several_impl_methods_is_refused_listing_each_exact_spelling():
    source = dedent(SERDE_ERROR)
    result, findings = run_deletion("rust", source, [("fn", "crate::Error::from")])
    assert result == source
    assert [(f.code, f.message) for f in findings] == [
        (
            "ambiguous",
            "crate::Error::from names 2 items; name one exactly: "
            "crate::<Error as From<ErrorImpl>>::from, crate::<Error as From<io::Error>>::from",
        )
    ]


@pytest.mark.parametrize(
    "name",
    [
        "crate::<Error as From<ErrorImpl>>::from",
        "<crate::Error as From<ErrorImpl>>::from",
        "<Error as From < ErrorImpl >>::from",
    ],
)
def test_an_impl_method_is_named_through_its_impl(name):
    # `From` is not the tree's: taking its one method out would leave `impl From<ErrorImpl> for Error {}`.
    _result, findings = run_deletion("rust", dedent(SERDE_ERROR), [("fn", name)])
    assert [f.code for f in findings] == ["required-method"] and "From<ErrorImpl>" in findings[0].message
    assert findings[0].line == 5


@pytest.mark.parametrize("name", ["impl From<ErrorImpl> for Error", "crate::<Error as From<ErrorImpl>>"])
def test_an_impl_block_by_its_header_or_qualified_spelling(name):
    assert_deletes(
        "rust",
        SERDE_ERROR,
        [("impl", name)],
        SERDE_ERROR.replace("impl From<ErrorImpl> for Error {\n    fn from(e: ErrorImpl) -> Self { Error }\n}\n", ""),
    )


def test_a_plain_impl_target_naming_several_impls_is_ambiguous():
    _, findings = run_deletion("rust", dedent(SERDE_ERROR), [("impl", "Error")])
    assert [f.code for f in findings] == ["ambiguous"]
    assert (
        "impl" not in findings[0].message.split(":")[0] and "crate::<Error as From<io::Error>>" in findings[0].message
    )


def test_a_trait_method_goes_with_its_impls_in_the_file():
    assert_deletes(
        "rust",
        """
        pub trait Float {
            fn is_sign_positive(self) -> bool;
            fn is_sign_negative(self) -> bool;
        }
        impl Float for f32 {
            fn is_sign_positive(self) -> bool { true }

            #[inline]
            fn is_sign_negative(self) -> bool { false }
        }
        impl Other for f32 {
            fn is_sign_negative(self) -> bool { false }
        }
        """,
        [("trait_method", "crate::Float::is_sign_negative")],
        """
        pub trait Float {
            fn is_sign_positive(self) -> bool;
        }
        impl Float for f32 {
            fn is_sign_positive(self) -> bool { true }
        }
        impl Other for f32 {
            fn is_sign_negative(self) -> bool { false }
        }
        """,
    )


def test_a_method_its_trait_still_requires_is_refused():
    source = dedent("""
        pub trait Float { fn neg(self) -> bool; }
        impl Float for f32 { fn neg(self) -> bool { false } }
    """)
    result, findings = run_deletion("rust", source, [("fn", "crate::<f32 as Float>::neg")])
    assert result == source and [f.code for f in findings] == ["required-method"]


def test_a_trait_method_declaration_named_as_fn_takes_its_impls_too():
    assert_deletes(
        "rust",
        """
        pub trait Float {
            fn neg(self) -> bool;
        }
        impl Float for f32 {
            fn neg(self) -> bool { false }
        }
        """,
        [("fn", "crate::Float::neg")],
        """
        pub trait Float {}
        impl Float for f32 {}
        """,
    )


@pytest.mark.skipif(shutil.which("rustfmt") is None, reason="rustfmt not installed")
def test_a_rustfmt_clean_file_the_plan_empties_is_left_empty(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text("pub fn lone_gauge() -> u8 {\n    7\n}\n")
    recipe = Recipe(
        id="empty-it",
        summary="delete the only item",
        deletions=(ItemTarget("src/lib.rs", "rust", "fn", "crate::lone_gauge"),),
    )
    plan = plan_recipe(tmp_path, recipe)
    assert not plan.blocking, plan.blocking
    assert [change.after for change in plan.changes] == [b""]
