"""Plans and the one place that writes files.

`splice` turns a file's edits into its new bytes (refusing overlaps),
`FileChange` records what was read and what will be written, and
`write_changes` writes a set of changes atomically, refusing any file that
changed since it was read.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ._edit import Edit, Finding, line_col


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FileChange:
    """One file's planned change: the bytes read (and their hash) and the bytes to write."""

    path: str
    before: bytes
    after: bytes

    @property
    def before_digest(self) -> str:
        return digest(self.before)


def conflicts(edits: list[Edit], source: bytes) -> list[Finding]:
    """Overlapping edits of one file, each reported naming both rules."""
    findings = []
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for first, second in zip(ordered, ordered[1:]):
        overlap = second.start < first.end
        same_point = first.start == first.end == second.start == second.end
        if overlap or same_point:
            line, col = line_col(source, second.start)
            findings.append(
                Finding(first.path, line, col, "overlapping-edits",
                        f"edits overlap: {first.rule} [{first.start},{first.end}) and "
                        f"{second.rule} [{second.start},{second.end}); nothing written")
            )
    return findings


def splice(source: bytes, edits: list[Edit]) -> bytes:
    """Apply non-overlapping edits to `source` (call `conflicts` first)."""
    out = bytearray()
    cursor = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        out += source[cursor : edit.start]
        out += edit.replacement
        cursor = edit.end
    out += source[cursor:]
    return bytes(out)


def map_offset(edits: list[Edit], after_offset: int) -> int:
    """The offset in the original source of `after_offset` in the spliced result.

    An offset inside a replacement maps to that edit's start.
    """
    delta = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        new_start = edit.start + delta
        new_end = new_start + len(edit.replacement)
        if after_offset < new_start:
            break
        if after_offset < new_end:
            return edit.start
        delta += len(edit.replacement) - (edit.end - edit.start)
    return after_offset - delta


class WriteRefused(Exception):
    """A write was refused before anything was written; `findings` say why."""

    def __init__(self, findings: list[Finding]):
        super().__init__("; ".join(f.render() for f in findings))
        self.findings = findings


def _atomic_write(target: Path, data: bytes) -> None:
    mode = target.stat().st_mode & 0o7777 if target.exists() else None
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".codemod-tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_changes(root: Path, changes: list[FileChange]) -> None:
    """Write every change or none.

    Refuses (WriteRefused, nothing written) when a file's bytes differ from
    what the plan read. If a write fails part way, the files already written
    are put back from the bytes the plan read, and the error is re-raised.
    """
    stale = []
    for change in changes:
        current = (root / change.path).read_bytes()
        if digest(current) != change.before_digest:
            stale.append(Finding(change.path, 0, 0, "stale-plan",
                                 f"{change.path} changed since it was read; nothing written"))
    if stale:
        raise WriteRefused(stale)
    written: list[FileChange] = []
    try:
        for change in changes:
            _atomic_write(root / change.path, change.after)
            written.append(change)
    except BaseException:
        for change in reversed(written):
            _atomic_write(root / change.path, change.before)
        raise
