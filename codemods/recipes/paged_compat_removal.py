"""mlxcel #2230's cleanup (a) (post-epic compat kernels): remove the reference-only dense-compat paged kernels.

Deletes the two C++ compat kernels and their declarations, their cxx bridge
entries, the Rust fallbacks, compat wrappers and validators, both metadata
types with their impls and test, and the two compat-vs-fallback FFI tests.
Items are found by kind and name in the files mlxcel #2230 names.
"""

from __future__ import annotations

from .._dead_symbols import PAGED_COMPAT_PATTERN
from ._model import ItemTarget, Recipe, Rewording
from ._oracle import OracleRewrite
from ._partial_test import DeleteOrphanedTests, TrimTest

CORE = "src/lib/mlxcel-core"
BRIDGE_CPP = f"{CORE}/cpp/mlx_cxx_bridge.cpp"
BRIDGE_H = f"{CORE}/cpp/mlx_cxx_bridge.h"
LIB_RS = f"{CORE}/src/lib.rs"
LAYERS_RS = f"{CORE}/src/layers.rs"
CACHE_RS = f"{CORE}/src/cache.rs"
ATTEND_RS = f"{CORE}/src/cache/attend.rs"
FFI_TESTS_RS = f"{CORE}/src/ffi_tests.rs"

COMPAT_KERNELS = ("paged_decode_attention_dense_compat", "paged_decode_attention_rotating_compat")

# mlxcel #2230's acceptance pattern for (a): `rg -n PATTERN src/` must print nothing.
DEAD_SYMBOL_PATTERN = PAGED_COMPAT_PATTERN

DELETIONS = (
    *(ItemTarget(BRIDGE_CPP, "cpp", "function", name) for name in COMPAT_KERNELS),
    *(ItemTarget(BRIDGE_H, "cpp", "declaration", name) for name in COMPAT_KERNELS),
    *(ItemTarget(LIB_RS, "rust", "bridge_fn", f"ffi::{name}") for name in COMPAT_KERNELS),
    *(
        ItemTarget(LAYERS_RS, "rust", "fn", name)
        for name in (
            "paged_decode_attention_dense_fallback",
            "paged_decode_attention_dense_compat",
            "paged_decode_attention_rotating_fallback",
            "paged_decode_attention_rotating_compat",
            "validate_paged_decode_inputs",
            "validate_rotating_paged_decode_inputs",
        )
    ),
    ItemTarget(CACHE_RS, "rust", "type", "PagedDecodeMetadata"),
    ItemTarget(CACHE_RS, "rust", "type", "RotatingPagedDecodeMetadata"),
    ItemTarget(CACHE_RS, "rust", "test", "tests::paged_decode_metadata_builds_logical_block_tables"),
    ItemTarget(FFI_TESTS_RS, "rust", "test", "test_paged_decode_attention_dense_compat_matches_fallback"),
    ItemTarget(FFI_TESTS_RS, "rust", "test", "test_paged_decode_attention_rotating_compat_matches_fallback_after_wrap"),
)

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

# Tests elsewhere in the edited files that exercise nothing but the removed items
# go with them (the plan names each one).
DELETE_ORPHANED_TESTS = DeleteOrphanedTests(
    paths=tuple(dict.fromkeys(t.path for t in DELETIONS if t.language == "rust")),
    removed_names=tuple(dict.fromkeys(t.name.split("::")[-1] for t in DELETIONS)),
)

# Prose that names removed symbols, reworded to describe the current state. Each
# rule names its comment by the item it documents (or sits in, or right above)
# and the sentence by the symbol it names. The first four fit the trees mlxcel
# #2230 describes; the rest fit older trees, where models still called the routes.
REWORDINGS = (
    Rewording(LAYERS_RS, item="paged_decode_attention_pooled", symbols=("paged_decode_attention_dense_compat", "paged_decode_attention_rotating_compat"),
              replace="Its FFI tests check it against a dense reference over contiguous K/V."),
    Rewording(ATTEND_RS, item="PagedBlockPool::decode_tables", symbols=("PagedDecodeMetadata",),
              replace="Each row lists the sequence's physical blocks in token order and is padded "
                      "with block 0 up to the longest row."),
    Rewording(CACHE_RS, item="PagedBlockPool", symbols=("PagedDecodeMetadata",),
              replace="The pool owns the K/V itself."),
    Rewording(FFI_TESTS_RS, item="test_pooled_paged_decode_matches_dense_over_200_steps",
              symbols=("paged_decode_attention_dense_fallback",),
              replace="The contiguous k_ref/v_ref are what the dense reference oracle reads."),
    # The pooled fallback's doc compared it with the dense fallback (three sentences).
    Rewording(LAYERS_RS, item="paged_decode_attention_pooled_fallback",
              symbols=("paged_decode_attention_dense_fallback",), sentences=3,
              replace="It calls [`crate::cache::PagedBlockPool::gather_visible`] to pull each "
                      "sequence's visible K/V out of the pool in block-table order, then attends "
                      "per sequence through [`attention_from_ptr`] and concatenates the results "
                      "along the batch axis. Its FFI tests check it against a dense reference "
                      "over contiguous K/V."),
    Rewording(LAYERS_RS, item="paged_decode_attention_pooled_fallback",
              symbols=("paged_decode_attention_rotating_fallback",),
              replace="That is why there is no separate rotating pooled variant."),
    Rewording(LAYERS_RS, item="paged_decode_attention_pooled",
              symbols=("paged_decode_attention_dense_compat", "paged_decode_attention_dense_fallback"),
              replace="The in-server decode reaches pool-backed layers through the per-sequence "
                      "`update_and_fetch` pool intercept, never through this function."),
    # The section comment above the pooled tests' helpers compared the pooled
    # path with the dense fallback (three sentences).
    Rewording(FFI_TESTS_RS, item="pooled_pseudo_f32", symbols=("paged_decode_attention_dense_fallback",),
              sentences=3,
              replace="`paged_decode_attention_pooled_fallback` gathers each sequence's visible K/V "
                      "from a `PagedBlockPool` (real, possibly fragmented physical block tables); "
                      "`dense_reference_decode_attention` computes softmax(q k^T * scale) v in "
                      "float32 over the same K/V held contiguously. FP32 K/V/q keeps the gather "
                      "exact, so the two outputs differ only by the order of floating-point "
                      "operations."),
    Rewording(FFI_TESTS_RS, item="pooled_pseudo_f32", find="parity vs the dense fallback baseline.",
              replace="parity vs a dense reference."),
    # Prose of the rewritten and trimmed tests that describes the old oracle without naming it.
    *(Rewording(FFI_TESTS_RS, item=test, find=find, replace=replace) for test, find, replace in (
        (POOLED_TESTS[0], "runs the pooled and dense fallbacks,", "runs the pooled fallback and the dense reference,"),
        (POOLED_TESTS[0], "so the dense fallback's identity metadata lines up.",
         "so that it holds exactly the tokens the pool holds."),
        (POOLED_TESTS[1], "run the dense fallback over just those 7 tokens with identity metadata.",
         "attend to just those 7 tokens."),
        (POOLED_TESTS[2], "exercising the batch-concat tail of both fallbacks.",
         "exercising the pooled fallback's batch-concat tail."),
        (POOLED_TESTS[3], "compares the pooled vs dense fallback attention each step.",
         "compares the pooled fallback with the dense reference each step."),
        ("paged_decode_fallbacks_reject_an_empty_batch", "the paged-decode attention fallbacks must reject",
         "the pooled paged-decode attention fallback must reject"),
    )),
)

RECIPE = Recipe(
    id="paged-compat-removal",
    summary="Remove the reference-only dense-compat paged kernels (#2230 a)",
    deletions=DELETIONS,
    steps=(REWRITE_ORACLE, TRIM_EMPTY_BATCH_TEST, DELETE_ORPHANED_TESTS),
    rewordings=REWORDINGS,
    dead_symbol_pattern=DEAD_SYMBOL_PATTERN,
    check_scope=("src",),
    protected=("docs",),
)
