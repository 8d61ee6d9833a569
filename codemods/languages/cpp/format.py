"""clang-format for C++ files, where the tree asks for it.

A tree asks for clang-format with a `.clang-format` or `_clang-format` file
in the file's folder or one above it, up to ROOT. The planner formats an
edited file only when the file was clean before (clang-format left it as it
was), so that only the regions the plan edited can change; without
clang-format installed the text is kept as edited and the plan says so.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path, PurePosixPath

STYLE_FILES = (".clang-format", "_clang-format")


def style_file(root: Path, path: str) -> Path | None:
    """The clang-format style file that applies to `path` (relative to `root`), if any."""
    folder = PurePosixPath(path).parent
    while True:
        for name in STYLE_FILES:
            candidate = Path(root) / folder / name
            if candidate.is_file():
                return candidate
        if folder == PurePosixPath("."):
            return None
        folder = folder.parent


def clang_format(source: bytes, root: Path, path: str) -> bytes | None:
    """`source` formatted by clang-format with the tree's style for `path`; None when the tree has
    no style, clang-format is not installed, or it fails."""
    tool = shutil.which("clang-format")
    if tool is None or style_file(root, path) is None:
        return None
    try:
        result = subprocess.run(
            [tool, f"--assume-filename={Path(root) / path}", "--style=file"],
            input=source,
            capture_output=True,
            cwd=root,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout if result.returncode == 0 else None
