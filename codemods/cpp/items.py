"""C++ function definitions and declarations by name, with their leading comments.

A `//` or `/* */` comment directly above an item (no blank line between, on
its own line) belongs to the item. Namespaces, `extern "C"` blocks and
templates are looked into; everything else (classes, anonymous namespaces'
neighbours) is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from .._edit import Finding, target_not_deleted
from .._parse import CPP, parse
from .._spans import Deletion, last_row, starts_own_line, whole_lines

# Declarator wrappers to look through when finding a function's name.
_DECLARATOR_WRAPPERS = {"pointer_declarator", "reference_declarator", "parenthesized_declarator"}


@dataclass(frozen=True)
class CppItem:
    """A function definition ("function") or declaration ("declaration") in a C++ file."""

    kind: str
    name: str
    namespace: tuple[str, ...]
    node: tree_sitter.Node
    start: int

    @property
    def end(self) -> int:
        return self.node.end_byte


@dataclass(frozen=True)
class CppTarget:
    """A request to delete C++ functions named `name`: kind "function", "declaration" or "any"."""

    kind: str
    name: str


def _function_declarator(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    while node is not None and node.type in _DECLARATOR_WRAPPERS:
        node = node.child_by_field_name("declarator") or next(
            (c for c in node.named_children if c.type.endswith("declarator")), None
        )
    return node if node is not None and node.type == "function_declarator" else None


def _declared_name(node: tree_sitter.Node) -> str | None:
    declarator = _function_declarator(node.child_by_field_name("declarator"))
    if declarator is None:
        return None
    name = declarator.child_by_field_name("declarator")
    if name is None:
        return None
    if name.type == "qualified_identifier":
        while name is not None and name.type == "qualified_identifier":
            name = name.child_by_field_name("name")
        if name is None:
            return None
    return name.text.decode("utf-8", "replace")


def leading_comments_start(source: bytes, node: tree_sitter.Node) -> int:
    """Start of `node` with the comment lines directly above it (no blank line between)."""
    start = node.start_byte
    current = node
    prev = node.prev_sibling
    while prev is not None and prev.type == "comment" and starts_own_line(source, prev):
        if current.start_point.row - last_row(prev) > 1:
            break
        start = prev.start_byte
        current = prev
        prev = prev.prev_sibling
    return start


def cpp_items(source: bytes, tree: tree_sitter.Tree | None = None) -> list[CppItem]:
    """Function definitions and declarations at file, namespace and extern-block level."""
    tree = tree or parse(source, CPP)
    found: list[CppItem] = []

    def visit(container: tree_sitter.Node, namespace: tuple[str, ...]) -> None:
        for node in container.named_children:
            target = node
            if node.type == "template_declaration":
                target = next(
                    (c for c in node.named_children if c.type in ("function_definition", "declaration")), node
                )
            if target.type in ("function_definition", "declaration"):
                name = _declared_name(target)
                if name is not None:
                    kind = "function" if target.type == "function_definition" else "declaration"
                    found.append(CppItem(kind, name, namespace, node, leading_comments_start(source, node)))
            elif node.type == "namespace_definition":
                name_node = node.child_by_field_name("name")
                name = name_node.text.decode("utf-8", "replace") if name_node is not None else ""
                body = node.child_by_field_name("body")
                if body is not None:
                    visit(body, namespace + (name,))
            elif node.type == "linkage_specification":
                body = node.child_by_field_name("body")
                if body is not None and body.type == "declaration_list":
                    visit(body, namespace)

    visit(tree.root_node, ())
    return found


def delete_cpp_items(
    path: str, source: bytes, targets: list[CppTarget], rule: str = "delete"
) -> tuple[list[Deletion], list[str], list[Finding]]:
    """Deletions for the requested functions of one C++ file (all overloads of a name).

    Returns the deletions, the names deleted, and findings (a note per name not found).
    """
    items = cpp_items(source)
    deletions: list[Deletion] = []
    names: list[str] = []
    findings: list[Finding] = []
    for target in targets:
        chosen = [i for i in items if i.name == target.name and target.kind in ("any", i.kind)]
        if not chosen:
            other = next((i for i in items if i.name == target.name), None)
            findings.append(target_not_deleted(path, source, target.kind, target.name,
                                               other.kind if other else None, other.node.start_byte if other else 0,
                                               label="C++ "))
            continue
        for item in chosen:
            start, end = whole_lines(source, item.start, item.end, (b"//", b"/*"))
            deletions.append(Deletion(start, end, f"{rule}:cpp-{item.kind}:{target.name}"))
        names.append(target.name)
    return deletions, names, findings
