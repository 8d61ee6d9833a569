"""Part of a plan (codemods.plan.subset, `codemod apply --accept/--skip`): the plan's item-level
changes, the subset re-checked on the plan's snapshot, and what a skip breaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods import load_recipe, plan_recipe
from codemods.plan.subset import NEEDS_SKIPPED, changes_of, plan_subset, select
from codemod_helpers import run_codemod
from fixture_crate import copy_fixture

CACHE = "src/lib/mlxcel-core/src/cache.rs"
FFI_TESTS = "src/lib/mlxcel-core/src/ffi_tests.rs"
BATCH_OF_TWO = "dense_reference_decode_attention@test_pooled_paged_decode_batch_of_two"
HELPER = "dense_reference_decode_attention:insert-helper"
METADATA = "paged-compat-removal:type:PagedDecodeMetadata"
ROTATING = "paged-compat-removal:type:RotatingPagedDecodeMetadata"
BRIDGE_ENTRY = "paged-compat-removal:bridge_fn:ffi::paged_decode_attention_dense_compat"
CPP_DEFINITION = "paged-compat-removal:cpp-function:paged_decode_attention_dense_compat"
POOLED_REWRITES = [
    f"dense_reference_decode_attention@{name}"
    for name in (
        "test_pooled_paged_decode_matches_dense_over_200_steps",
        "test_pooled_paged_decode_sliding_window_via_logical_start",
        "test_pooled_paged_decode_batch_of_two",
        "test_pooled_prefill_then_decode_matches_dense",
    )
]


@pytest.fixture(scope="module")
def fixture_tree(tmp_path_factory) -> Path:
    return copy_fixture(tmp_path_factory.mktemp("subset") / "mlxcel-mini")


@pytest.fixture(scope="module")
def plan(fixture_tree: Path):
    return plan_recipe(fixture_tree, load_recipe("paged-compat-removal"))


def _after(subset, path: str) -> str:
    return next(c.after for c in subset.plan.changes if c.path == path).decode()


def test_every_edit_of_the_plan_belongs_to_a_change_named_by_its_origin(plan) -> None:
    changes = changes_of(plan)
    ids = [c.id for c in changes]
    assert len(ids) == len(set(ids))
    assert {METADATA, ROTATING, HELPER, BRIDGE_ENTRY, *POOLED_REWRITES} <= set(ids)
    planned = {part for change in plan.changes for edit in change.edits for part in edit.origin.split("+")}
    assert planned == {origin for change in changes for origin in change.origins}
    by_id = {c.id: c for c in changes}
    assert by_id[METADATA].removes == ("PagedDecodeMetadata",)
    # One pooled test's oracle rewrite and the bindings it leaves dead are one change.
    assert set(by_id[BATCH_OF_TWO].origins) == {
        "dense_reference_decode_attention:drop-binding",
        "dense_reference_decode_attention:rewrite-oracle",
    }


def test_the_subset_of_every_change_is_the_whole_plan(plan) -> None:
    subset = plan_subset(plan, [])
    assert [(c.path, c.after) for c in subset.plan.changes] == [(c.path, c.after) for c in plan.changes]
    assert subset.new_findings == () and not subset.plan.blocking


def test_a_deletion_merged_with_a_skipped_neighbour_is_settled_alone(plan) -> None:
    subset = plan_subset(plan, [ROTATING])
    cache = _after(subset, CACHE)
    assert "pub struct RotatingPagedDecodeMetadata" in cache
    assert "pub struct PagedDecodeMetadata" not in cache
    assert "\n\n\n" not in cache


def test_a_skipped_bridge_entry_is_needed_by_the_accepted_deletion_of_its_definition(plan) -> None:
    subset = plan_subset(plan, [BRIDGE_ENTRY])
    assert CPP_DEFINITION in subset.needed_by[BRIDGE_ENTRY]
    assert any(f.path == "src/lib/mlxcel-core/src/lib.rs" for f in subset.new_findings)
    assert subset.plan.blocking


def test_a_skipped_helper_is_needed_by_its_callers_even_with_the_overrides(fixture_tree: Path) -> None:
    plan = plan_recipe(fixture_tree, load_recipe("paged-compat-removal"), allow_dangling=True, allow_unreworded=True)
    subset = plan_subset(plan, [HELPER])
    assert list(subset.needed_by[HELPER]) == POOLED_REWRITES
    assert {f.code for f in subset.plan.blocking} == {NEEDS_SKIPPED}


def test_a_skipped_metadata_deletion_keeps_the_type_and_blocks_nothing(plan) -> None:
    subset = plan_subset(plan, [METADATA])
    assert subset.new_findings == () and subset.needed_by == {} and not subset.plan.blocking
    assert "pub struct PagedDecodeMetadata" in _after(subset, CACHE)
    assert "pub struct RotatingPagedDecodeMetadata" not in _after(subset, CACHE)


def test_skipping_every_change_leaves_nothing_to_write_and_nothing_blocking(plan) -> None:
    subset = plan_subset(plan, [c.id for c in changes_of(plan)])
    assert subset.plan.changes == () and subset.new_findings == () and not subset.plan.blocking


def test_skipping_one_pooled_rewrite_names_the_deletions_it_still_uses(plan) -> None:
    subset = plan_subset(plan, [BATCH_OF_TWO])
    assert set(subset.needed_by[BATCH_OF_TWO]) == {
        "paged-compat-removal:fn:paged_decode_attention_dense_fallback",
        METADATA,
    }
    assert "paged_decode_attention_dense_fallback(" in _after(subset, FFI_TESTS)


def test_select_by_id_by_origin_and_with_accept(plan) -> None:
    changes = changes_of(plan)
    assert select(changes, skip=[BATCH_OF_TWO]) == {BATCH_OF_TWO}
    assert select(changes, skip=["dense_reference_decode_attention:rewrite-oracle"]) == set(POOLED_REWRITES)
    assert select(changes, skip=["dense_reference_decode_attention"]) == set(POOLED_REWRITES)
    kept = select(changes, accept=[HELPER, "dense_reference_decode_attention"])
    assert kept == {c.id for c in changes} - {HELPER, *POOLED_REWRITES}
    with pytest.raises(ValueError, match="no change of the plan is named 'nonesuch'"):
        select(changes, skip=["nonesuch"])


def test_skip_writes_the_rest_and_accept_without_its_dependency_is_refused(tmp_path: Path) -> None:
    tree = copy_fixture(tmp_path / "mlxcel-mini")
    before = (tree / FFI_TESTS).read_bytes()
    refused = run_codemod("apply", "--accept", "dense_reference_decode_attention", str(tree))
    assert refused.exit_code == 1
    assert (
        f"codemod: accepted changes that need a skipped one: {', '.join(sorted(POOLED_REWRITES))}"
        in refused.stderr.splitlines()
    )
    assert (tree / FFI_TESTS).read_bytes() == before
    written = run_codemod("apply", "--allow-dangling", "--skip", BATCH_OF_TWO, str(tree))
    assert written.exit_code == 0, written.stderr
    assert f"codemod: 1 change(s) skipped: {BATCH_OF_TWO}" in written.stderr.splitlines()
    ffi = (tree / FFI_TESTS).read_text()
    assert ffi.count("dense_reference_decode_attention(") >= 3
    assert "crate::layers::paged_decode_attention_dense_fallback(" in ffi
    assert "pub struct PagedDecodeMetadata" not in (tree / CACHE).read_text()


def test_an_unknown_selector_is_a_usage_error(fixture_tree: Path) -> None:
    result = run_codemod("apply", "--dry-run", "--skip", "nonesuch", str(fixture_tree))
    assert result.exit_code == 2
    assert result.stderr.startswith("codemod: error: no change of the plan is named 'nonesuch' (its changes: ")


def test_interactive_needs_a_terminal(fixture_tree: Path) -> None:
    result = run_codemod("apply", "--interactive", str(fixture_tree))
    assert result.exit_code == 2
    assert result.stderr == "codemod: error: --interactive needs a terminal on stdin and stdout\n"


def test_on_the_real_tree_a_skipped_metadata_deletion_blocks_nothing(corpus: Path) -> None:
    plan = plan_recipe(corpus, load_recipe("paged-compat-removal"), allow_dangling=True)
    ids = [c.id for c in changes_of(plan)]
    assert HELPER in ids and set(POOLED_REWRITES) <= set(ids)
    subset = plan_subset(plan, [METADATA])
    assert subset.new_findings == () and not subset.plan.blocking
    assert "pub struct PagedDecodeMetadata" in _after(subset, CACHE)
    everything = plan_subset(plan, ids)
    assert everything.plan.changes == () and everything.new_findings == () and not everything.plan.blocking
    assert [(c.path, c.after) for c in plan_subset(plan, []).plan.changes] == [(c.path, c.after) for c in plan.changes]
