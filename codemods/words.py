"""What a word is: the bytes of identifiers in every language read here, and whole-word search.

A name is found "as a whole word" as regex `\\b` sees words (and rg's `-w`):
not preceded or followed by a letter, digit or underscore.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def whole_word_hits(source: bytes, names: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, name) of each occurrence of a name as a whole word, in order. A substring
    search per name: much faster than one regex alternation."""
    hits = []
    for name in names:
        needle = name.encode()
        start = source.find(needle)
        while start >= 0:
            end = start + len(needle)
            if (start == 0 or source[start - 1] not in WORD_BYTES) and (
                    end == len(source) or source[end] not in WORD_BYTES):
                hits.append((start, end, name))
            start = source.find(needle, start + 1)
    hits.sort()
    return hits


def whole_words(words: Iterable[str]) -> re.Pattern[bytes]:
    """A bytes regex matching any of `words` as a whole word (rg's `-w` without rg)."""
    return re.compile(rb"\b(?:" + b"|".join(re.escape(w.encode()) for w in words) + rb")\b")
