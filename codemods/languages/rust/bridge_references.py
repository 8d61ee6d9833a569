"""The cxx bridge entries that name what a plan deletes: an `extern "Rust"` entry exporting a
deleted Rust item, and an `extern "C++"` declaration of a deleted C++ function or type."""

from __future__ import annotations

import re
from typing import Any

import tree_sitter

from codemods.languages.resolution import DEFINITE, Reference
from codemods.languages.rust.items import RustItem, leading_trivia, rust_items
from codemods.languages.rust.resolve import DeletedRustItem, RustResolver
from codemods.parse import RUST, parse

# The C++ item kinds a cxx bridge declares with `type X;` (the others are functions).
_CPP_TYPE_KINDS = frozenset({"class", "struct", "union", "enum", "type"})


def rust_exports(path: str, text: bytes, targets: list[DeletedRustItem], resolver: RustResolver) -> list[Reference]:
    """The `extern "Rust"` entries of a cxx bridge (`type Ledger;`, `fn settle();`) that export a
    deleted Rust item: cxx names it in the bridge module's parent module."""
    names = {t.name for t in targets if t.kind in ("struct", "enum", "union", "type_alias", "fn")}
    if not names or b'extern "Rust"' not in text:
        return []
    found = []
    for item in rust_items(text, parse(text, RUST)):
        if item.kind not in ("bridge_type", "bridge_fn") or item.name not in names or _extern_cpp(item.node):
            continue
        namespace = "type" if item.kind == "bridge_type" else "value"
        exported = resolver.declares_deleted(path, item.module_path[:-1], item.name, namespace, targets)
        if exported is not None:
            found.append(
                Reference(
                    path,
                    item.node.start_byte,
                    item.node.start_byte,
                    item.name,
                    DEFINITE,
                    "cxx bridge export",
                    f'extern "Rust" entry exporting {item.name} ({exported.path}); delete it with kind {item.kind}',
                )
            )
    return found


def cpp_declarations(path: str, text: bytes, foreign: list[Any]) -> list[Reference]:
    """The `extern "C++"` declarations in a Rust file of the deleted C++ items `foreign`: a
    function's `fn`, and a type's `type X;` (where both name a namespace, the same one)."""
    found: list[Reference] = []
    functions = {i.name for i in foreign if getattr(i, "kind", None) not in _CPP_TYPE_KINDS}
    if functions:
        found += [
            Reference(
                path,
                start,
                start,
                name,
                DEFINITE,
                "cxx bridge declaration",
                f'extern "C++" declaration of the C++ function {name}',
            )
            for start, name in _bridge_declarations(text, functions, "bridge_fn")
        ]
    types = {
        i.name: i for i in foreign if getattr(i, "kind", None) in _CPP_TYPE_KINDS and hasattr(i, "visible_namespace")
    }
    if types:
        found += [
            Reference(
                path,
                start,
                start,
                name,
                DEFINITE,
                "cxx bridge type",
                f'extern "C++" `type {name};` declares the C++ type {name} ({types[name].path}); '
                f"delete it with kind bridge_type",
            )
            for start, name in _bridge_declarations(
                text, set(types), "bridge_type", {n: tuple(i.visible_namespace) for n, i in types.items()}
            )
        ]
    return found


def _bridge_declarations(
    source: bytes, names: set[str], kind: str, namespaces: dict[str, tuple[str, ...]] | None = None
) -> list[tuple[int, str]]:
    """(start, name) of cxx bridge declarations (`kind`: bridge_fn or bridge_type) in the extern
    "C++" blocks of a Rust file of the C++ items `names`; where `namespaces` gives a C++ item's
    namespace and the bridge names one (`#[namespace = "..."]`, `#[cxx::bridge(namespace = ...)]`),
    they must agree."""
    if not any(n.encode() in source for n in names):
        return []
    found = []
    for item in rust_items(source, parse(source, RUST)):
        if item.kind != kind or item.name not in names or not _extern_cpp(item.node):
            continue
        declared = _cxx_namespace(source, item)
        if namespaces is not None and declared is not None and declared != namespaces.get(item.name, declared):
            continue
        found.append((item.node.start_byte, item.name))
    return found


def _cxx_namespace(source: bytes, item: RustItem) -> tuple[str, ...] | None:
    """The C++ namespace a cxx bridge entry names (its own `#[namespace = "a::b"]`, else its extern
    block's, else its bridge module's `#[cxx::bridge(namespace = "a::b")]`); None where none is given."""
    node: tree_sitter.Node | None = item.node
    while node is not None:
        if node.type in ("associated_type", "type_item", "function_signature_item", "foreign_mod_item", "mod_item"):
            start, _ = leading_trivia(source, node)
            said = re.search(rb'namespace\s*=\s*"([^"]*)"', source[start : node.start_byte])
            if said is not None:
                text = said.group(1).decode("utf-8", "replace")
                return tuple(p for p in text.split("::") if p)
        node = node.parent
    return None


def _extern_cpp(node: tree_sitter.Node) -> bool:
    current = node.parent
    while current is not None and current.type != "foreign_mod_item":
        current = current.parent
    return current is not None and b'"C++"' in (current.text or b"")[:40]
