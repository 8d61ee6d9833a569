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
_OPERAND_FIELDS = {"binary_expression": ("left", "right"), "assignment_expression": ("left", "right"),
                   "unary_expression": ("argument",), "update_expression": ("argument",),
                   "pointer_expression": ("argument",)}
_WORD = re.compile(r"[A-Za-z_]\w*")
_NOT_CLASS_WORDS = frozenset({"const", "volatile", "std", "unsigned", "signed", "struct", "class", "typename"})

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
    if type_category(written) is not None:
        return None
    words = [w for w in _WORD.findall(written.split("<", 1)[0]) if w not in _NOT_CLASS_WORDS]
    return words[-1] if words else None


def operator_uses(root: tree_sitter.Node, symbols: set[str]) -> list[OperatorUse]:
    """The expressions under `root` that apply one of the operators `symbols` (`+`, `+=`, `[]`)."""
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        fields = _OPERAND_FIELDS.get(node.type)
        if fields is not None:
            token = node.child_by_field_name("operator")
            operands = tuple(n for n in (node.child_by_field_name(f) for f in fields) if n is not None)
            if token is not None and token.type in symbols and len(operands) == len(fields):
                argument = node.child_by_field_name("argument")
                postfix = node.type == "update_expression" and argument is not None \
                    and argument.start_byte < token.start_byte
                found.append(OperatorUse(token, token.type, operands, postfix))
        elif node.type == "subscript_expression" and "[]" in symbols:
            indices = node.child_by_field_name("indices")
            argument = node.child_by_field_name("argument")
            inside = [c for c in indices.named_children if c.type != "comment"] if indices is not None else []
            if argument is not None and indices is not None and len(inside) == 1:
                found.append(OperatorUse(indices, "[]", (argument, inside[0])))
        stack.extend(node.named_children)
    return found


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
