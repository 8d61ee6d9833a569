"""A small three-file tree and a recipe that edits all three files, for the write-path tests."""

from __future__ import annotations

import os
from pathlib import Path

from codemods import ItemTarget, Recipe

BEFORE = {
    "src/a.rs": b"/// Gone.\nfn gone_a() {}\n\nfn keep_a() {}\n",
    "src/b.rs": b"fn keep_b() {}\n\n#[inline]\nfn gone_b() {}\n",
    "src/nested/c.rs": b"mod inner {\n    fn gone_c() {}\n\n    fn keep_c() {}\n}\n",
}
AFTER = {
    "src/a.rs": b"fn keep_a() {}\n",
    "src/b.rs": b"fn keep_b() {}\n",
    "src/nested/c.rs": b"mod inner {\n    fn keep_c() {}\n}\n",
}
TARGETS = tuple(BEFORE)
RECIPE = Recipe(
    id="three-files",
    summary="delete one function from each of three files",
    deletions=(
        ItemTarget("src/a.rs", "rust", "fn", "gone_a"),
        ItemTarget("src/b.rs", "rust", "fn", "gone_b"),
        ItemTarget("src/nested/c.rs", "rust", "fn", "inner::gone_c"),
    ),
    dead_symbol_pattern="gone_[abc]",
)
RECIPE_TOML = """\
id = "three-files"
summary = "delete one function from each of three files"
dead_symbol_pattern = "gone_[abc]"
delete = [
  { path = "src/a.rs", language = "rust", kind = "fn", name = "gone_a" },
  { path = "src/b.rs", language = "rust", kind = "fn", name = "gone_b" },
  { path = "src/nested/c.rs", language = "rust", kind = "fn", name = "inner::gone_c" },
]
"""


def make_tree(root: Path, files: dict[str, bytes] = BEFORE) -> Path:
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    return root


def write_recipe(folder: Path) -> Path:
    path = folder / "three_files.toml"
    path.write_text(RECIPE_TOML)
    return path


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under `root`, hidden ones included (a journal, lock or temporary left behind shows)."""
    found = {}
    for directory, _, files in os.walk(root):
        for name in files:
            path = Path(directory) / name
            found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found
