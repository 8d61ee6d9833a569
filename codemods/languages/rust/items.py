"""Rust items by kind and qualified name, with the trivia that belongs to them.

In tree-sitter-rust, doc comments and attributes are siblings placed before an
item, not its children; `RustItem.start` is computed to include them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import tree_sitter

from codemods.edit.values import Finding, line_col, missing_target, shape_mismatch
from codemods.parse import RUST, once_per_tree, parse
from codemods.edit.item_spans import Deletion, last_row, starts_own_line, whole_lines

# Node types that are items, mapped to the kind names recipes use.
_ITEM_KINDS = {
    "function_item": "fn",
    "function_signature_item": "fn_signature",
    "struct_item": "struct",
    "enum_item": "enum",
    "union_item": "union",
    "type_item": "type_alias",
    "trait_item": "trait",
    "impl_item": "impl",
    "mod_item": "mod",
    "const_item": "const",
    "static_item": "static",
    "macro_definition": "macro",
    "use_declaration": "use",
    "foreign_mod_item": "extern_block",
}

# Containers whose declaration_list holds items we look into.
_CONTAINERS = {"mod_item", "foreign_mod_item", "impl_item", "trait_item"}

_TEST_ATTRIBUTES = {"test", "tokio::test", "rstest"}


@dataclass(frozen=True)
class RustItem:
    """One Rust item located in a file.

    `module_path` is the module path inside the file (e.g. ("tests",) or ("ffi",));
    `kind` is one of the values of _ITEM_KINDS, with "test" for a function
    marked #[test] and "bridge_fn" for an entry of an extern "C++" block inside
    a #[cxx::bridge] module. For impl blocks `name` is the implemented type and
    `trait` the trait (None for inherent impls).
    """

    kind: str
    name: str
    module_path: tuple[str, ...]
    node: tree_sitter.Node
    start: int
    attributes: tuple[str, ...]
    trait: str | None = None
    rust_name: str | None = None

    @property
    def qualified_name(self) -> str:
        return "::".join((*self.module_path, self.name))

    @property
    def end(self) -> int:
        return self.node.end_byte

    @property
    def visible_names(self) -> tuple[str, ...]:
        """The names code elsewhere uses to refer to this item."""
        if self.rust_name and self.rust_name != self.name:
            return (self.name, self.rust_name)
        return (self.name,)


_DOC_MARKERS = ("outer_doc_comment_marker", "inner_doc_comment_marker")


def _doc_marker(comment: tree_sitter.Node) -> str | None:
    """The doc-comment marker node type of a comment node (None: a plain comment)."""
    return next((c.type for c in comment.children if c.type in _DOC_MARKERS), None)


def leading_trivia(source: bytes, node: tree_sitter.Node) -> tuple[int, list[tree_sitter.Node]]:
    """Start offset of `node` with the doc comments, attributes and comments that belong to it,
    and its attribute nodes.

    Read from the syntax tree: every outer attribute and outer doc comment
    before the node is part of it (blank lines between or not), and so is every
    plain comment among them or after them, trailing comments on their lines
    included. Above the first of them, the leading comment block (plain
    comments on their own lines, no blank line between) belongs to it too.
    An inner attribute or inner doc comment (`#![..]`, `//!`) belongs to the
    enclosing module and ends the walk, as does any other node.
    """
    first = node
    attributes: list[tree_sitter.Node] = []
    comments_above: list[tree_sitter.Node] = []  # plain comments above `first`, nearest first
    prev = node.prev_sibling
    while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment"):
        # An outer attribute or outer doc comment is part of the item after it.
        marker = None if prev.type == "attribute_item" else _doc_marker(prev)
        if prev.type == "attribute_item" or marker == "outer_doc_comment_marker":
            if prev.type == "attribute_item":
                attributes.append(prev)
            first = prev
            comments_above = []
        elif marker is None:
            comments_above.append(prev)
        else:
            break
        prev = prev.prev_sibling
    for comment in comments_above:
        if not starts_own_line(source, comment) or first.start_point.row - last_row(comment) > 1:
            break
        first = comment
    attributes.reverse()
    return first.start_byte, attributes


def _attribute_text(attribute_item: tree_sitter.Node) -> str:
    inner = _attribute(attribute_item)
    return inner.text.decode("utf-8", "replace") if inner is not None else ""


def _attribute(attribute_item: tree_sitter.Node) -> tree_sitter.Node | None:
    return next((c for c in attribute_item.named_children if c.type == "attribute"), None)


def _attribute_path(attribute_item: tree_sitter.Node) -> str:
    """The path of an attribute as written: `test`, `cxx::bridge`, `rust_name`."""
    inner = _attribute(attribute_item)
    path = inner.named_children[0] if inner is not None and inner.named_children else None
    return path.text.decode("utf-8", "replace") if path is not None else ""


_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", "0": "\0", "'": "'", '"': '"'}


def _unescape(sequence: str) -> str:
    """The character a Rust escape sequence (`\\n`, `\\x41`, `\\u{1F600}`, a line continuation) stands for."""
    body = sequence[1:]
    if body[:1] in _SIMPLE_ESCAPES and len(body) == 1:
        return _SIMPLE_ESCAPES[body]
    try:
        if body.startswith("x"):
            return chr(int(body[1:], 16))
        if body.startswith("u{"):
            return chr(int(body[2:-1].replace("_", ""), 16))
    except ValueError:
        return sequence  # not a valid escape (rustc rejects the file): kept as written
    return ""  # a backslash before a line break: the break and the next line's indentation are skipped


def _attribute_string_value(attribute_item: tree_sitter.Node) -> str | None:
    """The string of a `#[path = "string"]` attribute, escapes resolved (None for any other shape)."""
    inner = _attribute(attribute_item)
    value = inner.child_by_field_name("value") if inner is not None else None
    if value is None or value.type not in ("string_literal", "raw_string_literal"):
        return None
    parts = []
    continued = False
    for child in value.named_children:
        text = child.text.decode("utf-8", "replace")
        if child.type == "escape_sequence":
            parts.append(_unescape(text))
            continued = text[1:2] in ("\n", "\r")
        elif child.type == "string_content":
            parts.append(text.lstrip() if continued else text)
            continued = False
    return "".join(parts)


def _rust_name(attribute_items: list[tree_sitter.Node]) -> str | None:
    for attribute_item in attribute_items:
        if _attribute_path(attribute_item) == "rust_name":
            return _attribute_string_value(attribute_item)
    return None


def _type_base_name(node: tree_sitter.Node | None) -> str | None:
    """`Foo` for the type nodes `Foo`, `Foo<T>`, `a::b::Foo`, `a::Foo<T>`."""
    if node is None:
        return None
    if node.type == "generic_type":
        return _type_base_name(node.child_by_field_name("type"))
    if node.type == "scoped_type_identifier":
        return _type_base_name(node.child_by_field_name("name"))
    if node.type in ("type_identifier", "identifier"):
        return node.text.decode("utf-8", "replace")
    return None


def _node_name(node: tree_sitter.Node) -> str | None:
    name = node.child_by_field_name("name")
    if name is None:
        return None
    return name.text.decode("utf-8", "replace")


def _is_cxx_bridge(attribute_items: list[tree_sitter.Node]) -> bool:
    return any(_attribute_path(a) in ("cxx::bridge", "bridge") for a in attribute_items)


def rust_items(source: bytes, tree: tree_sitter.Tree | None = None) -> list[RustItem]:
    """Every item of a Rust file, nested modules, extern blocks and impls included."""
    return list(_rust_items(source, tree or parse(source, RUST)))


@once_per_tree
def _rust_items(source: bytes, tree: tree_sitter.Tree) -> tuple[RustItem, ...]:
    found: list[RustItem] = []

    def visit(container: tree_sitter.Node, path: tuple[str, ...], in_bridge: bool) -> None:
        for node in container.named_children:
            kind = _ITEM_KINDS.get(node.type)
            if kind is None:
                continue
            start, attribute_nodes = leading_trivia(source, node)
            attributes = tuple(_attribute_text(a) for a in attribute_nodes)
            trait = None
            if node.type == "impl_item":
                name = _type_base_name(node.child_by_field_name("type"))
                trait = _type_base_name(node.child_by_field_name("trait"))
            else:
                name = _node_name(node)
            if kind == "fn" and any(_attribute_path(a) in _TEST_ATTRIBUTES for a in attribute_nodes):
                kind = "test"
            if kind == "fn_signature" and in_bridge:
                kind = "bridge_fn"
            found.append(
                RustItem(kind, name or "", path, node, start, attributes, trait, _rust_name(attribute_nodes))
            )
            if node.type in _CONTAINERS:
                body = node.child_by_field_name("body")
                if body is None:
                    body = next((c for c in node.named_children if c.type == "declaration_list"), None)
                if body is None:
                    continue
                # Methods are named through their type or trait: `Type::method`.
                inner_path = path + (name,) if name and node.type != "foreign_mod_item" else path
                bridge = in_bridge or (node.type == "mod_item" and _is_cxx_bridge(attribute_nodes))
                visit(body, inner_path, bridge)

    visit(tree.root_node, (), False)
    return tuple(found)


# Kinds a recipe may ask to delete, and the item kinds each one accepts.
DELETABLE_KINDS = {
    "fn": {"fn", "test"},
    "test": {"test"},
    "struct": {"struct"},
    "enum": {"enum"},
    "type": {"struct", "enum", "union", "type_alias"},
    "trait": {"trait"},
    "const": {"const", "static"},
    "mod": {"mod"},
    "bridge_fn": {"bridge_fn"},
    "macro": {"macro"},
}

# Kinds whose deletion also takes every impl block of the type in the file.
_TYPE_KINDS = {"struct", "enum", "union", "type"}


# A name that starts with one of these addresses the file's top level exactly.
_ANCHORS = ("crate", "self")


def _address(wanted: str) -> tuple[tuple[str, ...], bool]:
    """The parts of a target's name, and whether it is anchored at the file's top level."""
    parts = tuple(wanted.split("::"))
    if len(parts) > 1 and parts[0] in _ANCHORS:
        return parts[1:], True
    return parts, False


def _matches_name(item: RustItem, wanted: str) -> bool:
    """Whether `wanted` names the item.

    `crate::a::name` (or `self::a::name`) names exactly the item `name` in
    module, type or trait `a` at the file's top level; any other name is the
    trailing part of the item's qualified name (`name`, `a::name`).
    """
    parts, anchored = _address(wanted)
    have = (*item.module_path, item.name)
    return have == parts if anchored else have[-len(parts) :] == parts


def _spelled_like(item: RustItem, wanted: str) -> str:
    """The item's name as a suggestion for `wanted`: anchored if `wanted` is."""
    anchor = wanted.split("::", 1)[0]
    return f"{anchor}::{item.qualified_name}" if _address(wanted)[1] else item.qualified_name


@dataclass(frozen=True)
class RustTarget:
    """A request to delete one Rust item: kind (a key of DELETABLE_KINDS) and name (see `_matches_name`)."""

    kind: str
    name: str


@dataclass(frozen=True)
class DeletedItem:
    """What one target resolved to: the items deleted and the names they made unavailable."""

    target: RustTarget
    items: tuple[RustItem, ...]
    removed_names: tuple[str, ...]


def delete_rust_items(
    path: str, source: bytes, targets: list[RustTarget], origin: str = "delete",
    already_absent: Callable[[], bool] | None = None,
) -> tuple[list[Deletion], list[DeletedItem], list[Finding]]:
    """Deletions for the requested items of one Rust file, each with its docs and attributes.

    A type target takes all its impl blocks in the file (inherent and trait).
    A name found only as another kind of item is a blocking shape mismatch; a
    bare name found in several modules is ambiguous. A target not found is a
    note when `already_absent()` says the file is already clean, and blocking
    otherwise (see `missing_target`).
    """
    tree = parse(source, RUST)
    items = rust_items(source, tree)
    deletions: list[Deletion] = []
    resolved: list[DeletedItem] = []
    findings: list[Finding] = []
    for target in targets:
        accepted = DELETABLE_KINDS.get(target.kind)
        if accepted is None:
            raise ValueError(f"unknown Rust item kind {target.kind!r}")
        named = [i for i in items if i.kind != "impl" and _matches_name(i, target.name)]
        chosen = [i for i in named if i.kind in accepted]
        if named and not chosen:
            findings.append(shape_mismatch(path, source, target.kind, target.name, named[0].kind,
                                           named[0].node.start_byte))
            continue
        if not chosen:
            candidates = [_spelled_like(i, target.name) for i in items if i.kind in accepted]
            findings.append(missing_target(path, target.kind, target.name, candidates, already_absent))
            continue
        paths = {i.module_path for i in chosen}
        if len(paths) > 1:
            line, col = line_col(source, chosen[1].node.start_byte)
            where = ", ".join("::".join(("crate", *p, chosen[0].name)) for p in sorted(paths))
            findings.append(
                Finding(path, line, col, "ambiguous",
                        f"{target.name} matches items in several modules ({where}); name one exactly",
                        symbol=target.name)
            )
            continue
        if target.kind in _TYPE_KINDS:
            names = {i.name for i in chosen}
            chosen += [i for i in items
                       if i.kind == "impl" and i.name in names and i.module_path == chosen[0].module_path]
        for item in chosen:
            start, end = whole_lines(source, item.start, item.end, (b"//",))
            deletions.append(Deletion(start, end, f"{origin}:{target.kind}:{target.name}"))
        visible = tuple(dict.fromkeys(n for i in chosen if i.kind != "impl" for n in i.visible_names))
        resolved.append(DeletedItem(target, tuple(chosen), visible))
    return deletions, resolved, findings
