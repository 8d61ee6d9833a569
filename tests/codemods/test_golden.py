"""Golden before/after trees under fixtures/golden/<case>/, compared byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods.testing import assert_recipe

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "recipe.toml").is_file())


@pytest.mark.parametrize("case", CASES)
def test_golden_case(case: str) -> None:
    assert_recipe(
        GOLDEN / case / "before",
        GOLDEN / case / "recipe.toml",
        GOLDEN / case / "after",
        allow_dangling=True,
        allow_unreworded=True,
    )
