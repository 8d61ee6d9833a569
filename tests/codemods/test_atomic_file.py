"""The atomic single-file write (the engine's, which the house's other packages share through
`interchange.atomic_file`): whole file or nothing, permissions kept, no temporary left behind."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import interchange.atomic_file
from codemods.write import atomic_file
from codemods.write.atomic_file import write_atomic


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_gets_the_umask_permissions(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    write_atomic(target, b"new\n")
    umask = os.umask(0)
    os.umask(umask)
    assert target.read_bytes() == b"new\n"
    assert _mode(target) == 0o666 & ~umask
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]


def test_a_replaced_file_keeps_its_mode_unless_one_is_given(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_bytes(b"old\n")
    target.chmod(0o750)
    write_atomic(target, b"kept\n")
    assert (target.read_bytes(), _mode(target)) == (b"kept\n", 0o750)
    write_atomic(target, b"given\n", mode=0o600)
    assert (target.read_bytes(), _mode(target)) == (b"given\n", 0o600)


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "decision.json"
    target.write_bytes(b"old\n")

    def replace_fails(source, destination):
        raise OSError("disk full")

    monkeypatch.setattr(atomic_file.os, "replace", replace_fails)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, b"new\n", temporary_suffix=".tmp")
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["decision.json"]


def test_the_other_packages_share_the_one_implementation() -> None:
    assert (interchange.atomic_file.write_atomic, interchange.atomic_file.fsync_dir) == (
        write_atomic,
        atomic_file.fsync_dir,
    )
