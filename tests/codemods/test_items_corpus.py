"""Item spans on the real mlxcel tree (../shared/corpora): every Rust item's span takes every
attribute and doc comment that belongs to it, so that deleting any one leaves none behind."""

from __future__ import annotations

from pathlib import Path

from codemods.edit.values import line_col
from codemods.languages.rust.items import rust_items

_TRIVIA = ("attribute_item", "line_comment", "block_comment")


def _belongs_to_next(node) -> bool:
    """An outer attribute or outer doc comment: part of the item after it."""
    return node.type == "attribute_item" or any(c.type == "outer_doc_comment_marker" for c in node.children)


def test_every_rust_item_span_takes_all_its_attributes_and_docs(corpus: Path) -> None:
    items = 0
    runs_with_trailing_comments = 0
    for path in sorted((corpus / "src").rglob("*.rs")):
        source = path.read_bytes()
        for item in rust_items(source):
            items += 1
            inside = []
            prev = item.node.prev_sibling
            while prev is not None and prev.start_byte >= item.start:
                inside.append(prev)
                prev = prev.prev_sibling
            while prev is not None and prev.type in _TRIVIA:
                line, _ = line_col(source, prev.start_byte)
                assert not _belongs_to_next(prev), f"{path}:{line}: left out of {item.qualified_name}'s span"
                prev = prev.prev_sibling
            runs_with_trailing_comments += any(
                a.type == "attribute_item" and b.type in _TRIVIA[1:] and a.end_point.row == b.start_point.row
                for b, a in zip(inside, inside[1:]))
    assert items > 30000
    assert runs_with_trailing_comments > 0
