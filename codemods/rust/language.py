"""Rust's operations for the language registry (_languages.py): deleting items, rule scopes,
identifiers and parse errors of .rs files."""

from __future__ import annotations

import tree_sitter

from .._edit import Edit, Finding
from .._languages import LANGUAGES, RUST
from .._parse import error_nodes, identifier_hits
from .._scope import Scope, after_previous_sibling
from .._spans import deletion_edits
from .items import RustTarget, delete_rust_items, rust_items
from .resolve import deleted_rust_items


def parse_errors(source: bytes, tree: tree_sitter.Tree) -> list[tuple[int, int]]:
    return [(n.start_byte, n.end_byte) for n in error_nodes(tree)]


def identifiers(source: bytes, tree: tree_sitter.Tree, hits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    return identifier_hits(tree, hits, LANGUAGES[RUST].identifier_kinds)


def delete_items(path: str, source: bytes, targets: list, origin: str, absent, deleted) -> tuple[list[Edit], list[Finding]]:
    found, resolved, findings = delete_rust_items(path, source, [RustTarget(t.kind, t.name) for t in targets],
                                                  origin, absent)
    deleted.rust += deleted_rust_items(path, resolved)
    return deletion_edits(path, source, found), findings


def item_scopes(source: bytes, tree: tree_sitter.Tree, name: str) -> list[Scope]:
    wanted = tuple(name.split("::"))
    return [Scope(name, item.start, item.end, after_previous_sibling(item.node), item.node)
            for item in rust_items(source, tree)
            if item.kind != "impl" and (*item.module_path, item.name)[-len(wanted):] == wanted]
