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
                for b, a in zip(inside, inside[1:])
            )
    assert items > 30000
    assert runs_with_trailing_comments > 0


def test_cpp_functions_after_an_attribute_macro_are_in_their_own_namespace(corpus: Path) -> None:
    """`METAL_FUNC metal::vec<IdxT, 2> f(...)` of the real Metal kernel utilities: the macro is
    read as one (not as a type qualifying `f` with `metal::vec`)."""
    from codemods.languages.cpp.items import cpp_items

    header = corpus / "src/lib/mlx-cpp/patches/mlx/backend/metal/kernels/utils.h"
    names = {i.qualified_name for i in cpp_items(header.read_bytes()) if i.kind == "function"}
    assert {"elem_to_loc_2_nd", "elem_to_loc_3_nd", "elem_to_loc_1"} <= names
    assert not any(n.startswith("metal::vec::") for n in names)


def test_use_declarations_found_by_their_keyword_are_those_a_query_finds(corpus: Path) -> None:
    from codemods.languages.rust.imports import use_declarations
    from codemods.parse import RUST, captures, parse

    declarations = 0
    for path in sorted((corpus / "src").rglob("*.rs")):
        tree = parse(path.read_bytes(), RUST)
        queried = sorted(
            captures(RUST, "(use_declaration) @use", tree.root_node).get("use", []), key=lambda n: n.start_byte
        )
        assert [(n.start_byte, n.end_byte) for n in use_declarations(tree)] == [
            (n.start_byte, n.end_byte) for n in queried
        ], path
        declarations += len(queried)
    assert declarations > 1000
