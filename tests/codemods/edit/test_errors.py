"""One exception family: what a caller's input can make the library raise is a CodemodError
(and the built-in it replaced); what planning meets is a finding (docs/findings.md)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import codemods
from codemods import (
    CodemodError,
    Edit,
    EditError,
    ItemTarget,
    Parameter,
    Pattern,
    PatternError,
    PatternRewrite,
    Plan,
    Recipe,
    RecipeError,
    Rewrite,
    SelectionError,
    StepResult,
    apply_edits,
    changes_of,
    plan_recipe,
    plan_subset,
)

SOURCE = b"fn tally() -> u32 {\n    count(1) + count(2)\n}\n"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_bytes(SOURCE)
    return tmp_path


def test_every_exception_of_the_surface_is_a_codemod_error() -> None:
    raised = [
        getattr(codemods, name)
        for name in codemods.__all__
        if inspect.isclass(getattr(codemods, name)) and issubclass(getattr(codemods, name), BaseException)
    ]
    assert len(raised) == 11
    assert all(issubclass(error, CodemodError) for error in raised)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: Recipe(id="r", summary="", deletions=(ItemTarget("a.rs", "cobol", "fn", "tally"),)),
            "unknown language",
        ),
        (lambda: Recipe(id="r", summary="", deletions=({"path": "a.rs"},)), "deletions must be ItemTarget values"),
        (lambda: Recipe(id="r", summary="", rewrites=("f($X)",)), "rewrites must be PatternRewrite values"),
        (lambda: Recipe(id="r", summary="", parameters=(3,)), "parameters must be Parameter values"),
        (lambda: Recipe(id="r", summary="", steps=("tally",)), "steps must be callables"),
    ],
    ids=["language", "deletion", "rewrite", "parameter", "step"],
)
def test_recipe_data_of_the_wrong_shape_is_a_recipe_error(build, message: str) -> None:
    with pytest.raises(RecipeError, match=message) as raised:
        build()
    assert isinstance(raised.value, ValueError)


def test_a_str_source_is_refused_by_name() -> None:
    count = Pattern("count($N)", "rust")
    with pytest.raises(PatternError, match="the file's bytes"):
        Rewrite(count, "total($N)").edits("src/lib.rs", SOURCE.decode())  # type: ignore[arg-type]
    with pytest.raises(PatternError, match="the file's bytes"):
        count.find_all(SOURCE.decode())  # type: ignore[arg-type]
    with pytest.raises(EditError, match="the file's bytes"):
        apply_edits(SOURCE.decode(), [])  # type: ignore[arg-type]


def test_pattern_and_edit_mistakes_are_typed() -> None:
    count = Pattern("count($N)", "rust")
    with pytest.raises(PatternError, match=r"\$M"):
        Rewrite(count, "total($M)").edits("src/lib.rs", SOURCE)
    with pytest.raises(PatternError, match="captured 0 nodes"):
        Pattern("count($$$ARGS)", "rust").find_all(b"fn t() { count(); }")[0]["ARGS"]
    with pytest.raises(EditError, match="bad edit range"):
        Edit("src/lib.rs", 5, 2)
    with pytest.raises(EditError, match="overlap"):
        apply_edits(SOURCE, [Edit("src/lib.rs", 0, 4, b"", "one"), Edit("src/lib.rs", 2, 6, b"", "two")])


def test_a_step_that_raises_is_a_finding(tree: Path) -> None:
    def tally_step(workspace) -> StepResult:
        raise KeyError("tally")

    plan = plan_recipe(tree, Recipe(id="r", summary="", steps=(tally_step,), check_scope=("src",)))
    [failed] = plan.findings
    assert (plan.changes, failed.code, failed.blocking) == ((), "step-failed", True)
    assert failed.message == "step tally_step raised KeyError: 'tally'; nothing planned"


def test_options_that_are_not_a_mapping_are_a_usage_error(tree: Path) -> None:
    recipe = Recipe(id="r", summary="", parameters=(Parameter("limit"),), check_scope=("src",))
    plan = plan_recipe(tree, recipe, options=[("limit", "3")])  # type: ignore[arg-type]
    assert [(f.code, f.message) for f in plan.findings] == [
        ("usage-error", "options must be a mapping of option names to values, not list")
    ]


def test_a_subset_of_a_plan_without_changes_is_a_selection_error(tree: Path) -> None:
    with pytest.raises(SelectionError, match="no basis"):
        changes_of(Plan(tree, "r", (), ()))
    plan = plan_recipe(
        tree, Recipe(id="r", summary="", rewrites=(PatternRewrite("src/lib.rs", "count($N)", "total($N)"),))
    )
    with pytest.raises(SelectionError, match="no change of the plan has the id 'r:nonesuch'"):
        plan_subset(plan, ["r:nonesuch"])
