"""Unified diffs: windowed around known edits, they still turn `before` into `after`."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from codemods.edit.splice import splice
from codemods.edit.diff import unified_diff
from codemods.edit.values import Edit

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_diff(before: str, diff: str) -> str:
    """Apply a unified diff of one file (what `patch` does), strictly: context must match."""
    old = before.split("\n")
    old_lines = [line + "\n" for line in old[:-1]] + ([old[-1]] if old[-1] else [])
    out: list[str] = []
    cursor = 0
    lines = diff.splitlines(keepends=True)[2:]
    index = 0
    while index < len(lines):
        header = _HUNK.match(lines[index])
        assert header, lines[index]
        start = int(header.group(1)) - (0 if header.group(2) == "0" else 1)
        out += old_lines[cursor:start]
        cursor = start
        index += 1
        while index < len(lines) and not lines[index].startswith("@@"):
            line = lines[index]
            text = line[1:]
            if index + 1 < len(lines) and lines[index + 1].startswith("\\ No newline"):
                text = text[:-1]
                index += 1
            if line[0] in " -":
                assert old_lines[cursor] == text
                cursor += 1
            if line[0] in " +":
                out.append(text)
            index += 1
    out += old_lines[cursor:]
    return "".join(out)


_LINE = st.sampled_from(["fn a() {}\n", "}\n", "\n", "    x += 1;\n", "// note\n", "let y = 2;\n"])


@st.composite
def edited_files(draw):
    before = "".join(draw(st.lists(_LINE, min_size=0, max_size=40)))
    if draw(st.booleans()):
        before += "tail without newline"
    cuts = sorted(draw(st.lists(st.integers(0, len(before)), max_size=8)))
    edits = []
    for start, end in zip(cuts[0::2], cuts[1::2]):
        replacement = "".join(draw(st.lists(_LINE, max_size=3))) + draw(st.sampled_from(["", "z"]))
        edits.append(Edit("f.rs", start, end, replacement.encode(), "t"))
    return before.encode(), edits


@given(edited_files(), st.integers(0, 4))
def test_windowed_diff_applies_to_the_result(case, context):
    before, edits = case
    after = splice(before, edits)
    diff = unified_diff("f.rs", before, after, context=context, edits=edits)
    assert apply_diff(before.decode(), diff) == after.decode()
    assert bool(diff) == (before != after)


def test_windowed_diff_matches_whole_file_diff_for_one_edit():
    before = b"".join(b"line %d\n" % n for n in range(100))
    start = before.index(b"line 40\n")
    end = before.index(b"line 45\n")
    edits = [Edit("f.rs", start, end, b"new\n", "t")]
    after = splice(before, edits)
    assert unified_diff("f.rs", before, after, edits=edits) == unified_diff("f.rs", before, after)


def test_diff_chunks_give_a_line_of_undecodable_bytes_as_those_bytes_between_coloured_text() -> None:
    import click

    from codemods.report.text import coloured, diff_chunks

    diff = "--- a/k.rs\n+++ b/k.rs\n@@ -1,3 +1,2 @@\n kiln\n-gla\udce9ze\n+glaze\n"
    chunks = diff_chunks(diff)
    assert [type(c) for c in chunks] == [str, bytes, str]
    assert chunks[1] == b"-gla\xe9ze\n"
    assert click.unstyle(chunks[0] + chunks[2]) == "--- a/k.rs\n+++ b/k.rs\n@@ -1,3 +1,2 @@\n kiln\n+glaze\n"
    # A diff of text only is one chunk, coloured line by line.
    clean = diff.replace("\udce9", "e")
    assert diff_chunks(clean) == ["".join(coloured(line + "\n") for line in clean.split("\n") if line)]


# Bytes a line may hold: text, a lone `\r`, UTF-8 of two and three bytes, and bytes that are
# no UTF-8 (a lead byte cut short by the line's end, a stray continuation byte, 0xff).
_PIECE = st.sampled_from(
    [b"ok", b"\r", b"\xc3\xa9", b"\xe2\x82\xac", b"\xe2\x82", b"\xf0\x9f", b"\x80", b"\xff", b"\n"]
)


@given(st.lists(_PIECE, max_size=30).map(b"".join), st.integers(-3, 35), st.integers(-3, 35))
def test_lines_decoded_on_demand_are_the_lines_of_the_whole_text(data, start, stop):
    from codemods.edit.diff import _Lines, _lines

    whole = _lines(data)
    lazy = _Lines(data)
    assert len(lazy) == len(whole)
    assert lazy[start:stop] == whole[start:stop]
    assert lazy[:] == whole
