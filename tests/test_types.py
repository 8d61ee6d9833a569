"""The type checker in the test command: `mypy` (configured in pyproject.toml, strict on the whole
package) passes, so `make test` fails on a type error. No module is excused: the ignore list that
held the modules not yet typed when strictness became the default (issue 40) is empty and gone."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

HOUSE = Path(__file__).resolve().parents[1]


def _mypy() -> dict[str, Any]:
    config: dict[str, Any] = tomllib.loads((HOUSE / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    return config


def _ignored() -> list[str]:
    return [m for o in _mypy().get("overrides", []) if o.get("ignore_errors") for m in o["module"]]


def test_mypy_is_strict_on_the_whole_package() -> None:
    config = _mypy()
    assert config["strict"] is True
    assert set(config["files"]) == {"codemods", "interchange"}
    for override in config.get("overrides", []):
        assert set(override) == {"module", "ignore_errors"}, f"an override may only excuse modules: {override}"


def test_no_module_is_excused() -> None:
    assert _ignored() == [], "a module joined an ignore list: type it instead"


def test_the_package_ships_its_types() -> None:
    assert (HOUSE / "codemods" / "py.typed").is_file()
    package_data = tomllib.loads((HOUSE / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "py.typed" in package_data["package-data"]["*"]


def test_mypy_passes() -> None:
    if (
        shutil.which("mypy", path=str(Path(sys.executable).parent)) is None
        and subprocess.run([sys.executable, "-c", "import mypy"], capture_output=True).returncode != 0
    ):
        pytest.fail("mypy is not installed: `make test` installs the test extra (scripts/bootstrap.sh)")
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental"], cwd=HOUSE, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
