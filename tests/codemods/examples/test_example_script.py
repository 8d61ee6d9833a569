"""The example under examples/ uses the library as other refactor scripts would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fixture_crate import FIXTURE, copy_fixture

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "remove_gemma3_vision_wrapper.py"


def test_example_prints_the_diff_and_writes_nothing_by_default() -> None:
    before = (FIXTURE / "src/models/gemma3.rs").read_bytes()
    result = subprocess.run([sys.executable, str(EXAMPLE), str(FIXTURE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "-pub struct Gemma3VisionWrapper {" in result.stdout
    assert "-impl ModelWrapper for Gemma3VisionWrapper {" in result.stdout
    assert "-    fn vision_wrapper_delegates_the_paged_flag() {" in result.stdout
    assert (FIXTURE / "src/models/gemma3.rs").read_bytes() == before


def test_example_writes_with_write_flag(tmp_path: Path) -> None:
    tree = copy_fixture(tmp_path / "tree")
    result = subprocess.run([sys.executable, str(EXAMPLE), "--write", str(tree)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert b"Gemma3VisionWrapper" not in (tree / "src/models/gemma3.rs").read_bytes()
