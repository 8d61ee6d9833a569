"""C++ function signatures, normalised so that a recipe can name one overload.

A signature is the tuple of a function's parameter types as written, each
normalised: parameter names and default arguments dropped, whitespace
settled (`const char *` is `const char*`), and `const`/`volatile` of the
parameter's base type written first (`char const*` is `const char*`). A
recipe writes it after the name, `copy(const char*, size_t)`; `f()` and
`f(void)` are the same. The types are compared as written: `size_t` and
`std::size_t` differ.

For telling calls apart, a type built in or from the standard library has a
category (arithmetic, pointer, string), and so has a literal argument or a
declared local: a call passing a string literal cannot call `f(char)`.
"""

from __future__ import annotations

import re

import tree_sitter

from codemods.parse import CPP, parse

_TOKEN = re.compile(r"\w+|::|\.\.\.|&&|\S")
_QUALIFIERS = ("const", "volatile")
# Where a parameter's base type ends: its declarator starts.
_DECLARATOR_START = ("*", "&", "&&", "(", "[")


def _declared_identifier(parameter: tree_sitter.Node) -> tree_sitter.Node | None:
    """The name a parameter declares (its innermost declarator's identifier), if it has one."""
    node = parameter.child_by_field_name("declarator")
    while node is not None and node.type != "identifier":
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next(
                (c for c in node.named_children if c.type.endswith("declarator") or c.type == "identifier"), None
            )
        node = inner
    return node


def normalised_type(tokens: list[str]) -> str:
    """One parameter type from its tokens: base-type qualifiers first, whitespace settled."""
    end = next((i for i, t in enumerate(tokens) if t in _DECLARATOR_START), len(tokens))
    base, rest = tokens[:end], tokens[end:]
    qualifiers = [q for q in _QUALIFIERS if q in base]
    base = qualifiers + [t for t in base if t not in _QUALIFIERS]
    text = " ".join(base + rest)
    text = re.sub(r"\s*(::|<|\(|\[)\s*", r"\1", text)
    text = re.sub(r"\s+(\*|&&|&|,|>|\)|\])", r"\1", text)
    return text


def _parameter_type(parameter: tree_sitter.Node) -> str:
    if parameter.type == "variadic_parameter" or parameter.text == b"...":
        return "..."
    skipped = [n for n in (_declared_identifier(parameter), parameter.child_by_field_name("default_value")) if n]
    text = parameter.text or b""
    for node in sorted(skipped, key=lambda n: n.start_byte, reverse=True):
        start, end = node.start_byte - parameter.start_byte, node.end_byte - parameter.start_byte
        if node == parameter.child_by_field_name("default_value"):
            start = text.rfind(b"=", 0, start)
        text = text[:start] + b" " + text[end:]
    return normalised_type(_TOKEN.findall(text.decode("utf-8", "replace")))


def parameters_signature(parameters: tree_sitter.Node | None) -> tuple[str, ...]:
    """The normalised types of a `parameter_list` (`(void)` is empty)."""
    if parameters is None:
        return ()
    found = tuple(_parameter_type(p) for p in parameters.named_children if p.type != "comment")
    return () if found == ("void",) else found


def parse_signature(text: str) -> tuple[str, ...] | None:
    """The signature a recipe writes between parentheses (`const char* s, size_t`), normalised like
    the file's; None when it does not read as a parameter list."""
    source = f"void codemod_signature({text});".encode()
    tree = parse(source, CPP)
    declaration = tree.root_node.named_children[0] if tree.root_node.named_children else None
    declarator = declaration.child_by_field_name("declarator") if declaration is not None else None
    if tree.root_node.has_error or declarator is None or declarator.type != "function_declarator":
        return None
    return parameters_signature(declarator.child_by_field_name("parameters"))


def spelled(name: str, signature: tuple[str, ...]) -> str:
    """`name(type, type)`, the form of a target that selects this overload."""
    return f"{name}({', '.join(signature)})"


def arity(parameters: tree_sitter.Node | None) -> tuple[int, int | None]:
    """How many arguments a call passes to a function with this `parameter_list`: (fewest, most),
    most None for a variadic function or a parameter pack."""
    if parameters is None:
        return 0, None
    listed = [p for p in parameters.named_children if p.type != "comment"]
    if parameters_signature(parameters) == ():
        return 0, 0
    variadic = any(
        p.type in ("variadic_parameter", "variadic_parameter_declaration") or p.text == b"..." for p in listed
    ) or b"..." in (parameters.text or b"")
    required = sum(1 for p in listed if p.type == "parameter_declaration")
    return required, None if variadic else len(listed)


# The categories of types a call's argument is checked against (None: not known).
ARITHMETIC = "arithmetic"
POINTER = "pointer"
STRING = "string"
# Two kinds of argument only: a string literal, and a literal 0 or nullptr.
STRING_LITERAL = "string literal"
ZERO = "zero"
_ARITHMETIC_NAMES = frozenset(
    {
        "bool",
        "char",
        "wchar_t",
        "char8_t",
        "char16_t",
        "char32_t",
        "short",
        "int",
        "long",
        "signed",
        "unsigned",
        "float",
        "double",
        "size_t",
        "ssize_t",
        "ptrdiff_t",
        "int8_t",
        "int16_t",
        "int32_t",
        "int64_t",
        "uint8_t",
        "uint16_t",
        "uint32_t",
        "uint64_t",
        "intptr_t",
        "uintptr_t",
    }
)
_STRING_NAMES = frozenset({"string", "string_view", "wstring", "wstring_view"})
# Which argument categories a parameter category takes.
_TAKES = {
    ARITHMETIC: {ARITHMETIC, ZERO},
    POINTER: {POINTER, STRING_LITERAL, ZERO},
    STRING: {STRING, POINTER, STRING_LITERAL},
}


def type_category(written: str) -> str | None:
    """ARITHMETIC, POINTER or STRING for a parameter or variable type built in or from the
    standard library (`const char*`, `size_t`, `const std::string&`), None for any other type
    (a class, a template parameter: what it converts from is not known here)."""
    tokens = [t for t in _TOKEN.findall(written) if t not in _QUALIFIERS and t not in ("&", "&&")]
    if "*" in tokens or "[" in tokens:
        return POINTER
    names = [t for t in tokens if t not in ("std", "::")]
    if names and all(n in _ARITHMETIC_NAMES for n in names):
        return ARITHMETIC
    if len(names) == 1 and names[0] in _STRING_NAMES:
        return STRING
    return None


def argument_fits(argument: str | None, parameter: str) -> bool:
    """Whether an argument of category `argument` (None: not known) may be passed to a parameter
    of the normalised type `parameter`."""
    category = type_category(parameter)
    return argument is None or category is None or argument in _TAKES[category]
