"""mlxcel #2230's cleanup (a) (post-epic compat kernels): remove the reference-only dense-compat paged kernels.

Deletes the two C++ compat kernels and their declarations, their cxx bridge
entries, the Rust fallbacks, compat wrappers and validators, both metadata
types with their impls and test, and the two compat-vs-fallback FFI tests.
Items are found by kind and name in the files mlxcel #2230 names.

The items and the prose rules are data, in paged_compat_removal.toml (a
recipe file like any other, docs/recipes.md); this module adds the steps
that need code: the oracle rewrite of the pooled tests, trimming the
empty-batch test, and deleting tests left with nothing to test.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from .._dead_symbols import PAGED_COMPAT_PATTERN
from . import load_recipe
from ._oracle import OracleRewrite
from ._partial_test import DeleteOrphanedTests, TrimTest

CORE = "src/lib/mlxcel-core"
LIB_RS = f"{CORE}/src/lib.rs"
LAYERS_RS = f"{CORE}/src/layers.rs"
FFI_TESTS_RS = f"{CORE}/src/ffi_tests.rs"

# mlxcel #2230's acceptance pattern for (a): `rg -n PATTERN src/` must print nothing.
DEAD_SYMBOL_PATTERN = PAGED_COMPAT_PATTERN

RULES = load_recipe(str(Path(__file__).with_suffix(".toml")))
DELETIONS = RULES.deletions

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

RECIPE = dataclasses.replace(
    RULES,
    steps=(REWRITE_ORACLE, TRIM_EMPTY_BATCH_TEST, DELETE_ORPHANED_TESTS),
    dead_symbol_pattern=DEAD_SYMBOL_PATTERN,
)
