"""Where the comments and strings of a source file are, without parsing it: the shared part.

A mention's kind (code, comment or string) depends only on the lexical
state at its bytes, and that state changes only at a few bytes: `/`, `"`
and `'` (and `#include <...>` in C++). One compiled regular expression
that starts with those bytes finds the next one (the regex engine skips
everything in between in C); the bytes just before a quote decide the
prefixes (raw strings `r#"..."#`, `R"d(...)d"`, byte strings, digit
separators). A 400 kB file takes a few milliseconds, where a tree-sitter
parse takes tens.

The spans agree with tree-sitter's comment and string nodes on files that
parse (a test compares them on the real tree). Where the scan cannot
delimit them (an unterminated comment or literal) it returns None, and the
caller falls back to a parse. Each language's scanner is a `Lexer`, the
registry's `Language.lexer` (`rust_lexer.spans`, `cpp_lexer.spans`,
`python_lexer.spans`); this module holds what they share.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Callable, Protocol

from codemods.words import WORD_BYTES

COMMENT = "comment"
STRING = "string"


class Spans:
    """Comment and string spans of one file, sorted and disjoint, for lookups by byte offset."""

    def __init__(self, starts: list[int], ends: list[int], kinds: list[str]) -> None:
        self.starts = starts
        self.ends = ends
        self.kinds = kinds

    def kind_at(self, start: int, end: int) -> str | None:
        """COMMENT or STRING if the bytes [start, end) lie in one comment or string, else None (code)."""
        index = bisect_right(self.starts, start) - 1
        if index >= 0 and end <= self.ends[index]:
            return self.kinds[index]
        return None


class Lexer(Protocol):
    """A language's lexical scan: the comment and string spans of `source` that start before
    `stop`, or None where it cannot delimit them (an unterminated comment or literal)."""

    def __call__(self, source: bytes, stop: int, /) -> Spans | None: ...


def word_before(source: bytes, position: int) -> bool:
    return position > 0 and source[position - 1] in WORD_BYTES


def literal_prefix_start(source: bytes, quote: int, prefixes: tuple[bytes, ...]) -> int:
    """Where a literal whose quote is at `quote` starts, counting a prefix such as b or u8."""
    for prefix in prefixes:
        start = quote - len(prefix)
        if start >= 0 and source[start:quote] == prefix and not word_before(source, start):
            return start
    return quote


def scan_spans(
    source: bytes,
    stop: int,
    edge: re.Pattern[bytes],
    token: Callable[[bytes, re.Match[bytes]], tuple[int, int, str] | int | None],
) -> Spans | None:
    """The comment and string spans of `source` starting before `stop`: `edge` finds the next
    byte that may open one, and `token(source, match)` reads what it opens: the (start, end,
    kind) of the comment or string; an offset, where it opens neither and the scan goes on from
    there; or None, where the comment or literal is not terminated (the scan gives None). The
    loop every language's `Lexer` shares."""
    starts: list[int] = []
    ends: list[int] = []
    kinds: list[str] = []
    position = 0
    search = edge.search
    while True:
        match = search(source, position)
        if match is None or match.start() >= stop:
            return Spans(starts, ends, kinds)
        found = token(source, match)
        if found is None:
            return None
        if isinstance(found, int):
            position = found
            continue
        start, end, kind = found
        starts.append(start)
        ends.append(end)
        kinds.append(kind)
        position = end
