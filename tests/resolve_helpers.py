"""Small trees for the name-resolution tests: files from a dict, expectations from markers.

A line ending in `// REF` must be reported as a definite reference to the
deleted item, a line ending in `// MAYBE` as a possible one, and no other line.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

SOURCE_SUFFIXES = (".rs", ".cpp", ".h", ".cc", ".hpp", ".cu")


def write_tree(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"))


def expected(root: Path) -> dict[tuple[str, int], str]:
    """{(path, line): "definite" | "possible"} from the markers in the tree's sources."""
    marks = {}
    for path in sorted(p for p in root.rglob("*") if p.suffix in SOURCE_SUFFIXES):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if line.rstrip().endswith("// REF"):
                marks[(path.relative_to(root).as_posix(), number)] = "definite"
            elif line.rstrip().endswith("// MAYBE"):
                marks[(path.relative_to(root).as_posix(), number)] = "possible"
    return marks
