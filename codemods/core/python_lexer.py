"""Python's lexical scan: where the comments and string literals of a Python file are, from the
standard tokenizer's COMMENT and STRING tokens (see codemods/core/lexer.py): the registry's
`lexer` for Python. An f-string, with its replacement fields, is one string."""

from __future__ import annotations

import io
import tokenize

from codemods.core.lexer import COMMENT, STRING, Spans


def spans(source: bytes, stop: int) -> Spans | None:
    """The comment and string spans of the whole file (the tokenizer reads it all; `stop` is a
    bound it need not honour), or None where it does not tokenize."""

    line_starts = [0]
    position = source.find(b"\n")
    while position >= 0:
        line_starts.append(position + 1)
        position = source.find(b"\n", position + 1)

    def offset(row: int, col: int) -> int:
        # tokenize's columns count characters of the decoded line, not bytes.
        start = line_starts[row - 1]
        line = source[start : line_starts[row] if row < len(line_starts) else len(source)]
        return start + len(line.decode(encoding, "replace")[:col].encode(encoding, "replace"))

    starts: list[int] = []
    ends: list[int] = []
    kinds: list[str] = []

    def add(start: tuple[int, int], end: tuple[int, int], kind: str) -> None:
        starts.append(offset(*start))
        ends.append(offset(*end))
        kinds.append(kind)

    f_string_start = None
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(source).readline)[0]
        for token in tokenize.tokenize(io.BytesIO(source).readline):
            name = tokenize.tok_name[token.type]
            if name == "FSTRING_START":
                f_string_start = f_string_start or token.start
            elif name == "FSTRING_END" and f_string_start is not None:
                add(f_string_start, token.end, STRING)
                f_string_start = None
            elif token.type in (tokenize.COMMENT, tokenize.STRING) and f_string_start is None:
                add(token.start, token.end, COMMENT if token.type == tokenize.COMMENT else STRING)
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, LookupError, IndexError):
        return None
    return Spans(starts, ends, kinds)
