"""C++'s lexical scan: where the comments and string literals of a C++ file are, without
parsing it (see codemods/core/lexer.py): the registry's `lexer` for C++."""

from __future__ import annotations

import re

from codemods.core.lexer import COMMENT, STRING, Spans, literal_prefix_start, word_before
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
    return cursor < quote and source[cursor:cursor + 1].isdigit() and quote + 1 < len(source) \
        and source[quote + 1] in WORD_BYTES



def spans(source: bytes, stop: int) -> Spans | None:
    starts: list[int] = []
    ends: list[int] = []
    kinds: list[str] = []
    position = 0
    search = _CPP_EDGE.search
    prefixes = (b"u8", b"u", b"U", b"L")
    while True:
        match = search(source, position)
        if match is None or match.start() >= stop:
            return Spans(starts, ends, kinds)
        start = match.start()
        token = match.group()
        if token[:2] == b"//":
            end, kind = match.end(), COMMENT
        elif token == b"/*":
            found = source.find(b"*/", match.end())
            if found < 0:
                return None
            end, kind = found + 2, COMMENT
        elif token[:1] == b"#":
            start, end, kind = source.index(b"<", start), match.end(), STRING
        elif token == b'"':
            kind = STRING
            if start > 0 and source[start - 1] == 0x52:  # R"delim( ... )delim"
                delimiter = _CPP_RAW_DELIMITER.match(source, match.end())
                raw_start = literal_prefix_start(source, start - 1, prefixes)
                if delimiter is not None and not word_before(source, raw_start):
                    closing = b")" + delimiter.group(1) + b'"'
                    found = source.find(closing, delimiter.end())
                    if found < 0:
                        return None
                    starts.append(raw_start)
                    ends.append(found + len(closing))
                    kinds.append(kind)
                    position = found + len(closing)
                    continue
            body = _CPP_STRING_BODY.match(source, match.end())
            if body is None:
                return None
            start, end = literal_prefix_start(source, start, prefixes), body.end()
        else:
            if _cpp_number_before(source, start):
                position = match.end()
                continue
            body = _CPP_CHAR_BODY.match(source, match.end())
            if body is None:
                return None
            start, end, kind = literal_prefix_start(source, start, prefixes), body.end(), STRING
        starts.append(start)
        ends.append(end)
        kinds.append(kind)
        position = end

