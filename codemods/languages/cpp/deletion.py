"""Deleting a recipe's C++ targets from one file (the items of cpp/items.py), with what goes with
them, and refusing the targets that do not choose among overloads, conditional branches or
variables declared together.

A class goes with its members defined out of line (`void Klass::f() {...}`),
and a `#if ... #endif` block or a namespace the deletions leave with no code
goes too; the same named namespace closed and reopened around it is then
joined into one.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Callable, Iterable

import tree_sitter

from codemods.edit.codes import Code
from codemods.edit.values import Finding, closest_names, line_col, missing_target, shape_mismatch
from codemods.parse import error_nodes
from codemods.edit.item_spans import Deletion, ItemDeletions, starts_own_line, whole_lines
from codemods.languages.cpp.items import (
    ALL_OVERLOADS,
    EVERY_BRANCH,
    CppItem,
    CppTarget,
    cpp_items,
    is_annotation_macro_semicolon,
    is_forward_declaration,
    leading_start,
    parsed,
    split_target_name,
)
from codemods.languages.cpp.preprocessor import (
    CONDITIONAL_HEADS,
    NamespaceRegion,
    is_include_guard,
    masked_namespace_macros,
    same_condition,
)
from codemods.languages.cpp.signature import spelled


def _spelled_like(item: CppItem, wanted: str) -> str:
    """The item's name as a suggestion for `wanted`: qualified the way `wanted` is."""
    if wanted.startswith("::"):
        return f"::{item.qualified_name}"
    return item.qualified_name if "::" in split_target_name(wanted)[0] else item.name


def _refusal(path: str, item: CppItem, code: str, message: str) -> Finding:
    row, col = item.node.start_point
    return Finding(path, row + 1, col + 1, code, message, symbol=item.name)


def _overload_refusal(path: str, target: CppTarget, chosen: list[CppItem]) -> Finding | None:
    """A blocking finding when a target without a signature names several overloads, listing the
    target that selects each."""
    signatures = list(dict.fromkeys(i.signature for i in chosen if i.signature is not None))
    if target.signature is not None or len(signatures) < 2:
        return None
    qualified = "::" in target.base_name
    name = target.base_name if qualified else chosen[0].name
    forms = ", ".join(f"'{spelled(name, s)}'" for s in signatures)
    return _refusal(
        path,
        chosen[0],
        Code.AMBIGUOUS_TARGET,
        f"{target.base_name} names {len(signatures)} overloads in {path}; name one by its parameter "
        f"types ({forms}) or all of them ('{name}({ALL_OVERLOADS})')",
    )


def _branch_label(item: CppItem) -> str:
    where = f"#if branch at line {item.branches[-1].line}" if item.branches else "outside any conditional"
    return f'branch = "{item.condition}" ({where}, line {item.node.start_point.row + 1})'


def _in_branch(path: str, target: CppTarget, chosen: list[CppItem]) -> tuple[list[CppItem], Finding | None]:
    """The items of the branch `target.branch` names, or a blocking finding: an item in several
    branches with no `branch` given, or a `branch` that none of them is in."""
    conditions = list(dict.fromkeys(i.condition for i in chosen))
    if target.branch == EVERY_BRANCH or (target.branch is None and len(conditions) < 2):
        return chosen, None
    listed = "; ".join(_branch_label(i) for i in chosen)
    if target.branch is None:
        return [], _refusal(
            path,
            chosen[0],
            Code.AMBIGUOUS_TARGET,
            f"{target.name} is in {len(conditions)} conditional branches of {path}; name one with "
            f'`branch` ({listed}) or all with branch = "{EVERY_BRANCH}"',
        )
    wanted = [
        i
        for i in chosen
        if same_condition(i.condition, target.branch)
        or (i.branches and same_condition(i.branches[-1].condition, target.branch))
    ]
    if not wanted:
        return [], _refusal(
            path,
            chosen[0],
            Code.NO_SUCH_ITEM,
            f"no {target.name} in a branch compiled under {target.branch!r} in {path} ({listed})",
        )
    return wanted, None


def _outermost_around(
    tree: tree_sitter.Tree, deletion: Deletion, accepts: Callable[[tree_sitter.Node], bool]
) -> tree_sitter.Node | None:
    """The outermost node around `deletion` that `accepts` (None if none does)."""
    node = tree.root_node.descendant_for_byte_range(deletion.start, max(deletion.start, deletion.end - 1))
    outermost = None
    while node is not None:
        if accepts(node):
            outermost = node
        node = node.parent
    return outermost


def _emptied_conditionals(
    source: bytes, tree: tree_sitter.Tree, deletions: list[Deletion], origin: str
) -> list[Deletion]:
    """`deletions`, where they leave a `#if ... #endif` block (all its branches) with no code, as
    one deletion of the whole block (an include guard is never emptied)."""

    def deleted(node: tree_sitter.Node) -> bool:
        return any(d.start <= node.start_byte and node.end_byte <= d.end for d in deletions)

    def content(node: tree_sitter.Node) -> list[tree_sitter.Node]:
        skipped = {node.child_by_field_name(f) for f in ("condition", "name", "alternative")}
        found = [c for c in node.named_children if c not in skipped and c.type != "comment"]
        alternative = node.child_by_field_name("alternative")
        return found + (content(alternative) if alternative is not None else [])

    def emptied(node: tree_sitter.Node) -> bool:
        return all(deleted(c) or (c.type in CONDITIONAL_HEADS and emptied(c)) for c in content(node))

    blocks: list[tree_sitter.Node] = []
    for deletion in deletions:
        outermost = _outermost_around(
            tree, deletion, lambda node: node.type in CONDITIONAL_HEADS and not is_include_guard(node) and emptied(node)
        )
        if outermost is not None and outermost not in blocks:
            blocks.append(outermost)
    if not blocks:
        return deletions
    kept = [d for d in deletions if not any(b.start_byte <= d.start and d.end <= b.end_byte + 1 for b in blocks)]
    for block in blocks:
        start, end = whole_lines(source, block.start_byte, block.end_byte, (b"//", b"/*"))
        kept.append(Deletion(start, end, f"{origin}:cpp-emptied-conditional"))
    return kept


def _emptied_namespaces(
    source: bytes, tree: tree_sitter.Tree, deletions: list[Deletion], origin: str
) -> list[Deletion]:
    """`deletions`, where they leave a namespace (named or anonymous) with no code, as one
    deletion of the whole namespace with its comments; where that leaves the same namespace
    closed and reopened around it (`}  // namespace a`, then `namespace a {`), the two are
    joined, a blank line between their contents."""

    def covered(node: tree_sitter.Node) -> bool:
        return any(d.start <= node.start_byte and node.end_byte <= d.end for d in deletions)

    def emptied(namespace: tree_sitter.Node) -> bool:
        body = namespace.child_by_field_name("body")
        content = [c for c in body.named_children if c.type != "comment"] if body is not None else []
        return bool(content) and all(covered(c) or (c.type == "namespace_definition" and emptied(c)) for c in content)

    namespaces: list[tree_sitter.Node] = []
    for deletion in deletions:
        outermost = _outermost_around(
            tree, deletion, lambda node: node.type == "namespace_definition" and emptied(node)
        )
        if outermost is not None and outermost not in namespaces:
            namespaces.append(outermost)
    if not namespaces:
        return deletions
    spans = {
        n.start_byte: whole_lines(source, leading_start(source, n), n.end_byte, (b"//", b"/*")) for n in namespaces
    }
    kept = [d for d in deletions if not any(start <= d.start and d.end <= end for start, end in spans.values())]
    for namespace in namespaces:
        start, end = spans[namespace.start_byte]
        joined = _joined_namespaces(source, namespace, start, end)
        kept.append(
            Deletion(*joined, f"{origin}:cpp-joined-namespace", b"\n")
            if joined is not None
            else Deletion(start, end, f"{origin}:cpp-emptied-namespace")
        )
    return kept


def _emptied_access_sections(
    source: bytes, tree: tree_sitter.Tree, deletions: list[Deletion], origin: str
) -> list[Deletion]:
    """`deletions` and, for each class body section (`private:` up to the next label or the
    body's end) whose every member they delete, the label's own line: no empty `private:` stays
    at the end of a class."""

    def covered(node: tree_sitter.Node) -> bool:
        return any(d.start <= node.start_byte and node.end_byte <= d.end for d in deletions)

    bodies: list[tree_sitter.Node] = []
    for deletion in deletions:
        node = tree.root_node.descendant_for_byte_range(deletion.start, max(deletion.start, deletion.end - 1))
        while node is not None and node.type != "field_declaration_list":
            node = node.parent
        if node is not None and node not in bodies:
            bodies.append(node)
    added: list[Deletion] = []
    for body in bodies:
        label: tree_sitter.Node | None = None
        members: list[tree_sitter.Node] = []
        for child in [*body.named_children, None]:
            if child is None or child.type == "access_specifier":
                if label is not None and members and all(covered(m) for m in members) and not covered(label):
                    line_start = source.rfind(b"\n", 0, label.start_byte) + 1
                    line_end = source.find(b"\n", label.end_byte)
                    rest = source[label.end_byte : line_end if line_end >= 0 else len(source)]
                    if not source[line_start : label.start_byte].strip() and rest.strip() == b":":
                        added.append(
                            Deletion(
                                line_start,
                                line_end + 1 if line_end >= 0 else len(source),
                                f"{origin}:cpp-emptied-access",
                            )
                        )
                label, members = child, []
            elif child.type != "comment":
                members.append(child)
    return deletions + added


def _code_sibling(node: tree_sitter.Node, step: int) -> tree_sitter.Node | None:
    """The named sibling before (`step` -1) or after (+1) `node` that is not a comment."""
    sibling = node.prev_named_sibling if step < 0 else node.next_named_sibling
    while sibling is not None and sibling.type == "comment":
        sibling = sibling.prev_named_sibling if step < 0 else sibling.next_named_sibling
    return sibling


def _joined_namespaces(source: bytes, removed: tree_sitter.Node, start: int, end: int) -> tuple[int, int] | None:
    """The bytes from the closing line of the namespace before `removed` (deleted as [start,
    end)) to the opening line of the one after, when both are the same named namespace and
    nothing but the removed one and comments on those lines lies between; None otherwise."""
    before, after = _code_sibling(removed, -1), _code_sibling(removed, 1)
    if before is None or after is None or before.type != "namespace_definition" or after.type != "namespace_definition":
        return None
    names = [n.child_by_field_name("name") for n in (before, after)]
    if names[0] is None or names[1] is None or names[0].text != names[1].text:
        return None
    bodies = [n.child_by_field_name("body") for n in (before, after)]
    if bodies[0] is None or bodies[1] is None or not bodies[0].children or not bodies[1].children:
        return None
    close, reopen = bodies[0].children[-1], bodies[1].children[0]
    if close.type != "}" or reopen.type != "{" or not starts_own_line(source, close):
        return None
    # From the blank lines above the closing line to those below the opening one: the contents
    # meet with one blank line between them.
    close_start = source.find(b"\n", len(source[: close.start_byte].rstrip())) + 1
    _, reopen_end = whole_lines(source, reopen.start_byte, reopen.end_byte, (b"//", b"/*"))
    reopen_end += len(source[reopen_end:]) - len(source[reopen_end:].lstrip(b" \t\r\n"))
    reopen_end = source.rfind(b"\n", 0, reopen_end) + 1
    closing_line, _, below = source[close.end_byte : start].partition(b"\n")
    if (
        closing_line.strip()
        and not closing_line.strip().startswith((b"//", b"/*"))
        or below.strip()
        or source[end : after.start_byte].strip()
        or reopen_end <= end
    ):
        return None
    return close_start, reopen_end


def _with_parse_error(finding: Finding, source: bytes, macros: tuple[tuple[str, str], ...]) -> Finding:
    """A missing target's finding, saying where the file stops parsing when it does: the items
    from there to where tree-sitter recovers may not have been indexed."""
    if not finding.blocking:
        return finding
    tree = parsed(source, macros)[0]
    errors = [n for n in error_nodes(tree) if not is_annotation_macro_semicolon(source, n)]
    if not errors:
        return finding
    line = errors[0].start_point.row + 1
    return dataclasses.replace(
        finding,
        message=f"{finding.message} (the file does not parse at line {line}: "
        f"the items from there to where the parser recovers may not "
        f"be indexed)",
    )


def _in_guessed_namespace(
    target: CppTarget, items: list[CppItem], regions: tuple[NamespaceRegion, ...]
) -> list[CppItem]:
    """The items of a qualified target's kind, in another namespace than the target's, that sit
    inside a namespace macro whose namespace was read from its name (neither the recipe nor the
    file says what it opens), the closest-named first: the target may name one of them in the
    namespace the macro really opens."""
    wanted = target.base_name.removeprefix("::").split("::")
    if len(wanted) < 2:
        return []
    found = [
        i
        for i in items
        if target.kind in ("any", i.kind)
        and list(i.scope) != wanted[:-1]
        and any(r.guessed and r.start <= i.node.start_byte < r.end for r in regions)
    ]
    closest = closest_names(wanted[-1], [i.name for i in found])
    return sorted(found, key=lambda i: closest.index(i.name) if i.name in closest else len(closest))


def _with_guessed_namespace(
    finding: Finding,
    path: str,
    source: bytes,
    target: CppTarget,
    misread: list[CppItem],
    regions: tuple[NamespaceRegion, ...],
) -> Finding:
    """A missing target's finding, where an item of its name sits inside a namespace macro that
    the file does not define: placed at that item, saying so, and how the recipe's
    `namespace_macros` says what the macro opens (its "did you mean" suggests no namespace read
    from the macro's name)."""
    item = misread[0] if misread else None
    if item is None or not finding.blocking or not closest_names(target.base_name.split("::")[-1], [item.name]):
        return finding
    region = max((r for r in regions if r.guessed and r.start <= item.node.start_byte < r.end), key=lambda r: r.start)
    read_as = f"namespace {'::'.join(region.names)}" if region.names else "no namespace"
    wanted = target.base_name.removeprefix("::").split("::")[:-1]
    inner = list(item.scope[len(region.names) :]) if item.scope[: len(region.names)] == region.names else None
    opens = "..."
    if inner is not None and len(wanted) > len(inner) and wanted[len(wanted) - len(inner) :] == inner:
        opens = "::".join(wanted[: len(wanted) - len(inner)])
    note = (
        f"; {item.spelled()} is there, inside {region.macro}, which the file does not define: it "
        f"was read as opening {read_as} (from the macro's name); if it opens another, say so in the "
        f'recipe\'s namespace_macros (docs/recipes.md): namespace_macros = {{ {region.macro} = "{opens}" }}'
    )
    line, col = line_col(source, item.node.start_byte)
    return dataclasses.replace(finding, line=line, col=col, message=finding.message + note)


def _in_class_declarations(items: list[CppItem], chosen: list[CppItem]) -> list[CppItem]:
    """The declarations in their class's body of the out-of-line member definitions in `chosen`
    (same name, class and signature), which go with them."""
    return [
        d
        for i in chosen
        if i.kind == "function" and i.qualifier
        for d in items
        if d.kind == "declaration"
        and not d.qualifier
        and d.qualified_name == i.qualified_name
        and d.signature == i.signature
        and _in_class_body(d.node)
    ]


def _in_class_body(node: tree_sitter.Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "field_declaration_list"


def delete_cpp_items(
    path: str,
    source: bytes,
    targets: list[CppTarget],
    origin: str = "delete",
    already_absent: Callable[[], bool] | None = None,
    namespace_macros: Iterable[tuple[str, str]] = (),
) -> ItemDeletions[Deletion, CppItem]:
    """Deletions for the requested items of one C++ file.

    Returns the deletions, the items deleted, and findings: a name found only
    as another kind is a blocking shape mismatch; a name with several
    overloads, or in several conditional branches, that the target does not
    choose among is refused listing the choices; a variable declared with
    others (`int a, b;`) is refused; a target not found is a note when
    `already_absent()` says the file is already clean, and blocking otherwise
    (see `missing_target`). An out-of-line member definition goes with its
    declaration in the class body, and a `#if ... #endif` block left with no
    code goes too.
    """
    macros = tuple(namespace_macros)
    items = cpp_items(source, namespace_macros=macros)
    masked = masked_namespace_macros(source, macros)[0]
    deletions: list[Deletion] = []
    deleted: list[CppItem] = []
    findings: list[Finding] = []
    pending: list[tuple[list[CppItem], Callable[[CppItem], str]]] = []
    for target in targets:
        named = [i for i in items if target.selects(i)]
        chosen = [i for i in named if target.kind in ("any", i.kind)]
        if named and not chosen:
            findings.append(
                shape_mismatch(path, source, target.kind, target.name, named[0].kind, named[0].node.start_byte)
            )
            continue
        if not chosen:
            regions = masked_namespace_macros(source, macros)[1]
            misread = _in_guessed_namespace(target, items, regions)
            candidates = [
                _spelled_like(i, target.name) if target.signature is None else i.spelled("::" in target.base_name)
                for i in items
                if target.kind in ("any", i.kind) and i not in misread
            ]
            finding = missing_target(path, target.kind, target.name, candidates, already_absent)
            findings.append(
                _with_parse_error(
                    _with_guessed_namespace(finding, path, source, target, misread, regions), source, macros
                )
            )
            continue
        refusal = _overload_refusal(path, target, chosen)
        if refusal is None:
            chosen, refusal = _in_branch(path, target, chosen)
        shared = next((i for i in chosen if i.names > 1), None)
        if refusal is None and shared is not None:
            refusal = _refusal(
                path,
                shared,
                Code.SHAPE_MISMATCH,
                f"{shared.name} is declared together with other variables in one declaration; "
                f"split the declaration first",
            )
        if refusal is not None:
            findings.append(refusal)
            continue
        chosen += [d for d in _in_class_declarations(items, chosen) if d not in chosen]
        chosen += [m for m in out_of_line_members(items, member_owners(chosen)) if m not in chosen]
        pending.append((chosen, functools.partial(_item_origin, origin, target.name)))
        deleted += chosen
    going = {id(i) for i in deleted}
    for chosen_items, item_origin in pending:
        deletions += _item_deletions(
            masked, chosen_items, item_origin, lambda i: _start_leaving_group_comment(masked, i, items, going)
        )
    return ItemDeletions(_settled(source, masked, macros, deletions, origin), deleted, findings)


def _start_leaving_group_comment(source: bytes, item: CppItem, items: list[CppItem], going: set[int]) -> int:
    """Where an item's deletion starts: with its comments (`item.start`), except where they head
    a group of overloads it opens: the next item, on the very next line, declares the same name in
    the same scope and stays; the comments then describe it too and stay with it."""
    if not item.function or item.start >= item.node.start_byte:
        return item.start
    following = [
        i
        for i in items
        if i.function and i.name == item.name and i.scope == item.scope and i.node.start_byte >= item.end
    ]
    after = min(following, key=lambda i: i.start, default=None)
    if after is None or id(after) in going:
        return item.start
    between = source[item.end : after.start]
    if between.count(b"\n") > 1 or between.strip():
        return item.start
    last_comment = None
    previous = item.node.prev_sibling
    while previous is not None and previous.start_byte >= item.start:
        if previous.type == "comment":
            last_comment = max(last_comment or 0, previous.end_byte)
        previous = previous.prev_sibling
    return item.start if last_comment is None else source.find(b"\n", last_comment) + 1


def member_owners(items: list[CppItem]) -> list[tuple[str, ...]]:
    """The qualified names, as tuples, of the classes, structs, unions (with a body: a forward
    declaration `class Klass;` declares no members) and data members among `items`: what
    out-of-line definitions belong to."""
    return [
        (*i.scope, i.name)
        for i in items
        if i.kind == "field" or i.kind in ("class", "struct", "union") and not is_forward_declaration(i)
    ]


def out_of_line_members(items: list[CppItem], owners: list[tuple[str, ...]]) -> list[CppItem]:
    """The items of a file defined out of line as members of `owners` (classes and data members,
    qualified names as tuples): `void Klass::f() {...}`, `int Klass::count = 0;`,
    `class Klass::Inner {...};` for `Klass`, `int Klass::count = 0;` for `Klass::count`."""
    return [i for i in items if i.qualifier and any(i.scope[: len(o)] == o or (*i.scope, i.name) == o for o in owners)]


def _item_origin(origin: str, name: str, item: CppItem) -> str:
    """The origin of one item's deletion: the recipe's, the item's kind and the target's name."""
    return f"{origin}:cpp-{item.kind}:{name}"


def _item_deletions(
    masked: bytes, items: list[CppItem], origin: Callable[[CppItem], str], start: Callable[[CppItem], int] | None = None
) -> list[Deletion]:
    """The whole lines of each item (read with the macros blanked out: an export macro before a
    declaration goes with it) from `start` (default: with its comments), with the origin `origin` gives it."""
    return [
        Deletion(*whole_lines(masked, start(i) if start is not None else i.start, i.end, (b"//", b"/*")), origin(i))
        for i in items
    ]


def _settled(
    source: bytes, masked: bytes, macros: tuple[tuple[str, str], ...], deletions: list[Deletion], origin: str
) -> list[Deletion]:
    """`deletions` with the conditionals and namespaces they leave empty."""
    if not deletions:
        return deletions
    tree = parsed(source, macros)[0]
    deletions = _emptied_conditionals(source, tree, deletions, origin)
    deletions = _emptied_access_sections(source, tree, deletions, origin)
    deletions = _emptied_namespaces(masked, tree, deletions, origin)
    return _emptied_conditionals(source, tree, deletions, origin)


def delete_members_of(
    source: bytes, owners: list[tuple[str, ...]], origin: str, namespace_macros: Iterable[tuple[str, str]] = ()
) -> tuple[list[Deletion], list[CppItem]]:
    """Deletions of the out-of-line definitions in one file of members of the deleted `owners`
    (classes and data members, qualified names as tuples: `out_of_line_members`), with the
    conditionals and namespaces they leave empty; and the items deleted."""
    macros = tuple(namespace_macros)
    members = out_of_line_members(cpp_items(source, namespace_macros=macros), owners)
    masked = masked_namespace_macros(source, macros)[0]
    deletions = _item_deletions(masked, members, lambda _: f"{origin}:cpp-out-of-line-member")
    return _settled(source, masked, macros, deletions, origin), members
