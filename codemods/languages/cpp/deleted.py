"""The C++ items a plan deletes as the reference check sees them (`DeletedCppItem`): the
namespace code names each through, whether it is local to its translation unit (`static`, an
anonymous namespace, a type a source file defines), a function's arity and signature, and the
overloads of its name that its file keeps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import tree_sitter

from codemods.languages.cpp.items import CppItem, function_declarator, is_forward_declaration
from codemods.languages.cpp.operators import class_name, operator_symbol
from codemods.languages.cpp.signature import argument_fits, arity

HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".cuh")
_TYPE_ITEM_KINDS = ("class", "struct", "union", "enum", "type")


@dataclass(frozen=True)
class DeletedCppItem:
    """A C++ item a plan deletes: the namespace code names it through (anonymous namespaces are
    transparent), whether it is local to its translation unit (`static`, or in an anonymous
    namespace), a function's arity (fewest and most arguments; most None when variadic) and
    signature, the overloads of its name its file keeps, and the recipe's namespace macros (to
    read the files that use it as they were read)."""

    path: str
    name: str
    visible_namespace: tuple[str, ...]
    kind: str
    translation_unit_local: bool
    arity: tuple[int, int | None] | None = None
    namespace_macros: tuple[tuple[str, str], ...] = ()
    signature: tuple[str, ...] | None = None
    survivors: tuple["Overload", ...] = ()
    member: bool = False
    forward: bool = False  # a class declared without its body (`class Klass;`)

    @property
    def linkable(self) -> bool:
        """Whether code of another language (a cxx bridge) can name it: not static or
        anonymous-namespace, and not a data member."""
        return not self.translation_unit_local and self.kind != "field"

    @property
    def operator(self) -> str | None:
        """The operator it overloads (`+`), None for a function that is no operator."""
        return operator_symbol(self.name) if self.signature is not None else None

    @property
    def operands(self) -> tuple[str, ...]:
        """An operator's operand types in order: its class first for a member operator."""
        own = (self.visible_namespace[-1],) if self.member and self.visible_namespace else ()
        return own + (self.signature or ())

    @property
    def search_words(self) -> tuple[str, ...]:
        """The words a file that uses it spells: its name; for an operator, which code applies
        without naming it, the classes of its operands, and its name (`operator+(a, b)`)."""
        if self.operator is None:
            return (self.name,)
        return tuple(dict.fromkeys([*(c for c in map(class_name, self.operands) if c is not None), self.name]))

    def takes(self, arguments: list[str | None]) -> bool:
        """Whether a call with these arguments (their categories, None where not known) can call
        it (any call for a non-function)."""
        return self.arity is None or Overload(self.arity, self.signature or ()).takes(arguments)


@dataclass(frozen=True)
class Overload:
    """One function of a name: how many arguments it takes, its parameter types and, for a
    member function, its class (the first operand of a member operator)."""

    arity: tuple[int, int | None]
    signature: tuple[str, ...]
    member_of: str = ""

    @property
    def operands(self) -> tuple[str, ...]:
        """An operator's operand types: its class first for a member operator."""
        return ((self.member_of,) if self.member_of else ()) + self.signature

    def takes(self, arguments: list[str | None]) -> bool:
        """Whether a call with these arguments (their categories, None where not known) can call it."""
        fewest, most = self.arity
        return (
            fewest <= len(arguments)
            and (most is None or len(arguments) <= most)
            and all(argument_fits(a, p) for a, p in zip(arguments, self.signature))
        )


def _explicit_specialization(node: tree_sitter.Node) -> bool:
    """Whether the item is an explicit specialization (`template <> char* show(const T&)`): the
    primary template it specializes is declared elsewhere, so uses of the name keep resolving."""
    holder = node if node.type == "template_declaration" else node.parent
    if holder is None or holder.type != "template_declaration":
        return False
    parameters = holder.child_by_field_name("parameters")
    return parameters is not None and not parameters.named_children


def deleted_cpp_items(
    path: str, items: list[CppItem], namespace_macros: tuple[tuple[str, str], ...] = (), kept: Sequence[CppItem] = ()
) -> list[DeletedCppItem]:
    """The resolver's view of the items `delete_cpp_items` deleted in one file; `kept` are the
    file's items the plan keeps (the overloads of a deleted function's name among them stay)."""
    found = []
    for item in items:
        node = item.node
        if _explicit_specialization(node):
            continue  # `template <> ...`: its name stays the primary template's, which code still uses
        # A type a source file (no header) defines is its own, and so are the members its body
        # declares: another translation unit that names a type of that name defines or includes
        # its own (unless it includes this file).
        in_body = node.parent is not None and node.parent.type == "field_declaration_list"
        local = (has_internal_linkage(node) or item.kind in _TYPE_ITEM_KINDS or in_body) and not path.endswith(
            HEADER_SUFFIXES
        )
        survivors = tuple(
            dict.fromkeys(
                Overload(
                    function_arity(k.node) or (0, None), k.signature, k.scope[-1] if is_member(k) and k.scope else ""
                )
                for k in kept
                if (k.qualified_name == item.qualified_name or operator_symbol(item.name) and k.name == item.name)
                and k.signature is not None
                and k.signature != item.signature
            )
        )
        found.append(
            DeletedCppItem(
                path,
                item.name,
                item.scope,
                item.kind,
                local,
                function_arity(node) if item.signature is not None else None,
                namespace_macros,
                item.signature,
                survivors,
                is_member(item),
                is_forward_declaration(item),
            )
        )
    return found


def is_member(item: CppItem) -> bool:
    """Whether the item is a member of a class: declared in its body, or a function defined out
    of line with a qualifier (`Money::operator+`)."""
    parent = item.node.parent
    return (parent is not None and parent.type == "field_declaration_list") or (
        item.kind == "function" and bool(item.qualifier)
    )


def function_arity(node: tree_sitter.Node) -> tuple[int, int | None] | None:
    declarator = function_declarator(declaration_of(node).child_by_field_name("declarator"))
    return arity(declarator.child_by_field_name("parameters")) if declarator is not None else None


def has_internal_linkage(node: tree_sitter.Node) -> bool:
    """Whether an item is `static` or in an anonymous namespace: each translation unit that
    reads it has its own."""
    static = any(c.type == "storage_class_specifier" and c.text == b"static" for c in declaration_of(node).children)
    return static or _in_anonymous_namespace(node)


def _in_anonymous_namespace(node: tree_sitter.Node) -> bool:
    current = node.parent
    while current is not None:
        if current.type == "namespace_definition" and current.child_by_field_name("name") is None:
            return True
        current = current.parent
    return False


def declaration_of(node: tree_sitter.Node) -> tree_sitter.Node:
    while node.type == "template_declaration":
        inner = next(
            (
                c
                for c in node.named_children
                if c.type in ("function_definition", "declaration", "field_declaration", "template_declaration")
            ),
            None,
        )
        if inner is None:
            return node
        node = inner
    return node
