"""The type checker in the test command: `mypy` (configured in pyproject.toml, strict on the
public surface) passes, so `make test` fails on a type error; and the strict list is the
surface: the modules `codemods/__init__.py` exports from, and codemods.testing."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

HOUSE = Path(__file__).resolve().parents[1]


def _overrides() -> list[dict]:
    return tomllib.loads((HOUSE / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]["overrides"]


def test_the_strict_modules_are_the_public_surface() -> None:
    import codemods

    strict = next(o["module"] for o in _overrides() if o.get("strict"))
    assert sorted(strict) == sorted({"codemods", "codemods.testing", *codemods._EXPORTS.values()})


def test_the_package_ships_its_types() -> None:
    assert (HOUSE / "codemods" / "py.typed").is_file()
    package_data = tomllib.loads((HOUSE / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "py.typed" in package_data["package-data"]["*"]


def test_mypy_passes() -> None:
    if shutil.which("mypy", path=str(Path(sys.executable).parent)) is None and \
            subprocess.run([sys.executable, "-c", "import mypy"], capture_output=True).returncode != 0:
        pytest.fail("mypy is not installed: `make test` installs the test extra (scripts/bootstrap.sh)")
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental"], cwd=HOUSE, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
