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


def declared_by_a_base(
    item: DeletedCppItem, pool: list[CppItem], gone: frozenset[tuple[str, str, tuple[str, ...] | None]] = frozenset()
) -> bool:
    """Whether a base of the deleted member's class declares a member of its name and signature
    (either unknown: any of the name) that stays: `pool` holds the items of its file and of the
    files that file includes (a base is declared before use); `gone` the (name, class, signature)
    of the member functions the plan deletes, which take no call."""
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
        if any(
            m.name == item.name
            and m.scope[-1:] == (base,)
            and is_member(m)
            and m.function
            and (item.signature is None or m.signature is None or m.signature == item.signature)
            and (m.name, base, m.signature) not in gone
            for m in pool
        ):
            return True
        pending += [b for cls in classes.get(base, []) for b in base_names(cls)]
    return False


def without_redeclarations(
    items: list[DeletedCppItem],
    includes_of: Callable[[str], set[str]],
    items_of: Callable[[str], list[CppItem]],
    memo: dict[tuple[str, str, tuple[str, ...], tuple[str, ...] | None], bool],
) -> list[DeletedCppItem]:
    """`items` less the member functions a base of their class declares too, and keeps (once per
    plan)."""
    gone = frozenset((i.name, i.visible_namespace[-1], i.signature) for i in items if i.member and i.visible_namespace)
    kept = []
    for item in items:
        key = (item.path, item.name, item.visible_namespace, item.signature)
        if key not in memo:
            memo[key] = item.member and declared_by_a_base(
                item,
                [*items_of(item.path), *(i for header in sorted(includes_of(item.path)) for i in items_of(header))],
                gone,
            )
        if not memo[key]:
            kept.append(item)
    return kept
