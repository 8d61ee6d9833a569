"""What a word is: the bytes of identifiers in every language read here, and whole-word search.

A name is found "as a whole word" as regex `\\b` sees words (and rg's `-w`):
not preceded or followed by a letter, digit or underscore.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
BLANKS = frozenset(b" \t\n\r\f\v")


def _starts(source: bytes, needle: bytes, start: int = 0, stop: int | None = None) -> Iterator[int]:
    """The start of each occurrence of `needle` in `source[start:stop]` with no word byte right
    before or after it (in `source`): a substring search, much faster than a regex."""
    stop = len(source) if stop is None else stop
    at = source.find(needle, start, stop)
    while at >= 0:
        after = at + len(needle)
        if (at == 0 or source[at - 1] not in WORD_BYTES) and (after == len(source) or source[after] not in WORD_BYTES):
            yield at
        at = source.find(needle, at + 1, stop)


def whole_word_hits(source: bytes, names: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, name) of each occurrence of a name as a whole word, in order. A substring
    search per name: much faster than one regex alternation."""
    hits = []
    for name in names:
        needle = name.encode()
        hits += [(at, at + len(needle), name) for at in _starts(source, needle)]
    hits.sort()
    return hits


def whole_words(words: Iterable[str]) -> re.Pattern[bytes]:
    """A bytes regex matching any of `words` as a whole word (rg's `-w` without rg)."""
    return re.compile(rb"\b(?:" + b"|".join(re.escape(w.encode()) for w in words) + rb")\b")


class WordMatch:
    """One whole-word occurrence, read as a `re.Match` of `whole_words` is (`start()`, `end()`,
    `span()`, `group()`), from `word_matches`."""

    __slots__ = ("_start", "_end", "_text")

    def __init__(self, start: int, end: int, text: bytes) -> None:
        self._start, self._end, self._text = start, end, text

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def span(self) -> tuple[int, int]:
        return self._start, self._end

    def group(self) -> bytes:
        return self._text


def word_matches(source: bytes, words: Iterable[str]) -> list[WordMatch]:
    """Each occurrence in `source` of one of `words` as a whole word, in order: what
    `whole_words(words).finditer(source)` gives (words are identifiers: no two occurrences
    overlap), found by a substring search per word, several times faster than the regex (whose
    leading `\\b` keeps the regex engine from skipping ahead)."""
    return [WordMatch(start, end, name.encode()) for start, end, name in whole_word_hits(source, set(words))]


def word_in(source: bytes, words: Iterable[str], start: int = 0, end: int | None = None) -> bool:
    """Whether one of `words` occurs in `source[start:end]` as a whole word (of `source`)."""
    return any(next(_starts(source, word.encode(), start, end), None) is not None for word in set(words))


def word_starts(source: bytes, needle: bytes, start: int = 0, stop: int | None = None) -> Iterator[int]:
    """The start of each whole-word occurrence of `needle` in `source[start:stop]`, lazily."""
    return _starts(source, needle, start, stop)


def blanks_before(source: bytes, at: int) -> int:
    """Where the run of blanks (spaces, tabs, newlines) ending at byte `at` starts (`at` if none)."""
    while at > 0 and source[at - 1] in BLANKS:
        at -= 1
    return at


def blanks_after(source: bytes, at: int, stop: int | None = None) -> int:
    """Where the run of blanks starting at byte `at` ends (`at` if none), not past `stop`."""
    stop = len(source) if stop is None else stop
    while at < stop and source[at] in BLANKS:
        at += 1
    return at


def word_ends_at(source: bytes, end: int, words: Iterable[bytes]) -> bool:
    """Whether one of `words` ends at byte `end` of `source` with no word byte right before it
    (a keyword right before a place, `\\b(?:WORDS)` ending there)."""
    for word in words:
        begin = end - len(word)
        if begin >= 0 and source[begin:end] == word and (begin == 0 or source[begin - 1] not in WORD_BYTES):
            return True
    return False


def keyword_offsets(source: bytes, keyword: bytes) -> list[int]:
    """The start of each whole-word occurrence of `keyword` in `source` (`\\bKEYWORD\\b` for a word)."""
    return list(_starts(source, keyword))


def whole_line_occurrences(source: bytes, text: bytes, overlapping: bool = False) -> list[int]:
    """Where `text` stands in `source` starting a line and ending one (or the file): each place
    after the last one found, or, with `overlapping`, every place (a count of how often it stands)."""
    found = []
    at = source.find(text)
    while at >= 0 and text:
        end = at + len(text)
        if (at == 0 or source[at - 1 : at] == b"\n") and (
            end == len(source) or text.endswith(b"\n") or source[end : end + 1] in (b"\n", b"\r")
        ):
            found.append(at)
            at = source.find(text, at + 1 if overlapping else end)
        else:
            at = source.find(text, at + 1)
    return found
