"""Rust items by kind and qualified name, with the trivia that belongs to them.

In tree-sitter-rust, doc comments and attributes are siblings placed before an
item, not its children; `RustItem.start` is computed to include them.
"""

from __future__ import annotations

import functools

from dataclasses import dataclass
from typing import Callable

import tree_sitter

from codemods.edit.codes import Code
from codemods.edit.values import Finding, line_col, missing_target, shape_mismatch
from codemods.parse import RUST, node_text, once_per_tree, parse
from codemods.edit.item_spans import Deletion, ItemDeletions, last_row, starts_own_line, whole_lines

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
    marked #[test], "bridge_fn" for a function of an extern block inside a
    #[cxx::bridge] module and "bridge_type" for a `type X;` there. For impl blocks `name` is the implemented type and
    `trait` the trait (None for inherent impls). `impl_header` is (self type,
    trait or None) as written, whitespace aside, for an impl block and for each
    item in its body.
    """

    kind: str
    name: str
    module_path: tuple[str, ...]
    node: tree_sitter.Node
    start: int
    attributes: tuple[str, ...]
    trait: str | None = None
    rust_name: str | None = None
    impl_header: tuple[str, str | None] | None = None

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
    """The doc-comment marker node type of a comment node (None: a plain comment): the grammar
    puts it right after the `//` or `/*` token."""
    if comment.child_count < 2:
        return None
    marker = comment.child(1)
    return marker.type if marker is not None and marker.type in _DOC_MARKERS else None


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
    return node_text(inner)


def _attribute(attribute_item: tree_sitter.Node) -> tree_sitter.Node | None:
    return next((c for c in attribute_item.named_children if c.type == "attribute"), None)


def attribute_path(attribute_item: tree_sitter.Node) -> str:
    """The path of an attribute as written: `test`, `cxx::bridge`, `rust_name`."""
    inner = _attribute(attribute_item)
    path = inner.named_children[0] if inner is not None and inner.named_children else None
    return node_text(path)


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


def attribute_string_value(attribute_item: tree_sitter.Node) -> str | None:
    """The string of a `#[path = "string"]` attribute, escapes resolved (None for any other shape)."""
    inner = _attribute(attribute_item)
    value = inner.child_by_field_name("value") if inner is not None else None
    if value is None or value.type not in ("string_literal", "raw_string_literal"):
        return None
    parts = []
    continued = False
    for child in value.named_children:
        text = node_text(child)
        if child.type == "escape_sequence":
            parts.append(_unescape(text))
            continued = text[1:2] in ("\n", "\r")
        elif child.type == "string_content":
            parts.append(text.lstrip() if continued else text)
            continued = False
    return "".join(parts)


def _rust_name(attribute_items: list[tree_sitter.Node]) -> str | None:
    for attribute_item in attribute_items:
        if attribute_path(attribute_item) == "rust_name":
            return attribute_string_value(attribute_item)
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
        return node_text(node)
    return None


def _node_name(node: tree_sitter.Node) -> str | None:
    name = node.child_by_field_name("name")
    if name is None:
        return None
    return node_text(name)


def _is_cxx_bridge(attribute_items: list[tree_sitter.Node]) -> bool:
    return any(attribute_path(a) in ("cxx::bridge", "bridge") for a in attribute_items)


def rust_items(source: bytes, tree: tree_sitter.Tree | None = None) -> list[RustItem]:
    """Every item of a Rust file, nested modules, extern blocks and impls included."""
    return list(_rust_items(source, tree or parse(source, RUST)))


@once_per_tree
def _rust_items(source: bytes, tree: tree_sitter.Tree) -> tuple[RustItem, ...]:
    found: list[RustItem] = []

    def visit(
        container: tree_sitter.Node,
        path: tuple[str, ...],
        in_bridge: bool,
        header: tuple[str, str | None] | None = None,
    ) -> None:
        for node in container.named_children:
            kind = _ITEM_KINDS.get(node.type)
            in_extern_block = in_bridge and container.parent is not None and container.parent.type == "foreign_mod_item"
            if node.type in ("associated_type", "type_item") and in_extern_block:
                kind = "bridge_type"  # `type Sampler;` (or `type Window = crate::Window;`) in a bridge's extern block
            if kind is None:
                continue
            start, attribute_nodes = leading_trivia(source, node)
            attributes = tuple(_attribute_text(a) for a in attribute_nodes)
            trait = None
            own_header = header
            if node.type == "impl_item":
                name = _type_base_name(node.child_by_field_name("type"))
                trait = _type_base_name(node.child_by_field_name("trait"))
                own_header = impl_header(node)
            else:
                name = _node_name(node)
            if kind == "fn" and any(attribute_path(a) in _TEST_ATTRIBUTES for a in attribute_nodes):
                kind = "test"
            if kind == "fn_signature" and in_bridge:
                kind = "bridge_fn"
            found.append(
                RustItem(
                    kind, name or "", path, node, start, attributes, trait, _rust_name(attribute_nodes), own_header
                )
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
                visit(body, inner_path, bridge, own_header if node.type == "impl_item" else None)

    visit(tree.root_node, (), False)
    return tuple(found)


# Kinds a recipe may ask to delete, and the item kinds each one accepts.
DELETABLE_KINDS = {
    "fn": {"fn", "test", "fn_signature"},
    "test": {"test"},
    "struct": {"struct"},
    "enum": {"enum"},
    "type": {"struct", "enum", "union", "type_alias"},
    "trait": {"trait"},
    "const": {"const", "static"},
    "static": {"static"},
    "type_alias": {"type_alias"},
    "impl": {"impl"},
    "trait_method": {"fn", "fn_signature"},
    "mod": {"mod"},
    "bridge_fn": {"bridge_fn"},
    "bridge_type": {"bridge_type"},
    "macro": {"macro"},
}

# Kinds whose deletion also takes every impl block of the type in the file.
_TYPE_KINDS = {"struct", "enum", "union", "type"}


# A name that starts with one of these addresses the file's top level exactly.
_ANCHORS = ("crate", "self")


@functools.lru_cache(maxsize=4096)
def split_path(name: str) -> tuple[str, ...]:
    """`a::<T as Tr<U>>::f` split at the `::` outside angle brackets (cached: a target's name is
    compared with every item of its file)."""
    parts: list[str] = []
    current: list[str] = []
    depth = index = 0
    while index < len(name):
        char = name[index]
        if not current and name.startswith(("impl ", "impl<"), index):
            # An impl header (`impl fmt::Display for io::Error`) is one part to the end: its paths keep their `::`.
            current = list(name[index:])
            break
        if char == "<":
            depth += 1
        elif char == ">" and depth and name[index - 1 : index] != "-":
            depth -= 1
        if depth == 0 and name.startswith("::", index):
            parts.append("".join(current))
            current = []
            index += 2
            continue
        current.append(char)
        index += 1
    parts.append("".join(current))
    return tuple(p.strip() for p in parts)


@functools.lru_cache(maxsize=1024)
def _address(wanted: str) -> tuple[tuple[str, ...], bool]:
    """The parts of a target's name, and whether it is anchored at the file's top level.
    Rust's own spelling `<crate::a::T as Tr>::f` is read as `crate::a::<T as Tr>::f`."""
    parts = split_path(wanted)
    if parts and parts[0].startswith("<") and parts[0].endswith(">"):
        inner = parts[0][1:-1].strip()
        split = _top_level_split(" ".join(inner.split()), "as")
        type_parts = split_path(split[0] if split else inner)
        if len(type_parts) > 1 and type_parts[0] in _ANCHORS:
            segment = f"<{type_parts[-1]} as {split[1]}>" if split else f"<{type_parts[-1]}>"
            parts = (type_parts[0], *type_parts[1:-1], segment, *parts[1:])
    if len(parts) > 1 and parts[0] in _ANCHORS:
        return parts[1:], True
    return parts, False


def _foreign_self_type(item: RustItem) -> bool:
    """Whether the item sits in an impl for a type named through another crate or module
    (`impl From<Error> for io::Error`): a plain name through `Error` does not reach it."""
    if item.impl_header is None:
        return False
    path = without_arguments(item.impl_header[0]).lstrip("&").removeprefix("mut")
    return "::" in path and path.split("::", 1)[0] not in (*_ANCHORS, "Self")


def _squeeze(text: str) -> str:
    return "".join(text.split())


def impl_header(node: tree_sitter.Node) -> tuple[str, str | None]:
    """(self type, trait or None) of an impl block as written, whitespace aside."""
    trait = node.child_by_field_name("trait")
    return (
        _squeeze(node_text(node.child_by_field_name("type"))),
        _squeeze(node_text(trait)) if trait is not None else None,
    )


def _top_level_split(text: str, word: str) -> tuple[str, str] | None:
    """`text` split at the first ` word ` outside angle brackets and parentheses."""
    depth = 0
    for index, char in enumerate(text):
        if char in "<(":
            depth += 1
        elif char in ">)" and depth:
            depth -= 1
        elif depth == 0 and text.startswith(f" {word} ", index):
            return text[:index], text[index + len(word) + 2 :]
    return None


def impl_segment(part: str) -> tuple[str, str | None] | None:
    """The impl a name part spells, (self type, trait or None) whitespace aside: `<T as Tr>`,
    `<T>` (inherent), `impl Tr for T`, `impl T`, `impl<G> Tr for T`; None for a plain name."""
    text = " ".join(part.split())
    if text.startswith("<") and text.endswith(">"):
        inner = text[1:-1].strip()
        split = _top_level_split(inner, "as")
        return (_squeeze(split[0]), _squeeze(split[1])) if split else (_squeeze(inner), None)
    if text.startswith("impl ") or text.startswith("impl<"):
        rest = text[4:]
        if rest.startswith("<"):
            depth = 0
            for index, char in enumerate(rest):
                depth += char == "<"
                depth -= char == ">"
                if depth == 0:
                    rest = rest[index + 1 :]
                    break
        rest = rest.strip()
        split = _top_level_split(rest, "for")
        return (_squeeze(split[1]), _squeeze(split[0])) if split else (_squeeze(rest), None)
    return None


def without_arguments(type_text: str) -> str:
    """`Foo<T>` -> `Foo` (the generic arguments of the outermost path left out)."""
    return type_text.split("<", 1)[0] if type_text.endswith(">") else type_text


def _header_matches(have: tuple[str, str | None] | None, want: tuple[str, str | None]) -> bool:
    if have is None:
        return False
    (have_type, have_trait), (want_type, want_trait) = have, want
    if want_type not in (have_type, without_arguments(have_type)):
        return False
    if want_trait is None or have_trait is None:
        return want_trait is None and have_trait is None
    return _same_trait_path(have_trait, want_trait) or _same_trait_path(without_arguments(have_trait), want_trait)


def _same_trait_path(have: str, want: str) -> bool:
    """Whether two spellings of a trait path may name the same trait: equal, or one the other's
    trailing segments (`Display`, `fmt::Display`, `std::fmt::Display`). Two traits of one name
    in an item's file (`fmt::Write`, `io::Write`) then both match, and the target is refused as
    ambiguous, listing each."""
    have_parts, want_parts = split_path(have.removeprefix("::")), split_path(want.removeprefix("::"))
    shorter = min(len(have_parts), len(want_parts))
    return have_parts[-shorter:] == want_parts[-shorter:]


def _ends_with(have: tuple[str, ...], want: tuple[str, ...], anchored: bool) -> bool:
    return have == want if anchored else have[len(have) - len(want) :] == want if len(want) <= len(have) else False


@functools.lru_cache(maxsize=1024)
def _parsed_name(wanted: str) -> tuple[tuple[str, ...], bool, tuple[tuple[str, str | None] | None, ...]]:
    """A target's name as `matches_name` reads it: its parts, whether it is anchored, and the
    impl each part spells (read once: the name is compared with every item of its file)."""
    parts, anchored = _address(wanted)
    return tuple(parts), anchored, tuple(impl_segment(p) for p in parts)


def matches_name(item: RustItem, wanted: str) -> bool:
    """Whether `wanted` names the item.

    `crate::a::name` (or `self::a::name`) names exactly the item `name` in
    module, type or trait `a` at the file's top level; any other name is the
    trailing part of the item's qualified name (`name`, `a::name`). A part that
    spells an impl (`<Error as From<ErrorImpl>>`, `impl From<ErrorImpl> for
    Error`) names that impl block, and `<...>::name` the item `name` in it.
    """
    parts, anchored, segments = _parsed_name(wanted)
    if not any(segments):
        if not parts or item.name != parts[-1] or _foreign_self_type(item):
            return False
        have = (*item.module_path, item.name)
        return have == parts if anchored else have[-len(parts) :] == parts
    if item.kind == "impl":
        return (
            segments[-1] is not None
            and not any(segments[:-1])
            and _header_matches(item.impl_header, segments[-1])
            and _ends_with(item.module_path, parts[:-1], anchored)
        )
    if len(parts) < 2 or segments[-2] is None or any(segments[:-2]) or segments[-1] is not None:
        return False
    return (
        item.name == parts[-1]
        and _header_matches(item.impl_header, segments[-2])
        and _ends_with(item.module_path[:-1], parts[:-2], anchored)
    )


def _impl_spelling(header: tuple[str, str | None]) -> str:
    return f"<{header[0]} as {header[1]}>" if header[1] else f"<{header[0]}>"


def exact_spelling(item: RustItem) -> str:
    """The anchored name that selects exactly this item of its file (an item of an impl block
    through the impl's self type and trait)."""
    if item.kind == "impl" and item.impl_header is not None:
        return "::".join(("crate", *item.module_path, _impl_spelling(item.impl_header)))
    if item.impl_header is not None and (item.impl_header[1] or _foreign_self_type(item)):
        return "::".join(("crate", *item.module_path[:-1], _impl_spelling(item.impl_header), item.name))
    return "::".join(("crate", *item.module_path, item.name))


def _spelled_like(item: RustItem, wanted: str) -> str:
    """The item's name as a suggestion for `wanted`: anchored if `wanted` is."""
    anchor = wanted.split("::", 1)[0]
    return f"{anchor}::{item.qualified_name}" if _address(wanted)[1] else item.qualified_name


def _in_trait(item: RustItem) -> bool:
    container = item.node.parent.parent if item.node.parent is not None else None
    return container is not None and container.type == "trait_item"


def _required_by_trait(items: list[RustItem], chosen: list[RustItem]) -> str | None:
    """The trait of the file that declares, without a default body, a method `chosen` takes
    out of an impl of that trait (the impl would no longer compile)."""
    for item in chosen:
        if item.impl_header is None or item.kind == "impl" or item.impl_header[1] is None:
            continue
        trait = without_arguments(item.impl_header[1]).split("::")[-1]
        if any(
            i.kind == "fn_signature" and i.name == item.name and _in_trait(i) and i.module_path[-1:] == (trait,)
            for i in items
        ):
            return trait
    return None


def numbered_name(name: str) -> tuple[str, int | None]:
    """A target's name without its `#N` suffix (the Nth, in file order, of what the rest of the
    name selects: an impl block of a shared header, a macro invocation, a match arm), and N (None
    without a suffix)."""
    head, mark, number = name.rpartition("#")
    if mark and number.strip().isdigit() and int(number) > 0:
        return head.rstrip(), int(number)
    return name, None


def _nth_of_spelling(chosen: list[RustItem], ordinal: int) -> list[RustItem]:
    """The `ordinal`th (from 1, in file order) impl block of `chosen`; none when there are fewer."""
    impls = sorted((i for i in chosen if i.kind == "impl"), key=lambda i: i.node.start_byte)
    return impls[ordinal - 1 : ordinal]


def _inside(item: RustItem, container: RustItem) -> bool:
    return container.node.start_byte < item.node.start_byte and item.node.end_byte <= container.node.end_byte


def _impl_listing(source: bytes, items: list[RustItem], impls: list[RustItem]) -> list[str]:
    """Each impl block of `impls` as the name that selects it alone (`crate::<Gauge>#2` where
    several share a header), with its line and first item: `crate::<Gauge>#2 (line 12, fn reset)`."""
    listed = []
    by_spelling: dict[str, int] = {}
    for impl in sorted(impls, key=lambda i: i.node.start_byte):
        spelling = exact_spelling(impl)
        by_spelling[spelling] = by_spelling.get(spelling, 0) + 1
        shared = sum(exact_spelling(i) == spelling for i in impls) > 1
        name = f"{spelling}#{by_spelling[spelling]}" if shared else spelling
        first = next((i for i in items if i.kind != "impl" and _inside(i, impl)), None)
        what = f", {'fn' if first.kind in ('fn', 'test') else first.kind} {first.name}" if first is not None else ""
        listed.append(f"{name} (line {line_col(source, impl.node.start_byte)[0]}{what})")
    return listed


def _impl_candidates(items: list[RustItem], name: str) -> list[RustItem]:
    """Impl blocks a plain name (`Foo`, `crate::a::Foo`) names: every impl of that type."""
    parts, anchored = _address(name)
    return [
        i for i in items if i.kind == "impl" and i.name == parts[-1] and _ends_with(i.module_path, parts[:-1], anchored)
    ]


@dataclass(frozen=True)
class RustTarget:
    """A request to delete one Rust item: kind (a key of DELETABLE_KINDS) and name (see `matches_name`)."""

    kind: str
    name: str


@dataclass(frozen=True)
class DeletedItem:
    """What one target resolved to: the items deleted and the names they made unavailable."""

    target: RustTarget
    items: tuple[RustItem, ...]
    removed_names: tuple[str, ...]


def delete_rust_items(
    path: str,
    source: bytes,
    targets: list[RustTarget],
    origin: str = "delete",
    already_absent: Callable[[], bool] | None = None,
) -> ItemDeletions[Deletion, DeletedItem]:
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
        wanted, ordinal = numbered_name(target.name) if target.kind == "impl" else (target.name, None)
        if target.kind == "impl" and not any(impl_segment(p) for p in split_path(wanted)):
            named = _impl_candidates(items, wanted)
        else:
            named = [i for i in items if (i.kind != "impl" or target.kind == "impl") and matches_name(i, wanted)]
        chosen = [i for i in named if i.kind in accepted]
        if ordinal is not None:
            chosen = _nth_of_spelling(chosen, ordinal)
        if target.kind == "trait_method":
            chosen = [i for i in chosen if _in_trait(i)]
        if named and not chosen:
            findings.append(
                shape_mismatch(path, source, target.kind, target.name, named[0].kind, named[0].node.start_byte)
            )
            continue
        if not chosen:
            candidates = [
                exact_spelling(i)
                if i.impl_header is not None and (i.impl_header[1] or _foreign_self_type(i))
                else _spelled_like(i, target.name)
                for i in items
                if i.kind in accepted
            ]
            findings.append(missing_target(path, target.kind, target.name, candidates, already_absent))
            continue
        paths = {i.module_path for i in chosen}
        if len(paths) > 1:
            line, col = line_col(source, chosen[1].node.start_byte)
            where = ", ".join("::".join(("crate", *p, chosen[0].name)) for p in sorted(paths))
            findings.append(
                Finding(
                    path,
                    line,
                    col,
                    Code.AMBIGUOUS,
                    f"{target.name} matches items in several modules ({where}); name one exactly",
                    symbol=target.name,
                )
            )
            continue
        spellings = sorted({exact_spelling(i) for i in chosen})
        if len(spellings) > 1:
            line, col = line_col(source, chosen[1].node.start_byte)
            listed = ", ".join(_impl_listing(source, items, chosen)) if target.kind == "impl" else ", ".join(spellings)
            findings.append(
                Finding(
                    path,
                    line,
                    col,
                    Code.AMBIGUOUS,
                    f"{target.name} names {len(spellings) if target.kind != 'impl' else len(chosen)} items; "
                    f"name one exactly: " + listed,
                    symbol=target.name,
                )
            )
            continue
        if target.kind == "impl" and len(chosen) > 1:
            line, col = line_col(source, chosen[1].node.start_byte)
            findings.append(
                Finding(
                    path,
                    line,
                    col,
                    Code.AMBIGUOUS,
                    f"{target.name} names {len(chosen)} impl blocks; name one exactly: "
                    + ", ".join(_impl_listing(source, items, chosen)),
                    symbol=target.name,
                )
            )
            continue
        required = _required_by_trait(items, chosen)
        if required is not None:
            line, col = line_col(source, chosen[0].node.start_byte)
            findings.append(
                Finding(
                    path,
                    line,
                    col,
                    Code.REQUIRED_METHOD,
                    f"{target.name}: trait {required} still declares {chosen[0].name} without a "
                    f"default; delete the declaration (kind trait_method) instead; not deleted",
                    symbol=chosen[0].name,
                )
            )
            continue
        if target.kind == "trait_method" or target.kind == "fn" and all(_in_trait(i) for i in chosen):
            trait = chosen[0].module_path[-1]
            chosen += [
                i
                for i in items
                if i.impl_header is not None
                and i.kind != "impl"
                and i.name == chosen[0].name
                and i.impl_header[1] is not None
                and without_arguments(i.impl_header[1]).split("::")[-1] == trait
            ]
        if target.kind in _TYPE_KINDS:
            names = {i.name for i in chosen}
            chosen += [
                i for i in items if i.kind == "impl" and i.name in names and i.module_path == chosen[0].module_path
            ]
        for item in chosen:
            start, end = whole_lines(source, item.start, item.end, (b"//",))
            deletions.append(Deletion(start, end, f"{origin}:{target.kind}:{target.name}"))
        visible = tuple(dict.fromkeys(n for i in chosen if i.kind != "impl" for n in i.visible_names))
        if target.kind == "impl":
            # The impl's methods and constants go with it: their callers are checked as for a method's deletion.
            chosen += [
                i
                for i in items
                if i.kind != "impl"
                and i.impl_header is not None
                and any(_inside(i, impl) for impl in chosen if impl.kind == "impl")
            ]
        resolved.append(DeletedItem(target, tuple(chosen), visible))
    return ItemDeletions(deletions, resolved, findings)
