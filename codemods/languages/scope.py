"""Where a rule applies: a whole file, or one item of it found by qualified name (each
plug-in's `item_scopes` returns these).

Rewrite and rewording rules of a recipe name the item they are scoped to
(`decode_step`, `tests::some_test`, `ns::function`); the
scope is the item with its leading docs and attributes. For prose, the scope
also reaches back over free comments between the previous item and this one
(a section banner above a function belongs to it).
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from codemods.core.registry import LANGUAGES


@dataclass(frozen=True)
class Scope:
    """Bytes [start, end) of one item (start includes its docs and attributes) and the start
    of the free comments above it."""

    name: str
    start: int
    end: int
    comments_start: int
    node: tree_sitter.Node


def after_previous_sibling(node: tree_sitter.Node) -> int:
    """Where the free comments above `node` may start: the end of the item before it (comments
    and attributes skipped), else the start of the enclosing block."""
    skipped = {kind for language in LANGUAGES.values() for kind in language.comment_kinds} | {"attribute_item"}
    previous = node.prev_named_sibling
    while previous is not None and previous.type in skipped:
        previous = previous.prev_named_sibling
    if previous is not None:
        return previous.end_byte
    return node.parent.start_byte if node.parent is not None else 0


def item_scopes(language: str, source: bytes, tree: tree_sitter.Tree, name: str) -> list[Scope]:
    """The items named `name` (a `::`-qualified suffix of their path) in one file (the
    language's `item_scopes`; none for an unregistered language)."""
    registered = LANGUAGES.get(language)
    return registered.operations.item_scopes(source, tree, name) if registered is not None else []
