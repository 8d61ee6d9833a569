"""The oracle rewrite on small inline trees: the shapes it accepts, what it names when it refuses,
and the check of the generated helper against the tree's cxx bridge."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codemods import Recipe, plan_recipe
from codemods.recipes.mlxcel.oracle import OracleRewrite

from codemod_helpers import dedent_text as dedent

TESTS_RS = "src/ffi_tests.rs"
LIB_RS = "src/lib.rs"
REWRITE = OracleRewrite(
    path=TESTS_RS, tests=("pooled",), fallback="dense_fallback", metadata_type="DecodeMetadata", bridge=LIB_RS
)
RECIPE = Recipe(id="oracle", summary="", steps=(REWRITE,))

BRIDGE = """
#[cxx::bridge]
pub mod ffi {
    unsafe extern "C++" {
        type MlxArray;
        fn from_slice_f32(data: &[f32], shape: &[i32]) -> UniquePtr<MlxArray>;
        fn array_dtype(a: &MlxArray) -> i32;
        fn astype(a: &MlxArray, dtype: i32) -> UniquePtr<MlxArray>;
        fn array_shape(a: &MlxArray) -> Vec<i32>;
        fn repeat(a: &MlxArray, repeats: i32, axis: i32) -> UniquePtr<MlxArray>;
        fn matmul(a: &MlxArray, b: &MlxArray) -> UniquePtr<MlxArray>;
        fn transpose_axes(a: &MlxArray, axes: &[i32]) -> UniquePtr<MlxArray>;
        #[rust_name = "softmax"]
        fn mlx_softmax(a: &MlxArray, axis: i32) -> UniquePtr<MlxArray>;
        fn multiply(a: &MlxArray, b: &MlxArray) -> UniquePtr<MlxArray>;
        fn slice(a: &MlxArray, start: &[i32], stop: &[i32]) -> UniquePtr<MlxArray>;
        unsafe fn concatenate(arrays: &[*const MlxArray], axis: i32) -> UniquePtr<MlxArray>;
    }
}
"""


def tree(tmp_path: Path, body: str, bridge: str = BRIDGE) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / LIB_RS).write_text(dedent(bridge))
    (tmp_path / TESTS_RS).write_text("#[test]\nfn pooled() {\n" + textwrap.indent(dedent(body), "    ") + "}\n")
    return tmp_path


def rewritten_body(tmp_path: Path, body: str) -> str:
    """The test's body after the rewrite (the generated helpers left out)."""
    plan = plan_recipe(tree(tmp_path, body), RECIPE)
    assert not plan.blocking, [f.render() for f in plan.blocking]
    after = next(c.after for c in plan.changes if c.path == TESTS_RS).decode()
    start = after.index("fn pooled() {\n") + len("fn pooled() {\n")
    return textwrap.dedent(after[start : after.index("\n}\n", start) + 1])


def refusal(tmp_path: Path, body: str) -> str:
    plan = plan_recipe(tree(tmp_path, body), RECIPE)
    assert not plan.changes
    return " | ".join(f.render() for f in plan.blocking)


def test_a_run_with_a_variable_for_the_lengths_and_other_names(tmp_path: Path) -> None:
    assert rewritten_body(
        tmp_path,
        """
        let lens = [9i32, 6i32];
        let meta = crate::cache::DecodeMetadata::from_visible_lengths(&lens, 4).unwrap();
        let ks = vec![
            refs[0].as_ref().unwrap() as *const MlxArray,
            refs[1].as_ref().unwrap() as *const MlxArray,
        ];
        // the values
        let vs = vec![
            vals[0].as_ref().unwrap() as *const MlxArray,
            vals[1].as_ref().unwrap() as *const MlxArray,
        ];
        let expected = crate::layers::dense_fallback(&q, &ks, &vs, &meta, scale).unwrap();
        check(&expected, lens.len());
    """,
    ) == dedent("""
        let lens = [9i32, 6i32];
        let expected = concat_batch_rows(&[
            dense_reference_decode_attention(
                &batch_row(&q, 0),
                refs[0].as_ref().unwrap(),
                vals[0].as_ref().unwrap(),
                scale,
            ),
            dense_reference_decode_attention(
                &batch_row(&q, 1),
                refs[1].as_ref().unwrap(),
                vals[1].as_ref().unwrap(),
                scale,
            ),
        ]);
        check(&expected, lens.len());
    """)


def test_a_run_inside_a_loop_with_pointers_built_outside(tmp_path: Path) -> None:
    assert rewritten_body(
        tmp_path,
        """
        let ks = vec![k.as_ref().unwrap() as *const MlxArray];
        let vs = vec![v.as_ref().unwrap() as *const MlxArray];
        for step in 0..4 {
            let meta = DecodeMetadata::from_visible_lengths(&[n], 2).expect("metadata");
            let out = dense_fallback(&queries[step], &ks, &vs, &meta, 1.0).expect("oracle");
            check(&out);
        }
    """,
    ) == dedent("""
        for step in 0..4 {
            let out = dense_reference_decode_attention(
                &queries[step],
                k.as_ref().unwrap(),
                v.as_ref().unwrap(),
                1.0,
            );
            check(&out);
        }
    """)


def test_bindings_that_only_fed_the_run_are_removed(tmp_path: Path) -> None:
    assert rewritten_body(
        tmp_path,
        """
        let window = total - start;
        let metadata = DecodeMetadata::from_visible_lengths(&[window], block as i32)
            .unwrap();
        let cache_keys = vec![k.as_ref().unwrap() as *const MlxArray];
        let cache_values = vec![v.as_ref().unwrap() as *const MlxArray];
        let out = dense_fallback(&q, &cache_keys, &cache_values, &metadata, 0.5).unwrap();
        assert!(close(&out, total));
    """,
    ) == dedent("""
        let out = dense_reference_decode_attention(&q, k.as_ref().unwrap(), v.as_ref().unwrap(), 0.5);
        assert!(close(&out, total));
    """)


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (
            "let out = dense_fallback(&q, &ks, &vs, &meta, 1.0)?;\n",
            "the call is not `let NAME = FALLBACK(Q, &KEYS, &VALUES, &METADATA, SCALE).unwrap();`",
        ),
        ("let out = dense_fallback(&q, &ks, &vs, &meta, 1.0).unwrap();\n", "no `let ks` in scope before the call"),
        (
            "let meta = DecodeMetadata::from_visible_lengths(&[3], 2).unwrap();\n"
            "let ks = pointers(&k);\nlet vs = vec![v.as_ref().unwrap() as *const MlxArray];\n"
            "let out = dense_fallback(&q, &ks, &vs, &meta, 1.0).unwrap();\n",
            "`ks` is not bound to `vec![ARRAY as *const T, ...]`",
        ),
        (
            "let meta = DecodeMetadata { block_size: 2 };\n"
            "let ks = vec![k.as_ref().unwrap() as *const MlxArray];\nlet vs = vec![v.as_ref().unwrap() as *const MlxArray];\n"
            "let out = dense_fallback(&q, &ks, &vs, &meta, 1.0).unwrap();\n",
            "`meta` is not identity metadata `DecodeMetadata::from_visible_lengths(LENGTHS, BLOCK).unwrap()`",
        ),
        (
            "let meta = DecodeMetadata::from_visible_lengths(&[3, 4], 2).unwrap();\n"
            "let ks = vec![k.as_ref().unwrap() as *const MlxArray];\nlet vs = vec![v.as_ref().unwrap() as *const MlxArray];\n"
            "let out = dense_fallback(&q, &ks, &vs, &meta, 1.0).unwrap();\n",
            "2 visible lengths for 1 sequences",
        ),
        (
            "let meta = DecodeMetadata::from_visible_lengths(&[3], 2).unwrap();\n"
            "let ks = vec![k.as_ref().unwrap() as *const MlxArray];\nlet vs = vec![v.as_ref().unwrap() as *const MlxArray];\n"
            "let out = dense_fallback(&q, &ks, &vs, &meta, 1.0).unwrap();\nkeep(&ks);\n",
            "`ks` is also used at line 7",
        ),
    ],
)
def test_a_run_of_another_structure_is_refused_naming_the_part(tmp_path: Path, body: str, named: str) -> None:
    message = refusal(tmp_path, body)
    assert "pooled: oracle run does not have the expected shape" in message
    assert named in message


def test_a_helper_the_bridge_cannot_serve_is_refused(tmp_path: Path) -> None:
    bridge = BRIDGE.replace("        fn repeat(a: &MlxArray, repeats: i32, axis: i32) -> UniquePtr<MlxArray>;\n", "")
    bridge = bridge.replace("fn multiply(a: &MlxArray, b: &MlxArray)", "fn multiply(a: &MlxArray)")
    plan = plan_recipe(
        tree(
            tmp_path,
            """
        let meta = DecodeMetadata::from_visible_lengths(&[3], 2).unwrap();
        let ks = vec![k.as_ref().unwrap() as *const MlxArray];
        let vs = vec![v.as_ref().unwrap() as *const MlxArray];
        let out = dense_fallback(&q, &ks, &vs, &meta, 1.0).unwrap();
    """,
            bridge,
        ),
        RECIPE,
    )
    assert not plan.changes
    assert sorted(f.render() for f in plan.blocking) == [
        "src/lib.rs: dense_reference_decode_attention: calls ffi::multiply, but `multiply` takes 1 parameter, "
        "the helper passes 2 in this tree's #[cxx::bridge]; the helper is not generated",
        "src/lib.rs: dense_reference_decode_attention: calls ffi::repeat, but the bridge declares no `repeat` "
        "in this tree's #[cxx::bridge]; the helper is not generated",
    ]


def test_without_rustfmt_the_plan_says_so_and_lays_the_calls_out_as_rustfmt_would(tmp_path: Path, monkeypatch) -> None:
    import codemods.languages.rust.format as format_module

    body = """
        let lens = [9i32];
        let meta = crate::cache::DecodeMetadata::from_visible_lengths(&lens, 4).unwrap();
        let ks = vec![refs[0].as_ref().unwrap() as *const MlxArray];
        let vs = vec![vals[0].as_ref().unwrap() as *const MlxArray];
        let expected = crate::layers::dense_fallback(&q, &ks, &vs, &meta, scale).unwrap();
        check(&expected, lens.len());
    """
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    formatted = plan_recipe(tree(tmp_path / "a", body), RECIPE)
    assert "formatted-without-rustfmt" not in {f.code for f in formatted.findings}
    monkeypatch.setattr(format_module.shutil, "which", lambda name: None)
    plan = plan_recipe(tree(tmp_path / "b", body), RECIPE)
    assert not plan.blocking and plan.changes
    notes = [f for f in plan.findings if f.code == "formatted-without-rustfmt"]
    assert [(f.path, f.severity) for f in notes] == [(TESTS_RS, "note")]
    assert [c.after for c in plan.changes] == [c.after for c in formatted.changes]


def test_without_rustfmt_the_fixture_gets_the_helper_calls_rustfmt_would_write(tmp_path: Path, monkeypatch) -> None:
    """Issue 23, point 13: the recipe lays the calls out as rustfmt does, so `cargo fmt --check`
    stays clean on a machine without rustfmt."""
    import codemods.languages.rust.format as format_module
    from codemods import load_recipe
    from fixture_crate import copy_fixture

    removal = load_recipe("paged-compat-removal")
    tree_copy = copy_fixture(tmp_path / "tree")
    with_rustfmt = plan_recipe(tree_copy, removal)
    monkeypatch.setattr(format_module.shutil, "which", lambda name: None)
    without = plan_recipe(tree_copy, removal)
    assert "formatted-without-rustfmt" in {f.code for f in without.findings}
    assert {c.path: c.after for c in without.changes} == {c.path: c.after for c in with_rustfmt.changes}
