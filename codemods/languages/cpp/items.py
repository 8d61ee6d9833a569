"""C++ items by name: what a recipe may delete, with what belongs to them.

The items are functions (definitions, "function"; declarations,
"declaration"), classes, structs, unions and enums (`enum class` too), type
aliases (`using X = ...`, `typedef`, kind "type"), namespace-scope variables
and data members of classes ("field"), found in namespaces (named, anonymous,
or opened by a macro pair: see preprocessor.py), `extern "C"` blocks, class
bodies (member functions, nested types), every branch of `#if`/`#ifdef`/
`#elif`/`#else` blocks (an include guard is looked through), and the ERROR
nodes tree-sitter leaves around a local syntax error (export macros are
blanked out first: preprocessor.py). A template's `template <...>` head
belongs to it. A function has a signature, its normalised parameter types
(signature.py), and an item records the branches it sits in. An operator's
name is written one way whatever its spacing (`operator_spelling`). Deleting
them is deletion.py's.

Attributes (`[[nodiscard]]`, `__attribute__((...))`) are part of a
declaration's node. An annotation macro on its own line before it
(`MLX_DEPRECATED("...")`, no semicolon) is a sibling that tree-sitter-cpp
reads as an expression statement missing its `;`: it belongs to the item,
with the comments among or after such lines. Above them, the `//` or `/* */`
comments on their own lines directly above (no blank line between) belong to
the item too.
"""

from __future__ import annotations

import functools
import re

from dataclasses import dataclass, field
from typing import Iterable

import tree_sitter

from codemods.parse import CPP, node_text, parse
from codemods.edit.item_spans import last_row, starts_own_line
from codemods.languages.cpp.preprocessor import (
    BRANCH_KINDS,
    Branch,
    NamespaceRegion,
    branch_condition,
    branches,
    masked_namespace_macros,
)
from codemods.languages.cpp.signature import parameters_signature, parse_signature, spelled

# Declarator wrappers to look through when finding a function's name.
_DECLARATOR_WRAPPERS = {"pointer_declarator", "reference_declarator", "parenthesized_declarator"}
# Declarator wrappers to look through when finding a variable's name.
_VARIABLE_WRAPPERS = {
    "init_declarator",
    "pointer_declarator",
    "reference_declarator",
    "array_declarator",
    "parenthesized_declarator",
    "attributed_declarator",
}
# The type specifiers that are items, and the kind of each.
_TYPE_KINDS = {
    "class_specifier": "class",
    "struct_specifier": "struct",
    "union_specifier": "union",
    "enum_specifier": "enum",
}
# What a `template <...>` head may hold.
_TEMPLATED = (
    "function_definition",
    "declaration",
    "field_declaration",
    "alias_declaration",
    "template_declaration",
    *_TYPE_KINDS,
)
# An operator function's name (group 1: the operator), and a name ending in the call operator.
_OPERATOR = re.compile(r"operator\b\s*(.+)", re.S)
_CALL_OPERATOR = re.compile(r"(.*?\boperator\s*\(\s*\))(.*)", re.S)
# The kinds a target may name; "any" is every kind.
KINDS = ("function", "declaration", "class", "struct", "union", "enum", "type", "variable", "field", "any")
ALL_OVERLOADS = "*"
EVERY_BRANCH = "*"


@dataclass(frozen=True)
class CppItem:
    """An item of a C++ file (see the module doc for the kinds).

    `scope` is where the name lives: the enclosing named namespaces (an
    anonymous namespace or `extern "C"` block adds nothing) and classes, then
    the qualifier of a qualified declarator (`int ns::Klass::f()`).
    `signature` is a function's normalised parameter types (None for other
    kinds), `branches` the conditional branches around it, outermost first.
    `names` counts the names its declaration declares (`int a, b;` is 2),
    `qualifier` is the one its declarator writes (`Klass::` of `int Klass::f()`).
    """

    kind: str
    name: str
    scope: tuple[str, ...]
    node: tree_sitter.Node
    start: int
    stop: int | None = None
    branches: tuple[Branch, ...] = ()
    names: int = 1
    qualifier: tuple[str, ...] = ()
    # A function's parameter list (its node; None for a function without one); the signature is
    # read from it when asked (most items of a file are never compared by signature).
    parameters: tree_sitter.Node | None = field(default=None, compare=False)
    function: bool = False

    @functools.cached_property
    def signature(self) -> tuple[str, ...] | None:
        """A function's normalised parameter types; None for other kinds."""
        return parameters_signature(self.parameters) if self.function else None

    @property
    def qualified_name(self) -> str:
        return "::".join((*self.scope, self.name))

    @property
    def end(self) -> int:
        return self.node.end_byte if self.stop is None else self.stop

    @property
    def condition(self) -> str:
        """The condition under which the item is compiled ("" when it is always)."""
        return branch_condition(self.branches)

    @property
    def inactive(self) -> bool:
        """Whether the item sits in code never compiled (`#if 0`)."""
        return any(b.inactive for b in self.branches)

    def spelled(self, qualified: bool = False) -> str:
        """The item as a target names it: `name`, `name(types)` for a function."""
        name = self.qualified_name if qualified else self.name
        return name if self.signature is None else spelled(name, self.signature)


@dataclass(frozen=True)
class CppTarget:
    """A request to delete C++ items named `name` of `kind` (see `KINDS`).

    `name` is bare (`copy`: that name in any namespace) or qualified (`ns::copy`,
    `::copy` for the global namespace: exactly that one), optionally with a
    signature: `copy(const char*, size_t)` selects that overload, `copy(*)`
    every overload; without one, a name with several overloads is refused.
    `branch` selects among the branches of a conditional that each define the
    item: the condition the branch is compiled under (`defined(__APPLE__)`, `0`,
    `!defined(__APPLE__)` for an `#else`), "" for the item outside any
    conditional, `*` for every branch; without it, an item in several branches
    is refused.
    """

    kind: str
    name: str
    branch: str | None = None

    @property
    def base_name(self) -> str:
        """The name without its signature (an operator's name in one spelling: `operator_spelling`)."""
        return split_target_name(self.name)[0]

    @property
    def signature(self) -> tuple[str, ...] | str | None:
        """The overload the name selects: its normalised types, `ALL_OVERLOADS`, or None when the
        name has no parentheses. A signature that does not parse selects nothing (a tuple no
        function has)."""
        return _target_signature(self.name)

    def names(self, item: CppItem) -> bool:
        """Whether the target's name (without signature) names the item."""
        wanted = self.base_name
        if "::" not in wanted:
            return item.name == wanted
        return item.qualified_name == wanted.removeprefix("::")

    def selects(self, item: CppItem) -> bool:
        """Whether the target's name and signature select the item (kind and branch aside)."""
        if not self.names(item):
            return False
        signature = self.signature
        if signature is None or signature == ALL_OVERLOADS:
            return True
        return item.signature == signature


@functools.lru_cache(maxsize=4096)
def _target_signature(name: str) -> tuple[str, ...] | str | None:
    """CppTarget.signature of a target named `name` (cached: a target is compared with every
    item of its file)."""
    written = split_target_name(name)[1]
    if written is None:
        return None
    if written == ALL_OVERLOADS:
        return ALL_OVERLOADS
    parsed = parse_signature(written)
    return parsed if parsed is not None else ("<unparsed>", written)


def function_declarator(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    while node is not None and node.type in _DECLARATOR_WRAPPERS:
        node = node.child_by_field_name("declarator") or next(
            (c for c in node.named_children if c.type.endswith("declarator")), None
        )
    return node if node is not None and node.type == "function_declarator" else None


def _scope_name(node: tree_sitter.Node) -> str:
    """A qualifier's name without template arguments (`K` of `K<int>::`); an operator's name as
    `operator_spelling` writes it."""
    if node.type == "template_type":
        name = node.child_by_field_name("name")
        if name is not None:
            node = name
    text = node_text(node)
    # tree-sitter-cpp reads `operator ( ) (int)` as `operator` declared with `( )`, then `(int)`.
    spaced_call = node.type == "function_declarator" and text.startswith("operator")
    return operator_spelling(text) if node.type == "operator_name" or spaced_call else text


def operator_spelling(name: str) -> str:
    """An operator function's name in one spelling, whatever its spacing: `operator +` is
    `operator+`, `operator ( )` is `operator()`, `operator  new[]` is `operator new[]`."""
    match = _OPERATOR.fullmatch(name.strip())
    if match is None:
        return name
    symbol = re.sub(r"\s+", " ", match.group(1)).strip()
    symbol = re.sub(r"\s*(\W)\s*", r"\1", symbol)
    return f"operator {symbol}" if symbol[:1].isalpha() or symbol[:1] == "_" else f"operator{symbol}"


@functools.lru_cache(maxsize=4096)
def split_target_name(name: str) -> tuple[str, str | None]:
    """A target's name and the signature written after it (None without parentheses): `f(int)`
    is ("f", "int"), `K::operator()(int)` is ("K::operator()", "int"), `operator ()` is
    ("operator()", None)."""
    call = _CALL_OPERATOR.match(name)
    if call is not None:
        base, rest = call.group(1), call.group(2)
    else:
        base, parenthesis, rest = name.partition("(")
        rest = parenthesis + rest
    base = "::".join(operator_spelling(part.strip()) for part in base.strip().split("::"))
    if "(" not in rest:
        return base, None
    return base, rest.split("(", 1)[1].rsplit(")", 1)[0].strip()


def _split_qualified(name: tree_sitter.Node | None) -> tuple[tuple[str, ...], str] | None:
    qualifier: tuple[str, ...] = ()
    while name is not None and name.type == "qualified_identifier":
        scope = name.child_by_field_name("scope")
        if scope is not None:
            qualifier += (_scope_name(scope),)
        name = name.child_by_field_name("name")
    if name is None:
        return None
    return qualifier, _scope_name(name)


def _declared_name(node: tree_sitter.Node) -> tuple[tuple[str, ...], str] | None:
    """The qualifier and the name a function definition or declaration declares: ((), "f") or (("ns", "K"), "f")."""
    declarator = function_declarator(node.child_by_field_name("declarator"))
    if declarator is None:
        return None
    return _split_qualified(declarator.child_by_field_name("declarator"))


def _variable_names(node: tree_sitter.Node) -> list[tuple[tuple[str, ...], str]]:
    """The (qualifier, name) of each variable a declaration declares."""
    found = []
    for written in node.children_by_field_name("declarator"):
        declarator: tree_sitter.Node | None = written
        while declarator is not None and declarator.type in _VARIABLE_WRAPPERS:
            declarator = declarator.child_by_field_name("declarator") or next(
                (c for c in declarator.named_children if c.type.endswith("declarator") or "identifier" in c.type), None
            )
        if declarator is not None and declarator.type in ("identifier", "qualified_identifier", "field_identifier"):
            split = _split_qualified(declarator)
            if split is not None:
                found.append(split)
    return found


def _type_alias_name(node: tree_sitter.Node) -> str | None:
    """The name a `using X = ...` or `typedef ... X;` declares."""
    if node.type == "alias_declaration":
        name = node.child_by_field_name("name")
        return node_text(name) if name is not None else None
    declarator = node.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "type_identifier":
        declarator = declarator.child_by_field_name("declarator") or next(
            (c for c in declarator.named_children if c.type.endswith("declarator") or c.type == "type_identifier"), None
        )
    return node_text(declarator) if declarator is not None else None


def _is_annotation_macro(source: bytes, node: tree_sitter.Node) -> bool:
    """Whether `node` is a macro on its own line(s) annotating what follows: `NAME(args)` or
    `NAME` with no `;`, which tree-sitter-cpp reads as an expression statement missing its `;`."""
    if node.type == "ERROR":
        return _is_member_annotation_macro(source, node)
    if node.type != "expression_statement" or not node.children or not node.children[-1].is_missing:
        return False
    named = [c for c in node.named_children if c.type != "comment"]  # comments before the missing `;` are inside
    return len(named) == 1 and named[0].type in ("call_expression", "identifier") and starts_own_line(source, node)


_MACRO_NAME = re.compile(rb"[A-Z_][A-Z0-9_]*\Z")


def _is_member_annotation_macro(source: bytes, node: tree_sitter.Node) -> bool:
    """Whether an error node in a class body is an annotation macro on its own line(s):
    `NAME(args)`, `NAME` in capitals as macros are written, its brackets closed, nothing else on
    its last line (tree-sitter-cpp reads no such macro before a member)."""
    if node.parent is None or node.parent.type != "field_declaration_list" or not starts_own_line(source, node):
        return False
    kids = node.children
    if not kids or kids[0].type not in ("identifier", "type_identifier") or not _MACRO_NAME.match(kids[0].text or b""):
        return False
    if len(kids) > 1 and (kids[1].type != "(" or kids[-1].type != ")"):
        return False
    line_end = source.find(b"\n", node.end_byte)
    return not source[node.end_byte : len(source) if line_end < 0 else line_end].strip()


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


def is_grammar_gap(node: tree_sitter.Node) -> bool:
    """Whether an error node is only what tree-sitter-cpp wants where valid C++11 leaves nothing:
    the operand after `= delete` on a function declared outside a class (`void f(int) = delete;`,
    read as a `delete` expression), or the type before a braced default argument
    (`void f(const Names& n = {"a"})`, read as a compound literal)."""
    if not node.is_missing or node.parent is None:
        return False
    parent = node.parent
    if parent.type == "compound_literal_expression":
        holder = parent.parent
        return (
            node == parent.child_by_field_name("type")
            and holder is not None
            and holder.type == "optional_parameter_declaration"
            and holder.child_by_field_name("default_value") == parent
        )
    if parent.type != "delete_expression" or parent.named_child_count != 1:
        return False
    initializer = parent.parent
    if initializer is None or initializer.type != "init_declarator":
        return False
    declarator = initializer.child_by_field_name("declarator")
    while declarator is not None and declarator.type in ("reference_declarator", "pointer_declarator"):
        declarator = next((c for c in declarator.named_children if c.type.endswith("declarator")), None)
    return declarator is not None and declarator.type == "function_declarator"


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


def enclosing_scopes(
    node: tree_sitter.Node, regions: tuple[NamespaceRegion, ...] = (), classes: bool = False
) -> tuple[str, ...]:
    """The namespaces around `node`, outermost first: named ones by name, an anonymous one as
    "", those a macro pair opens (`regions`) in their place; with `classes`, the classes,
    structs and unions around it too."""
    found: list[tuple[int, tuple[str, ...]]] = []
    current = node.parent
    while current is not None:
        if current.type == "namespace_definition":
            name = current.child_by_field_name("name")
            names = tuple(node_text(name).split("::")) if name is not None else ("",)
            found.append((current.start_byte, names))
        elif classes and current.type in ("class_specifier", "struct_specifier", "union_specifier"):
            name = current.child_by_field_name("name")
            if name is not None:
                found.append((current.start_byte, (_scope_name(name),)))
        current = current.parent
    found += [(r.start, r.names) for r in regions if r.start <= node.start_byte < r.end]
    return tuple(name for _, names in sorted(found) for name in names)


def parsed(
    source: bytes, namespace_macros: Iterable[tuple[str, str]] = ()
) -> tuple[tree_sitter.Tree, tuple[NamespaceRegion, ...]]:
    """The tree of `source` with its namespace macro lines blanked out, and the regions they open."""
    masked, regions = masked_namespace_macros(source, tuple(namespace_macros))
    return parse(masked, CPP), regions


def cpp_items(
    source: bytes, tree: tree_sitter.Tree | None = None, namespace_macros: Iterable[tuple[str, str]] = ()
) -> list[CppItem]:
    """The items of a C++ file (see the module doc). `tree` is used when no namespace macro
    changes what is parsed."""
    masked, regions = masked_namespace_macros(source, tuple(namespace_macros))
    if tree is None or masked != source:
        tree = parse(masked, CPP)
    key = (id(tree), regions)
    hit = _ITEMS.get(key)
    if hit is None or hit[0] is not tree:
        if len(_ITEMS) >= 64:
            del _ITEMS[next(iter(_ITEMS))]
        hit = _ITEMS[key] = (tree, _cpp_items(masked, tree, regions))  # holding the tree keeps its id
    return list(hit[1])


# The items of the trees walked last, by tree and namespace regions (steps and rules share one walk).
_ITEMS: dict[tuple[int, tuple[NamespaceRegion, ...]], tuple[tree_sitter.Tree, tuple[CppItem, ...]]] = {}


def _end_with_semicolon(node: tree_sitter.Node) -> int | None:
    """The end of a type definition's `;`, which tree-sitter-cpp leaves outside its node."""
    following = node.next_sibling
    return following.end_byte if following is not None and following.type == ";" else None


@dataclass(frozen=True)
class _Declared:
    """An item as its declaration names it (`_cpp_items`): its kind, qualifier and name, its
    parameter list and whether it is a function, and how many names the declaration declares."""

    kind: str
    qualifier: tuple[str, ...]
    name: str
    parameters: tree_sitter.Node | None = None
    function: bool = False
    names: int = 1


def _cpp_items(source: bytes, tree: tree_sitter.Tree, regions: tuple[NamespaceRegion, ...]) -> tuple[CppItem, ...]:
    found: list[CppItem] = []

    def add(item: _Declared, node: tree_sitter.Node, classes: tuple[str, ...]) -> None:
        namespace = tuple(n for n in enclosing_scopes(node, regions) if n)
        stop = _end_with_semicolon(node) if node.type in _TYPE_KINDS else None
        found.append(
            CppItem(
                item.kind,
                item.name,
                namespace + classes + item.qualifier,
                node,
                leading_start(source, node),
                stop,
                branches(node),
                item.names,
                item.qualifier,
                parameters=item.parameters,
                function=item.function,
            )
        )

    def visit_item(node: tree_sitter.Node, classes: tuple[str, ...]) -> None:
        inner = node
        while inner.type == "template_declaration":
            templated = next((c for c in inner.named_children if c.type in _TEMPLATED), None)
            if templated is None:
                return
            inner = templated
        if inner.type in ("function_definition", "declaration", "field_declaration"):
            declarator = function_declarator(inner.child_by_field_name("declarator"))
            declared = _declared_name(inner)
            if declarator is not None and declared is not None:
                kind = "function" if inner.type == "function_definition" else "declaration"
                parameters = declarator.child_by_field_name("parameters")
                add(_Declared(kind, declared[0], declared[1], parameters, function=True), node, classes)
            elif inner.type == "declaration" and not classes:
                variables = _variable_names(inner)
                for qualifier, name in variables:
                    add(_Declared("variable", qualifier, name, names=len(variables)), node, classes)
            elif inner.type == "field_declaration" and classes:
                members = _variable_names(inner)
                for qualifier, name in members:
                    add(_Declared("field", qualifier, name, names=len(members)), node, classes)
            if inner.type != "function_definition":
                for child in inner.named_children:
                    if child.type in _TYPE_KINDS:
                        visit_item(child, classes)
        elif inner.type in _TYPE_KINDS:
            type_name = inner.child_by_field_name("name")
            if type_name is not None and type_name.type in ("type_identifier", "qualified_identifier", "template_type"):
                split = _split_qualified(type_name) or ((), _scope_name(type_name))
                add(_Declared(_TYPE_KINDS[inner.type], split[0], split[1]), node, classes)
                body = inner.child_by_field_name("body")
                if body is not None and inner.type != "enum_specifier":
                    visit(body, classes + split[0] + (split[1],))
        elif inner.type in ("alias_declaration", "type_definition"):
            alias = _type_alias_name(inner)
            if alias is not None:
                add(_Declared("type", (), alias), node, classes)
        elif inner.type == "namespace_definition":
            body = inner.child_by_field_name("body")
            if body is not None:
                visit(body, classes)
        elif inner.type == "linkage_specification":
            body = inner.child_by_field_name("body")
            if body is not None and body.type == "declaration_list":
                visit(body, classes)
            elif body is not None:
                visit_item(body, classes)
        elif inner.type in BRANCH_KINDS or inner.type == "ERROR":
            # A local parse error (a macro tree-sitter cannot read) holds the items after it
            # until the parser recovers: they are indexed there (editing them is refused).
            visit(inner, classes)

    def visit(container: tree_sitter.Node, classes: tuple[str, ...]) -> None:
        for node in container.named_children:
            visit_item(node, classes)

    visit(tree.root_node, ())
    return tuple(found)


def is_forward_declaration(item: CppItem) -> bool:
    """Whether a class, struct, union or enum item is a declaration without a body (`class Klass;`)."""
    node = item.node
    while node.type == "template_declaration":
        node = next((c for c in node.named_children if c.type in _TYPE_KINDS or c.type == "template_declaration"), node)
        if node is item.node:
            return False
    return node.type in _TYPE_KINDS and node.child_by_field_name("body") is None
