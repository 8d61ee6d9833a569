"""The real mlxcel tree's preprocessor shapes: the 77-line `#if 0` block of declarations in
mlx_cxx_bridge.h, and the `#ifdef __APPLE__ ... #else ... #endif` inside functions of
mlx_cxx_kernels.cpp and mlx_cxx_bridge.cpp. Skipped, saying why, without ../shared."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codemods import ItemTarget, Recipe, plan_recipe
from codemods.languages.cpp.items import cpp_items
from codemods.plan.planner import DANGLING

BRIDGE_H = "src/lib/mlxcel-core/cpp/mlx_cxx_bridge.h"
INACTIVE = "nemotron_full_forward"
ACTIVE = "nemotron_free_model"

pytestmark = pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep (rg) is not installed")


def _header_tree(corpus: Path, root: Path, inside_block: bytes = b"", after_block: bytes = b"") -> Path:
    """A tree holding the corpus's bridge header, with `inside_block` added just before the
    `#endif` of its `#if 0` block and `after_block` just after it."""
    source = (corpus / BRIDGE_H).read_bytes()
    start = source.index(b"#if 0\n")
    end = source.index(b"#endif\n", start)
    source = source[:end] + inside_block + source[end : end + 7] + after_block + source[end + 7 :]
    (root / BRIDGE_H).parent.mkdir(parents=True)
    (root / BRIDGE_H).write_bytes(source)
    return root


def _deleting(kind: str, name: str) -> Recipe:
    return Recipe(
        id="if0", summary="", deletions=(ItemTarget(BRIDGE_H, "cpp", kind, name),), check_scope=(), protected=()
    )


def test_the_declaration_in_the_if0_block_is_found_as_inactive(corpus: Path) -> None:
    items = cpp_items((corpus / BRIDGE_H).read_bytes())
    inactive = [(i.kind, i.qualified_name, i.condition, i.node.start_point.row + 1) for i in items if i.inactive]
    assert inactive == [("declaration", f"mlx_cxx::{INACTIVE}", "0", 1779)]
    assert next(i for i in items if i.name == ACTIVE).condition == ""  # #pragma once: no branch


def test_deleting_it_removes_the_emptied_if0_block(corpus: Path, tmp_path: Path) -> None:
    root = _header_tree(corpus, tmp_path)
    plan = plan_recipe(root, _deleting("declaration", f"mlx_cxx::{INACTIVE}"))
    assert not plan.blocking, plan.blocking
    [change] = plan.changes
    before, after = change.before.decode(), change.after.decode()
    assert "#if 0" in before and "#if 0" not in after and INACTIVE not in after
    assert before.count("\n") - after.count("\n") == 1855 - 1778 + 2  # the block and a blank line around it
    assert f"void {ACTIVE}(uint64_t handle);\n\n// Metal 4 attention dispatch." in after


def test_a_same_name_use_inside_the_if0_block_is_not_a_reference(corpus: Path, tmp_path: Path) -> None:
    use = f"inline void nemotron_reset(uint64_t handle) {{ {ACTIVE}(handle); }}\n".encode()
    root = _header_tree(corpus, tmp_path / "inside", inside_block=use)
    plan = plan_recipe(root, _deleting("declaration", f"mlx_cxx::{ACTIVE}"))
    assert not [f for f in plan.findings if f.code == DANGLING], plan.findings
    assert not plan.blocking, plan.blocking
    [change] = plan.changes
    assert b"#if 0" in change.after and use in change.after

    # The same use after the block's #endif is compiled: it blocks the plan.
    root = _header_tree(corpus, tmp_path / "after", after_block=use)
    plan = plan_recipe(root, _deleting("declaration", f"mlx_cxx::{ACTIVE}"))
    dangling = [f for f in plan.findings if f.code == DANGLING]
    assert [(f.line, f.symbol, f.certainty) for f in dangling] == [(1856, ACTIVE, "definite")]


def test_the_inactive_declaration_with_a_use_inside_the_block_keeps_the_block(corpus: Path, tmp_path: Path) -> None:
    use = f"inline void nemotron_forward_twice() {{ {INACTIVE}(); {INACTIVE}(); }}\n".encode()
    root = _header_tree(corpus, tmp_path, inside_block=use)
    plan = plan_recipe(root, _deleting("declaration", f"mlx_cxx::{INACTIVE}"))
    assert not plan.blocking, plan.blocking
    [change] = plan.changes
    assert b"#if 0\n" + use + b"#endif\n" in change.after


def test_ifdef_apple_inside_functions_keeps_the_functions_whole(corpus: Path) -> None:
    for path in ("src/lib/mlxcel-core/cpp/mlx_cxx_kernels.cpp", "src/lib/mlxcel-core/cpp/mlx_cxx_bridge.cpp"):
        source = (corpus / path).read_bytes()
        items = cpp_items(source)
        assert items and not any(i.branches for i in items if i.kind == "function"), path
        lines = [source.count(b"\n", 0, source.index(b"#ifdef __APPLE__")) + 1]
        assert any(i.node.start_point.row + 1 < lines[0] <= i.node.end_point.row + 1 for i in items), path
