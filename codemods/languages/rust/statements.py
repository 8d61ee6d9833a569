"""Statements inside Rust function bodies: finding, reading and deleting them.

Used by rewrites that work below the item level (a call inside a test and the
bindings that fed it, the parts of a test that exercise removed code).
"""

from __future__ import annotations

import tree_sitter

from codemods.parse import RUST, captures
from codemods.edit.item_spans import Deletion, whole_lines
from codemods.languages.rust.items import leading_trivia

# Node types that are statements of a block (comments are trivia, not statements).
_STATEMENT_TYPES = {
    "let_declaration",
    "expression_statement",
    "use_declaration",
    "macro_invocation",
    "empty_statement",
    "function_item",
    "const_item",
    "static_item",
}


def find_function(root: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
    """The first function item named `name` anywhere in the tree (tests live at top level or in mods)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "function_item":
            name_node = node.child_by_field_name("name")
            if name_node is not None and _identifier(name_node) == name:
                return node
            continue
        stack.extend(reversed(node.named_children))
    return None


def statements(block: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The statements of a block, in order (the block's tail expression included)."""
    return [c for c in block.named_children if c.type in _STATEMENT_TYPES or c.type.endswith("_expression")]


# Identifier-like nodes, macro token trees included.
_IDENTIFIER_QUERY = "[(identifier) (type_identifier) (field_identifier)] @name"


def identifiers(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """Every identifier-like node in a subtree (macro token trees included), in source order.

    A query (tree-sitter's C code) over the subtree alone: the recipes ask for the
    names of a few function bodies of files of thousands of lines.
    """
    return sorted(captures(RUST, _IDENTIFIER_QUERY, node).get("name", []), key=lambda n: n.start_byte)


def names_used(node: tree_sitter.Node) -> set[str]:
    return {_identifier(n) for n in identifiers(node)}


def uses_any(source: bytes, node: tree_sitter.Node, names: set[str]) -> bool:
    """Whether `node` (of `source`) names one of `names` as an identifier. Most nodes do not
    even hold one as text, and that is all most need to be asked."""
    text = source[node.start_byte : node.end_byte]
    if not any(name.encode() in text for name in names):
        return False
    return bool(names_used(node) & names)


def let_binding(statement: tree_sitter.Node) -> str | None:
    """The name a `let NAME = ...;` statement binds (None for patterns or other statements)."""
    if statement.type != "let_declaration":
        return None
    pattern = statement.child_by_field_name("pattern")
    if pattern is None:
        return None
    if pattern.type == "identifier":
        return _identifier(pattern)
    if pattern.type == "mut_pattern":
        inner = next((c for c in pattern.named_children if c.type == "identifier"), None)
        return _identifier(inner) if inner is not None else None
    return None


def _identifier(node: tree_sitter.Node) -> str:
    """An identifier's text (strict UTF-8: a Rust identifier is valid text)."""
    return (node.text or b"").decode()


def statement_deletion(source: bytes, statement: tree_sitter.Node, origin: str) -> Deletion:
    """Delete a statement with the comments directly above it, as whole lines."""
    start, _ = leading_trivia(source, statement)
    start, end = whole_lines(source, start, statement.end_byte, (b"//",))
    return Deletion(start, end, origin)


def line_indent(source: bytes, offset: int) -> str:
    line_start = source.rfind(b"\n", 0, offset) + 1
    line = source[line_start:offset]
    return line[: len(line) - len(line.lstrip(b" \t"))].decode()
