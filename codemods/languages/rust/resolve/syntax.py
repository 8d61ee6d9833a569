"""Syntax the resolver reads off tree-sitter nodes: visibility, the namespaces a struct takes, path
segments, the leaves of a `use` tree, `#[name = "..."]` attributes, and what encloses a node."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

import tree_sitter

from codemods.languages.rust.crates import join_path
from codemods.languages.rust.resolve.values import TYPE, VALUE
from codemods.parse import node_text


@dataclass(frozen=True)
class UseLeaf:
    """One leaf of a `use` tree: the name it binds (None for a glob), its full path and its node."""

    name: str | None
    segments: tuple[str, ...]
    node: tree_sitter.Node


def visibility_of(node: tree_sitter.Node) -> str:
    """An item's visibility as written, blanks normalized (`pub(crate)`; "" for private)."""
    modifier = next((c for c in node.children if c.type == "visibility_modifier"), None)
    return " ".join(node_text(modifier).split()) if modifier is not None else ""


def struct_namespaces(node: tree_sitter.Node) -> tuple[str, ...]:
    """A struct with named fields is a type; a tuple or unit struct is also a value (its constructor)."""
    body = node.child_by_field_name("body")
    return (TYPE,) if body is not None and body.type == "field_declaration_list" else (TYPE, VALUE)


def path_segments(node: tree_sitter.Node) -> tuple[str, ...] | None:
    """`a::b::c` as ("a", "b", "c"); None for paths we do not follow (`<T as Tr>::x`)."""
    if node.type in ("scoped_identifier", "scoped_type_identifier"):
        path = node.child_by_field_name("path")
        name = node.child_by_field_name("name")
        head = path_segments(path) if path is not None else ("",)
        if head is None or name is None:
            return None
        return (*head, node_text(name))
    if node.type == "generic_type":
        inner = node.child_by_field_name("type")
        return path_segments(inner) if inner is not None else None
    if node.type in ("identifier", "type_identifier", "crate", "self", "super", "metavariable"):
        return (node_text(node),)
    return None


def flatten_use(node: tree_sitter.Node, prefix: tuple[str, ...]) -> list[UseLeaf]:
    """Each leaf of a use tree, with the path from the tree's root."""
    kind = node.type
    if kind == "use_as_clause":
        path_node = node.child_by_field_name("path")
        assert path_node is not None
        path = path_segments(path_node)
        alias = node_text(node.child_by_field_name("alias"))
        return [UseLeaf(alias, (*prefix, *path), node)] if path else []
    if kind == "use_wildcard":
        inner = next((c for c in node.named_children), None)
        path = path_segments(inner) if inner is not None else ()
        return [UseLeaf(None, (*prefix, *(path or ())), node)]
    if kind == "scoped_use_list":
        head_node = node.child_by_field_name("path")
        head = path_segments(head_node) if head_node is not None else ()
        use_list = node.child_by_field_name("list")
        assert use_list is not None
        found: list[UseLeaf] = []
        for child in use_list.named_children:
            found += flatten_use(child, (*prefix, *(head or ())))
        return found
    if kind == "use_list":
        return [leaf for child in node.named_children for leaf in flatten_use(child, prefix)]
    if kind == "self" and prefix:
        return [UseLeaf(prefix[-1], prefix, node)]
    path = path_segments(node)
    if not path:
        return []
    return [UseLeaf(path[-1], (*prefix, *path), node)]


def own_folder(file: str) -> str:
    """The folder a file module's out-of-line children are loaded from (`a/b.rs`: `a/b`; a `mod.rs`
    or crate root: its own folder)."""
    path = PurePosixPath(file)
    if path.name in ("mod.rs", "lib.rs", "main.rs"):
        return str(path.parent)
    return join_path(str(path.parent), path.stem)


def attribute_string(node: tree_sitter.Node, name: bytes) -> str | None:
    """The string of the nearest `#[NAME = "string"]` among the attributes (and comments) directly above `node`."""
    previous = node.prev_named_sibling
    while previous is not None and previous.type in ("attribute_item", "line_comment", "block_comment"):
        if previous.type == "attribute_item":
            match = _attribute_pattern(name).match(previous.text or b"")
            if match:
                return match.group(1).decode("utf-8", "replace")
        previous = previous.prev_named_sibling
    return None


@lru_cache(maxsize=None)
def _attribute_pattern(name: bytes) -> re.Pattern[bytes]:
    return re.compile(rb"#\[\s*" + name + rb'\s*=\s*"([^"]*)"\s*\]')


def inline_modules(node: tree_sitter.Node) -> tuple[str, ...]:
    """The names of the inline `mod` items around `node`, outermost first."""
    names = []
    current = node.parent
    while current is not None:
        if current.type == "mod_item":
            names.append(node_text(current.child_by_field_name("name")))
        current = current.parent
    return tuple(reversed(names))


def enclosing_impl(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `impl` item around `node` (None outside one)."""
    current = node.parent
    while current is not None and current.type != "impl_item":
        current = current.parent
    return current


def impl_type(node: tree_sitter.Node) -> str | None:
    """The base name of the type implemented by the `impl` around `node` (None outside one)."""
    impl = enclosing_impl(node)
    kind = impl.child_by_field_name("type") if impl is not None else None
    while kind is not None and kind.type in ("generic_type", "scoped_type_identifier"):
        kind = kind.child_by_field_name("type") if kind.type == "generic_type" else kind.child_by_field_name("name")
    return node_text(kind) if kind is not None else None


def root_of(node: tree_sitter.Node) -> tree_sitter.Node:
    """The root of the syntax tree holding `node`."""
    while node.parent is not None:
        node = node.parent
    return node
