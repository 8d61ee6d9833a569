"""Parsing once: the tree cache, and incremental re-parsing after a splice."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from codemods.edit.splice import splice
from codemods.edit.values import Edit
from codemods.parse import RUST, _parser, forget, parse, reparse

_ITEMS = [
    b"fn a() -> u32 {\n    1\n}\n",
    b"/// doc\nstruct S {\n    x: u8,\n}\n",
    b"\n",
    b"// note\n",
    b"impl S {\n    fn m(&self) {}\n}\n",
    b'const C: &str = "\xc3\xa9";\n',
    b"mod m {\n    fn b() {}\n}\n",
]


@st.composite
def spliced(draw):
    pieces = draw(st.lists(st.sampled_from(_ITEMS), min_size=1, max_size=12))
    before = b"".join(pieces)
    bounds = [0]
    for piece in pieces:
        bounds.append(bounds[-1] + len(piece))
    cuts = sorted(draw(st.lists(st.sampled_from(bounds), max_size=6, unique=True)))
    edits = [
        Edit("a.rs", start, end, draw(st.sampled_from([b""] + _ITEMS)), "t")
        for start, end in zip(cuts[0::2], cuts[1::2])
    ]
    return before, edits


@given(spliced())
def test_incremental_reparse_gives_the_tree_of_a_fresh_parse(case):
    before, edits = case
    after = splice(before, edits)
    tree = reparse(before, [(e.start, e.end, e.replacement) for e in edits], after, RUST)
    assert str(tree.root_node) == str(_parser(RUST).parse(after).root_node)
    assert parse(after, RUST) is tree


def test_the_same_bytes_are_parsed_once():
    source = b"fn only_once() {}\n"
    assert parse(bytes(source), RUST) is parse(bytes(source), RUST)


def test_forgotten_bytes_are_parsed_afresh_to_the_same_tree():
    source = b"fn let_go(x: u32) -> u32 {\n    x\n}\n"
    kept = parse(source, RUST)
    forget(source, RUST)
    forget(source, RUST)  # a second time: nothing kept, nothing to drop
    again = parse(source, RUST)
    assert again is not kept
    assert str(again.root_node) == str(kept.root_node)
    assert parse(source, RUST) is again
