"""examples/drop_dead_candidates.py on a real tree of the replay corpus (alacritty, case
03-alacritty-limit): plan, findings by code, the subset without what is still used, written; the
result is the maintainer's commit, token for token."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "drop_dead_candidates.py"
RECIPE = ROOT / "examples" / "drop_dead_candidates" / "alacritty_candidates.toml"
REPLAY_CORPORA = ROOT.parent / "shared" / "corpora" / "replay"
CASE = "03-alacritty-limit"
TERM = "src/term/mod.rs"


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Path]:
    """The commit's parent and its child (the parent with the maintainer's diff applied)."""
    case = REPLAY_CORPORA / CASE
    if not (case / "parent.tar.xz").is_file() or shutil.which("git") is None:
        pytest.skip(f"the replay corpus ({case}) or git is not here; a clone without ../shared has no corpus")
    with tarfile.open(case / "parent.tar.xz") as archive:
        archive.extractall(tmp_path / "parent", filter="data")
    parent = tmp_path / "parent" / CASE
    child = tmp_path / "child"
    shutil.copytree(parent, child)
    subprocess.run(["git", "apply", str(case / "commit.diff")], cwd=child, check=True, capture_output=True)
    return parent, child


def _tokens(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split()


def test_the_example_keeps_what_is_still_used_and_writes_the_rest(trees: tuple[Path, Path]) -> None:
    parent, child = trees
    result = subprocess.run(
        [sys.executable, str(EXAMPLE), str(parent), str(RECIPE), "--write"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    report = result.stderr.splitlines()
    assert "dangling-reference: 9" in report
    assert "kept (still used): alacritty-dead-candidates:fn:crate::cubic_bezier" in report
    assert report[-1] == "written: 2 of 3 change(s)"
    assert "-fn limit<T: PartialOrd + Ord>(val: T, min_limit: T, max_limit: T) -> T {" in result.stdout
    assert _tokens(parent / TERM) == _tokens(child / TERM)
    assert "fn cubic_bezier(" in (parent / TERM).read_text()


def test_without_write_it_only_shows_the_subset(trees: tuple[Path, Path]) -> None:
    parent, _ = trees
    before = (parent / TERM).read_bytes()
    result = subprocess.run([sys.executable, str(EXAMPLE), str(parent), str(RECIPE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "+    use super::{Cell, Term, SizeInfo};" in result.stdout
    assert (parent / TERM).read_bytes() == before
