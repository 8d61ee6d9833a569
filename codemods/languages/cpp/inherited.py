"""Members a base class declares too: deleting a class's redeclaration of a member that one of
its bases (followed through the bases' bases) also declares leaves every use reaching the base's,
so those uses are no dangling references (`class Shape : public Outline { virtual double area()
const = 0; }` where `Outline` declares `area()` as well)."""

from __future__ import annotations

from collections.abc import Callable

from codemods.languages.cpp.deleted import DeletedCppItem, is_member
from codemods.languages.cpp.items import CppItem
from codemods.parse import node_text

_CLASS_KINDS = ("class", "struct")


def base_names(item: CppItem) -> list[str]:
    """The unqualified names of the classes a class item's base clause names (templates' too)."""
    clause = next((c for c in item.node.children if c.type == "base_class_clause"), None)
    names = []
    for base in clause.named_children if clause is not None else ():
        if base.type in ("type_identifier", "qualified_identifier", "template_type"):
            names.append(node_text(base).split("<", 1)[0].split("::")[-1].strip())
    return names


def declared_by_a_base(item: DeletedCppItem, pool: list[CppItem]) -> bool:
    """Whether a base of the deleted member's class declares a member of its name: `pool` holds
    the items of its file and of the files that file includes (a base is declared before use)."""
    if not item.member or not item.visible_namespace or item.kind == "field":
        return False
    classes: dict[str, list[CppItem]] = {}
    for candidate in pool:
        if candidate.kind in _CLASS_KINDS:
            classes.setdefault(candidate.name, []).append(candidate)
    owner = item.visible_namespace[-1]
    pending = [base for cls in classes.get(owner, []) for base in base_names(cls)]
    seen = {owner}
    while pending:
        base = pending.pop()
        if base in seen:
            continue
        seen.add(base)
        if any(m.name == item.name and m.scope[-1:] == (base,) and is_member(m) and m.function for m in pool):
            return True
        pending += [b for cls in classes.get(base, []) for b in base_names(cls)]
    return False


def without_redeclarations(
    items: list[DeletedCppItem],
    includes_of: Callable[[str], set[str]],
    items_of: Callable[[str], list[CppItem]],
    memo: dict[tuple[str, str, tuple[str, ...]], bool],
) -> list[DeletedCppItem]:
    """`items` less the member functions a base of their class declares too (once per plan)."""
    kept = []
    for item in items:
        key = (item.path, item.name, item.visible_namespace)
        if key not in memo:
            memo[key] = item.member and declared_by_a_base(
                item,
                [*items_of(item.path), *(i for header in sorted(includes_of(item.path)) for i in items_of(header))],
            )
        if not memo[key]:
            kept.append(item)
    return kept
