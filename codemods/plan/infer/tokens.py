"""Two texts compared token by token, whitespace aside: the tokens of Rust, C++ or Python text
(a comment one token, compared by its words), and the runs of tokens in which two texts differ."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

# Comments, strings, char literals, lifetimes, numbers, words, operators: whitespace apart.
_TOKEN = re.compile(
    rb"""
      (?P<comment>//[^\n]*|/\*.*?\*/)
    | (?P<raw>b?r(?P<hashes>\#*)".*?"(?P=hashes))
    | (?P<string>(?:b|u8|u|U|L)?"(?:\\.|[^"\\])*")
    | (?P<char>(?:b|u8|u|U|L)?'(?:\\.|\\u\{[0-9a-fA-F]+\}|[^'\\\n])')
    | (?P<lifetime>'[A-Za-z_][A-Za-z0-9_]*)
    | (?P<number>[0-9][0-9A-Za-z_]*(?:\.[0-9][0-9A-Za-z_]*)?(?:[eE][+-]?[0-9]+)?)
    | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<op>::|->|=>|==|!=|<=|>=|&&|\|\||\+=|-=|\*=|/=|%=|\^=|&=|\|=|<<=|>>=|\.\.=|\.\.\.|\.\.|\#\#|<<|>>|\+\+|--)
    | (?P<other>\S)
    """,
    re.VERBOSE | re.DOTALL,
)
# Python's: `#` comments, strings (prefixed, triple-quoted), numbers, words, operators.
_PYTHON_TOKEN = re.compile(
    rb"""
      (?P<comment>\#[^\n]*)
    | (?P<string>(?:[rRbBuUfF]{1,2})?(?:\"\"\"(?:\\.|[^\\])*?\"\"\"|''''(?:\\.|[^\\])*?''''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))
    | (?P<number>[0-9][0-9A-Za-z_]*(?:\.[0-9][0-9A-Za-z_]*)?(?:[eE][+-]?[0-9]+)?)
    | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<op>\*\*=|//=|>>=|<<=|->|:=|==|!=|<=|>=|\*\*|//|<<|>>|\+=|-=|\*=|/=|%=|&=|\|=|\^=|@=|\.\.\.)
    | (?P<other>\S)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class Token:
    start: int
    end: int
    text: bytes
    comment: bool


def tokens(source: bytes, language: str | None = None) -> list[Token]:
    """The tokens of a text of `language` (Rust or C++ when None); a comment is one token, compared
    by its words."""
    out = []
    for match in (_PYTHON_TOKEN if language == "python" else _TOKEN).finditer(source):
        comment = match.lastgroup == "comment"
        text = b" ".join(match.group(0).split()) if comment else match.group(0)
        out.append(Token(match.start(), match.end(), text, comment))
    return out


def same_tokens(a: bytes, b: bytes, language: str | None = None) -> bool:
    return [t.text for t in tokens(a, language)] == [t.text for t in tokens(b, language)]


@dataclass(frozen=True)
class Change:
    """One run of changed tokens: [r_lo, r_hi) of the old text's tokens for [a_lo, a_hi) of the new's."""

    r_lo: int
    r_hi: int
    a_lo: int
    a_hi: int


def line_of(source: bytes, offset: int) -> int:
    return source.count(b"\n", 0, offset) + 1


def token_lines(source: bytes, found: list[Token]) -> list[int]:
    """The line of each token (0-based)."""
    out, line, at = [], 0, 0
    for token in found:
        line += source.count(b"\n", at, token.start)
        at = token.start
        out.append(line)
    return out


def token_changes(
    old: list[bytes], new: list[bytes], old_lines: list[int], new_lines: list[int], direct: int = 4_000_000
) -> list[Change]:
    """The runs of tokens that differ: the common ends set aside, then token by token where that
    is cheap, else line by line first and token by token inside the lines that differ."""
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    o_hi, n_hi = len(old) - suffix, len(new) - suffix
    if (o_hi - prefix) * (n_hi - prefix) <= direct:
        return _opcodes(old, new, prefix, o_hi, prefix, n_hi)

    def by_line(texts: list[bytes], lines: list[int], lo: int, hi: int) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        for index in range(lo, hi):
            if spans and lines[index] == lines[spans[-1][0]]:
                spans[-1] = (spans[-1][0], index + 1)
            else:
                spans.append((index, index + 1))
        return spans

    old_spans, new_spans = by_line(old, old_lines, prefix, o_hi), by_line(new, new_lines, prefix, n_hi)
    matcher = SequenceMatcher(
        None, [tuple(old[a:b]) for a, b in old_spans], [tuple(new[a:b]) for a, b in new_spans], autojunk=False
    )
    changes: list[Change] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        o_lo = old_spans[i1][0] if i1 < len(old_spans) else o_hi
        o_to = old_spans[i2 - 1][1] if i2 > i1 else o_lo
        n_lo = new_spans[j1][0] if j1 < len(new_spans) else n_hi
        n_to = new_spans[j2 - 1][1] if j2 > j1 else n_lo
        changes += _opcodes(old, new, o_lo, o_to, n_lo, n_to)
    return changes


def _opcodes(old: list[bytes], new: list[bytes], o_lo: int, o_hi: int, n_lo: int, n_hi: int) -> list[Change]:
    matcher = SequenceMatcher(None, old[o_lo:o_hi], new[n_lo:n_hi], autojunk=False)
    return [
        Change(o_lo + i1, o_lo + i2, n_lo + j1, n_lo + j2)
        for op, i1, i2, j1, j2 in matcher.get_opcodes()
        if op != "equal"
    ]
