"""The lint rules and the formatting of pyproject.toml's [tool.ruff] hold on the whole house (the
package, the other packages, benches, scripts, examples and tests), so that `make test` fails on a
new violation or a file `ruff format` would change."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HOUSE = Path(__file__).resolve().parents[1]
LINTED = ["codemods", "interchange", "analysis", "kernels", "bench", "tests", "scripts", "examples"]


def test_ruff_passes() -> None:
    if subprocess.run([sys.executable, "-m", "ruff", "--version"], capture_output=True).returncode != 0:
        pytest.fail("ruff is not installed: `make test` installs the test extra (scripts/bootstrap.sh)")
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", *LINTED], cwd=HOUSE, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_leaves_every_file_as_it_is() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", *LINTED],
        cwd=HOUSE,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, "run `ruff format` on: " + done.stdout + done.stderr
