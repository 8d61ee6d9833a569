"""Whole-word search (codemods/words.py) against its definition: no word byte right before or after."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from codemods.words import WORD_BYTES, word_starts


def _by_definition(source: bytes, needle: bytes, start: int, stop: int | None) -> list[int]:
    end = len(source) if stop is None else stop
    return [
        at
        for at in range(start, max(start, end - len(needle) + 1))
        if source[at : at + len(needle)] == needle
        and (at == 0 or source[at - 1] not in WORD_BYTES)
        and (at + len(needle) == len(source) or source[at + len(needle)] not in WORD_BYTES)
    ]


@settings(max_examples=400)
@given(
    source=st.binary(max_size=40).map(lambda b: bytes(b"ab_ :#"[x % 6] for x in b)),
    needle=st.sampled_from([b"a", b"ab", b"a_b", b"aba", b"b#a", b"::", b"#", b"r#ab"]),
    start=st.integers(0, 45),
    stop=st.one_of(st.none(), st.integers(0, 45)),
)
def test_word_starts_finds_each_whole_word_occurrence_within_the_bounds(source, needle, start, stop):
    start = min(start, len(source))
    if stop is not None:
        stop = max(stop, start)
    assert list(word_starts(source, needle, start, stop)) == _by_definition(source, needle, start, stop)


def test_a_name_glued_to_a_word_is_not_found_and_the_byte_past_the_bounds_counts():
    text = b"budget get_or get(x).get"
    assert list(word_starts(text, b"get")) == [14, 21]
    assert list(word_starts(text, b"get", 0, 17)) == [14]
    assert list(word_starts(text, b"get", 0, 16)) == []  # the needle must lie within the bounds
    assert list(word_starts(text, b"get_", 0, len(text))) == []
    assert list(word_starts(b"getx", b"get", 0, 3)) == []  # `x` past the stop still glues it
