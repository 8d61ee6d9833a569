"""The atomic single-file write every writer of this distribution uses (the codemod journal's
own; the house's other packages take it through `interchange.atomic_file`).

A reader sees the old file or the new one, never half of either: the data goes
to a temporary file in the same folder (so the rename stays on one file
system), is fsynced, replaces the target with ``os.replace``, and the folder
is fsynced so the rename survives a crash. The temporary file is removed if
anything fails. Multi-file all-or-nothing writes (the codemod journal) are
built on top of this, not here.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def fsync_dir(directory: Path) -> None:
    """Make a rename or unlink in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, *, mode: int | None = None, temporary_suffix: str = "") -> None:
    """Replace ``path`` by ``data``; the folder must exist.

    The new file gets permission bits ``mode``; without it, those of the file
    it replaces, or for a new file the usual ``0o666`` less the umask. A
    replaced file keeps its owner where this process may set it. The
    temporary file is named ``.<name>.<random><temporary_suffix>`` beside
    ``path``, so a caller that must clean up after a crash can find it.
    """
    try:
        existing = os.stat(path)
    except FileNotFoundError:
        existing = None
    if mode is None:
        mode = existing.st_mode & 0o7777 if existing is not None else 0o666 & ~_umask()
    import tempfile  # here: only a write needs it; `codemod check` and a dry run import this module

    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=temporary_suffix, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if existing is not None and (existing.st_uid, existing.st_gid) != (os.getuid(), os.getgid()):
            with contextlib.suppress(PermissionError):
                os.chown(temporary, existing.st_uid, existing.st_gid)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    fsync_dir(path.parent)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
