"""The class of the object a C++ member access (`x.m`, `p->m`) is on, as far as one file shows it.

The receiver's type is taken where the code writes it:

* a local variable or parameter of the function around the access (a
  range-`for` variable too): `Lantern l`, `const Lantern& l`, `Lantern* p`;
* a data member of the class whose member function the access is in (its
  body in the file, or in a file it includes), or a namespace-scope variable
  declared there;
* a member access on such a receiver (`this->lamp`, `holder.lamp`) whose
  class body is there: its data member's type;
* `*p`, `&x` and `(x)` as `p` and `x` show them;

type aliases declared there (`using`, `typedef`) followed to what they name.

`p->m` is on the class `p` points to (`Lantern*`, `std::unique_ptr<Lantern>`,
`std::shared_ptr<Lantern>`); `->` on an object of another class calls its
`operator->`, whose result is not known here. A type written `auto` or
`decltype(...)`, a template parameter, or a receiver declared nowhere in the
file (a call's result, a global of another file) shows no class.
"""

from __future__ import annotations

import re
import tree_sitter

from codemods.languages.cpp.items import CppItem, function_declarator
from codemods.languages.cpp.signature import type_category

# `p->m` on one of these (the last part of its name) is on the class its first template argument names.
_SMART_POINTERS = frozenset({"unique_ptr", "shared_ptr"})
# Words of a written type that say nothing of its class.
_QUALIFIER_WORDS = re.compile(r"\b(?:const|volatile|typename|struct|class|union|enum)\b")
# A deduced type: `auto`, `decltype(...)`.
_DEDUCED = re.compile(r"\b(?:auto|decltype)\b")
# The declarators around a variable's name, and the statements that declare a local.
_VARIABLE_DECLARATORS = (
    "init_declarator",
    "pointer_declarator",
    "reference_declarator",
    "array_declarator",
    "parameter_declaration",
    "optional_parameter_declaration",
)
_CLASS_SPECIFIERS = ("class_specifier", "struct_specifier", "union_specifier")
# What `receiver_class` returns for a receiver of a built-in or standard-library type: no class of ours.
NOT_A_CLASS = ""


def receiver_class(access: tree_sitter.Node, items: list[CppItem]) -> str | None:
    """The class, as written (`glow::Lantern`, template arguments dropped), of the object the
    member access `access` (a field_expression) is on; NOT_A_CLASS for a built-in or standard
    type; None when the file does not show it. `items` are the items (cpp_items) of the file,
    and of the files it includes where the caller has read them."""
    argument = access.child_by_field_name("argument")
    operator = access.child_by_field_name("operator")
    if argument is None:
        return None
    typed = expression_type(argument, items)
    if typed is None:
        return None
    written, pointers = _without_aliases(*typed, items)
    arrow = operator is not None and operator.type == "->"
    if arrow and pointers == 0:
        pointee = _smart_pointee(written)
        if pointee is None:
            return None  # another class's operator->
        written, pointers = pointee, 1
    if pointers != (1 if arrow else 0):
        return None
    return _class_of(written, access)


def expression_type(expression: tree_sitter.Node, items: list[CppItem]) -> tuple[str, int] | None:
    """(the type as written, how many pointers deep) of an expression whose declaration the file
    shows; None for any other."""
    while expression.type == "parenthesized_expression" and expression.named_children:
        expression = expression.named_children[0]
    if expression.type == "this":
        classes = member_function_classes(expression)
        return (next(iter(classes)), 1) if len(classes) == 1 else None
    if expression.type == "pointer_expression":
        operator = expression.child_by_field_name("operator")
        inner = expression.child_by_field_name("argument")
        typed = expression_type(inner, items) if inner is not None else None
        if typed is None or operator is None:
            return None
        if operator.type == "&":
            return typed[0], typed[1] + 1
        if typed[1] == 0:
            pointee = _smart_pointee(typed[0])
            return (pointee, 0) if pointee is not None else None
        return typed[0], typed[1] - 1
    if expression.type == "identifier":
        return _variable_type(expression, items)
    if expression.type == "call_expression":
        return _returned_type(expression, items)
    if expression.type == "field_expression":
        field = expression.child_by_field_name("field")
        owner = receiver_class(expression, items)
        if not owner or field is None:
            return None
        return _data_member_type(owner.split("::")[-1], _text(field).encode(), items)
    return None


def _variable_type(variable: tree_sitter.Node, items: list[CppItem]) -> tuple[str, int] | None:
    """The type of the variable a name names: a local or parameter, else a data member of the
    class of the member function it is in, else a namespace-scope variable of the file."""
    name = _text(variable).encode()
    local = local_declaration(variable, _text(variable))
    if local is not None:
        declared = _declared_type(*local)
        if declared is None and _text(local[0].child_by_field_name("type")) in ("auto", "const auto"):
            value = _single_value(local[0])
            # `auto v = make(..)`, `auto& v = make(..)`: the type a visible function returns.
            declared = _returned_type(value, items) if value is not None and value.type == "call_expression" else None
            if declared is not None and "pointer_declarator" in local[1]:
                declared = None if declared[1] == 0 else (declared[0], declared[1] - 1)
        return declared
    for owner in member_function_classes(variable):
        typed = _data_member_type(owner, name, items)
        if typed is not None:
            return typed
    for item in items:
        if item.kind == "variable" and item.name.encode() == name:
            wrappers = declared_variable(item.node, name)
            if wrappers is not None:
                return _declared_type(item.node, wrappers)
    return None


def _data_member_type(owner: str, name: bytes, items: list[CppItem]) -> tuple[str, int] | None:
    """The type of the data member `name` of the class `owner` (its last name) declared in the file."""
    for item in items:
        if item.kind == "field" and item.scope and item.scope[-1] == owner and item.name.encode() == name:
            wrappers = declared_variable(item.node, name)
            if wrappers is not None:
                return _declared_type(item.node, wrappers)
    return None


def _declared_type(declaration: tree_sitter.Node, wrappers: tuple[str, ...]) -> tuple[str, int] | None:
    """(type as written, pointer depth) of a declared variable; None for an array or a deduced type."""
    written = _text(declaration.child_by_field_name("type"))
    if written in ("auto", "const auto") and wrappers in (
        ("init_declarator",),
        ("init_declarator", "pointer_declarator"),
    ):
        return _allocated_type(declaration)
    if (
        not written
        or "array_declarator" in wrappers
        or _DEDUCED.search(written)
        or template_parameter(declaration, written)
    ):
        return None
    return written.replace("*", ""), wrappers.count("pointer_declarator") + written.count("*")


_MAKERS = ("make_unique", "make_shared")


def _single_value(declaration: tree_sitter.Node) -> tree_sitter.Node | None:
    """The initialiser of a declaration's one declarator (`auto v = ..;`), None otherwise."""
    declarators = [c for c in declaration.named_children if c.type == "init_declarator"]
    return declarators[0].child_by_field_name("value") if len(declarators) == 1 else None


def _returned_type(call: tree_sitter.Node, items: list[CppItem]) -> tuple[str, int] | None:
    """(return type as written, pointer depth) of a call to a function the file or its includes
    declare: a free function called by its name (`make(..)`, `ns::make(..)`), or a member
    function of the class whose member function the call is in, called unqualified; None where
    no such declaration shows, or those of the name do not agree on it (overloads)."""
    function = call.child_by_field_name("function")
    if function is None:
        return None
    name = function
    while name.type == "qualified_identifier" and name.child_by_field_name("name") is not None:
        name = name.child_by_field_name("name")  # type: ignore[assignment]
    if name.type != "identifier":
        return None
    spelled = _text(name)
    owners = member_function_classes(call) if function.type == "identifier" else set()
    found: set[tuple[str, int]] = set()
    for item in items:
        if not item.function or item.name != spelled:
            continue
        member = bool(item.scope) and item.scope[-1] in owners
        parent = item.node.parent
        in_class = parent is not None and parent.type == "field_declaration_list"
        if in_class and not member or item.qualifier and not member:
            continue
        node = item.node
        written = _text(node.child_by_field_name("type"))
        declarator = node.child_by_field_name("declarator")
        pointers = 0
        while declarator is not None and declarator.type in ("pointer_declarator", "reference_declarator"):
            pointers += declarator.type == "pointer_declarator"
            declarator = declarator.child_by_field_name("declarator") or (
                declarator.named_children[0] if declarator.named_children else None
            )
        if not written or _DEDUCED.search(written) or declarator is None or declarator.type != "function_declarator":
            return None
        found.add((written.replace("*", ""), pointers + written.count("*")))
    return found.pop() if len(found) == 1 else None


def _allocated_type(declaration: tree_sitter.Node) -> tuple[str, int] | None:
    """(the class, 1) of an `auto` variable made by `new Klass(...)` or `std::make_unique<Klass>(...)`
    / `make_shared` (a smart pointer is a pointer to its `->`), its one declarator initialised so;
    None for any other initialiser (the deduced type is not shown)."""
    declarators = [c for c in declaration.named_children if c.type == "init_declarator"]
    value = declarators[0].child_by_field_name("value") if len(declarators) == 1 else None
    if value is None:
        return None
    if value.type == "new_expression":
        made = value.child_by_field_name("type")
        return (_text(made), 1) if made is not None and value.child_by_field_name("placement") is None else None
    if value.type != "call_expression":
        return None
    function = value.child_by_field_name("function")
    while function is not None and function.type == "qualified_identifier":
        function = function.child_by_field_name("name")
    if function is None or function.type != "template_function":
        return None
    name = function.child_by_field_name("name")
    arguments = function.child_by_field_name("arguments")
    if _text(name) not in _MAKERS or arguments is None or len(arguments.named_children) != 1:
        return None
    return _text(arguments.named_children[0]), 1


def _without_aliases(written: str, pointers: int, items: list[CppItem]) -> tuple[str, int]:
    """A written type with the type aliases among `items` it names (`using Ref = Klass*;`,
    `typedef Klass* Ref;`) replaced by what they stand for, a few levels deep."""
    for _ in range(4):
        bare = _QUALIFIER_WORDS.sub(" ", written.split("<", 1)[0]).replace("&", " ").strip().split("::")[-1].strip()
        alias = next((i.node for i in items if i.kind == "type" and i.name == bare), None)
        if alias is None or alias.type not in ("alias_declaration", "type_definition"):
            break
        target = _text(alias.child_by_field_name("type"))
        declarator = alias.child_by_field_name("declarator")
        while declarator is not None and declarator.type == "pointer_declarator":
            pointers += 1
            declarator = declarator.child_by_field_name("declarator")
        written, pointers = target.replace("*", ""), pointers + target.count("*")
    return written, pointers


def _smart_pointee(written: str) -> str | None:
    """The type a `std::unique_ptr<T>` / `std::shared_ptr<T>` points to, None for any other type."""
    name, bracket, rest = _QUALIFIER_WORDS.sub(" ", written).partition("<")
    if not bracket or name.strip().split("::")[-1].strip() not in _SMART_POINTERS:
        return None
    depth = 0
    for offset, char in enumerate(rest):
        if char == "<":
            depth += 1
        elif char == ">" and depth:
            depth -= 1
        elif char in ",>" and not depth:
            return rest[:offset].strip()
    return None


def _class_of(written: str, where: tree_sitter.Node) -> str | None:
    """The class a written type names, qualified as written, template arguments dropped;
    NOT_A_CLASS for a built-in or standard type, None for a template parameter."""
    if type_category(written) is not None:
        return NOT_A_CLASS
    bare = " ".join(_QUALIFIER_WORDS.sub(" ", written.split("<", 1)[0]).replace("&", " ").split())
    bare = re.sub(r"\s*::\s*", "::", bare)
    if not bare or " " in bare:
        return NOT_A_CLASS if bare else None  # `unsigned long`, `long double`: built in
    if bare.startswith("std::"):
        return NOT_A_CLASS
    return None if template_parameter(where, bare) else bare


def template_parameter(node: tree_sitter.Node, written: str) -> bool:
    """Whether the first name of a written type is a template parameter of a template around `node`."""
    first = re.match(r"\s*(?:(?:const|volatile|typename)\s+)*([A-Za-z_]\w*)", written)
    if first is None:
        return False
    name = first.group(1).encode()
    current = node.parent
    while current is not None:
        if current.type == "template_declaration":
            parameters = current.child_by_field_name("parameters")
            for parameter in parameters.named_children if parameters is not None else ():
                if any(c.type == "type_identifier" and c.text == name for c in parameter.named_children):
                    return True
        current = current.parent
    return False


def member_function_classes(node: tree_sitter.Node) -> set[str]:
    """The classes whose member functions `node` sits in: a class body around it, or the
    qualifier of the out-of-line definition it is in (`Klass` of `void Klass::f() { ... }`)."""
    found: set[str] = set()
    current = node.parent
    while current is not None:
        if current.type in _CLASS_SPECIFIERS:
            name = current.child_by_field_name("name")
            if name is not None:
                found.add(_text(name).split("<", 1)[0].split("::")[-1])
        elif current.type == "function_definition":
            declarator = function_declarator(current.child_by_field_name("declarator"))
            named = declarator.child_by_field_name("declarator") if declarator is not None else None
            while named is not None and named.type == "qualified_identifier":
                scope = named.child_by_field_name("scope")
                if scope is not None:
                    found.add(_text(scope).split("<", 1)[0])
                named = named.child_by_field_name("name")
        current = current.parent
    return found


def local_declaration(node: tree_sitter.Node, name: str) -> tuple[tree_sitter.Node, tuple[str, ...]] | None:
    """The declaration (or parameter, or range-`for` head) of a local variable `name` visible at
    `node`, with the declarator kinds between it and the name; None if there is none."""
    raw = name.encode()
    current = node.parent
    while current is not None and current.type != "function_definition":
        if current.type == "compound_statement":
            for statement in current.named_children:
                if statement.start_byte >= node.start_byte:
                    break
                wrappers = declared_variable(statement, raw) if statement.type == "declaration" else None
                if wrappers is not None:
                    return statement, wrappers
        elif current.type == "for_range_loop":
            declarator = current.child_by_field_name("declarator")
            wrappers = _wrappers([(declarator, ())], raw) if declarator is not None else None
            if wrappers is not None:
                return current, wrappers
        current = current.parent
    if current is None:
        return None
    declarator = function_declarator(current.child_by_field_name("declarator"))
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    for parameter in parameters.named_children if parameters is not None else ():
        wrappers = declared_variable(parameter, raw)
        if wrappers is not None:
            return parameter, wrappers
    return None


def declared_variable(declaration: tree_sitter.Node, name: bytes) -> tuple[str, ...] | None:
    """The declarator kinds around `name` if `declaration` declares a variable (or a data
    member) of that name."""
    skipped = (declaration.child_by_field_name("type"), declaration.child_by_field_name("default_value"))
    return _wrappers([(c, ()) for c in declaration.named_children if c not in skipped], name)


def _wrappers(stack: list[tuple[tree_sitter.Node, tuple[str, ...]]], name: bytes) -> tuple[str, ...] | None:
    """The declarator kinds from one of the declarators in `stack` down to the name `name`."""
    while stack:
        node, wrappers = stack.pop()
        if node.type == "function_declarator":
            continue
        if node.type in ("identifier", "field_identifier") and node.text == name:
            return wrappers
        if node.type in _VARIABLE_DECLARATORS:
            stack.extend(
                (c, (*wrappers, node.type))
                for c in node.named_children
                if c.type != "argument_list"
                and c.type != "initializer_list"
                and c != node.child_by_field_name("value")
                and c != node.child_by_field_name("type")
            )
    return None


def _text(node: tree_sitter.Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""
