"""A rule's `path` names files as the tree does: `.` (or `./src`) is the root's (the folder's)
files under their own paths, so no file is edited twice under two names."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods import PatternRewrite, Recipe, plan_recipe


@pytest.mark.parametrize("folder", [".", "./", "./src", "src/"])
def test_a_folder_spelt_with_dots_or_slashes_names_each_file_once(tmp_path: Path, folder: str) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text("pub fn dim() -> u8 { glow() }\nfn glow() -> u8 { 1 }\n")
    recipe = Recipe(id="t", summary="", rewrites=(PatternRewrite(folder, "glow", "shine", language="rust"),))
    plan = plan_recipe(tmp_path, recipe)
    assert not plan.findings, [f.render() for f in plan.findings]
    assert [c.path for c in plan.changes] == ["src/lib.rs"]
    assert plan.changes[0].after.decode().count("shine") == 2
