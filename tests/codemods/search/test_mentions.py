"""Classifying mentions: code, comment, string, unknown, for Rust, C++ and Python."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codemods.search.mentions import (
    CODE,
    COMMENT,
    STRING,
    UNKNOWN,
    compile_pattern,
    matches_by_line,
    mentions_in_source,
)

PATTERN = compile_pattern(r"frob_(dense|rotating)_compat|FrobMeta")


def kinds(path: str, source: str) -> list[tuple[int, str, str]]:
    text = textwrap.dedent(source).lstrip("\n").encode()
    return [(m.line, m.symbol, m.kind) for m in mentions_in_source(path, text, PATTERN)]


def test_rust_code_comment_doc_and_string():
    assert kinds(
        "a.rs",
        """
        /// Calls [`frob_dense_compat`].
        pub fn f() -> FrobMeta {
            // FrobMeta is built here
            let s = "frob_rotating_compat";
            let r = r#"FrobMeta"#;
            /* block FrobMeta */
            frob_dense_compat()
        }
    """,
    ) == [
        (1, "frob_dense_compat", COMMENT),
        (2, "FrobMeta", CODE),
        (3, "FrobMeta", COMMENT),
        (4, "frob_rotating_compat", STRING),
        (5, "FrobMeta", STRING),
        (6, "FrobMeta", COMMENT),
        (7, "frob_dense_compat", CODE),
    ]


def test_cpp_code_comment_and_string():
    assert kinds(
        "a.cpp",
        """
        // frob_dense_compat: the reference
        std::unique_ptr<A> frob_dense_compat(int n) {
          throw std::invalid_argument("frob_dense_compat: empty");
        }
    """,
    ) == [(1, "frob_dense_compat", COMMENT), (2, "frob_dense_compat", CODE), (3, "frob_dense_compat", STRING)]


def test_python_by_the_tokenizer_with_multibyte_columns():
    assert kinds(
        "a.py",
        """
        # FrobMeta is gone
        x = "é FrobMeta"
        y = f"{FrobMeta}"  # é FrobMeta
        FrobMeta()
    """,
    ) == [
        (1, "FrobMeta", COMMENT),
        (2, "FrobMeta", STRING),
        (3, "FrobMeta", STRING),
        (3, "FrobMeta", COMMENT),
        (4, "FrobMeta", CODE),
    ]


@pytest.mark.parametrize(
    "path, source, kind",
    [
        ("k.cu", "__global__ void k() {}\nvoid go() { k<<<1, 2>>>(); FrobMeta m; }\n", CODE),
        ("k2.cu", "void go() { k<<<1, 2>>>(); } // FrobMeta\n", COMMENT),
        ("b.rs", "fn f( { FrobMeta\n", CODE),
        ("c.rs", 'fn f( { "FrobMeta" \n', STRING),
    ],
)
def test_kinds_are_lexical_where_the_file_does_not_parse(path, source, kind):
    """tree-sitter-cpp does not parse CUDA launches; the lexical kind is clear all the same."""
    found = mentions_in_source(path, source.encode(), PATTERN)
    assert [m.kind for m in found] == [kind]


def test_python_multiline_strings_and_comments():
    assert kinds(
        "a.py",
        '''
        s = """é
        FrobMeta
        """  # FrobMeta
        FrobMeta
    ''',
    ) == [(2, "FrobMeta", STRING), (3, "FrobMeta", COMMENT), (4, "FrobMeta", CODE)]


@pytest.mark.parametrize(
    "path, source",
    [
        ("f.py", 's = """FrobMeta\n'),
        ("d.rs", 'fn f() { let s = "FrobMeta;\n'),
        ("e.cpp", "/* FrobMeta\nint x;\n"),
        ("b.py", "def f(:\n    FrobMeta\n"),
        ("notes.txt", "FrobMeta\n"),
    ],
)
def test_undelimited_literals_and_other_files_get_kind_unknown(path, source):
    found = mentions_in_source(path, source.encode(), PATTERN)
    assert [m.kind for m in found] == [UNKNOWN]


def test_matches_follow_rg_lines():
    pattern = compile_pattern("x*")
    # Empty matches count; no line after the final newline; "\r" belongs to the line.
    assert [(line, col) for _, _, line, col in matches_by_line(b"ab\r\n\nxx\n", pattern)] == [
        (1, 1),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 1),
        (3, 1),
        (3, 3),
    ]
    assert matches_by_line(b"", pattern) == []


def test_overlapping_names_match_once_leftmost():
    pattern = compile_pattern(r"PagedDecodeMetadata|RotatingPagedDecodeMetadata")
    spots = matches_by_line(b"let m: RotatingPagedDecodeMetadata;\n", pattern)
    assert [(col, end - start) for start, end, _, col in spots] == [(8, 27)]


def _line_by_line(source: bytes, pattern) -> list[tuple[int, int, int, int]]:
    lines = source.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    found, offset = [], 0
    for number, line in enumerate(lines, start=1):
        found += [(offset + m.start(), offset + m.end(), number, m.start() + 1) for m in pattern.finditer(line)]
        offset += len(line) + 1
    return found


@given(
    st.lists(
        st.sampled_from(
            [
                b"FrobMeta",
                b"frob_dense_compat",
                b"frob_",
                b"Meta",
                b"\n",
                b"\r\n",
                b" ",
                b"x",
                b"\xff",
                b"frob_rotating_compat",
            ]
        ),
        max_size=30,
    ).map(b"".join),
    st.sampled_from(
        [
            r"frob_(dense|rotating)_compat|FrobMeta",
            r"Frob(Meta)?",
            r"(?:frob_)+",
            r"x{2,}|Meta",
            r"x*",
            r"^Meta",
            r"Meta$",
            r"\bMeta",
            r"(?<=b)Meta",
            r"Meta\s",
        ]
    ),
)
def test_one_pass_search_finds_what_the_line_by_line_search_finds(source, text):
    pattern = compile_pattern(text)
    assert matches_by_line(source, pattern) == _line_by_line(source, pattern)


@given(
    st.lists(
        st.sampled_from([b"Meta", b"FrobMeta", b"frob", b"_", b" ", b"\n", b"x1", b"\xc3\xa9", b"::"]), max_size=30
    ).map(b"".join)
)
def test_whole_word_search_finds_what_a_word_bounded_regex_finds(source):
    import re

    from codemods.words import whole_word_hits as _whole_words

    names = {"Meta", "FrobMeta", "frob"}
    regex = re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in sorted(names)) + rb")\b")
    assert _whole_words(source, names) == [(m.start(), m.end(), m.group().decode()) for m in regex.finditer(source)]
