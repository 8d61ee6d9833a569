"""clang-format of the regions a plan edits in C++ files: only where the tree has a
`.clang-format` and the file was clean before; a note where clang-format is missing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codemods import PatternRewrite, Recipe, plan_recipe
from codemods.testing import assert_recipe

CLEAN = "int f(int a, int b);\n\nint g(int a, int b);\n\nint use(int x, int y) { return f(x, y); }\n"
RECIPE = Recipe(
    id="swap",
    summary="",
    rewrites=(PatternRewrite("src/a.cc", "f($A, $B)", "g($B,   $A)"),),
    check_scope=(),
    protected=(),
)
STYLE = {".clang-format": "BasedOnStyle: Google\n"}


def _tree(root: Path, source: str, style: bool = True) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.cc").write_text(source)
    if style:
        (root / ".clang-format").write_text("BasedOnStyle: Google\n")
    return root


needs_clang_format = pytest.mark.skipif(shutil.which("clang-format") is None, reason="clang-format is not installed")


@needs_clang_format
def test_the_edited_region_of_a_clean_file_is_formatted() -> None:
    assert_recipe(
        {**STYLE, "src/a.cc": CLEAN}, RECIPE, {**STYLE, "src/a.cc": CLEAN.replace("return f(x, y)", "return g(y, x)")}
    )


@needs_clang_format
def test_a_file_not_clean_before_or_a_tree_without_a_style_is_left_as_edited() -> None:
    unclean = CLEAN.replace("int g(int a, int b);", "int   g(int a,int b);")
    assert_recipe(
        {**STYLE, "src/a.cc": unclean},
        RECIPE,
        {**STYLE, "src/a.cc": unclean.replace("return f(x, y)", "return g(y,   x)")},
    )
    assert_recipe({"src/a.cc": CLEAN}, RECIPE, {"src/a.cc": CLEAN.replace("return f(x, y)", "return g(y,   x)")})


def test_a_missing_clang_format_is_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    plan = plan_recipe(_tree(tmp_path, CLEAN), RECIPE)
    assert not plan.blocking
    assert [(f.code, f.severity) for f in plan.findings] == [("unformatted", "note")]
    assert "clang-format is not installed" in plan.findings[0].message
