"""C++'s operations for the language registry (languages/registry.py): deleting items, rule scopes,
identifiers and parse errors of C++, CUDA and Metal files."""

from __future__ import annotations

import tree_sitter

from codemods.edit.values import Edit, Finding
from codemods.languages.registry import CPP, LANGUAGES
from codemods.parse import error_nodes, identifier_hits
from codemods.languages.resolution import Reference
from codemods.languages.scope import Scope, after_previous_sibling
from codemods.edit.item_spans import deletion_edits
from codemods.languages.cpp.items import CppTarget, cpp_items, delete_cpp_items, is_annotation_macro_semicolon
from codemods.languages.cpp.resolve import cpp_references, deleted_cpp_items


def parse_errors(source: bytes, tree: tree_sitter.Tree) -> list[tuple[int, int]]:
    """Syntax errors, less the `;` tree-sitter-cpp misses after an annotation macro line."""
    return [(n.start_byte, n.end_byte) for n in error_nodes(tree) if not is_annotation_macro_semicolon(source, n)]


def identifiers(source: bytes, tree: tree_sitter.Tree, hits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    return identifier_hits(tree, hits, LANGUAGES[CPP].identifier_kinds)


def delete_items(path: str, source: bytes, targets: list, origin: str, absent, deleted) -> tuple[list[Edit], list[Finding]]:
    cpp_targets = [CppTarget(t.kind, t.name) for t in targets]
    found, names, findings = delete_cpp_items(path, source, cpp_targets, origin, absent)
    deleted.add(CPP, deleted_cpp_items(path, source, cpp_targets, names))
    return deletion_edits(path, source, found), findings


def item_scopes(source: bytes, tree: tree_sitter.Tree, name: str) -> list[Scope]:
    wanted = tuple(name.split("::"))
    return [Scope(name, item.start, item.end, after_previous_sibling(item.node), item.node)
            for item in cpp_items(source, tree) if (*item.namespace, item.name)[-len(wanted):] == wanted]


def references(path: str, text: bytes, deleted, shared: dict) -> tuple[list[Reference], list[str]]:
    """Uses in a C++ file that resolve, or may resolve, to a deleted C++ function."""
    return cpp_references(path, text, deleted.of(CPP)), []


def format_item(text: str, indent: str, root, path: str) -> None:
    """No formatter is registered for this language: generated text is inserted as written."""
    return None
