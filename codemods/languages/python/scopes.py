"""Python's items on the tree-sitter tree: functions and classes (nested ones too), each named
as a recipe names it (`Klass.method`), from its decorators to its end: what a `[[rewrite]]`,
`[[reword]]` or `[[insert]]` rule scoped to an item applies to."""

from __future__ import annotations

import tree_sitter

from codemods.languages.scope import Scope, after_previous_sibling

_ITEMS = ("function_definition", "class_definition")


def python_items(tree: tree_sitter.Tree) -> list[tuple[tree_sitter.Node, str]]:
    """(node, dotted name) of each function and class, outer first; the node is the decorated
    definition where decorators lead it."""
    found: list[tuple[tree_sitter.Node, str]] = []

    def visit(node: tree_sitter.Node, prefix: str) -> None:
        for child in node.named_children:
            definition = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
            if definition is None or definition.type not in _ITEMS:
                if child.type in (
                    "if_statement",
                    "try_statement",
                    "block",
                    "else_clause",
                    "elif_clause",
                    "except_clause",
                    "finally_clause",
                    "with_statement",
                ):
                    visit(child, prefix)  # definitions under `if TYPE_CHECKING:` and the like
                continue
            name_node = definition.child_by_field_name("name")
            name = f"{prefix}{(name_node.text or b'').decode('utf-8', 'replace')}" if name_node else ""
            if name:
                found.append((child, name))
            body = definition.child_by_field_name("body")
            if body is not None:
                visit(body, f"{name}.")

    visit(tree.root_node, "")
    return found


def python_item_scopes(source: bytes, tree: tree_sitter.Tree | None, name: str) -> list[Scope]:
    """The items named `name`, a dotted suffix of their names (`method`, `Klass.method`)."""
    if tree is None:
        return []
    wanted = name.split(".")
    return [
        Scope(dotted, node.start_byte, node.end_byte, after_previous_sibling(node), node)
        for node, dotted in python_items(tree)
        if dotted.split(".")[-len(wanted) :] == wanted
    ]
