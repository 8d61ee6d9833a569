"""The two sides of a git commit, as small trees: the files the commit changes, before and after.

Only those files are read (`git show REV^:PATH`, `git show REV:PATH`), so a commit of a
large repository is cheap to infer from; what the engine would change in files the
commit leaves alone is not seen (infer from two whole trees for that).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from codemods.edit.errors import CodemodError


class CommitError(CodemodError, ValueError):
    """ROOT is not a git work tree, or REV names no commit with a parent there."""


def _git(root: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)
    except FileNotFoundError:
        raise CommitError("git is not installed") from None
    if done.returncode != 0:
        message = " ".join(done.stderr.decode("utf-8", "replace").split()) or f"git {' '.join(args)} failed"
        raise CommitError(message)
    return done.stdout


def commit_trees(root: Path, rev: str, into: Path) -> tuple[Path, Path, str]:
    """Write the files `rev` changes, as its parent and as itself, under `into`/before and
    `into`/after; returns those two folders and the commit's short id. CommitError where
    `root` or `rev` does not do."""
    commit = _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").decode().strip()
    parent = _git(root, "rev-parse", "--verify", "--quiet", f"{commit}^").decode().strip()
    listing = _git(root, "diff", "--name-status", "--no-renames", "-z", parent, commit).split(b"\0")
    before, after = into / "before", into / "after"
    before.mkdir(parents=True)
    after.mkdir(parents=True)
    for status, name in zip(listing[0::2], listing[1::2]):
        path = name.decode("utf-8", "surrogateescape")
        for side, revision, present in ((before, parent, status != b"A"), (after, commit, status != b"D")):
            if present:
                target = side / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(_git(root, "show", f"{revision}:{path}"))
    return before, after, commit[:12]
