"""The seed's cleanup (a): remove the reference-only dense-compat paged kernels.

Deletes the two C++ compat kernels and their declarations, their cxx bridge
entries, the Rust fallbacks, compat wrappers and validators, both metadata
types with their impls and test, and the two compat-vs-fallback FFI tests.
Items are found by kind and name in the files the seed names.
"""

from __future__ import annotations

from .._dead_symbols import PAGED_COMPAT_PATTERN
from ._model import ItemTarget, Recipe, Rewording
from ._oracle import OracleRewrite
from ._partial_test import TrimTest

CORE = "src/lib/mlxcel-core"
BRIDGE_CPP = f"{CORE}/cpp/mlx_cxx_bridge.cpp"
BRIDGE_H = f"{CORE}/cpp/mlx_cxx_bridge.h"
LIB_RS = f"{CORE}/src/lib.rs"
LAYERS_RS = f"{CORE}/src/layers.rs"
CACHE_RS = f"{CORE}/src/cache.rs"
ATTEND_RS = f"{CORE}/src/cache/attend.rs"
FFI_TESTS_RS = f"{CORE}/src/ffi_tests.rs"

COMPAT_KERNELS = ("paged_decode_attention_dense_compat", "paged_decode_attention_rotating_compat")

# The seed's acceptance pattern: `rg -n PATTERN src/` must print nothing.
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

# Prose that names removed symbols, reworded to describe the current state.
REWORDINGS = (
    # The seed's layers.rs doc comment on the pooled route.
    Rewording(
        LAYERS_RS,
        "/// This is the only paged route models use. The dense-pointer routes\n"
        "/// [`paged_decode_attention_dense_compat`] and\n"
        "/// [`paged_decode_attention_rotating_compat`] remain as the reference pair\n"
        "/// their FFI tests pin.\n",
        "/// This is the only paged decode route; its FFI tests check it against a\n"
        "/// dense reference over contiguous K/V.\n",
    ),
    # The seed's cache/attend.rs doc comment.
    Rewording(
        ATTEND_RS,
        "    /// padded with block 0 up to the longest row, the same layout\n"
        "    /// [`crate::cache::PagedDecodeMetadata::flat_block_tables`] gives the\n"
        "    /// logical tables of `paged_decode_attention_dense_compat`. Each\n"
        "    /// logical start must lie below its sequence's length.\n",
        "    /// padded with block 0 up to the longest row. Each logical start must\n"
        "    /// lie below its sequence's length.\n",
    ),
    Rewording(
        CACHE_RS,
        "interleave. Unlike\n"
        "/// [`PagedDecodeMetadata`], which indexes K/V each sequence owns, the pool\n"
        "/// owns the K/V itself.\n",
        "interleave. The pool\n"
        "/// owns the K/V itself.\n",
    ),
    Rewording(
        FFI_TESTS_RS,
        "// The contiguous k_ref/v_ref are what paged_decode_attention_dense_fallback reads as the oracle.\n",
        "// The contiguous k_ref/v_ref are what the dense reference reads as the oracle.\n",
    ),
)

RECIPE = Recipe(
    id="paged-compat-removal",
    summary="Remove the reference-only dense-compat paged kernels (#2230 a)",
    deletions=DELETIONS,
    steps=(REWRITE_ORACLE, TRIM_EMPTY_BATCH_TEST),
    rewordings=REWORDINGS,
    dead_symbol_pattern=DEAD_SYMBOL_PATTERN,
    check_scope=("src",),
    protected=("docs",),
)
