"""The values the Rust resolver works with: namespaces, what a module scope declares and binds,
what a path resolves to, and the deleted items it resolves against."""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

VALUE = "value"
TYPE = "type"
MACRO = "macro"

ITEM_NAMESPACES = {
    "function_item": (VALUE,),
    "function_signature_item": (VALUE,),
    "const_item": (VALUE,),
    "static_item": (VALUE,),
    "enum_item": (TYPE,),
    "union_item": (TYPE,),
    "trait_item": (TYPE,),
    "type_item": (TYPE,),
    "mod_item": (TYPE,),
    "macro_definition": (MACRO,),
    "associated_type": (TYPE,),  # declared in module scopes only as a cxx bridge's `type X;`
}

# A module: (crate root file, module path inside the crate).
ModuleKey = tuple[str, tuple[str, ...]]


@dataclass(frozen=True)
class DeletedRustItem:
    """An item the plan deletes, as the resolver identifies it.

    `start` is the byte offset of the item node in the file before the plan
    (its identity); `module` the inline module path inside the file; `owner`
    the implemented type for a method, and `owner_declared_here` whether the
    file declares that type (then a namesake declared elsewhere is another type);
    `left_impl` whether it is a method taken out of a trait impl that the plan keeps
    (the trait must then not require it); `trait` the trait a trait impl's method implements.
    """

    path: str
    module: tuple[str, ...]
    name: str
    kind: str
    start: int
    owner: str | None = None
    visibility: str = ""
    owner_declared_here: bool = False
    left_impl: bool = False
    trait: str = ""  # a trait impl's method: the trait's name (its path's last segment, no generics)
    in_trait: bool = False  # a method the trait itself declares (`owner` is the trait)


@dataclass(frozen=True)
class Def:
    """An item declared in a module scope."""

    file: str
    start: int
    name: str
    kind: str
    namespaces: tuple[str, ...]
    module: ModuleKey
    visibility: str


@dataclass(frozen=True)
class Mod:
    """A module, reached through a path; `definition` is its `mod` item where the tree declares it."""

    key: ModuleKey
    definition: Def | None = None


@dataclass(frozen=True)
class Import:
    """One name (or glob) bound by a `use` declaration, or the name an `extern crate` declaration
    binds (`crate`: then `segments` is the one crate name it loads, `self` for its own crate)."""

    name: str | None
    segments: tuple[str, ...]
    visibility: str
    file: str
    start: int
    text: str
    crate: bool = False


# Outcomes that are not items of the tree.
EXTERNAL = "external"
OTHER = "other"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Outcome:
    """What a path resolves to (a Def, a Mod, an AssociatedItem, or EXTERNAL, OTHER, UNKNOWN), and
    the imports it went through, each as `use ... at file:line`."""

    target: object
    via: tuple[str, ...] = ()

    def through(self, step: str) -> "Outcome":
        return Outcome(self.target, (step, *self.via))


@dataclass
class ModuleScope:
    """What a module (or a block) declares: items, named imports, globs, child module locations."""

    items: dict[str, list[Def]]
    imports: dict[str, list[Import]]
    globs: list[Import]
    children: dict[str, ModuleLocation]


@dataclass(frozen=True)
class AssociatedItem:
    """`Type::name`: a member of a type the tree declares (an associated function, constant or variant)."""

    owner: Def
    name: str


@dataclass(frozen=True)
class ModuleLocation:
    """Where a module's items are: the file, the node holding them (None: the whole file), and the
    folder its out-of-line child modules are loaded from."""

    file: str
    node: tree_sitter.Node | None
    folder: str


@dataclass(frozen=True)
class SourceFile:
    """A file as the resolver reads it: its path, its text and its syntax tree."""

    path: str
    source: bytes
    tree: tree_sitter.Tree


@dataclass(frozen=True)
class Place:
    """A node of a file, where a name is resolved from its lexical scope."""

    file: SourceFile
    node: tree_sitter.Node


@dataclass(frozen=True)
class Spelling:
    """A spelling of deleted items' name in the file being checked: where it is, and the deleted
    items of that name the file may reach."""

    name: str
    start: int
    end: int
    candidates: tuple[DeletedRustItem, ...]
