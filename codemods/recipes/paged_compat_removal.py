"""The seed's cleanup (a): remove the reference-only dense-compat paged kernels.

Deletes the two C++ compat kernels and their declarations, their cxx bridge
entries, the Rust fallbacks, compat wrappers and validators, both metadata
types with their impls and test, and the two compat-vs-fallback FFI tests.
Items are found by kind and name in the files the seed names.
"""

from __future__ import annotations

from ._model import ItemTarget, Recipe

CORE = "src/lib/mlxcel-core"
BRIDGE_CPP = f"{CORE}/cpp/mlx_cxx_bridge.cpp"
BRIDGE_H = f"{CORE}/cpp/mlx_cxx_bridge.h"
LIB_RS = f"{CORE}/src/lib.rs"
LAYERS_RS = f"{CORE}/src/layers.rs"
CACHE_RS = f"{CORE}/src/cache.rs"
ATTEND_RS = f"{CORE}/src/cache/attend.rs"
FFI_TESTS_RS = f"{CORE}/src/ffi_tests.rs"

COMPAT_KERNELS = ("paged_decode_attention_dense_compat", "paged_decode_attention_rotating_compat")

# The seed's acceptance pattern: `rg -n PATTERN src/` must print nothing afterwards.
DEAD_SYMBOL_PATTERN = (
    r"paged_decode_attention_(dense|rotating)_(compat|fallback)"
    r"|PagedDecodeMetadata"
    r"|validate_(rotating_)?paged_decode_inputs"
)

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

RECIPE = Recipe(
    id="paged-compat-removal",
    summary="Remove the reference-only dense-compat paged kernels (#2230 a)",
    deletions=DELETIONS,
    dead_symbol_pattern=DEAD_SYMBOL_PATTERN,
    check_scope=("src",),
    protected=("docs",),
)
