"""Unified diffs of planned changes, with a/ and b/ paths relative to the root.

Lines end at b"\\n" (as for git and rg). When the edits that produced the
change are known, only the lines around each edit are compared, and only those
and their context are decoded: a few deletions in a 10,000-line file cost a few
small comparisons instead of one over the whole file.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Literal, Protocol

from codemods.edit.splice import FileChange
from codemods.edit.values import Edit

_Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]


class _HasChanges(Protocol):
    """What `render_diff` reads of a plan (a `Plan`, or a subset's)."""

    @property
    def changes(self) -> Sequence[FileChange]: ...


def _lines(data: bytes) -> list[str]:
    """The lines of `data`, each with its b"\\n"; surrogateescape keeps invalid UTF-8 round-trippable."""
    pieces = data.decode("utf-8", errors="surrogateescape").split("\n")
    last = pieces.pop()
    lines = [piece + "\n" for piece in pieces]
    if last:
        lines.append(last)
    return lines


class _LineSlices(Protocol):
    """What a diff reads of a file's lines: how many, and runs of them."""

    def __len__(self) -> int: ...

    def __getitem__(self, span: slice, /) -> list[str]: ...


class _Lines:
    """The lines of `data` as `_lines` gives them, each decoded only when a run of lines that
    holds it is asked for: a diff of a few edits reads the lines around them, where decoding and
    splitting the whole of both texts took about two thirds of the diff's time (a real tree's six
    changed files, 1.2 MB, measured here). Lines split at b"\\n" decode as the whole text does:
    no UTF-8 sequence holds that byte, and surrogateescape escapes each byte of an invalid one
    alike."""

    __slots__ = ("_pieces", "_count")

    def __init__(self, data: bytes) -> None:
        self._pieces = data.split(b"\n")
        self._count = len(self._pieces) - (0 if self._pieces[-1] else 1)

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, span: slice, /) -> list[str]:
        last = len(self._pieces) - 1  # the piece after the last b"\n": no line end of its own
        return [
            self._pieces[i].decode("utf-8", errors="surrogateescape") + ("\n" if i < last else "")
            for i in range(*span.indices(self._count))
        ]


def _windows(before: bytes, after: bytes, edits: Sequence[Edit]) -> list[tuple[int, int, int, int]]:
    """Line ranges [a0, a1) of `before` and [b0, b1) of `after` that hold all the edits; equal outside."""
    windows: list[list[int]] = []
    delta = 0
    a_line = b_line = 0  # lines before the previous edit's start, in `before` and in `after`
    a_at = b_at = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        new_start = edit.start + delta
        new_end = new_start + len(edit.replacement)
        delta += len(edit.replacement) - (edit.end - edit.start)
        a_line += before.count(b"\n", a_at, edit.start)
        b_line += after.count(b"\n", b_at, new_start)
        a_at, b_at = edit.start, new_start
        a0, b0 = a_line, b_line
        a1 = a0 + before.count(b"\n", edit.start, edit.end) + 1
        b1 = b0 + after.count(b"\n", new_start, new_end) + 1
        if windows and a0 <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], a1)
            windows[-1][3] = max(windows[-1][3], b1)
        else:
            windows.append([a0, a1, b0, b1])
    return [(a0, a1, b0, b1) for a0, a1, b0, b1 in windows]


def _opcodes(a: _LineSlices, b: _LineSlices, windows: list[tuple[int, int, int, int]]) -> list[_Opcode]:
    """difflib-style opcodes for the whole file, the matcher run inside each window only."""
    opcodes: list[_Opcode] = []

    def add(tag: Literal["replace", "delete", "insert", "equal"], i1: int, i2: int, j1: int, j2: int) -> None:
        if i1 == i2 and j1 == j2:
            return
        if opcodes and tag == "equal" and opcodes[-1][0] == "equal":
            previous = opcodes.pop()
            i1, j1 = previous[1], previous[3]
        opcodes.append((tag, i1, i2, j1, j2))

    i = j = 0
    for a0, a1, b0, b1 in windows:
        a1, b1 = min(a1, len(a)), min(b1, len(b))
        add("equal", i, a0, j, b0)
        matcher = difflib.SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            add(tag, a0 + i1, a0 + i2, b0 + j1, b0 + j2)
        i, j = a1, b1
    add("equal", i, len(a), j, len(b))
    return opcodes


class _WindowedMatcher(difflib.SequenceMatcher[str]):
    """A matcher whose opcodes were computed window by window (see `_opcodes`)."""

    def __init__(self, opcodes: list[_Opcode]) -> None:
        super().__init__(None, (), ())
        self._windowed = opcodes

    def get_opcodes(self) -> list[_Opcode]:
        return list(self._windowed)  # get_grouped_opcodes edits the list it gets


def _range(start: int, stop: int) -> str:
    """A hunk header's range, as `diff -u` writes it."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def unified_diff(path: str, before: bytes, after: bytes, context: int = 3, edits: Sequence[Edit] = ()) -> str:
    """A `git diff`-style unified diff of one file; empty when nothing changed.

    `edits`, when given, are the edits that turn `before` into `after`; the
    comparison is then limited to the lines they touch.
    """
    if before == after:
        return ""
    a: _LineSlices
    b: _LineSlices
    if edits:
        a, b = _Lines(before), _Lines(after)
        matcher: difflib.SequenceMatcher[str] = _WindowedMatcher(_opcodes(a, b, _windows(before, after, edits)))
    else:
        a, b = _lines(before), _lines(after)
        matcher = difflib.SequenceMatcher(None, a, b)
    out = [f"--- a/{path}\n", f"+++ b/{path}\n"]
    for group in matcher.get_grouped_opcodes(context):
        out.append(f"@@ -{_range(group[0][1], group[-1][2])} +{_range(group[0][3], group[-1][4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            out += ["-" + line for line in a[i1:i2]]
            out += ["+" + line for line in b[j1:j2]]
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)


def changed_lines(before: bytes, after: bytes, edits: Sequence[Edit] = ()) -> list[tuple[int, int, int, int]]:
    """The runs of lines that differ, as ([i1, i2) of `before`'s lines, [j1, j2) of `after`'s),
    in order (0-based; `edits` as for `unified_diff`)."""
    opcodes = (
        _opcodes(_Lines(before), _Lines(after), _windows(before, after, edits))
        if edits
        else difflib.SequenceMatcher(None, _lines(before), _lines(after), autojunk=False).get_opcodes()
    )
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in opcodes if tag != "equal"]


def with_runs(before: bytes, after: bytes, runs: Sequence[tuple[int, int, int, int]]) -> bytes:
    """`before` with only `runs` (of `changed_lines(before, after)`) taken from `after`."""
    a, b = _lines(before), _lines(after)
    out: list[str] = []
    at = 0
    for i1, i2, j1, j2 in sorted(runs):
        out += a[at:i1] + b[j1:j2]
        at = i2
    out += a[at:]
    return "".join(out).encode("utf-8", errors="surrogateescape")


def render_text(text: str) -> str:
    """Make diff text printable: escaped bytes become U+FFFD."""
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")


def render_diff(plan: _HasChanges) -> str:
    """The unified diff of every change in a plan, a/ and b/ paths relative to its root."""
    return "".join(unified_diff(c.path, c.before, c.after, edits=c.edits) for c in plan.changes)
