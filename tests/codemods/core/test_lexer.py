"""The lexical scan of comments and strings: the constructs that fool a naive one, and
agreement with tree-sitter's comment and string nodes on the real tree."""

from __future__ import annotations

import pytest

from codemods.core.lexer import COMMENT, STRING
from codemods.core.registry import lex_spans
from codemods.parse import CPP, RUST, language_of, parse


def kind_of(source: bytes, language: str, word: bytes, nth: int = 0) -> str | None:
    start = -1
    for _ in range(nth + 1):
        start = source.index(word, start + 1)
    spans = lex_spans(source, language)
    assert spans is not None
    return spans.kind_at(start, start + len(word))


@pytest.mark.parametrize(
    "source, word, nth, kind",
    [
        (b'let s = r#"a "quoted" X"#; X', b"X", 0, STRING),
        (b'let s = r#"a "quoted" X"#; X', b"X", 1, None),
        (b'let s = br"\\"; X', b"X", 0, None),  # a raw string ends at its first quote
        (b'let s = "esc \\" X"; X', b"X", 0, STRING),
        (b'let s = "esc \\" X"; X', b"X", 1, None),
        (b"/* outer /* inner */ X */ X", b"X", 0, COMMENT),
        (b"/* outer /* inner */ X */ X", b"X", 1, None),
        (b"fn f<'a>(x: &'a str) -> &'a str { X }", b"X", 0, None),  # lifetimes are not characters
        (b"let q = '\"'; X", b"X", 0, None),  # a quote character opens no string
        (b"let q = b'\\''; X", b"X", 0, None),
        (b"let r#type = 1; // X", b"X", 0, COMMENT),
        (b'let s = "multi\nline X"; X', b"X", 0, STRING),
        (b"let c = '\xc3\xa9'; X", b"X", 0, None),
        (b"/// doc X\nfn f() {}", b"X", 0, COMMENT),
    ],
)
def test_rust_constructs(source, word, nth, kind):
    assert kind_of(source, RUST, word, nth) == kind


@pytest.mark.parametrize(
    "source, word, nth, kind",
    [
        (b'auto s = R"sep(a )" X)sep"; X', b"X", 0, STRING),
        (b'auto s = R"sep(a )" X)sep"; X', b"X", 1, None),
        (b"int n = 1'000'000; char c = 'X';", b"X", 0, STRING),
        (b"int n = 0xFF'FF; X", b"X", 0, None),
        (b"#include <X/y.h>\nX", b"X", 0, STRING),
        (b"#include <X/y.h>\nX", b"X", 1, None),
        (b"bool b = a < X && c > d;", b"X", 0, None),
        (b"// continued \\\n X\nX", b"X", 0, COMMENT),
        (b"// continued \\\n X\nX", b"X", 1, None),
        (b'auto s = u8"X"; X', b"X", 0, STRING),
        (b"/* a // b */ X", b"X", 0, None),
        (b'const char* s = "/* X */";', b"X", 0, STRING),
        (b"void go() { k<<<1, 2>>>(); } // X", b"X", 0, COMMENT),
    ],
)
def test_cpp_constructs(source, word, nth, kind):
    assert kind_of(source, CPP, word, nth) == kind


@pytest.mark.parametrize(
    "source, language",
    [
        (b'fn f() { "open', RUST),
        (b"/* open /* nested */", RUST),
        (b'let s = r##"open"#;', RUST),
        (b"/* open", CPP),
        (b'auto s = R"x(open)y";', CPP),
        (b'auto s = "open\n";', CPP),
    ],
)
def test_undelimited_comments_and_literals_give_none(source, language):
    assert lex_spans(source, language) is None


_TS_COMMENTS = {"line_comment", "block_comment", "comment"}
_TS_STRINGS = {"string_literal", "raw_string_literal", "char_literal", "system_lib_string"}


def _tree_sitter_spans(source: bytes, language: str) -> tuple[set[tuple[int, int, str]], list[tuple[int, int]]]:
    """Comment and string nodes of a clean parse (outermost only), and the preprocessor arguments.

    tree-sitter-cpp keeps a #define's value as opaque text (preproc_arg),
    where the scan sees the literals it holds: those are compared apart.
    """
    found = set()
    opaque = []
    stack = [parse(source, language).root_node]
    while stack:
        node = stack.pop()
        if node.type == "preproc_arg":
            opaque.append((node.start_byte, node.end_byte))
        elif node.type in _TS_COMMENTS or node.type in _TS_STRINGS:
            found.add((node.start_byte, node.end_byte, COMMENT if node.type in _TS_COMMENTS else STRING))
        else:
            stack.extend(node.children)
    return found, opaque


def test_scan_agrees_with_tree_sitter_on_the_real_tree(corpus):
    """Every Rust and C++ file of the real tree that parses: the same comment and string spans."""
    compared = 0
    for path in sorted(corpus.rglob("*")):
        language = language_of(path.name)
        if language not in (RUST, CPP) or not path.is_file():
            continue
        source = path.read_bytes()
        if parse(source, language).root_node.has_error:
            continue
        lexed = lex_spans(source, language)
        assert lexed is not None, path
        theirs, opaque = _tree_sitter_spans(source, language)
        ours = {
            (s, e, k)
            for s, e, k in zip(lexed.starts, lexed.ends, lexed.kinds)
            if not any(lo <= s < hi for lo, hi in opaque)
        }
        assert ours == theirs, path
        compared += 1
    assert compared > 900


def test_a_scan_that_stops_early_still_completes_the_span_it_is_in():
    source = b"#include <X/y.h>\n// X\nint X; /* X */\n" * 3
    full = lex_spans(source, CPP)
    end_of_first_x = source.index(b"X") + 1
    early = lex_spans(source, CPP, stop=end_of_first_x)
    assert (
        early.kind_at(end_of_first_x - 1, end_of_first_x) == full.kind_at(end_of_first_x - 1, end_of_first_x) == STRING
    )
    assert len(early.starts) == 1 < len(full.starts)
