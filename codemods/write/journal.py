"""The write journal and the tree lock: what makes a multi-file write all or nothing.

Before the first file of a plan is replaced, the journal is written under
the tree's state folder (`state_dir`: ROOT/.git/codemod/ when ROOT is the top
of a git work tree, where `git status` and `git add -A` never see it; else
ROOT itself), as .codemod-journal/, and made durable: the original bytes of every file to
be written (`before/<n>`), and a manifest with each file's path, mode and the
hashes of its original and planned bytes. The journal appears in one rename,
so it is either complete or absent. It is removed once every file is written
(the manifest first: a journal folder without a manifest is a finished one).

If the process dies between two files, the journal is still there. `recover`
(which `codemod apply` runs before planning) then looks at every journaled
file: if all of them hold their planned bytes, the write had finished and the
journal is dropped; otherwise every file that holds its planned bytes is put
back from `before/`, so the tree is exactly as it was. A file that holds
neither (someone edited it since) is not touched: recovery refuses and says
what to do by hand.

`tree_lock` keeps two runs on one tree from interleaving: an exclusive
`flock` on .codemod.lock in the state folder, released by the kernel if the
holder dies. A journal an older version left in ROOT itself is still
recovered from there. It
yields a `HeldLock`; code that writes while its caller holds the lock is
given that value (`write_changes(..., lock=held)`) instead of taking the lock
again, so no process-wide state records who holds what.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from codemods.edit.errors import TreeLocked
from codemods.edit.splice import digest
from codemods.write.atomic_file import fsync_dir, write_atomic

JOURNAL_DIR = ".codemod-journal"
LOCK_FILE = ".codemod.lock"
_PARTIAL_JOURNAL = ".codemod-journal.partial"
_MANIFEST = "manifest.json"
_TMP_SUFFIX = ".codemod-tmp"
_FORMAT = 1


@dataclass(frozen=True)
class JournalEntry:
    """One file of a journaled write: `path` relative to the real root, its mode, both hashes."""

    path: str
    mode: int
    before_digest: str
    after_digest: str
    deleted: bool = False  # the write deletes the file


@dataclass(frozen=True)
class Recovery:
    """What `recover` found and did.

    `action` is "none" (no journal), "cleaned" (a journal left by a run that
    had written nothing, or had finished), "completed" (every file already
    held its planned bytes), "rolled-back" (`restored` were put back), or
    "refused" (`conflicts` changed since the interrupted run; nothing touched).
    """

    action: str
    restored: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    message: str = ""

    @property
    def refused(self) -> bool:
        return self.action == "refused"


def _real_root(root: Path) -> Path:
    return Path(os.path.realpath(root))


def state_dir(root: Path) -> Path:
    """Where the journal and the lock of the tree at `root` live: inside the git folder when ROOT
    is the top of a git work tree (`.git` a folder, or a file `gitdir: PATH` as in a linked work
    tree or submodule), so that they never show up as untracked files; else ROOT itself."""
    real = _real_root(root)
    dot_git = real / ".git"
    git_dir = None
    if dot_git.is_dir():
        git_dir = dot_git
    elif dot_git.is_file():
        with contextlib.suppress(OSError, UnicodeDecodeError):
            first = dot_git.read_text(encoding="utf-8").splitlines()[:1]
            if first and first[0].startswith("gitdir:"):
                candidate = real / first[0].removeprefix("gitdir:").strip()
                git_dir = candidate if candidate.is_dir() else None
    return git_dir / "codemod" if git_dir is not None else real


def _state(root: Path) -> Path:
    """`state_dir(root)`, created if it is missing."""
    folder = state_dir(root)
    folder.mkdir(exist_ok=True)
    return folder


def journal_path(root: Path) -> Path:
    """The journal folder of the tree at `root`: where a write journals now, or where an earlier
    version left one (ROOT itself) when only that one is there."""
    real = _real_root(root)
    current = state_dir(root) / JOURNAL_DIR
    legacy = real / JOURNAL_DIR
    if not current.exists() and (legacy.exists() or (real / _PARTIAL_JOURNAL).exists()):
        return legacy
    return current


def shown(root: Path, path: Path) -> str:
    """`path` as messages name it: relative to ROOT when inside it."""
    try:
        return path.relative_to(_real_root(root)).as_posix()
    except ValueError:
        return str(path)


def atomic_write(target: Path, data: bytes, mode: int) -> None:
    """Replace `target` by `data` with permission bits `mode` (and its owner, where we may set it),
    by the shared atomic write; its temporary file carries a suffix `recover` can find."""
    write_atomic(target, data, mode=mode, temporary_suffix=_TMP_SUFFIX)


def _lock_holder(lock_path: Path) -> str:
    with contextlib.suppress(OSError, ValueError):
        pid = int(lock_path.read_text().strip() or "0")
        if pid:
            return f" (pid {pid})"
    return ""


@dataclass
class HeldLock:
    """The tree lock of `root` (its real path) while `tree_lock` holds it; `held` turns False on release."""

    root: str
    held: bool = True

    def covers(self, root: Path) -> bool:
        """Whether this lock is held now and is the lock of the tree at `root`."""
        return self.held and self.root == str(_real_root(root))


@contextlib.contextmanager
def tree_lock(root: Path) -> Iterator[HeldLock]:
    """Hold the exclusive lock of the tree at `root`, yielding it.

    Raises TreeLocked at once if another holder has it: another process, or
    this one (pass the held lock down instead of locking again). The lock
    file is removed on release, so a finished run leaves nothing behind.
    """
    key = str(_real_root(root))
    lock_path = _state(root) / LOCK_FILE
    while True:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(fd)
            if error.errno in (errno.EWOULDBLOCK, errno.EACCES):
                holder = _lock_holder(lock_path)
                if holder == f" (pid {os.getpid()})":
                    raise TreeLocked(
                        f"this process already holds the lock of {root}; pass the held lock "
                        f"(write_changes(..., lock=held)) instead of locking again"
                    ) from None
                raise TreeLocked(
                    f"another codemod apply is running on {root}{holder}; wait for it to finish (lock: {lock_path})"
                ) from None
            raise
        # The holder before us may have unlinked the file after we opened it: lock the live one.
        try:
            same = os.fstat(fd).st_ino == os.stat(lock_path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    held = HeldLock(key)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield held
    finally:
        held.held = False
        with contextlib.suppress(OSError):
            os.unlink(lock_path)
        os.close(fd)


def journal_present(root: Path) -> bool:
    return journal_path(root).exists()


def begin(root: Path, entries: list[tuple[JournalEntry, bytes]]) -> None:
    """Write the journal for `entries` (each with its original bytes) and make it durable."""
    state = _state(root)
    partial = state / _PARTIAL_JOURNAL
    if partial.exists():
        shutil.rmtree(partial)
    (partial / "before").mkdir(parents=True)
    try:
        for index, (_, before) in enumerate(entries):
            blob = partial / "before" / f"{index:06d}"
            with open(blob, "wb") as handle:
                handle.write(before)
                handle.flush()
                os.fsync(handle.fileno())
        manifest = {
            "format": _FORMAT,
            "pid": os.getpid(),
            "files": [
                {
                    "path": e.path,
                    "mode": e.mode,
                    "before": e.before_digest,
                    "after": e.after_digest,
                    "blob": f"before/{index:06d}",
                    **({"deleted": True} if e.deleted else {}),
                }
                for index, (e, _) in enumerate(entries)
            ],
        }
        with open(partial / _MANIFEST, "w", encoding="utf-8") as handle:
            json.dump(manifest, handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        fsync_dir(partial / "before")
        fsync_dir(partial)
        os.rename(partial, state / JOURNAL_DIR)
        fsync_dir(state)
    except BaseException:
        # No file has been replaced yet: a journal, complete or not, only needs to go.
        shutil.rmtree(partial, ignore_errors=True)
        shutil.rmtree(state / JOURNAL_DIR, ignore_errors=True)
        raise


def finish(root: Path) -> None:
    """Drop the journal: the manifest first (the commit point), then the rest."""
    journal = journal_path(root)
    manifest = journal / _MANIFEST
    if manifest.exists():
        os.unlink(manifest)
        fsync_dir(journal)
    shutil.rmtree(journal)
    fsync_dir(journal.parent)


def _remove_temporaries(real: Path, paths: list[str]) -> None:
    """Temporary files an interrupted atomic write left next to the journaled files."""
    for path in paths:
        target = real / path
        with contextlib.suppress(OSError):
            for leftover in target.parent.glob(f".{glob_escape(target.name)}.*{_TMP_SUFFIX}"):
                leftover.unlink()


def glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def recover(root: Path) -> Recovery:
    """Finish or roll back a write that a previous run left half done (see the module docstring).

    Call it holding `tree_lock(root)`.
    """
    real = _real_root(root)
    journal = journal_path(root)
    partials = [p for p in dict.fromkeys((state_dir(root) / _PARTIAL_JOURNAL, real / _PARTIAL_JOURNAL)) if p.exists()]
    for partial in partials:
        # A journal still being written when its run died: that run had replaced no file.
        shutil.rmtree(partial)
    if partials and not journal.exists():
        return Recovery(
            "cleaned", message=f"removed {shown(root, partials[0])}/ left by a run that had written no file"
        )
    if not journal.exists():
        return Recovery("none")
    manifest_path = journal / _MANIFEST
    if not manifest_path.exists():
        shutil.rmtree(journal)
        return Recovery("cleaned", message=f"removed {shown(root, journal)}/ left by a run that had finished writing")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        files = manifest["files"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        return Recovery(
            "refused",
            message=f"{journal} is unreadable ({error}); restore the files listed in it "
            f"by hand from its before/ folder, then delete it",
        )
    _remove_temporaries(real, [f["path"] for f in files])
    states = [(entry, _state_of(real / entry["path"], entry)) for entry in files]
    changed = [entry for entry, state in states if state == "other"]
    if changed:
        names = ", ".join(entry["path"] for entry in changed)
        return Recovery(
            "refused",
            conflicts=tuple(entry["path"] for entry in changed),
            message=(
                f"an interrupted codemod run left {journal}, and {len(changed)} of its files changed "
                f"since ({names}); nothing touched. Put each one back by hand (the original of "
                f"{changed[0]['path']} is {journal / changed[0]['blob']}) or keep your version, "
                f"then delete {journal}"
            ),
        )
    if all(state == "after" for _, state in states):
        finish(root)
        return Recovery(
            "completed",
            message=f"an interrupted codemod run had written all {len(states)} "
            f"file(s) of its plan; finished it (removed its journal)",
        )
    restored = []
    for entry, state in states:
        if state != "after":
            continue
        before = (journal / entry["blob"]).read_bytes()
        if digest(before) != entry["before"]:
            return Recovery(
                "refused",
                message=f"{journal / entry['blob']} is damaged; restore {entry['path']} by hand, then delete {journal}",
            )
        atomic_write(real / entry["path"], before, entry["mode"])
        restored.append(entry["path"])
    finish(root)
    return Recovery(
        "rolled-back",
        restored=tuple(restored),
        message=f"an interrupted codemod run had written {len(restored)} of {len(states)} file(s) "
        f"of its plan; restored {', '.join(restored) or 'none'} to their original bytes",
    )


def _state_of(target: Path, entry: dict[str, Any]) -> str:
    """ "before" or "after" if `target` holds the journaled original or planned bytes, else "other"."""
    if entry.get("deleted") and not target.exists() and not target.is_symlink():
        return "after"
    try:
        current = digest(target.read_bytes())
    except OSError:
        return "other"
    if current == entry["before"]:
        return "before"
    return "after" if current == entry["after"] else "other"
