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
name is written one way whatever its spacing (`operator_spelling`).

A class goes with its members defined out of line (`void Klass::f() {...}`),
and a namespace the deletions leave with no code goes too; the same named
namespace closed and reopened around it is then joined into one.

Attributes (`[[nodiscard]]`, `__attribute__((...))`) are part of a
declaration's node. An annotation macro on its own line before it
(`MLX_DEPRECATED("...")`, no semicolon) is a sibling that tree-sitter-cpp
reads as an expression statement missing its `;`: it belongs to the item,
with the comments among or after such lines. Above them, the `//` or `/* */`
comments on their own lines directly above (no blank line between) belong to
the item too.
"""

from __future__ import annotations

import dataclasses
import functools
import re

from dataclasses import dataclass, field
from typing import Callable, Iterable

import tree_sitter

from codemods.edit.codes import Code
from codemods.edit.values import Finding, closest_names, line_col, missing_target, shape_mismatch
from codemods.parse import CPP, error_nodes, node_text, parse
from codemods.edit.item_spans import Deletion, last_row, starts_own_line, whole_lines
from codemods.languages.cpp.preprocessor import (
    BRANCH_KINDS, CONDITIONAL_HEADS, Branch, NamespaceRegion, branch_condition, branches, is_include_guard,
    masked_namespace_macros, same_condition,
)
from codemods.languages.cpp.signature import parameters_signature, parse_signature, spelled

# Declarator wrappers to look through when finding a function's name.
_DECLARATOR_WRAPPERS = {"pointer_declarator", "reference_declarator", "parenthesized_declarator"}
# Declarator wrappers to look through when finding a variable's name.
_VARIABLE_WRAPPERS = {"init_declarator", "pointer_declarator", "reference_declarator", "array_declarator",
                      "parenthesized_declarator", "attributed_declarator"}
# The type specifiers that are items, and the kind of each.
_TYPE_KINDS = {"class_specifier": "class", "struct_specifier": "struct", "union_specifier": "union",
               "enum_specifier": "enum"}
# What a `template <...>` head may hold.
_TEMPLATED = ("function_definition", "declaration", "field_declaration", "alias_declaration", "template_declaration",
              *_TYPE_KINDS)
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


def _spelled_like(item: CppItem, wanted: str) -> str:
    """The item's name as a suggestion for `wanted`: qualified the way `wanted` is."""
    if wanted.startswith("::"):
        return f"::{item.qualified_name}"
    return item.qualified_name if "::" in split_target_name(wanted)[0] else item.name


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
                (c for c in declarator.named_children if c.type.endswith("declarator") or "identifier" in c.type),
                None)
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
            (c for c in declarator.named_children if c.type.endswith("declarator") or c.type == "type_identifier"),
            None)
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
    return not source[node.end_byte:len(source) if line_end < 0 else line_end].strip()


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


def enclosing_scopes(node: tree_sitter.Node, regions: tuple[NamespaceRegion, ...] = (),
                     classes: bool = False) -> tuple[str, ...]:
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


def parsed(source: bytes, namespace_macros: Iterable[tuple[str, str]] = ()) -> tuple[tree_sitter.Tree, tuple[NamespaceRegion, ...]]:
    """The tree of `source` with its namespace macro lines blanked out, and the regions they open."""
    masked, regions = masked_namespace_macros(source, tuple(namespace_macros))
    return parse(masked, CPP), regions


def cpp_items(source: bytes, tree: tree_sitter.Tree | None = None,
              namespace_macros: Iterable[tuple[str, str]] = ()) -> list[CppItem]:
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


def _cpp_items(source: bytes, tree: tree_sitter.Tree, regions: tuple[NamespaceRegion, ...]) -> tuple[CppItem, ...]:
    found: list[CppItem] = []

    def add(kind: str, qualifier: tuple[str, ...], name: str, node: tree_sitter.Node, classes: tuple[str, ...],
            parameters: tree_sitter.Node | None = None, function: bool = False, names: int = 1) -> None:
        namespace = tuple(n for n in enclosing_scopes(node, regions) if n)
        stop = _end_with_semicolon(node) if node.type in _TYPE_KINDS else None
        found.append(CppItem(kind, name, namespace + classes + qualifier, node, leading_start(source, node), stop,
                             branches(node), names, qualifier, parameters=parameters, function=function))

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
                add(kind, declared[0], declared[1], node, classes,
                    declarator.child_by_field_name("parameters"), function=True)
            elif inner.type == "declaration" and not classes:
                variables = _variable_names(inner)
                for qualifier, name in variables:
                    add("variable", qualifier, name, node, classes, names=len(variables))
            elif inner.type == "field_declaration" and classes:
                members = _variable_names(inner)
                for qualifier, name in members:
                    add("field", qualifier, name, node, classes, names=len(members))
            if inner.type != "function_definition":
                for child in inner.named_children:
                    if child.type in _TYPE_KINDS:
                        visit_item(child, classes)
        elif inner.type in _TYPE_KINDS:
            type_name = inner.child_by_field_name("name")
            if type_name is not None and type_name.type in ("type_identifier", "qualified_identifier", "template_type"):
                split = _split_qualified(type_name) or ((), _scope_name(type_name))
                add(_TYPE_KINDS[inner.type], split[0], split[1], node, classes)
                body = inner.child_by_field_name("body")
                if body is not None and inner.type != "enum_specifier":
                    visit(body, classes + split[0] + (split[1],))
        elif inner.type in ("alias_declaration", "type_definition"):
            alias = _type_alias_name(inner)
            if alias is not None:
                add("type", (), alias, node, classes)
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
    return _refusal(path, chosen[0], Code.AMBIGUOUS_TARGET,
                    f"{target.base_name} names {len(signatures)} overloads in {path}; name one by its parameter "
                    f"types ({forms}) or all of them ('{name}({ALL_OVERLOADS})')")


def _branch_label(item: CppItem) -> str:
    where = f"#if branch at line {item.branches[-1].line}" if item.branches else "outside any conditional"
    return f"branch = \"{item.condition}\" ({where}, line {item.node.start_point.row + 1})"


def _in_branch(path: str, target: CppTarget,
               chosen: list[CppItem]) -> tuple[list[CppItem], Finding | None]:
    """The items of the branch `target.branch` names, or a blocking finding: an item in several
    branches with no `branch` given, or a `branch` that none of them is in."""
    conditions = list(dict.fromkeys(i.condition for i in chosen))
    if target.branch == EVERY_BRANCH or (target.branch is None and len(conditions) < 2):
        return chosen, None
    listed = "; ".join(_branch_label(i) for i in chosen)
    if target.branch is None:
        return [], _refusal(path, chosen[0], Code.AMBIGUOUS_TARGET,
                            f"{target.name} is in {len(conditions)} conditional branches of {path}; name one with "
                            f"`branch` ({listed}) or all with branch = \"{EVERY_BRANCH}\"")
    wanted = [i for i in chosen if same_condition(i.condition, target.branch)
              or (i.branches and same_condition(i.branches[-1].condition, target.branch))]
    if not wanted:
        return [], _refusal(path, chosen[0], Code.NO_SUCH_ITEM,
                            f"no {target.name} in a branch compiled under {target.branch!r} in {path} ({listed})")
    return wanted, None


def _outermost_around(tree: tree_sitter.Tree, deletion: Deletion,
                      accepts: Callable[[tree_sitter.Node], bool]) -> tree_sitter.Node | None:
    """The outermost node around `deletion` that `accepts` (None if none does)."""
    node = tree.root_node.descendant_for_byte_range(deletion.start, max(deletion.start, deletion.end - 1))
    outermost = None
    while node is not None:
        if accepts(node):
            outermost = node
        node = node.parent
    return outermost


def _emptied_conditionals(source: bytes, tree: tree_sitter.Tree, deletions: list[Deletion],
                          origin: str) -> list[Deletion]:
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
        outermost = _outermost_around(tree, deletion, lambda node: node.type in CONDITIONAL_HEADS
                                      and not is_include_guard(node) and emptied(node))
        if outermost is not None and outermost not in blocks:
            blocks.append(outermost)
    if not blocks:
        return deletions
    kept = [d for d in deletions if not any(b.start_byte <= d.start and d.end <= b.end_byte + 1 for b in blocks)]
    for block in blocks:
        start, end = whole_lines(source, block.start_byte, block.end_byte, (b"//", b"/*"))
        kept.append(Deletion(start, end, f"{origin}:cpp-emptied-conditional"))
    return kept


def _emptied_namespaces(source: bytes, tree: tree_sitter.Tree, deletions: list[Deletion],
                        origin: str) -> list[Deletion]:
    """`deletions`, where they leave a namespace (named or anonymous) with no code, as one
    deletion of the whole namespace with its comments; where that leaves the same namespace
    closed and reopened around it (`}  // namespace a`, then `namespace a {`), the two are
    joined, a blank line between their contents."""
    def covered(node: tree_sitter.Node) -> bool:
        return any(d.start <= node.start_byte and node.end_byte <= d.end for d in deletions)

    def emptied(namespace: tree_sitter.Node) -> bool:
        body = namespace.child_by_field_name("body")
        content = [c for c in body.named_children if c.type != "comment"] if body is not None else []
        return bool(content) and all(covered(c) or (c.type == "namespace_definition" and emptied(c))
                                     for c in content)

    namespaces: list[tree_sitter.Node] = []
    for deletion in deletions:
        outermost = _outermost_around(tree, deletion, lambda node: node.type == "namespace_definition"
                                      and emptied(node))
        if outermost is not None and outermost not in namespaces:
            namespaces.append(outermost)
    if not namespaces:
        return deletions
    spans = {n.start_byte: whole_lines(source, leading_start(source, n), n.end_byte, (b"//", b"/*"))
             for n in namespaces}
    kept = [d for d in deletions if not any(start <= d.start and d.end <= end for start, end in spans.values())]
    for namespace in namespaces:
        start, end = spans[namespace.start_byte]
        joined = _joined_namespaces(source, namespace, start, end)
        kept.append(Deletion(*joined, f"{origin}:cpp-joined-namespace", b"\n") if joined is not None
                    else Deletion(start, end, f"{origin}:cpp-emptied-namespace"))
    return kept


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
    if before is None or after is None or before.type != "namespace_definition" \
            or after.type != "namespace_definition":
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
    close_start = source.find(b"\n", len(source[:close.start_byte].rstrip())) + 1
    _, reopen_end = whole_lines(source, reopen.start_byte, reopen.end_byte, (b"//", b"/*"))
    reopen_end += len(source[reopen_end:]) - len(source[reopen_end:].lstrip(b" \t\r\n"))
    reopen_end = source.rfind(b"\n", 0, reopen_end) + 1
    closing_line, _, below = source[close.end_byte:start].partition(b"\n")
    if closing_line.strip() and not closing_line.strip().startswith((b"//", b"/*")) or below.strip() \
            or source[end:after.start_byte].strip() or reopen_end <= end:
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
    return dataclasses.replace(finding, message=f"{finding.message} (the file does not parse at line {line}: "
                                                f"the items from there to where the parser recovers may not "
                                                f"be indexed)")


def _in_guessed_namespace(target: CppTarget, items: list[CppItem],
                          regions: tuple[NamespaceRegion, ...]) -> list[CppItem]:
    """The items of a qualified target's kind, in another namespace than the target's, that sit
    inside a namespace macro whose namespace was read from its name (neither the recipe nor the
    file says what it opens), the closest-named first: the target may name one of them in the
    namespace the macro really opens."""
    wanted = target.base_name.removeprefix("::").split("::")
    if len(wanted) < 2:
        return []
    found = [i for i in items if target.kind in ("any", i.kind) and list(i.scope) != wanted[:-1]
             and any(r.guessed and r.start <= i.node.start_byte < r.end for r in regions)]
    closest = closest_names(wanted[-1], [i.name for i in found])
    return sorted(found, key=lambda i: closest.index(i.name) if i.name in closest else len(closest))


def _with_guessed_namespace(finding: Finding, path: str, source: bytes, target: CppTarget, misread: list[CppItem],
                            regions: tuple[NamespaceRegion, ...]) -> Finding:
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
    inner = list(item.scope[len(region.names):]) if item.scope[:len(region.names)] == region.names else None
    opens = "..."
    if inner is not None and len(wanted) > len(inner) and wanted[len(wanted) - len(inner):] == inner:
        opens = "::".join(wanted[:len(wanted) - len(inner)])
    note = (f"; {item.spelled()} is there, inside {region.macro}, which the file does not define: it "
            f"was read as opening {read_as} (from the macro's name); if it opens another, say so in the "
            f"recipe's namespace_macros (docs/recipes.md): namespace_macros = {{ {region.macro} = \"{opens}\" }}")
    line, col = line_col(source, item.node.start_byte)
    return dataclasses.replace(finding, line=line, col=col, message=finding.message + note)


def _in_class_declarations(items: list[CppItem], chosen: list[CppItem]) -> list[CppItem]:
    """The declarations in their class's body of the out-of-line member definitions in `chosen`
    (same name, class and signature), which go with them."""
    return [d for i in chosen if i.kind == "function" and i.qualifier for d in items
            if d.kind == "declaration" and not d.qualifier and d.qualified_name == i.qualified_name
            and d.signature == i.signature and _in_class_body(d.node)]


def _in_class_body(node: tree_sitter.Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "field_declaration_list"


def delete_cpp_items(
    path: str, source: bytes, targets: list[CppTarget], origin: str = "delete",
    already_absent: Callable[[], bool] | None = None, namespace_macros: Iterable[tuple[str, str]] = (),
) -> tuple[list[Deletion], list[CppItem], list[Finding]]:
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
    for target in targets:
        named = [i for i in items if target.selects(i)]
        chosen = [i for i in named if target.kind in ("any", i.kind)]
        if named and not chosen:
            findings.append(shape_mismatch(path, source, target.kind, target.name, named[0].kind,
                                           named[0].node.start_byte))
            continue
        if not chosen:
            regions = masked_namespace_macros(source, macros)[1]
            misread = _in_guessed_namespace(target, items, regions)
            candidates = [_spelled_like(i, target.name) if target.signature is None
                          else i.spelled("::" in target.base_name)
                          for i in items if target.kind in ("any", i.kind) and i not in misread]
            finding = missing_target(path, target.kind, target.name, candidates, already_absent)
            findings.append(_with_parse_error(_with_guessed_namespace(finding, path, source, target, misread,
                                                                      regions), source, macros))
            continue
        refusal = _overload_refusal(path, target, chosen)
        if refusal is None:
            chosen, refusal = _in_branch(path, target, chosen)
        shared = next((i for i in chosen if i.names > 1), None)
        if refusal is None and shared is not None:
            refusal = _refusal(path, shared, Code.SHAPE_MISMATCH,
                               f"{shared.name} is declared together with other variables in one declaration; "
                               f"split the declaration first")
        if refusal is not None:
            findings.append(refusal)
            continue
        chosen += [d for d in _in_class_declarations(items, chosen) if d not in chosen]
        chosen += [m for m in out_of_line_members(items, member_owners(chosen)) if m not in chosen]
        deletions += _item_deletions(masked, chosen, functools.partial(_item_origin, origin, target.name))
        deleted += chosen
    return _settled(source, masked, macros, deletions, origin), deleted, findings


def member_owners(items: list[CppItem]) -> list[tuple[str, ...]]:
    """The qualified names, as tuples, of the classes, structs, unions (with a body: a forward
    declaration `class Klass;` declares no members) and data members among `items`: what
    out-of-line definitions belong to."""
    return [(*i.scope, i.name) for i in items if i.kind == "field"
            or i.kind in ("class", "struct", "union") and not is_forward_declaration(i)]


def is_forward_declaration(item: CppItem) -> bool:
    """Whether a class, struct, union or enum item is a declaration without a body (`class Klass;`)."""
    node = item.node
    while node.type == "template_declaration":
        node = next((c for c in node.named_children if c.type in _TYPE_KINDS or c.type == "template_declaration"),
                    node)
        if node is item.node:
            return False
    return node.type in _TYPE_KINDS and node.child_by_field_name("body") is None


def out_of_line_members(items: list[CppItem], owners: list[tuple[str, ...]]) -> list[CppItem]:
    """The items of a file defined out of line as members of `owners` (classes and data members,
    qualified names as tuples): `void Klass::f() {...}`, `int Klass::count = 0;`,
    `class Klass::Inner {...};` for `Klass`, `int Klass::count = 0;` for `Klass::count`."""
    return [i for i in items if i.qualifier and any(i.scope[:len(o)] == o or (*i.scope, i.name) == o
                                                    for o in owners)]


def _item_origin(origin: str, name: str, item: CppItem) -> str:
    """The origin of one item's deletion: the recipe's, the item's kind and the target's name."""
    return f"{origin}:cpp-{item.kind}:{name}"


def _item_deletions(masked: bytes, items: list[CppItem], origin: Callable[[CppItem], str]) -> list[Deletion]:
    """The whole lines of each item (read with the macros blanked out: an export macro before a
    declaration goes with it), with the origin `origin` gives it."""
    return [Deletion(*whole_lines(masked, i.start, i.end, (b"//", b"/*")), origin(i)) for i in items]


def _settled(source: bytes, masked: bytes, macros: tuple[tuple[str, str], ...], deletions: list[Deletion],
             origin: str) -> list[Deletion]:
    """`deletions` with the conditionals and namespaces they leave empty."""
    if not deletions:
        return deletions
    tree = parsed(source, macros)[0]
    deletions = _emptied_conditionals(source, tree, deletions, origin)
    deletions = _emptied_namespaces(masked, tree, deletions, origin)
    return _emptied_conditionals(source, tree, deletions, origin)


def delete_members_of(source: bytes, owners: list[tuple[str, ...]], origin: str,
                      namespace_macros: Iterable[tuple[str, str]] = ()) -> tuple[list[Deletion], list[CppItem]]:
    """Deletions of the out-of-line definitions in one file of members of the deleted `owners`
    (classes and data members, qualified names as tuples: `out_of_line_members`), with the
    conditionals and namespaces they leave empty; and the items deleted."""
    macros = tuple(namespace_macros)
    members = out_of_line_members(cpp_items(source, namespace_macros=macros), owners)
    masked = masked_namespace_macros(source, macros)[0]
    deletions = _item_deletions(masked, members, lambda _: f"{origin}:cpp-out-of-line-member")
    return _settled(source, masked, macros, deletions, origin), members
