"""Fixtures the codemod tests share. `tree` is the three-file tree of write_trees.py (a recipe
that edits all three is write_trees.RECIPE); a test module that needs another tree (the fixture
crate) defines its own `tree`."""

from __future__ import annotations

from pathlib import Path

import pytest

from write_trees import make_tree


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "tree")
