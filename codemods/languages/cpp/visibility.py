"""What a C++ file sees of a deleted item's name: its own `static` functions of the name (which
hide a deleted one of a header it does not include), another copy of the item in files unrelated
to its own by includes (a tree of several programs), and a name that an unknown macro left in a
function definition's return type (a type, never a use)."""

from __future__ import annotations

from collections.abc import Callable, Collection

import tree_sitter

from codemods.languages.cpp.deleted import (
    HEADER_SUFFIXES,
    DeletedCppItem,
    Overload,
    function_arity,
    has_internal_linkage,
    is_member,
)
from codemods.languages.cpp.items import CppItem


def own_internal_functions(
    file_items: list[CppItem], names: Collection[str]
) -> dict[tuple[str, tuple[str, ...]], list[Overload]]:
    """The file's own `static` and anonymous-namespace functions (no members) of the names
    `names`, as overloads by (name, namespace)."""
    found: dict[tuple[str, tuple[str, ...]], list[Overload]] = {}
    for item in file_items:
        if (
            item.name in names
            and item.signature is not None
            and not is_member(item)
            and has_internal_linkage(item.node)
        ):
            found.setdefault((item.name, item.scope), []).append(
                Overload(function_arity(item.node) or (0, None), item.signature)
            )
    return found


def in_return_type(node: tree_sitter.Node) -> bool:
    """Whether `node` lies in an error node of a function definition before its declarator: the
    specifiers and return type, which an unknown macro there kept from parsing as a type."""
    error = node.parent
    if error is None or error.type != "ERROR" or error.parent is None or error.parent.type != "function_definition":
        return False
    declarator = error.parent.child_by_field_name("declarator")
    return declarator is not None and error.end_byte <= declarator.start_byte


def shadowed(
    item: DeletedCppItem,
    path: str,
    own: dict[tuple[str, tuple[str, ...]], list[Overload]],
    arguments: list[str | None] | None,
    included: Callable[[], Collection[str]],
) -> bool:
    """Whether a name the file's own `static` (or anonymous-namespace) function of the deleted
    item's name and namespace takes names that one: the deleted item is of another file, which
    this one does not include (an amalgamated header that defines its own copy)."""
    overloads = own.get((item.name, item.visible_namespace), [])
    return (
        bool(overloads)
        and item.path != path
        and not item.member
        and any(arguments is None or o.takes(arguments) for o in overloads)
        and item.path not in included()
    )


def another_copy(
    item: DeletedCppItem,
    path: str,
    file_items: list[CppItem],
    included: Callable[[], Collection[str]],
    includes_of: Callable[[str], Collection[str]],
    items_of: Callable[[str], list[CppItem]],
) -> bool:
    """Whether a name in the file at `path` names another item of the deleted one's name and
    namespace that the file sees (in itself or a file it includes): for a deleted forward
    declaration, any other declaration of its class; otherwise, where the file does not include
    the deleted item's file, one in a file unrelated to that by includes (neither includes the
    other): another copy (a tree holding two programs, each with its own header). That is judged
    only where the deleted item's file shows what it includes: a header, or a file whose quoted
    includes the tree holds (a definition's own header declaring it is then one of them)."""
    if item.forward:
        # A forward declaration deleted leaves the class: any other declaration of it the file
        # sees (its definition, or another forward declaration) is what the name names.
        return any(
            i.name == item.name and i.scope == item.visible_namespace
            for other in (path, *sorted(included()))
            if other != item.path
            for i in (file_items if other == path else items_of(other))
        )
    if item.member or item.path == path or item.path in included():
        return False
    own = includes_of(item.path)
    if not own and not item.path.endswith(HEADER_SUFFIXES):
        return False
    for other in (path, *sorted(included())):
        if other in own or item.path in includes_of(other):
            continue
        found = file_items if other == path else items_of(other)
        if any(i.name == item.name and i.scope == item.visible_namespace for i in found):
            return True
    return False
