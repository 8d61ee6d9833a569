"""Where a pattern occurs in a source file, and whether in code, a comment or a string.

This is the classification shared by the dead-symbol check and by the plan's
final validation. `mentions_in_source` finds matches itself (Python `re` on
bytes, line by line like `rg -n`); the check gets its matches from ripgrep and
only asks `classify_spans` for their kinds.

A kind is lexical. The language's registered `lexer` (a scan of the file's
comments and string literals, no parse: `core/rust_lexer.py`,
`core/cpp_lexer.py`; for Python the standard tokenizer, `core/python_lexer.py`)
decides it; only a file whose comments or literals that scan cannot delimit
is parsed with tree-sitter, and if that parse has errors too (or the
language has no grammar, as Python) its matches get kind "unknown"; files of
other languages get "unknown".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from codemods.core.registry import LANGUAGES, language_for

if TYPE_CHECKING:
    import tree_sitter

CODE = "code"
COMMENT = "comment"
STRING = "string"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Spot:
    """Where the pattern matched: bytes [start, end) of the file, at 1-based `line` and byte `col`."""

    start: int
    end: int
    line: int
    col: int


@dataclass(frozen=True)
class Mention:
    """One match of the pattern: 1-based line, 1-based byte column, the symbol and its kind.

    The symbol is the whole identifier that holds the match (`OldFrobTable` for a match of
    `FrobTable` inside it), and `line`, `col`, `start` and `end` (byte offsets
    in the file) are the identifier's; `matched` is the text the pattern matched.
    """

    path: str
    line: int
    col: int
    symbol: str
    kind: str
    start: int
    end: int
    matched: str = ""

    def __post_init__(self) -> None:
        if not self.matched:
            object.__setattr__(self, "matched", self.symbol)

    def render(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.symbol} [{self.kind}]"

    def as_json(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "col": self.col, "symbol": self.symbol, "kind": self.kind}


_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def identifier_span(source: bytes, start: int, end: int) -> tuple[int, int]:
    """[start, end) widened to the identifier it lies in (ASCII word bytes on either side); the
    line does not change, since a line end is not a word byte. An empty match stays empty."""
    if start == end:
        return start, end
    while start > 0 and source[start - 1] in _WORD_BYTES:
        start -= 1
    while end < len(source) and source[end] in _WORD_BYTES:
        end += 1
    return start, end


def mention(path: str, source: bytes, spot: Spot, kind: str) -> Mention:
    """The mention of the match at `spot`: the identifier that holds it."""
    wide_start, wide_end = identifier_span(source, spot.start, spot.end)
    matched = source[spot.start : spot.end].decode("utf-8", "replace")
    return Mention(
        path,
        spot.line,
        spot.col - (spot.start - wide_start),
        source[wide_start:wide_end].decode("utf-8", "replace"),
        kind,
        wide_start,
        wide_end,
        matched,
    )


def compile_pattern(pattern: str) -> re.Pattern[bytes]:
    """Compile a recipe's dead-symbol pattern (rg/Rust-regex syntax, the common subset) for bytes."""
    return re.compile(pattern.encode("utf-8"))


# A pattern written only with these characters has no anchors, lookarounds,
# classes or escapes: it cannot match b"\n", nor look past the line it is on.
_LINE_BLIND = re.compile(rb"[A-Za-z0-9_|()?*+{},:-]*")


def _searchable_whole(pattern: re.Pattern[bytes]) -> bool:
    """True if searching the whole file finds exactly the matches a line-by-line search finds:
    the pattern cannot see line ends and cannot match the empty string."""
    return _LINE_BLIND.fullmatch(pattern.pattern) is not None and pattern.match(b"") is None


def matches_by_line(source: bytes, pattern: re.Pattern[bytes]) -> list[tuple[int, int, int, int]]:
    """(start, end, line, col) of every match, searched line by line like `rg -n`.

    Lines end at b"\\n" only (a b"\\r" before it belongs to the line, as in rg
    without --crlf), so a match never spans lines. Empty matches count, as they
    do for rg: `rg -n 'x*'` prints every line. A pattern made of words and
    groups (the usual dead-symbol pattern) is searched in one pass over the
    file, which finds the same matches.
    """
    if _searchable_whole(pattern):
        found = []
        line_no, line_start = 1, 0
        for match in pattern.finditer(source):
            start = match.start()
            newlines = source.count(b"\n", line_start, start)
            if newlines:
                line_no += newlines
                line_start = source.rfind(b"\n", line_start, start) + 1
            found.append((start, match.end(), line_no, start - line_start + 1))
        return found
    lines = source.split(b"\n")
    if lines[-1] == b"":
        lines.pop()  # after a final newline (or in an empty file) there is no further line, for rg
    found = []
    offset = 0
    for line_no, line in enumerate(lines, start=1):
        for match in pattern.finditer(line):
            found.append((offset + match.start(), offset + match.end(), line_no, match.start() + 1))
        offset += len(line) + 1
    return found


def _tree_sitter_kind(
    tree: tree_sitter.Tree, start: int, end: int, comments: frozenset[str], strings: frozenset[str]
) -> str:
    node = tree.root_node.descendant_for_byte_range(start, end)
    while node is not None:
        if node.type in comments:
            return COMMENT
        if node.type in strings:
            return STRING
        node = node.parent
    return CODE


def _tree_sitter_kinds(source: bytes, language: str, spans: list[tuple[int, int]]) -> list[str]:
    # here: tree-sitter, which `codemod check` loads only for a file its lexer cannot place
    from codemods.parse import parse

    tree = parse(source, language)
    if tree.root_node.has_error:
        return [UNKNOWN] * len(spans)
    entry = LANGUAGES[language]
    return [_tree_sitter_kind(tree, start, end, entry.comment_kinds, entry.string_kinds) for start, end in spans]


def classify_spans(path: str, source: bytes, spans: list[tuple[int, int]]) -> list[str]:
    """The kind (code, comment, string or unknown) of each byte span [start, end) of one file.

    The language comes from the file's suffix; a file of another language, or
    one whose comments and strings cannot be delimited (see the module
    docstring), gets "unknown" for every span.
    """
    if not spans:
        return []

    language = language_for(path)
    if language is None:
        return [UNKNOWN] * len(spans)
    lexed = language.lexer(source, min(len(source), max(end for _, end in spans))) if language.lexer else None
    if lexed is not None:
        return [lexed.kind_at(start, end) or CODE for start, end in spans]
    # A parse only where the scan cannot delimit comments and strings (or the language has none).
    if language.grammar is not None:
        return _tree_sitter_kinds(source, language.name, spans)
    return [UNKNOWN] * len(spans)


def mentions_in_source(path: str, source: bytes, pattern: re.Pattern[bytes]) -> list[Mention]:
    """Every match of `pattern` in one file, classified as code, comment, string or unknown."""
    spots = matches_by_line(source, pattern)
    if not spots:
        return []
    kinds = classify_spans(path, source, [(start, end) for start, end, _, _ in spots])
    return [mention(path, source, Spot(*spot), kind) for spot, kind in zip(spots, kinds)]
