"""Unified diffs of planned changes, with a/ and b/ paths relative to the root."""

from __future__ import annotations

import difflib


def _lines(data: bytes) -> list[str]:
    # surrogateescape keeps invalid UTF-8 visible and round-trippable in the diff text.
    return data.decode("utf-8", errors="surrogateescape").splitlines(keepends=True)


def unified_diff(path: str, before: bytes, after: bytes, context: int = 3) -> str:
    """A `git diff`-style unified diff of one file; empty when nothing changed."""
    if before == after:
        return ""
    out = []
    for line in difflib.unified_diff(
        _lines(before), _lines(after), fromfile=f"a/{path}", tofile=f"b/{path}", n=context
    ):
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


def render_text(text: str) -> str:
    """Make diff text printable: escaped bytes become U+FFFD."""
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")
