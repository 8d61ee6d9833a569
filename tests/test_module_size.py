"""No module of the package grows past 800 lines: a module that does is two concerns (issue 40)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "codemods"
MOST = 800


def test_no_module_of_the_package_is_over_800_lines() -> None:
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MOST
    }
    assert long == {}, f"split these by concern: {long}"
