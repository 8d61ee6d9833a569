"""C++ function definitions and declarations by name, with what belongs to them.

Attributes (`[[nodiscard]]`, `__attribute__((...))`) are part of a
declaration's node. An annotation macro on its own line before it
(`MLX_DEPRECATED("...")`, no semicolon) is a sibling that tree-sitter-cpp
reads as an expression statement missing its `;`: it belongs to the item,
with the comments among or after such lines. Above them, the `//` or `/* */`
comments on their own lines directly above (no blank line between) belong to
the item too. Namespaces, `extern "C"` blocks and templates are looked into;
everything else (classes, anonymous namespaces' neighbours) is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import tree_sitter

from codemods.edit.values import Finding, missing_target, shape_mismatch
from codemods.parse import CPP, once_per_tree, parse
from codemods.edit.item_spans import Deletion, last_row, starts_own_line, whole_lines

# Declarator wrappers to look through when finding a function's name.
_DECLARATOR_WRAPPERS = {"pointer_declarator", "reference_declarator", "parenthesized_declarator"}


@dataclass(frozen=True)
class CppItem:
    """A function definition ("function") or declaration ("declaration") in a C++ file.

    `scope` is where the name lives: the enclosing named namespaces (an
    anonymous namespace or `extern "C"` block adds nothing), then the
    qualifier of a qualified declarator (`int ns::Klass::f()`).
    """

    kind: str
    name: str
    scope: tuple[str, ...]
    node: tree_sitter.Node
    start: int

    @property
    def qualified_name(self) -> str:
        return "::".join((*self.scope, self.name))

    @property
    def end(self) -> int:
        return self.node.end_byte


@dataclass(frozen=True)
class CppTarget:
    """A request to delete C++ functions named `name`: kind "function", "declaration" or "any".

    A bare name selects every function of that name (all overloads, any
    namespace); a qualified one, `ns::name` or `::name`, exactly those whose
    qualified name it is.
    """

    kind: str
    name: str

    def selects(self, item: CppItem) -> bool:
        if "::" not in self.name:
            return item.name == self.name
        return item.qualified_name == self.name.removeprefix("::")


def _spelled_like(item: CppItem, wanted: str) -> str:
    """The item's name as a suggestion for `wanted`: qualified the way `wanted` is."""
    if wanted.startswith("::"):
        return f"::{item.qualified_name}"
    return item.qualified_name if "::" in wanted else item.name


def _function_declarator(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    while node is not None and node.type in _DECLARATOR_WRAPPERS:
        node = node.child_by_field_name("declarator") or next(
            (c for c in node.named_children if c.type.endswith("declarator")), None
        )
    return node if node is not None and node.type == "function_declarator" else None


def _declared_name(node: tree_sitter.Node) -> tuple[tuple[str, ...], str] | None:
    """The qualifier and the name a definition or declaration declares: ((), "f") or (("ns", "K"), "f")."""
    declarator = _function_declarator(node.child_by_field_name("declarator"))
    if declarator is None:
        return None
    name = declarator.child_by_field_name("declarator")
    qualifier: tuple[str, ...] = ()
    while name is not None and name.type == "qualified_identifier":
        scope = name.child_by_field_name("scope")
        if scope is not None:
            qualifier += (scope.text.decode("utf-8", "replace"),)
        name = name.child_by_field_name("name")
    if name is None:
        return None
    return qualifier, name.text.decode("utf-8", "replace")


def _is_annotation_macro(source: bytes, node: tree_sitter.Node) -> bool:
    """Whether `node` is a macro on its own line(s) annotating what follows: `NAME(args)` or
    `NAME` with no `;`, which tree-sitter-cpp reads as an expression statement missing its `;`."""
    if node.type != "expression_statement" or not node.children or not node.children[-1].is_missing:
        return False
    named = [c for c in node.named_children if c.type != "comment"]  # comments before the missing `;` are inside
    return len(named) == 1 and named[0].type in ("call_expression", "identifier") and starts_own_line(source, node)


def is_annotation_macro_semicolon(source: bytes, node: tree_sitter.Node) -> bool:
    """Whether an error node is only the `;` tree-sitter-cpp misses after an annotation macro
    line at file or namespace level that a function declaration or definition follows."""
    macro = node.parent
    if not node.is_missing or macro is None or not _is_annotation_macro(source, macro):
        return False
    if macro.parent is None or macro.parent.type not in ("translation_unit", "declaration_list"):
        return False
    following = macro.next_named_sibling
    while following is not None and (following.type == "comment" or _is_annotation_macro(source, following)):
        following = following.next_named_sibling
    return following is not None and following.type in ("function_definition", "declaration", "template_declaration")


def leading_start(source: bytes, node: tree_sitter.Node) -> int:
    """Start of `node` with the annotation macros and comments that belong to it (see the module doc)."""
    first = node
    comments_above: list[tree_sitter.Node] = []  # comments above `first`, nearest first
    prev = node.prev_sibling
    while prev is not None and (prev.type == "comment" or _is_annotation_macro(source, prev)):
        if prev.type == "comment":
            comments_above.append(prev)
        else:
            first = prev
            comments_above = []
        prev = prev.prev_sibling
    for comment in comments_above:
        if not starts_own_line(source, comment) or first.start_point.row - last_row(comment) > 1:
            break
        first = comment
    return first.start_byte


def cpp_items(source: bytes, tree: tree_sitter.Tree | None = None) -> list[CppItem]:
    """Function definitions and declarations at file, namespace and extern-block level."""
    return list(_cpp_items(source, tree or parse(source, CPP)))


@once_per_tree
def _cpp_items(source: bytes, tree: tree_sitter.Tree) -> tuple[CppItem, ...]:
    found: list[CppItem] = []

    def visit(container: tree_sitter.Node, namespace: tuple[str, ...]) -> None:
        for node in container.named_children:
            target = node
            if node.type == "template_declaration":
                target = next(
                    (c for c in node.named_children if c.type in ("function_definition", "declaration")), node
                )
            if target.type in ("function_definition", "declaration"):
                declared = _declared_name(target)
                if declared is not None:
                    qualifier, name = declared
                    kind = "function" if target.type == "function_definition" else "declaration"
                    found.append(CppItem(kind, name, namespace + qualifier, node, leading_start(source, node)))
            elif node.type == "namespace_definition":
                name_node = node.child_by_field_name("name")
                inner = tuple(name_node.text.decode("utf-8", "replace").split("::")) if name_node is not None else ()
                body = node.child_by_field_name("body")
                if body is not None:
                    visit(body, namespace + inner)
            elif node.type == "linkage_specification":
                body = node.child_by_field_name("body")
                if body is not None and body.type == "declaration_list":
                    visit(body, namespace)

    visit(tree.root_node, ())
    return tuple(found)


def delete_cpp_items(
    path: str, source: bytes, targets: list[CppTarget], origin: str = "delete",
    already_absent: Callable[[], bool] | None = None,
) -> tuple[list[Deletion], list[str], list[Finding]]:
    """Deletions for the requested functions of one C++ file (all overloads a target selects).

    Returns the deletions, the names deleted, and findings: a name found only
    as the other kind is a blocking shape mismatch; a target not found is a
    note when `already_absent()` says the file is already clean, and blocking
    otherwise (see `missing_target`).
    """
    items = cpp_items(source)
    deletions: list[Deletion] = []
    names: list[str] = []
    findings: list[Finding] = []
    for target in targets:
        named = [i for i in items if target.selects(i)]
        chosen = [i for i in named if target.kind in ("any", i.kind)]
        if named and not chosen:
            findings.append(shape_mismatch(path, source, target.kind, target.name, named[0].kind,
                                           named[0].node.start_byte))
            continue
        if not chosen:
            candidates = [_spelled_like(i, target.name) for i in items if target.kind in ("any", i.kind)]
            findings.append(missing_target(path, target.kind, target.name, candidates, already_absent))
            continue
        for item in chosen:
            start, end = whole_lines(source, item.start, item.end, (b"//", b"/*"))
            deletions.append(Deletion(start, end, f"{origin}:cpp-{item.kind}:{target.name}"))
        names.append(chosen[0].name)
    return deletions, names, findings
