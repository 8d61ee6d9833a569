"""The one place that writes files.

`write_changes` writes a set of `FileChange`s (see codemods/edit/splice.py) all or
nothing (see journal.py), refusing any file that changed since it was read.

Symlinks: a planned path that is a symlink (or lies under one) is written
through, replacing the file it resolves to and keeping the link, only when
that file lies inside ROOT; otherwise the write is refused
(`symlink-outside-root`). Two planned paths that resolve to the same file
are refused (`aliased-path`): one would silently undo the other.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from codemods.edit.codes import Code
from codemods.edit.errors import TreeLocked, WriteFailed
from codemods.edit.refusals import WriteRefused
from codemods.edit.splice import FileChange, digest, resolve_inside
from codemods.edit.values import Finding
from codemods.write import journal
from codemods.write.atomic_file import fsync_dir
from codemods.write.journal import HeldLock, JournalEntry, atomic_write, journal_path, shown, tree_lock


@dataclass(frozen=True)
class _Target:
    change: FileChange
    real: Path
    mode: int


def _writable(path: Path, status: os.stat_result) -> bool:
    """Writable by us, and not marked read-only (no write bit at all): root's writes too respect that."""
    return bool(status.st_mode & 0o222) and os.access(path, os.W_OK)


def _preflight(root: Path, changes: list[FileChange]) -> tuple[list[_Target], list[Finding]]:
    """Where each change goes, and every reason not to write (nothing is written here)."""
    targets: list[_Target] = []
    findings: list[Finding] = []
    seen: dict[Path, str] = {}

    def refuse(change: FileChange, code: str, message: str) -> None:
        findings.append(Finding(change.path, 0, 0, code, f"{message}; nothing written"))

    if journal.journal_present(root):
        findings.append(
            Finding(
                shown(root, journal_path(root)),
                0,
                0,
                Code.JOURNAL_PRESENT,
                f"{shown(root, journal_path(root))}/ is left from an interrupted run; run `codemod apply` "
                f"to recover it first; nothing written",
            )
        )
    for change in changes:
        real = resolve_inside(root, change.path)
        if real is None:
            refuse(change, Code.SYMLINK_OUTSIDE_ROOT, "resolves outside ROOT (through a symlink or ..)")
            continue
        if real in seen:
            refuse(change, Code.ALIASED_PATH, f"same file as {seen[real]} (through a symlink)")
            continue
        seen[real] = change.path
        try:
            status = os.stat(real)
            current = real.read_bytes() if stat.S_ISREG(status.st_mode) else None
        except OSError as error:
            refuse(change, Code.UNREADABLE_FILE, f"cannot be read ({error.strerror})")
            continue
        if current is None:
            refuse(change, Code.NOT_A_FILE, "not a regular file")
            continue
        if digest(current) != change.before_digest:
            refuse(change, Code.STALE_PLAN, "changed since it was read")
            continue
        if not _writable(real, status):
            refuse(change, Code.READ_ONLY_FILE, "file is read-only")
            continue
        if not _writable(real.parent, os.stat(real.parent)):
            refuse(change, Code.READ_ONLY_FOLDER, f"folder {real.parent} is read-only")
            continue
        targets.append(_Target(change, real, stat.S_IMODE(status.st_mode)))
    return targets, findings


def _restore(attempted: list[_Target]) -> list[str]:
    """Put back, from the bytes the plan read, each attempted file that holds its planned bytes
    (a replace can succeed and still report an error, from the fsync after it); a file that
    holds anything else is someone else's and is left alone. Returns the paths that could not
    be put back."""
    failed = []
    for target in reversed(attempted):
        try:
            if target.change.deleted and not target.real.exists():
                atomic_write(target.real, target.change.before, target.mode)
            elif not target.change.deleted and digest(target.real.read_bytes()) == target.change.after_digest:
                atomic_write(target.real, target.change.before, target.mode)
        except OSError:
            failed.append(target.change.path)
    return failed


def write_changes(root: Path, changes: list[FileChange], *, lock: HeldLock | None = None) -> None:
    """Write every change or none, holding the tree lock (`lock`, when the caller holds it
    already; else it is taken here).

    Refuses (WriteRefused, nothing written) when a file's bytes differ from
    what the plan read, when a file is read-only, not a regular file, or
    resolves outside ROOT, or when a journal from an interrupted run is
    still there. Otherwise journals the originals, then replaces the files
    one by one. If a write fails part way, the files already written are put
    back and WriteFailed is raised; if the process dies, the journal lets
    the next run put them back (`journal.recover`). Raises TreeLocked if
    another run holds the lock.
    """
    root = Path(root)
    if not changes:
        return
    if lock is not None and not lock.covers(root):
        raise ValueError(f"write_changes: the lock given is not the held lock of {root}")
    with contextlib.nullcontext(lock) if lock is not None else tree_lock(root):
        targets, refusals = _preflight(root, changes)
        if refusals:
            raise WriteRefused(refusals)
        real_root = Path(os.path.realpath(root))
        try:
            journal.begin(
                root,
                [
                    (
                        JournalEntry(
                            t.real.relative_to(real_root).as_posix(),
                            t.mode,
                            t.change.before_digest,
                            t.change.after_digest,
                            t.change.deleted,
                        ),
                        t.change.before,
                    )
                    for t in targets
                ],
            )
        except OSError as error:
            raise WriteFailed(
                f"cannot write the journal {shown(root, journal_path(root))}/: {error.strerror or error}; "
                f"nothing changed",
                error,
                restored=True,
            ) from error
        attempted: list[_Target] = []
        try:
            for target in targets:
                attempted.append(target)
                _replace(target)
        except BaseException as error:
            _undo(root, attempted, error)
            raise
        try:
            journal.finish(root)
        except OSError as error:
            raise WriteFailed(
                f"every file written, but the journal {shown(root, journal_path(root))}/ could not be removed "
                f"({error.strerror or error}); the next `codemod apply` removes it",
                error,
                restored=False,
            ) from error


class _ChangedMeanwhile(Exception):
    """A file changed between the preflight check and its replacement."""


def _replace(target: _Target) -> None:
    """Replace one file by its planned bytes; errors name the file as the plan does."""
    try:
        # Re-read just before replacing: narrows the window for an editor saving meanwhile.
        if digest(target.real.read_bytes()) != target.change.before_digest:
            raise _ChangedMeanwhile(target.change.path)
        if target.change.deleted:
            os.unlink(target.real)
            fsync_dir(target.real.parent)
        else:
            atomic_write(target.real, target.change.after, target.mode)
    except OSError as error:
        raise OSError(error.errno, f"{target.change.path}: {error.strerror or error}") from error


def _undo(root: Path, attempted: list[_Target], error: BaseException) -> None:
    """After `error` stopped a write part way: put back what was written, then say what happened.

    Raises WriteRefused or WriteFailed for expected failures; for anything
    else (an interrupt) returns so that the caller re-raises it.
    """
    failed = _restore(attempted)
    reason = error.strerror if isinstance(error, OSError) else str(error)
    if failed:
        raise WriteFailed(
            f"{reason}; {len(failed)} file(s) already written could not be put back ({', '.join(failed)}): "
            f"run `codemod apply {root}` again to restore them from {shown(root, journal_path(root))}/",
            error,
            restored=False,
        ) from error
    journal.finish(root)
    if isinstance(error, _ChangedMeanwhile):
        raise WriteRefused(
            [Finding(str(error), 0, 0, Code.STALE_PLAN, "changed while the plan was being written; nothing written")]
        ) from None
    if isinstance(error, OSError):
        raise WriteFailed(f"{reason}; every file put back, nothing changed", error, restored=True) from error


__all__ = ["TreeLocked", "WriteFailed", "WriteRefused", "write_changes"]
