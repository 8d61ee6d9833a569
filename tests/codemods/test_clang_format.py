"""clang-format of the regions a plan edits in C++ files: only where the tree has a
`.clang-format` and the file was clean before; a note where clang-format is missing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codemods import PatternRewrite, Recipe, plan_recipe

CLEAN = "int f(int a, int b);\n\nint g(int a, int b);\n\nint use(int x, int y) { return f(x, y); }\n"
RECIPE = Recipe(id="swap", summary="", rewrites=(
    PatternRewrite("src/a.cc", "f($A, $B)", "g($B,   $A)"),), check_scope=(), protected=())


def _tree(root: Path, source: str, style: bool = True) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.cc").write_text(source)
    if style:
        (root / ".clang-format").write_text("BasedOnStyle: Google\n")
    return root


needs_clang_format = pytest.mark.skipif(shutil.which("clang-format") is None,
                                        reason="clang-format is not installed")


@needs_clang_format
def test_the_edited_region_of_a_clean_file_is_formatted(tmp_path: Path) -> None:
    plan = plan_recipe(_tree(tmp_path, CLEAN), RECIPE)
    assert not plan.blocking
    [change] = plan.changes
    assert change.after.decode() == CLEAN.replace("return f(x, y)", "return g(y, x)")


@needs_clang_format
def test_a_file_not_clean_before_or_a_tree_without_a_style_is_left_as_edited(tmp_path: Path) -> None:
    unclean = CLEAN.replace("int g(int a, int b);", "int   g(int a,int b);")
    [change] = plan_recipe(_tree(tmp_path / "unclean", unclean), RECIPE).changes
    assert "return g(y,   x)" in change.after.decode() and "int   g(int a,int b);" in change.after.decode()
    [change] = plan_recipe(_tree(tmp_path / "nostyle", CLEAN, style=False), RECIPE).changes
    assert "return g(y,   x)" in change.after.decode()


def test_a_missing_clang_format_is_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    plan = plan_recipe(_tree(tmp_path, CLEAN), RECIPE)
    assert not plan.blocking
    assert [(f.code, f.severity) for f in plan.findings] == [("unformatted", "note")]
    assert "clang-format is not installed" in plan.findings[0].message
