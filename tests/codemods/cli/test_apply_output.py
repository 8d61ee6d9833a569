"""What `codemod apply` prints: colour only on a terminal, --stat, notes counted apart from findings,
a dry run that says what apply would do; and the library's answer to wrong input (findings, never raises)."""

from __future__ import annotations

from pathlib import Path


from codemods import USAGE_ERROR, ItemTarget, Recipe, Rewording, plan_recipe
from codemod_helpers import run_codemod
from write_trees import RECIPE, write_recipe

ANSI = "\x1b["


def _apply(*args: str, color: bool = False):
    return run_codemod("apply", *args, color=color)


def test_the_diff_is_coloured_on_a_terminal_only(tree: Path, tmp_path: Path) -> None:
    recipe = str(write_recipe(tmp_path))
    coloured = _apply("--dry-run", "--recipe", recipe, str(tree), color=True)
    assert coloured.exit_code == 0
    assert f"{ANSI}31m-fn gone_b() {{}}" in coloured.stdout and f"{ANSI}36m@@ " in coloured.stdout
    assert ANSI not in _apply("--dry-run", "--recipe", recipe, str(tree)).stdout
    assert ANSI not in _apply("--dry-run", "--no-color", "--recipe", recipe, str(tree), color=True).stdout


def test_stat_prints_a_line_per_file_and_a_total(tree: Path, tmp_path: Path) -> None:
    result = _apply("--dry-run", "--stat", "--recipe", str(write_recipe(tmp_path)), str(tree))
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        " src/a.rs        | +0 -3",
        " src/b.rs        | +0 -3",
        " src/nested/c.rs | +0 -2",
        " 3 file(s) changed, 0 insertion(s)(+), 8 deletion(s)(-)",
    ]


def test_a_clean_rerun_counts_notes_apart_from_findings(tree: Path, tmp_path: Path) -> None:
    recipe = str(write_recipe(tmp_path))
    assert _apply("--recipe", recipe, str(tree)).exit_code == 0
    again = _apply("--recipe", recipe, str(tree))
    assert again.exit_code == 0
    assert (
        again.stderr.splitlines()[-1] == "codemod: three-files: changed 0 file(s); 0 finding(s), 0 blocking; 3 note(s)"
    )


def test_a_dry_run_with_blocking_findings_says_apply_would_refuse(tree: Path, tmp_path: Path) -> None:
    (tree / "src/user.rs").write_text("fn user() { gone_a(); }\n")
    result = _apply("--dry-run", "--recipe", str(write_recipe(tmp_path)), str(tree))
    assert result.exit_code == 1
    assert "nothing written" not in result.stderr
    assert (
        "codemod: the plan has 1 blocking finding(s): apply would refuse it (override with --allow-dangling)"
        in result.stderr.splitlines()
    )


def test_a_rewording_whose_file_is_missing_is_a_note(tree: Path) -> None:
    recipe = Recipe(
        id="r", summary="", rewordings=(Rewording("src/gone.rs", "old", "new"), Rewording("src/a.rs", "Gone.", "Kept."))
    )
    plan = plan_recipe(tree, recipe)
    assert not plan.blocking and [c.path for c in plan.changes] == ["src/a.rs"]
    assert [(f.path, f.code, f.severity, f.render()) for f in plan.findings] == [
        ("src/gone.rs", "missing-file", "note", "src/gone.rs: file not found; its rewording rule was not applied")
    ]


# ---------------------------------------------------------------- the library never raises on wrong input


def _usage_problem(root: Path, recipe: Recipe, **options) -> str:
    plan = plan_recipe(root, recipe, options=options)
    assert plan.changes == () and [f.code for f in plan.blocking] == [USAGE_ERROR]
    return plan.blocking[0].render()


def test_plan_on_a_missing_root_is_blocked(tmp_path: Path) -> None:
    assert _usage_problem(tmp_path / "nonexistent", RECIPE) == f"ROOT {tmp_path / 'nonexistent'} does not exist"


def test_plan_on_a_root_without_the_recipes_files_is_blocked(tree: Path) -> None:
    assert _usage_problem(tree / "src", RECIPE).startswith(
        f"ROOT {tree / 'src'} holds none of src/a.rs, src/b.rs, src/nested/c.rs (the paths recipe "
        f"three-files works on); give the repository root, probably {tree}"
    )


def test_plan_with_an_unknown_kind_or_pattern_is_blocked_not_raised(tree: Path) -> None:
    kind = Recipe(id="k", summary="", deletions=(ItemTarget("src/a.rs", "rust", "function", "gone_a"),))
    assert "unknown rust kind 'function'" in _usage_problem(tree, kind)
    pattern = Recipe(id="p", summary="", dead_symbol_pattern="gone_(a")
    assert "dead_symbol_pattern 'gone_(a' is not a valid pattern" in _usage_problem(tree, pattern)


def test_plan_with_an_option_the_recipe_does_not_take_is_blocked(tree: Path) -> None:
    assert _usage_problem(tree, RECIPE, decision="d.json") == (
        "recipe three-files takes no option 'decision' (options it takes: none)"
    )


def test_apply_recipe_on_wrong_input_neither_locks_nor_writes(tmp_path: Path) -> None:
    from codemods import apply_recipe

    missing = apply_recipe(tmp_path / "nonexistent", RECIPE)
    assert not missing.written and missing.error is None
    assert [f.code for f in missing.plan.blocking] == [USAGE_ERROR]
    assert not (tmp_path / "nonexistent").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    wrong_root = apply_recipe(empty, RECIPE)
    assert [f.code for f in wrong_root.plan.blocking] == [USAGE_ERROR]
    assert list(empty.iterdir()) == []
