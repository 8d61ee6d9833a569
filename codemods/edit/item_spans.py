"""Deletion spans: from a node range to the bytes a careful human would delete.

An item is deleted as whole lines (its leading comments and attributes
included), and the blank lines around it are settled the way rustfmt and
clang-format leave them: no blank line right after an opening brace or right
before a closing one, none at the end of the file, a block left empty closed
up as `{}`, and between two
surviving items the larger of the two gaps that surrounded the deleted run. Runs of adjacent deleted items are
settled together, so that deleting neighbours never leaves a double gap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from codemods.edit.values import Edit, Finding

if TYPE_CHECKING:
    import tree_sitter

_WS = b" \t\r\n\f\v"

_Taken = TypeVar("_Taken")
_Gone = TypeVar("_Gone")


@dataclass(frozen=True)
class ItemDeletions(Generic[_Taken, _Gone]):
    """What a language deletes of one file's items: how (`taken`: deletions or edits), what
    (`gone`: the items or names as its resolver sees them), and the findings for the rest."""

    taken: list[_Taken]
    gone: list[_Gone]
    findings: list[Finding]


@dataclass(frozen=True)
class Deletion:
    """A raw deletion: bytes [start, end) of an item with its leading trivia; `origin` as `Edit`'s.
    `replacement`, when given, is put in its place as it is (its blank lines are not settled)."""

    start: int
    end: int
    origin: str
    replacement: bytes = b""


def _line_start(source: bytes, offset: int) -> int:
    return source.rfind(b"\n", 0, offset) + 1


def _line_end(source: bytes, offset: int) -> int:
    """Offset just past the newline of the line holding `offset` (or len(source))."""
    nl = source.find(b"\n", offset)
    return len(source) if nl < 0 else nl + 1


def _is_blank(segment: bytes) -> bool:
    return segment.strip(_WS) == b""


def whole_lines(source: bytes, start: int, end: int, comment_prefixes: tuple[bytes, ...]) -> tuple[int, int]:
    """Widen [start, end) to whole lines when nothing else shares those lines.

    A trailing comment on the item's last line goes with it. When other code
    shares the first or last line, the range is kept exact on that side.
    """
    ls = _line_start(source, start)
    if _is_blank(source[ls:start]):
        start = ls
    if end > 0 and source[end - 1 : end] == b"\n":
        return start, end
    le = _line_end(source, end)
    rest = source[end:le].strip(_WS)
    if not rest or rest.startswith(comment_prefixes):
        end = le
    return start, end


def _blank_lines_before(source: bytes, start: int) -> int:
    """Start offset of the run of blank lines that ends at line start `start`."""
    pos = start
    while pos > 0:
        prev = _line_start(source, pos - 1)
        if not _is_blank(source[prev:pos]):
            break
        pos = prev
    return pos


def _blank_lines_after(source: bytes, end: int) -> int:
    """End offset of the run of blank lines that starts at line start `end`."""
    pos = end
    while pos < len(source):
        nxt = _line_end(source, pos)
        if not _is_blank(source[pos:nxt]):
            break
        pos = nxt
    return pos


def _opens_block(source: bytes, pos: int) -> bool:
    """Whether the last non-blank byte before `pos` opens a block (or is the start of file)."""
    head = source[:pos].rstrip(_WS)
    return not head or head.endswith(b"{")


def _closes_block(source: bytes, pos: int) -> bool:
    """Whether the first non-blank byte from `pos` closes a block (or is the end of file)."""
    tail = source[pos:].lstrip(_WS)
    return not tail or tail.startswith(b"}")


def _close_up(source: bytes, before: int, after: int) -> tuple[int, int]:
    """The range that empties a block whose whole content is [before, after): from just after its
    `{` to its `}`, so that it reads `{}` as rustfmt and clang-format write it. At the start or
    end of the file there is no brace: the range is kept."""
    head = source[:before].rstrip(_WS)
    tail = source[after:]
    if head.endswith(b"{") and tail.lstrip(_WS).startswith(b"}"):
        return len(head), after + len(tail) - len(tail.lstrip(_WS))
    return before, after


def _settle_blank_lines(source: bytes, start: int, end: int) -> tuple[int, int]:
    at_line_start = start == _line_start(source, start)
    at_line_end = end == len(source) or source[end - 1 : end] == b"\n"
    if not (at_line_start and at_line_end):
        return start, end
    before = _blank_lines_before(source, start)
    after = _blank_lines_after(source, end)
    opens = _opens_block(source, before)
    closes = _closes_block(source, after)
    if opens and closes:
        return _close_up(source, before, after)
    if opens:
        return start, after
    if closes:
        # At the end of the file the blank lines after the item go too: none is left after the last line.
        return before, len(source) if not source[after:].strip(_WS) else end
    blank_before = source.count(b"\n", before, start)
    blank_after = source.count(b"\n", end, after)
    if blank_before >= blank_after:
        return start, after
    return before, end


def deletion_edits(path: str, source: bytes, deletions: list[Deletion]) -> list[Edit]:
    """Merge adjacent deletions of one file into runs and settle each run's blank lines.

    Deletions that overlap or are separated only by whitespace form one run.
    """
    runs: list[list[Deletion]] = []
    for deletion in sorted(deletions, key=lambda d: (d.start, d.end)):
        if runs:
            last_end = max(d.end for d in runs[-1])
            if deletion.start <= last_end or _is_blank(source[last_end : deletion.start]):
                runs[-1].append(deletion)
                continue
        runs.append([deletion])
    edits = []
    for run in runs:
        start = min(d.start for d in run)
        end = max(d.end for d in run)
        replacement = b"".join(d.replacement for d in run)
        if not replacement:
            start, end = _settle_blank_lines(source, start, end)
        origins = "+".join(dict.fromkeys(d.origin for d in run))
        edits.append(Edit(path, start, end, replacement, origins))
    return edits


def last_row(node: tree_sitter.Node) -> int:
    """The row of a tree-sitter node's last byte (comment nodes may end after their newline)."""
    row, col = node.end_point
    return row - 1 if col == 0 and node.end_byte > node.start_byte else row


def starts_own_line(source: bytes, node: tree_sitter.Node) -> bool:
    """Whether only whitespace precedes the node on its line."""
    return _is_blank(source[_line_start(source, node.start_byte) : node.start_byte])
