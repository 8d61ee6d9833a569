"""Golden before/after trees under fixtures/golden/<case>/, compared byte for byte."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codemods.parse import CPP, RUST, error_count, language_of, parse
from codemods.plan.planner import plan_recipe
from codemods import load_recipe

from codemod_helpers import rustfmt_clean

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "recipe.toml").is_file())


def _files(tree: Path) -> dict[str, bytes]:
    return {p.relative_to(tree).as_posix(): p.read_bytes() for p in sorted(tree.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", CASES)
def test_golden_case(case: str, tmp_path: Path) -> None:
    before, after = GOLDEN / case / "before", GOLDEN / case / "after"
    work = tmp_path / "tree"
    shutil.copytree(before, work)
    recipe = load_recipe(str(GOLDEN / case / "recipe.toml"))

    plan = plan_recipe(work, recipe, allow_dangling=True, allow_unreworded=True)
    assert not [f for f in plan.blocking], plan.blocking
    result = _files(work)
    for change in plan.changes:
        result[change.path] = change.after
    assert result == _files(after)

    for path, data in result.items():
        language = language_of(path)
        if language in (RUST, CPP):
            assert error_count(parse(data, language)) <= error_count(parse(_files(before)[path], language))
        if language == RUST and shutil.which("rustfmt") and rustfmt_clean(_files(before)[path]):
            assert rustfmt_clean(data), f"{path} is no longer rustfmt-clean"

    for change in plan.changes:
        (work / change.path).write_bytes(change.after)
    again = plan_recipe(work, recipe, allow_dangling=True, allow_unreworded=True)
    assert again.changes == ()
