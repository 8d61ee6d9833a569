"""line_col: counted for a source asked once or twice, read off a line index for one asked often;
the same answer either way."""

from __future__ import annotations

import random

from codemods.edit.values import line_col


def _counted(source: bytes, offset: int) -> tuple[int, int]:
    return source.count(b"\n", 0, offset) + 1, offset - (source.rfind(b"\n", 0, offset) + 1) + 1


def test_many_questions_of_one_source_get_the_counted_answers() -> None:
    shuffle = random.Random(7)
    source = b"".join(shuffle.choice([b"fn", b" x\n", b"\n", b"\r\n", b"\xc3\xa9"]) for _ in range(4000))
    offsets = [0, len(source), *(shuffle.randint(0, len(source)) for _ in range(500))]
    assert [line_col(source, o) for o in offsets] == [_counted(source, o) for o in offsets]


def test_a_source_without_newlines_and_an_empty_one() -> None:
    for source in (b"", b"abc"):
        for offset in range(len(source) + 1):
            for _ in range(10):
                assert line_col(source, offset) == (1, offset + 1)


def test_line_cols_answers_a_batch_as_line_col_answers_each() -> None:
    from codemods.edit.values import line_cols

    shuffle = random.Random(11)
    source = b"".join(shuffle.choice([b"let", b" y\n", b"\n", b"\r\n", b"\xe2\x82\xac"]) for _ in range(3000))
    offsets = [len(source), 0, *(shuffle.randint(0, len(source)) for _ in range(300)), 0]
    assert line_cols(source, offsets) == {o: _counted(source, o) for o in offsets}
    assert line_cols(b"", [0]) == {0: (1, 1)}
    assert line_cols(source, []) == {}
