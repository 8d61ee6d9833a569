"""The type checker in the test command: `mypy` (configured in pyproject.toml, strict on the whole
package) passes, so `make test` fails on a type error. Strictness is the default; one override list
excuses the modules not yet typed, that list only shrinks, and the public surface (the modules
`codemods/__init__.py` exports from, and codemods.testing) is never in it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

HOUSE = Path(__file__).resolve().parents[1]

# The modules excused when strict mypy became the default (issue 40). A module leaves this set
# (and pyproject's ignore list) once it is typed; none joins it.
NOT_YET_TYPED = frozenset({
    "codemods.languages.rust.crates",
})


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


def test_the_ignore_list_only_shrinks_and_names_real_modules() -> None:
    ignored = _ignored()
    assert len(ignored) == len(set(ignored))
    assert not set(ignored) - NOT_YET_TYPED, "a module joined the ignore list: type it instead"
    for module in ignored:
        path = HOUSE.joinpath(*module.split("."))
        assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), f"{module} does not exist"


def test_the_public_surface_is_never_ignored() -> None:
    import codemods

    surface = {"codemods", "codemods.testing", *codemods._EXPORTS.values()}
    assert not surface & set(_ignored())


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
