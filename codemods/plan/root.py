"""Is ROOT the tree a recipe is meant for? Checked before any work.

A check or a plan on the wrong folder (a subfolder of the tree, its parent,
an empty folder) would otherwise find nothing and look like success; this
says what was expected where, and where the tree probably is.
"""

from __future__ import annotations

import os
from pathlib import Path


def _holds_any(folder: Path, expected: tuple[str, ...]) -> bool:
    try:
        return any((folder / path).exists() for path in expected)
    except OSError:
        return False


def _likely_roots(root: Path, expected: tuple[str, ...]) -> list[Path]:
    """The nearest folder above ROOT that holds what the recipe expects, or else the folders
    just below it that do."""
    resolved = root.resolve()
    for parent in resolved.parents:
        if _holds_any(parent, expected):
            return [parent]
    try:
        children = sorted(p for p in resolved.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []
    return [child for child in children if _holds_any(child, expected)]


def _listed(paths: tuple[str, ...]) -> str:
    shown = [p if "." in Path(p).name else f"{p}/" for p in paths[:3]]
    return ", ".join(shown) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def root_problem(root: Path, expected: tuple[str, ...], whose: str) -> str | None:
    """Why `root` is not a tree holding any of `expected` (paths relative to it), or None.

    `whose` names what expects them, e.g. "the scope of recipe frob-cleanup".
    """
    if not root.exists():
        return f"ROOT {root} does not exist"
    if not root.is_dir():
        return f"ROOT {root} is not a directory"
    try:
        with os.scandir(root) as entries:
            next(entries, None)
    except OSError as error:
        return f"cannot read ROOT {root}: {error.strerror or error}"
    if not expected or _holds_any(root, expected):
        return None
    held = f"no {_listed(expected)}" if len(expected) == 1 else f"none of {_listed(expected)}"
    message = f"ROOT {root} holds {held} ({whose})"
    likely = _likely_roots(root, expected)
    if len(likely) == 1:
        return f"{message}; give the repository root, probably {likely[0]}"
    if likely:
        shown = ", ".join(str(p) for p in likely[:3]) + (", ..." if len(likely) > 3 else "")
        return f"{message}; give the repository root, one of {shown}"
    return f"{message}; give the repository root, the folder that holds {'it' if len(expected) == 1 else 'them'}"
