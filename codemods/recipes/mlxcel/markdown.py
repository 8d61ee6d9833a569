"""Markdown lines, table rows and sections, as the `paged-flag` recipe edits docs/CONTINUOUS_BATCHING.md."""

from __future__ import annotations

from collections.abc import Iterator


def _markdown_lines(source: bytes) -> Iterator[tuple[int, bytes, bool]]:
    """(offset, line, is_heading) for each line, headings inside fenced code blocks not counted."""
    offset, fenced = 0, False
    for line in source.splitlines(keepends=True):
        if line.lstrip().startswith((b"```", b"~~~")):
            fenced = not fenced
        yield offset, line, not fenced and line.startswith(b"#")
        offset += len(line)


def table_row(source: bytes, display: str) -> tuple[int, int] | None:
    """The byte span (newline excluded) of the table row whose first cell is `display`."""
    for offset, line, _ in _markdown_lines(source):
        cells = line.strip().split(b"|")
        if line.lstrip().startswith(b"|") and len(cells) > 2 and cells[1].strip() == display.encode():
            return offset, offset + len(line.rstrip(b"\r\n"))
    return None


def section_end(source: bytes, needle: bytes) -> int:
    """Where the section that first mentions `needle` ends: its next heading, else the end."""
    found = False
    for offset, line, heading in _markdown_lines(source):
        if heading and found:
            return offset
        found = found or needle in line
    return len(source)
