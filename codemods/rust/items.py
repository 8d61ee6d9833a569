"""Rust items by kind and qualified name, with the trivia that belongs to them.

In tree-sitter-rust, doc comments and attributes are siblings placed before an
item, not its children; `RustItem.start` is computed to include them.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from .._edit import Finding, line_col, target_not_deleted
from .._parse import RUST, parse
from .._spans import Deletion, last_row, starts_own_line, whole_lines

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

    `path` is the module path inside the file (e.g. ("tests",) or ("ffi",));
    `kind` is one of the values of _ITEM_KINDS, with "test" for a function
    marked #[test] and "bridge_fn" for an entry of an extern "C++" block inside
    a #[cxx::bridge] module. For impl blocks `name` is the implemented type and
    `trait` the trait (None for inherent impls).
    """

    kind: str
    name: str
    path: tuple[str, ...]
    node: tree_sitter.Node
    start: int
    attributes: tuple[str, ...]
    trait: str | None = None
    rust_name: str | None = None

    @property
    def qualified_name(self) -> str:
        return "::".join((*self.path, self.name))

    @property
    def end(self) -> int:
        return self.node.end_byte

    @property
    def visible_names(self) -> tuple[str, ...]:
        """The names code elsewhere uses to refer to this item."""
        if self.rust_name and self.rust_name != self.name:
            return (self.name, self.rust_name)
        return (self.name,)


def _is_outer_doc(node: tree_sitter.Node) -> bool:
    return any(c.type in ("outer_doc_comment_marker",) for c in node.children)


def _is_inner_doc(node: tree_sitter.Node) -> bool:
    return any(c.type == "inner_doc_comment_marker" for c in node.children)


def leading_trivia(source: bytes, node: tree_sitter.Node) -> tuple[int, list[tree_sitter.Node]]:
    """Start offset of `node` with the doc comments, attributes and comments that belong to it.

    Walks back over attribute items and comments that sit on their own lines
    with no blank line in between. Inner doc comments (//!) belong to the
    enclosing module and stop the walk; so does a blank line.
    """
    start = node.start_byte
    attributes: list[tree_sitter.Node] = []
    current = node
    prev = node.prev_sibling
    while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment"):
        if current.start_point.row - last_row(prev) > 1:
            break
        if prev.type != "attribute_item" and (_is_inner_doc(prev) or not starts_own_line(source, prev)):
            break
        if prev.type == "attribute_item":
            attributes.append(prev)
        start = prev.start_byte
        current = prev
        prev = prev.prev_sibling
    attributes.reverse()
    return start, attributes


def _attribute_text(source: bytes, attribute_item: tree_sitter.Node) -> str:
    inner = next((c for c in attribute_item.named_children if c.type == "attribute"), None)
    if inner is None:
        return ""
    return source[inner.start_byte : inner.end_byte].decode("utf-8", "replace")


def _attribute_path(text: str) -> str:
    for sep in ("(", "=", " "):
        text = text.split(sep, 1)[0]
    return text.strip()


def _rust_name(attributes: tuple[str, ...]) -> str | None:
    for text in attributes:
        if _attribute_path(text) == "rust_name" and "=" in text:
            return text.split("=", 1)[1].strip().strip('"')
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


def _is_cxx_bridge(attributes: tuple[str, ...]) -> bool:
    return any(_attribute_path(a) in ("cxx::bridge", "bridge") for a in attributes)


def rust_items(source: bytes, tree: tree_sitter.Tree | None = None) -> list[RustItem]:
    """Every item of a Rust file, nested modules, extern blocks and impls included."""
    tree = tree or parse(source, RUST)
    found: list[RustItem] = []

    def visit(container: tree_sitter.Node, path: tuple[str, ...], in_bridge: bool) -> None:
        for node in container.named_children:
            kind = _ITEM_KINDS.get(node.type)
            if kind is None:
                continue
            start, attribute_nodes = leading_trivia(source, node)
            attributes = tuple(_attribute_text(source, a) for a in attribute_nodes)
            trait = None
            if node.type == "impl_item":
                name = _type_base_name(node.child_by_field_name("type"))
                trait = _type_base_name(node.child_by_field_name("trait"))
            else:
                name = _node_name(node)
            if kind == "fn" and any(_attribute_path(a) in _TEST_ATTRIBUTES for a in attributes):
                kind = "test"
            if kind == "fn_signature" and in_bridge:
                kind = "bridge_fn"
            found.append(
                RustItem(kind, name or "", path, node, start, attributes, trait, _rust_name(attributes))
            )
            if node.type in _CONTAINERS:
                body = node.child_by_field_name("body")
                if body is None:
                    body = next((c for c in node.named_children if c.type == "declaration_list"), None)
                if body is None:
                    continue
                # Methods are named through their type or trait: `Type::method`.
                inner_path = path + (name,) if name and node.type != "foreign_mod_item" else path
                bridge = in_bridge or (node.type == "mod_item" and _is_cxx_bridge(attributes))
                visit(body, inner_path, bridge)

    visit(tree.root_node, (), False)
    return found


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


def _matches_name(item: RustItem, wanted: str) -> bool:
    """Whether the item's qualified name ends with the wanted `a::b::name` path."""
    wanted_parts = tuple(wanted.split("::"))
    have = (*item.path, item.name)
    return have[-len(wanted_parts) :] == wanted_parts


@dataclass(frozen=True)
class RustTarget:
    """A request to delete one Rust item: kind (a key of DELETABLE_KINDS) and qualified name."""

    kind: str
    name: str


@dataclass(frozen=True)
class DeletedItem:
    """What one target resolved to: the items deleted and the names they made unavailable."""

    target: RustTarget
    items: tuple[RustItem, ...]
    names: tuple[str, ...]


def delete_rust_items(
    path: str, source: bytes, targets: list[RustTarget], rule: str = "delete"
) -> tuple[list[Deletion], list[DeletedItem], list[Finding]]:
    """Deletions for the requested items of one Rust file, each with its docs and attributes.

    A type target takes all its impl blocks in the file (inherent and trait).
    A target not found is a note; a name found only as another kind of item is
    a blocking shape mismatch.
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
        if not chosen:
            other = named[0] if named else None
            findings.append(target_not_deleted(path, source, target.kind, target.name,
                                               other.kind if other else None, other.node.start_byte if other else 0))
            continue
        paths = {i.path for i in chosen}
        if len(paths) > 1:
            line, col = line_col(source, chosen[1].node.start_byte)
            where = ", ".join("::".join((*p, target.name.split("::")[-1])) for p in sorted(paths))
            findings.append(
                Finding(path, line, col, "ambiguous",
                        f"{target.name} matches items in several modules ({where}); qualify the name",
                        symbol=target.name)
            )
            continue
        if target.kind in _TYPE_KINDS:
            names = {i.name for i in chosen}
            chosen += [i for i in items if i.kind == "impl" and i.name in names and i.path == chosen[0].path]
        for item in chosen:
            start, end = whole_lines(source, item.start, item.end, (b"//",))
            deletions.append(Deletion(start, end, f"{rule}:{target.kind}:{target.name}"))
        visible = tuple(dict.fromkeys(n for i in chosen if i.kind != "impl" for n in i.visible_names))
        resolved.append(DeletedItem(target, tuple(chosen), visible))
    return deletions, resolved, findings
