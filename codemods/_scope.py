"""Where a rule applies: a whole file, or one item of it found by qualified name.

Rewrite and rewording rules of a recipe name the item they are scoped to
(`paged_decode_attention_pooled`, `tests::some_test`, `ns::function`); the
scope is the item with its leading docs and attributes. For prose, the scope
also reaches back over free comments between the previous item and this one
(a section banner above a function belongs to it).
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from ._parse import CPP, RUST


@dataclass(frozen=True)
class Scope:
    """Bytes [start, end) of one item (start includes its docs and attributes) and the start
    of the free comments above it."""

    name: str
    start: int
    end: int
    comments_start: int
    node: tree_sitter.Node


def _rust_scopes(source: bytes, tree: tree_sitter.Tree, name: str) -> list[Scope]:
    from .rust.items import rust_items

    wanted = tuple(name.split("::"))
    found = []
    for item in rust_items(source, tree):
        if item.kind == "impl" or (*item.module_path, item.name)[-len(wanted):] != wanted:
            continue
        found.append(Scope(name, item.start, item.end, _after_previous_sibling(item.node), item.node))
    return found


def _cpp_scopes(source: bytes, tree: tree_sitter.Tree, name: str) -> list[Scope]:
    from .cpp.items import cpp_items

    wanted = tuple(name.split("::"))
    found = []
    for item in cpp_items(source, tree):
        if (*item.namespace, item.name)[-len(wanted):] == wanted:
            found.append(Scope(name, item.start, item.end, _after_previous_sibling(item.node), item.node))
    return found


def _after_previous_sibling(node: tree_sitter.Node) -> int:
    previous = node.prev_named_sibling
    while previous is not None and previous.type in ("line_comment", "block_comment", "comment", "attribute_item"):
        previous = previous.prev_named_sibling
    if previous is not None:
        return previous.end_byte
    return node.parent.start_byte if node.parent is not None else 0


def item_scopes(language: str, source: bytes, tree: tree_sitter.Tree, name: str) -> list[Scope]:
    """The items named `name` (a `::`-qualified suffix of their path) in one file."""
    if language == RUST:
        return _rust_scopes(source, tree, name)
    if language == CPP:
        return _cpp_scopes(source, tree, name)
    return []
