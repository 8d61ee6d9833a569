"""Where a pattern occurs in a source file, and whether in code, a comment or a string.

This is the classification shared by the dead-symbol check and by the plan's
final validation. Matches are found on bytes with the same semantics as
`rg -n PATTERN` (every match, line by line); only files with a match are
parsed. A file that does not parse cleanly still reports its matches, with
kind "unknown".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._parse import CPP, PYTHON, RUST, language_of, parse

CODE = "code"
COMMENT = "comment"
STRING = "string"
UNKNOWN = "unknown"

# Node types that make a match a comment or a string, per tree-sitter grammar.
_COMMENT_TYPES = {"line_comment", "block_comment", "comment", "doc_comment"}
_STRING_TYPES = {
    "string_literal",
    "raw_string_literal",
    "char_literal",
    "concatenated_string",
    "system_lib_string",
    "string_content",
}


@dataclass(frozen=True)
class Mention:
    """One match of the pattern: 1-based line, 1-based byte column, the matched text and its kind."""

    path: str
    line: int
    col: int
    symbol: str
    kind: str
    start: int
    end: int

    def render(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.symbol} [{self.kind}]"

    def as_json(self) -> dict:
        return {"path": self.path, "line": self.line, "col": self.col, "symbol": self.symbol, "kind": self.kind}


def compile_pattern(pattern: str) -> re.Pattern[bytes]:
    """Compile a recipe's dead-symbol pattern (rg/Rust-regex syntax, the common subset) for bytes."""
    return re.compile(pattern.encode("utf-8"))


def _matches(source: bytes, pattern: re.Pattern[bytes]) -> list[tuple[int, int, int, int]]:
    """(start, end, line, col) of every match; like rg, a match never spans lines."""
    found = []
    line_no = 0
    offset = 0
    for line in source.split(b"\n"):
        line_no += 1
        for match in pattern.finditer(line):
            if match.end() == match.start():
                continue
            found.append((offset + match.start(), offset + match.end(), line_no, match.start() + 1))
        offset += len(line) + 1
    return found


def _tree_sitter_kind(tree, start: int, end: int) -> str:
    node = tree.root_node.descendant_for_byte_range(start, end)
    while node is not None:
        if node.type in _COMMENT_TYPES:
            return COMMENT
        if node.type in _STRING_TYPES:
            return STRING
        node = node.parent
    return CODE


def _python_kinds(source: bytes, spots: list[tuple[int, int]]) -> list[str]:
    """Kinds of (line, byte col) spots in a Python file, by libcst's comment and string nodes."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except Exception:
        return [UNKNOWN] * len(spots)
    positions = wrapper.resolve(PositionProvider)
    ranges: list[tuple[tuple[int, int], tuple[int, int], str]] = []
    for node, position in positions.items():
        if isinstance(node, cst.Comment):
            kind = COMMENT
        elif isinstance(node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
            kind = STRING
        else:
            continue
        ranges.append(((position.start.line, position.start.column), (position.end.line, position.end.column), kind))
    lines = source.split(b"\n")
    kinds = []
    for line, byte_col in spots:
        text = lines[line - 1][: byte_col - 1] if line - 1 < len(lines) else b""
        char_col = len(text.decode("utf-8", errors="replace"))
        here = (line, char_col)
        kind = next((k for lo, hi, k in ranges if lo <= here < hi), CODE)
        kinds.append(kind)
    return kinds


def mentions_in_source(path: str, source: bytes, pattern: re.Pattern[bytes]) -> list[Mention]:
    """Every match of `pattern` in one file, classified as code, comment, string or unknown."""
    spots = _matches(source, pattern)
    if not spots:
        return []
    language = language_of(path)
    symbols = [source[s:e].decode("utf-8", "replace") for s, e, _, _ in spots]
    if language in (RUST, CPP):
        tree = parse(source, language)
        if tree.root_node.has_error:
            kinds = [UNKNOWN] * len(spots)
        else:
            kinds = [_tree_sitter_kind(tree, s, e) for s, e, _, _ in spots]
    elif language == PYTHON:
        kinds = _python_kinds(source, [(line, col) for _, _, line, col in spots])
    else:
        kinds = [UNKNOWN] * len(spots)
    return [
        Mention(path, line, col, symbol, kind, start, end)
        for (start, end, line, col), symbol, kind in zip(spots, symbols, kinds)
    ]
