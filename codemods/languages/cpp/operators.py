"""Uses of a deleted C++ operator function: the expressions that call it without naming it.

`a + b` calls a deleted `operator+` when the expression's operator is that
operator's, its operands are as many as the function takes (its parameters,
and the object for a member operator), and the operands' types, as far as
literals and declared locals show them, fit its parameter types:

* every operand of a built-in type (a number, a string literal, a local
  `int`): the built-in operator, never an overload (C++ overloads need an
  operand of class or enum type);
* an operand whose declared type is another class, or a built-in type where a
  built-in parameter of another category stands: another overload;
* an operand whose declared type is the class a parameter names (`const
  Money&` for a local `Money m`), the others fitting: a definite use;
* otherwise (an operand whose type is not known here, a call, a member): a
  possible use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from codemods.languages.cpp.signature import argument_fits, type_category

# The expressions that apply an operator, with the fields of their operands in order.
_OPERAND_FIELDS = {
    "binary_expression": ("left", "right"),
    "assignment_expression": ("left", "right"),
    "unary_expression": ("argument",),
    "update_expression": ("argument",),
    "pointer_expression": ("argument",),
}
_WORD = re.compile(r"[A-Za-z_]\w*")
_NOT_CLASS_WORDS = frozenset({"const", "volatile", "std", "unsigned", "signed", "struct", "class", "typename"})
# Declared types that say nothing of the class (`auto x = ...`, `decltype(auto)`, `auto&& x`).
_DEDUCED = re.compile(r"(?:const\s+|volatile\s+)*(?:auto|decltype\s*\(.*\))(?:\s*(?:&&?|\*|const|volatile))*")

# How an operand's type matched a parameter: the same class, a fit or a mismatch, or not known.
MATCH, FITS, MISMATCH, UNKNOWN = "match", "fits", "mismatch", "unknown"


@dataclass(frozen=True)
class OperatorUse:
    """An expression that applies an operator: where it is written (the operator's token, or a
    subscript's brackets), the operator (`+`, `[]`), its operand nodes, and whether it is a
    postfix `++`/`--` (whose operator function takes a dummy `int`)."""

    token: tree_sitter.Node
    symbol: str
    operands: tuple[tree_sitter.Node, ...]
    postfix: bool = False


def operator_symbol(name: str) -> str | None:
    """The operator an operator function's name (as `operator_spelling` writes it) overloads:
    `+` for `operator+`; None for another function or a conversion, `new` or `delete`."""
    if not name.startswith("operator") or name[8:9].isalnum() or name[8:9] in ("_", " ", ""):
        return None
    return name[8:]


def class_name(written: str) -> str | None:
    """The class a written type names, without qualifiers, namespaces, references or template
    arguments (`const geo::Money&` is `Money`); None for a built-in or standard type."""
    if type_category(written) is not None or _DEDUCED.fullmatch(written.strip()):
        return None
    words = [w for w in _WORD.findall(written.split("<", 1)[0]) if w not in _NOT_CLASS_WORDS]
    return words[-1] if words else None


def operator_uses(root: tree_sitter.Node, symbols: set[str]) -> list[OperatorUse]:
    """The expressions under `root` that apply one of the operators `symbols` (`+`, `+=`, `[]`)."""
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        explicit = _explicit_call(node)
        if explicit is not None:
            if explicit.symbol in symbols:
                found.append(explicit)
            stack.extend(node.named_children)
            continue
        fields = _OPERAND_FIELDS.get(node.type)
        if fields is not None:
            token = node.child_by_field_name("operator")
            operands = tuple(n for n in (node.child_by_field_name(f) for f in fields) if n is not None)
            if token is not None and token.type in symbols and len(operands) == len(fields):
                argument = node.child_by_field_name("argument")
                postfix = (
                    node.type == "update_expression" and argument is not None and argument.start_byte < token.start_byte
                )
                found.append(OperatorUse(token, token.type, operands, postfix))
        elif node.type == "subscript_expression" and "[]" in symbols:
            indices = node.child_by_field_name("indices")
            argument = node.child_by_field_name("argument")
            inside = [c for c in indices.named_children if c.type != "comment"] if indices is not None else []
            if argument is not None and indices is not None and len(inside) == 1:
                found.append(OperatorUse(indices, "[]", (argument, inside[0])))
        stack.extend(node.named_children)
    return found


def _explicit_call(node: tree_sitter.Node) -> OperatorUse | None:
    """An operator function called by its name, `ns::operator+(a, b)`, as a use of the operator
    with the call's arguments as operands; None for any other node. tree-sitter-cpp reads an
    unqualified `operator+(a, b)` as `operator + (a, b)`, a binary expression of an identifier
    `operator` and a parenthesised comma expression: that is read back as the call."""
    if node.type == "call_expression":
        name = node.child_by_field_name("function")
        while name is not None and name.type == "qualified_identifier":
            name = name.child_by_field_name("name")
        arguments = node.child_by_field_name("arguments")
        if name is None or name.type != "operator_name" or arguments is None:
            return None
        symbol = "".join((name.text or b"").decode("utf-8", "replace")[len("operator") :].split())
        return OperatorUse(name, symbol, tuple(c for c in arguments.named_children if c.type != "comment"))
    if node.type != "binary_expression":
        return None
    left, token, right = (node.child_by_field_name(f) for f in ("left", "operator", "right"))
    if (
        left is None
        or token is None
        or right is None
        or left.type != "identifier"
        or left.text != b"operator"
        or right.type != "parenthesized_expression"
    ):
        return None
    inner = [c for c in right.named_children if c.type != "comment"]
    if len(inner) != 1:
        return None
    operands: list[tree_sitter.Node] = []
    current = inner[0]
    while current.type == "comma_expression":  # `a, b, c` nests to the right
        head, tail = current.child_by_field_name("left"), current.child_by_field_name("right")
        if head is None or tail is None:
            return None
        operands.append(head)
        current = tail
    operands.append(current)
    return OperatorUse(left, token.type, tuple(operands))


def operand_match(category: str | None, declared_class: str | None, parameter: str) -> str:
    """How an operand (its category, and the class of a local of class type) matches a
    normalised parameter type (see the module doc)."""
    wanted_class = class_name(parameter)
    if declared_class is not None:
        return MATCH if declared_class == wanted_class else MISMATCH
    if category is None or wanted_class is not None:
        return UNKNOWN  # a built-in operand may convert to the class (a converting constructor)
    return FITS if argument_fits(category, parameter) else MISMATCH


def verdict(matches: list[str], built_in: bool) -> str | None:
    """MATCH when an operand is of a parameter's class and none mismatches; None when one
    mismatches or every operand is of a built-in type (`built_in`); UNKNOWN otherwise."""
    if built_in or MISMATCH in matches:
        return None
    return MATCH if MATCH in matches else UNKNOWN
