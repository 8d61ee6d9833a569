"""Rust's lexical scan: where the comments and string literals of a Rust file are, without
parsing it (see codemods/core/lexer.py): the registry's `lexer` for Rust."""

from __future__ import annotations

import re

from codemods.core.lexer import COMMENT, STRING, Spans, literal_prefix_start, scan_spans, word_before

# The next byte that may change the lexical state.
_RUST_EDGE = re.compile(rb"//[^\n]*|/\*|\"|'")
_RUST_BLOCK_EDGE = re.compile(rb"/\*|\*/")
_RUST_STRING_BODY = re.compile(rb"[^\"\\]*(?:\\.[^\"\\]*)*\"", re.S)
# A character literal after its opening quote (a lone quote is a lifetime or a label).
_RUST_CHAR_BODY = re.compile(
    rb"(?:[^'\\\n\r\t\x80-\xff]|[\xc0-\xff][\x80-\xbf]{1,3}"
    rb"|\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F_]{1,6}\}|[^\n]))'"
)


def _rust_raw_start(source: bytes, quote: int) -> tuple[int, bytes] | None:
    """(start, closing delimiter) if the quote at `quote` opens a raw string: [b|c]r#*"."""
    cursor = quote
    while cursor > 0 and source[cursor - 1] == 0x23:  # '#'
        cursor -= 1
    if cursor == 0 or source[cursor - 1] != 0x72:  # 'r'
        return None
    start = cursor - 1
    if start > 0 and source[start - 1] in b"bc" and not word_before(source, start - 1):
        start -= 1
    elif word_before(source, start):
        return None
    return start, b'"' + source[cursor:quote]


def spans(source: bytes, stop: int) -> Spans | None:
    return scan_spans(source, stop, _RUST_EDGE, _token)


def _token(source: bytes, match: re.Match[bytes]) -> tuple[int, int, str] | int | None:
    """What the edge at `match` opens (see lexer.scan_spans)."""
    start = match.start()
    token = match.group()
    if token[:2] == b"//":
        end = match.end()
        if source[end : end + 1] == b"\n" and token[:3] in (b"///", b"//!") and token[:4] != b"////":
            end += 1  # tree-sitter's doc comment owns its newline
        return start, end, COMMENT
    if token == b"/*":
        depth, end = 1, match.end()
        while depth:
            edge = _RUST_BLOCK_EDGE.search(source, end)
            if edge is None:
                return None
            depth += 1 if edge.group() == b"/*" else -1
            end = edge.end()
        return start, end, COMMENT
    if token == b'"':
        raw = _rust_raw_start(source, start)
        if raw is not None:
            start, closing = raw
            found = source.find(closing, match.end())
            return None if found < 0 else (start, found + len(closing), STRING)
        body = _RUST_STRING_BODY.match(source, match.end())
        if body is None:
            return None
        return literal_prefix_start(source, start, (b"b", b"c")), body.end(), STRING
    body = _RUST_CHAR_BODY.match(source, match.end())
    if body is None:
        return match.end()  # a lifetime or a label
    return literal_prefix_start(source, start, (b"b",)), body.end(), STRING
