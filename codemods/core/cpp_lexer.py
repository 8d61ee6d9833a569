"""C++'s lexical scan: where the comments and string literals of a C++ file are, without
parsing it (see codemods/core/lexer.py): the registry's `lexer` for C++."""

from __future__ import annotations

import re

from codemods.core.lexer import COMMENT, STRING, Spans, literal_prefix_start, scan_spans, word_before
from codemods.words import WORD_BYTES

# The next byte that may change the lexical state.
_CPP_EDGE = re.compile(rb"//(?:[^\n\\]|\\\r?\n|\\.)*|/\*|\"|'|#[ \t]*include[ \t]*<[^>\n]*>")
_CPP_STRING_BODY = re.compile(rb"[^\"\\\n]*(?:\\(?:\r\n|.)[^\"\\\n]*)*\"", re.S)
_CPP_CHAR_BODY = re.compile(rb"(?:[^'\\\n]|\\(?:\r\n|.))+'", re.S)
_CPP_RAW_DELIMITER = re.compile(rb"([^()\\\s\"]{0,16})\(")


def _cpp_number_before(source: bytes, quote: int) -> bool:
    """True if the quote at `quote` is a digit separator (1'000, 0xFF'FF)."""
    cursor = quote
    while cursor > 0 and (source[cursor - 1] in WORD_BYTES or source[cursor - 1] in b".'"):
        cursor -= 1
    return (
        cursor < quote
        and source[cursor : cursor + 1].isdigit()
        and quote + 1 < len(source)
        and source[quote + 1] in WORD_BYTES
    )


def spans(source: bytes, stop: int) -> Spans | None:
    return scan_spans(source, stop, _CPP_EDGE, _token)


_PREFIXES = (b"u8", b"u", b"U", b"L")


def _token(source: bytes, match: re.Match[bytes]) -> tuple[int, int, str] | int | None:
    """What the edge at `match` opens (see lexer.scan_spans)."""
    start = match.start()
    token = match.group()
    if token[:2] == b"//":
        return start, match.end(), COMMENT
    if token == b"/*":
        found = source.find(b"*/", match.end())
        return None if found < 0 else (start, found + 2, COMMENT)
    if token[:1] == b"#":
        return source.index(b"<", start), match.end(), STRING
    if token == b'"':
        if start > 0 and source[start - 1] == 0x52:  # R"delim( ... )delim"
            delimiter = _CPP_RAW_DELIMITER.match(source, match.end())
            raw_start = literal_prefix_start(source, start - 1, _PREFIXES)
            if delimiter is not None and not word_before(source, raw_start):
                closing = b")" + delimiter.group(1) + b'"'
                found = source.find(closing, delimiter.end())
                return None if found < 0 else (raw_start, found + len(closing), STRING)
        body = _CPP_STRING_BODY.match(source, match.end())
        if body is None:
            return None
        return literal_prefix_start(source, start, _PREFIXES), body.end(), STRING
    if _cpp_number_before(source, start):
        return match.end()  # a digit separator
    body = _CPP_CHAR_BODY.match(source, match.end())
    if body is None:
        return None
    return literal_prefix_start(source, start, _PREFIXES), body.end(), STRING
