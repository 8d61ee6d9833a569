"""mlxcel #2230's cleanup (a) (post-epic compat kernels): remove the reference-only dense-compat paged kernels.

Deletes the two C++ compat kernels and their declarations, their cxx bridge
entries, the Rust fallbacks, compat wrappers and validators, both metadata
types with their impls and test, and the two compat-vs-fallback FFI tests.
Items are found by kind and name in the files mlxcel #2230 names.

The items, the prose rules and the dead-symbol pattern are data, in
paged_compat_removal.toml (a recipe file like any other, docs/recipes.md);
this module is its `build`: it adds the steps that need code: the oracle rewrite of the pooled tests, trimming the
empty-batch test, and deleting tests left with nothing to test.
"""

from __future__ import annotations

import dataclasses

from codemods.plan.recipe import Recipe
from codemods.recipes.mlxcel.oracle import OracleRewrite
from codemods.recipes.mlxcel.trimming import DeleteOrphanedTests, TrimTest

CORE = "src/lib/mlxcel-core"
LIB_RS = f"{CORE}/src/lib.rs"
LAYERS_RS = f"{CORE}/src/layers.rs"
FFI_TESTS_RS = f"{CORE}/src/ffi_tests.rs"

POOLED_TESTS = (
    "test_pooled_paged_decode_matches_dense_over_200_steps",
    "test_pooled_paged_decode_sliding_window_via_logical_start",
    "test_pooled_paged_decode_batch_of_two",
    "test_pooled_prefill_then_decode_matches_dense",
)

# The four pooled tests keep their coverage on a generated dense reference.
REWRITE_ORACLE = OracleRewrite(
    path=FFI_TESTS_RS,
    tests=POOLED_TESTS,
    fallback="paged_decode_attention_dense_fallback",
    metadata_type="PagedDecodeMetadata",
    bridge=LIB_RS,
    helper="dense_reference_decode_attention",
)

# The empty-batch test keeps only its pooled third.
TRIM_EMPTY_BATCH_TEST = TrimTest(
    path=FFI_TESTS_RS,
    name="paged_decode_fallbacks_reject_an_empty_batch",
    new_name="paged_decode_pooled_fallback_rejects_an_empty_batch",
    removed_names=(
        "paged_decode_attention_dense_fallback",
        "paged_decode_attention_rotating_fallback",
        "PagedDecodeMetadata",
        "RotatingPagedDecodeMetadata",
    ),
)


def build(recipe: Recipe) -> Recipe:
    """The recipe file's data plus its code steps: the oracle rewrite, the empty-batch test
    trimmed, and tests elsewhere in the edited files that exercise nothing but the removed
    items deleted with them (the plan names each one)."""
    orphaned = DeleteOrphanedTests(
        paths=tuple(dict.fromkeys(t.path for t in recipe.deletions if t.language == "rust")),
        removed_names=tuple(dict.fromkeys(t.name.split("::")[-1] for t in recipe.deletions)),
    )
    return dataclasses.replace(recipe, steps=(REWRITE_ORACLE, TRIM_EMPTY_BATCH_TEST, orphaned))
