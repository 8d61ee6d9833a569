"""Uses of deleted Rust members on the plan's result: an enum variant still named (`Enum::Variant`,
an alias of the enum or `Self`, a bare name a `use` brings in) and a struct field still accessed,
initialised or matched, each definite or possible as far as the file shows the enum or struct."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import tree_sitter

from codemods.languages.resolution import DEFINITE, POSSIBLE, Reference
from codemods.languages.rust.members import self_type, variant_imported
from codemods.languages.rust.resolve.receivers import FileTypes, receiver_type
from codemods.languages.rust.resolve.syntax import impl_type
from codemods.parse import RUST, descendants, node_text, parse

# -- enum variants -------------------------------------------------------------------------------


# The key of deleted variants in a plan's DeletedNames (resolved by their enum, never by spelling).
VARIANTS = "rust-variant"


@dataclass(frozen=True)
class DeletedVariant:
    """An enum variant the plan deletes: the file and enum declaring it."""

    path: str
    enum: str
    name: str
    linkable: ClassVar[bool] = False


def _enum_names(tree: tree_sitter.Tree, enum: str) -> set[str]:
    """The names the enum goes by in a file: its own, and those its `use .. Enum as X` give it."""
    names = {enum}
    for node in descendants(tree.root_node, named=True):
        if node.type == "use_as_clause":
            path, alias = node.child_by_field_name("path"), node.child_by_field_name("alias")
            if path is not None and alias is not None and node_text(path).split("::")[-1].strip() == enum:
                names.add(node_text(alias))
    return names


def _names_enum(prefix: tree_sitter.Node | None, place: tree_sitter.Node, names: set[str], enum: str) -> bool:
    """Whether the path `prefix` (before `::Variant`) names the enum: by one of its `names`, or
    `Self` in an impl of it."""
    if prefix is None:
        return False
    last = node_text(prefix).split("::")[-1].split("<", 1)[0].strip()
    return last in names or last == "Self" and self_type(place) == enum


def variant_references(path: str, text: bytes, variants: list[DeletedVariant]) -> list[Reference]:
    """Uses of deleted variants in the file at `path` as the plan leaves it: `Enum::Variant` (the
    enum by its name, an alias of it or `Self` in its impl; in code, imports and macro tokens)
    and a bare `Variant` where a `use Enum::*` / `use Enum::Variant` brings it in. A variant of
    another enum with the same name (its declaration, `Other::Variant`) is no use."""
    found: list[Reference] = []
    tree = None
    for deleted in variants:
        if deleted.name.encode() not in text:
            continue
        tree = tree or parse(text, RUST)
        names = _enum_names(tree, deleted.enum)
        for node in descendants(tree.root_node, named=True):
            if node.type not in ("identifier", "type_identifier") or node_text(node) != deleted.name:
                continue
            parent = node.parent
            if parent is None or parent.type == "enum_variant":
                continue
            if parent.type in ("scoped_identifier", "scoped_type_identifier"):
                use = parent.child_by_field_name("name") == node and _names_enum(
                    parent.child_by_field_name("path"), node, names, deleted.enum
                )
            elif parent.type == "use_list":
                scoped = parent.parent
                use = (
                    scoped is not None
                    and scoped.type == "scoped_use_list"
                    and _names_enum(scoped.child_by_field_name("path"), node, names, deleted.enum)
                )
            elif parent.type == "token_tree":
                before = node.prev_sibling
                owner = before.prev_sibling if before is not None and before.type == "::" else None
                use = owner is not None and (
                    node_text(owner) in names or node_text(owner) == "Self" and self_type(node) == deleted.enum
                )
            else:
                use = variant_imported(node, deleted.enum, deleted.name)
            if use:
                found.append(
                    Reference(
                        path,
                        node.start_byte,
                        node.end_byte,
                        deleted.name,
                        DEFINITE,
                        "variant",
                        f"names the variant {deleted.enum}::{deleted.name} ({deleted.path})",
                    )
                )
    return found


# -- struct fields -------------------------------------------------------------------------------


def _field_uses(tree: tree_sitter.Tree, field: str, inside: tree_sitter.Node | None) -> list[tree_sitter.Node]:
    """Accesses (`x.field`), initialisers (`S { field: .. }`, `S { field }`) and patterns of a
    field name outside the struct's own declaration (`inside`; None: anywhere)."""
    found: list[tree_sitter.Node] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if inside is not None and node.start_byte >= inside.start_byte and node.end_byte <= inside.end_byte:
            continue
        stack.extend(node.named_children)
        accessed = node.child_by_field_name("field") if node.type == "field_expression" else None
        if accessed is not None and node_text(accessed) == field:
            call = node.parent
            if call is None or call.type != "call_expression" or call.child_by_field_name("function") != node:
                found.append(accessed)  # `x.field()` calls a method, not the field
        elif node.type in ("field_initializer", "field_pattern"):
            named = node.child_by_field_name("field") or node.child_by_field_name("name")
            if named is not None and node_text(named) == field:
                found.append(named)
        elif node.type == "shorthand_field_initializer" and node_text(node) == field:
            found.append(node)
        elif node.type == "field_pattern" and node_text(node) == field:
            found.append(node)
    return sorted(found, key=lambda n: n.start_byte)


def _struct_of(node: tree_sitter.Node) -> str | None:
    """The base name of the struct an initialiser or pattern field belongs to (`S` of `S { f }`)."""
    struct: tree_sitter.Node | None = node
    while struct is not None and struct.type not in ("struct_expression", "struct_pattern"):
        struct = struct.parent
    if struct is None:
        return None
    named = struct.child_by_field_name("name") or struct.child_by_field_name("type")
    return node_text(named).split("<", 1)[0].split("::")[-1].strip() if named is not None else None


# The key of deleted fields in a plan's DeletedNames (they are no items code links to from other languages).
FIELDS = "rust-field"


@dataclass(frozen=True)
class DeletedField:
    """A struct field the plan deletes, checked on the plan's result: the file and struct declaring it."""

    path: str
    struct: str
    name: str
    linkable: ClassVar[bool] = False


def field_references(path: str, text: bytes, fields: list[DeletedField]) -> list[Reference]:
    """Uses of deleted fields in the file at `path` as the plan leaves it (`text`: after the
    recipe's rewrites, so a rule that removes the reads lets the field go). A use whose struct
    the code shows (`S { field: .. }`, `Self { .. }` or `self.field` in an `impl S`, a receiver
    of a type this file declares) is definite where that is the field's struct and no use where
    it is another. Elsewhere, in the struct's own file a use is definite (possible where another
    struct there has a field of that name), and in another file a read `x.field` is possible (the
    receiver's type is not known there)."""
    found: list[Reference] = []
    tree = None
    types = None
    for deleted_field in fields:
        if deleted_field.name.encode() not in text:
            continue
        tree = tree or parse(text, RUST)
        types = types or FileTypes(tree.root_node)
        owner = f"{deleted_field.struct}::{deleted_field.name}"
        here = deleted_field.path == path
        shared_name = here and _other_struct_has_field(tree, deleted_field)
        for node in _field_uses(tree, deleted_field.name, None):
            read = node.parent is not None and node.parent.type == "field_expression"
            shown = _shown_struct(node, read, types)
            if shown is not None and shown != deleted_field.struct:
                continue  # another struct's field of the same name
            if shown == deleted_field.struct and (here or not read):
                found.append(
                    Reference(
                        path,
                        node.start_byte,
                        node.end_byte,
                        deleted_field.name,
                        DEFINITE,
                        "field",
                        f"initialises, matches or reads the field {owner}",
                    )
                )
            elif here and not shared_name:
                found.append(
                    Reference(
                        path,
                        node.start_byte,
                        node.end_byte,
                        deleted_field.name,
                        DEFINITE,
                        "field",
                        f"uses the field {owner} in the file declaring {deleted_field.struct}",
                    )
                )
            else:
                found.append(
                    Reference(
                        path,
                        node.start_byte,
                        node.end_byte,
                        deleted_field.name,
                        POSSIBLE,
                        "field read",
                        f"uses a field named {deleted_field.name} of a struct not shown here (deleted: {owner})",
                        receiver_unknown=read,
                    )
                )
    return found


def _shown_struct(node: tree_sitter.Node, read: bool, types: FileTypes) -> str | None:
    """The base name of the struct whose field `node` names, where the code shows it: the `S` of
    `S { .. }` (`Self` is the type of the `impl` around it), or for a read `x.field` the type of
    `x` where `self` or a type this file declares; None where it is not shown."""
    if not read:
        struct = _struct_of(node)
        return impl_type(node) if struct == "Self" else struct
    value = node.parent.child_by_field_name("value") if node.parent is not None else None
    known = receiver_type(value, types) if value is not None else None
    return known[0] if known is not None and known[1] else None


def _other_struct_has_field(tree: tree_sitter.Tree, field: DeletedField) -> bool:
    """Whether a struct of this file other than `field`'s declares a field of its name."""
    for declaration in descendants(tree.root_node, named=True):
        if declaration.type == "field_declaration" and node_text(declaration.child_by_field_name("name")) == field.name:
            struct = declaration.parent.parent if declaration.parent is not None else None
            if (
                struct is not None
                and struct.type in ("struct_item", "union_item")
                and node_text(struct.child_by_field_name("name")) != field.struct
            ):
                return True
    return False
