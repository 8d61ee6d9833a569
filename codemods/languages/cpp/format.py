"""clang-format of the regions a plan edits in a C++ file.

Only where the tree asks for clang-format (a `.clang-format` or
`_clang-format` file in the file's folder or one above it, up to ROOT) and
the file was clean before (clang-format leaves it as it is): then the lines
the edits touch, and the line on each side, are formatted with
`clang-format --lines`, so that nothing else of the file moves. Without
clang-format installed the text is kept as edited and the plan says so.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path, PurePosixPath

from codemods.edit.values import Edit

STYLE_FILES = (".clang-format", "_clang-format")


def style_file(root: Path, path: str) -> Path | None:
    """The clang-format style file that applies to `path` (relative to `root`), if any."""
    folder = PurePosixPath(path).parent
    while True:
        for name in STYLE_FILES:
            candidate = root / folder / name
            if candidate.is_file():
                return candidate
        if folder == PurePosixPath("."):
            return None
        folder = folder.parent


def _clang_format(tool: str, text: bytes, root: Path, path: str, lines: list[tuple[int, int]] = ()) -> bytes | None:
    command = [tool, f"--assume-filename={root / path}", "--style=file"]
    command += [f"--lines={first}:{last}" for first, last in lines]
    try:
        result = subprocess.run(command, input=text, capture_output=True, cwd=root, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout if result.returncode == 0 else None


def edited_lines(after: bytes, edits: list[Edit]) -> list[tuple[int, int]]:
    """The 1-based line ranges of `after` that `edits` (sorted, not overlapping) wrote, widened by
    a line on each side."""
    ranges = []
    shift = 0
    total = after.count(b"\n") + 1
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        start = edit.start + shift
        end = start + len(edit.replacement)
        shift += len(edit.replacement) - (edit.end - edit.start)
        first = after.count(b"\n", 0, start) + 1
        last = after.count(b"\n", 0, max(start, end - 1)) + 1
        ranges.append((max(1, first - 1), min(total, last + 1)))
    return ranges


def format_edited(root: Path, path: str, before: bytes, after: bytes, edits: list[Edit]) -> tuple[bytes | None, str | None]:
    """(`after` with its edited regions formatted, or None to keep it as edited; a note for the
    plan, or None). See the module doc for when it formats."""
    if style_file(root, path) is None:
        return None, None
    tool = shutil.which("clang-format")
    if tool is None:
        return None, f"the tree has a clang-format style but clang-format is not installed: {path} is not formatted"
    if _clang_format(tool, before, root, path) != before:
        return None, None
    formatted = _clang_format(tool, after, root, path, edited_lines(after, edits))
    if formatted is None:
        return None, f"clang-format failed on {path}: the edited text is kept as it is"
    return (formatted if formatted != after else None), None
