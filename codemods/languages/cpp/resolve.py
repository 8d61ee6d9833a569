"""C++ name resolution for the dangling-reference check, as far as one file shows it.

A use of a deleted C++ item counts where it can name it:

* a `static` function, or one in an anonymous namespace, lives in its
  translation unit: uses in other files are other functions, unless they
  include its file (`#include "..."`, followed through the tree: includes.py);
  and a file's own such function of a deleted function's name and namespace
  hides it where the file does not include the deleted one's file (an
  amalgamated header with its own copy);
* a qualified name `a::b::f` names it when `a::b` is its namespace, looked up
  from the namespaces around the use outwards (`::a::b::f` from the top);
* an unqualified `f` names it inside its namespace (or a nested one), in the
  global namespace, or after `using namespace a::b;` / `using a::b::f;`,
  unless the file declares another `f` in a namespace around the use;
  elsewhere only argument-dependent lookup could find it: *possible*;
* a local variable or parameter of the same name, and member accesses
  `x.f` / `x->f` of a function that is no member, are not uses;
* a deleted member function is called by `this->f` in a member function of
  its class (a class that may derive from it: possible), and by `x.f` /
  `p->f` where the receiver's declared type is its class (receivers.py:
  locals, parameters, data members, pointers, references, smart pointers;
  one the file shows deriving from it too), possibly where the type is not
  shown (`auto` of an initialiser it does not type, a template parameter, a call to a function no
    visible declaration types), not on another class;
* a declaration in a header and its definition are one item when their
  signatures are the same: a surviving declaration of a function whose
  definition is deleted is reported (an in-class declaration of an
  out-of-line member definition too), one of another overload is not;
* an expression applying a deleted operator (`a + b` for `operator+`) is a
  use as far as the types of its operands show (operators.py);
* a deleted data member is used by `x.name` / `p->name` on an object of its
  class (definite) or of a type not known here (possible), and by its bare
  name or a constructor's initializer in its class's member functions;
* a call whose number of arguments the deleted function cannot take, or
  whose literal or local-variable arguments its parameter types cannot take
  (a string literal for a `char`, a `char` for a `const char*`), calls
  another overload; one that an overload the file keeps could take too is
  *possible*;
* code in an inactive branch (`#if 0`) is never compiled: nothing there is a use.

Files are read as the plan read the deleted items' files: with the recipe's
namespace macros (preprocessor.py) standing for the namespaces they open.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Collection, NamedTuple

import tree_sitter

from codemods.parse import node_text
from codemods.words import word_in, word_matches
from codemods.languages.resolution import DEFINITE, POSSIBLE, Reference
from codemods.languages.cpp.deleted import DeletedCppItem, declaration_of
from codemods.languages.cpp.items import CppItem, function_declarator, cpp_items, enclosing_scopes, parsed
from codemods.languages.cpp.preprocessor import NamespaceRegion, in_inactive_branch
from codemods.languages.cpp.visibility import another_copy, in_return_type, own_internal_functions, shadowed
from codemods.languages.cpp.receivers import (
    NOT_A_CLASS,
    local_declaration,
    member_function_classes,
    receiver_class,
    template_parameter,
)
from codemods.languages.cpp.operators import MATCH, UNKNOWN, class_name, operand_match, operator_uses, verdict
from codemods.languages.cpp.signature import (
    ARITHMETIC,
    POINTER,
    STRING_LITERAL,
    ZERO,
    parameters_signature,
    spelled,
    type_category,
)

# What a literal argument is (signature.py's categories); a number literal is told apart by its value.
_LITERAL_CATEGORIES = {
    "string_literal": STRING_LITERAL,
    "concatenated_string": STRING_LITERAL,
    "raw_string_literal": STRING_LITERAL,
    "char_literal": ARITHMETIC,
    "true": ARITHMETIC,
    "false": ARITHMETIC,
    "nullptr": ZERO,
}
_CLASS_KINDS = ("class", "struct", "union")
_NAME_NODES = ("identifier", "field_identifier", "type_identifier", "namespace_identifier")

# What a resolution says of one use: (certainty, kind, resolution), as in `Reference`.
_Verdict = tuple[str, str, str]
_UNKNOWN_RECEIVER = "member access on a receiver of unknown type"
# The signatures of the deleted functions, by (name, namespace).
_DeletedDefinitions = dict[tuple[str, tuple[str, ...]], set[tuple[str, ...] | None]]


class _Using(NamedTuple):
    """A `using namespace X;` or `using X::f;`: what it names, where it stands, its text."""

    target: tuple[str, ...]
    offset: int
    text: str


@dataclass(frozen=True)
class Includes:
    """What a C++ file sees of the tree through its includes (see `cpp_references`); by default
    nothing: the file alone."""

    included: Callable[[], Collection[str]] = frozenset
    included_items: Callable[[], list[CppItem]] = list
    includes_of: Callable[[str], Collection[str]] = lambda _: frozenset()
    items_of: Callable[[str], list[CppItem]] = lambda _: []


def cpp_references(
    path: str, source: bytes, items: list[DeletedCppItem], includes: Includes = Includes()
) -> list[Reference]:
    """Uses in `source` (the C++ file at `path` after the plan) of the deleted items `items`;
    `includes.included()` gives the files `path` includes (a `static` function of one of them is visible,
    and a function of one it does not include is hidden by the file's own `static` one), and
    `included_items()` their items (the classes, data members and variables a member call's
    receiver may be typed by); `includes_of(p)` and `items_of(p)` give the files any file `p`
    includes and its items (to tell another copy of a deleted item, in files unrelated to its
    own by includes, from it)."""
    included, includes_of, items_of = includes.included, includes.includes_of, includes.items_of
    reachable = [i for i in items if not i.translation_unit_local or i.path == path or i.path in included()]
    operators = [i for i in reachable if i.operator is not None]
    by_name: dict[str, list[DeletedCppItem]] = {}
    for item in reachable:
        if item.operator is None:
            by_name.setdefault(item.name, []).append(item)
    hits = word_matches(source, by_name) if by_name else []
    if not hits and not (operators and word_in(source, {w for i in operators for w in i.search_words})):
        return []
    macros = next((i.namespace_macros for i in items if i.namespace_macros), ())
    tree, regions = parsed(source, macros)
    found = _operator_references(path, tree.root_node, operators) if operators else []
    directives = _using(tree.root_node)
    file_items = cpp_items(source, namespace_macros=macros)
    declared = {(i.name, i.scope) for i in file_items}
    own = own_internal_functions(file_items, by_name)
    seen: list[list[CppItem]] = []

    def visible() -> list[CppItem]:
        """The file's items and those of the files it includes (read once, where asked)."""
        if not seen:
            seen.append(file_items + includes.included_items())
        return seen[0]

    copies: dict[DeletedCppItem, bool] = {}

    def copied(item: DeletedCppItem) -> bool:
        if item not in copies:
            copies[item] = another_copy(item, path, file_items, included, includes_of, items_of)
        return copies[item]

    deleted_definitions: _DeletedDefinitions = {}
    for item in items:
        if item.kind == "function":
            deleted_definitions.setdefault((item.name, item.visible_namespace), set()).add(item.signature)
    facts = _FileFacts(directives, deleted_definitions, declared, regions)
    for match in hits:
        name = match.group().decode()
        node = tree.root_node.descendant_for_byte_range(match.start(), match.end())
        if node is None or node.type not in _NAME_NODES or (node.start_byte, node.end_byte) != match.span():
            continue
        if in_inactive_branch(node):
            continue
        arguments = _call_arguments(node)
        candidates = by_name[name] if arguments is None else [i for i in by_name[name] if i.takes(arguments)]
        candidates = [i for i in candidates if not shadowed(i, path, own, arguments, included) and not copied(i)]
        if node.type == "type_identifier" or in_return_type(node):
            # A type's name (`value f();`, and where an annotation macro before the return type
            # left it in an error: `inline_macro value Klass::f() {`) never names a function.
            candidates = [i for i in candidates if i.signature is None]
        if not candidates:
            continue
        fields = [i for i in candidates if i.kind == "field"]
        if fields:
            reference = _field_reference(node, fields, visible)
            candidates = [i for i in candidates if i.kind != "field"]
            if reference is not None or not candidates:
                if reference is not None:
                    certainty, kind, resolution = reference
                    found.append(
                        Reference(
                            path,
                            match.start(),
                            match.end(),
                            name,
                            certainty,
                            kind,
                            resolution,
                            receiver_unknown=resolution.startswith(_UNKNOWN_RECEIVER),
                        )
                    )
                continue
        parent = node.parent
        if node.type == "field_identifier" and parent is not None and parent.type == "field_expression":
            reference = _member_access(node, candidates, directives, visible, regions)
        else:
            reference = _resolve(node, name, candidates, facts)
        if reference is not None:
            certainty, kind, resolution = reference
            kept = next((o for i in candidates for o in i.survivors if arguments is None or o.takes(arguments)), None)
            if certainty == DEFINITE and kept is not None and kind != "declaration":
                certainty = POSSIBLE
                resolution += f"; overload resolution may pick {spelled(name, kept.signature)}, which stays"
            found.append(Reference(path, match.start(), match.end(), name, certainty, kind, resolution))
    return found


def _overrides(node: tree_sitter.Node, name: str, items: list[DeletedCppItem]) -> str | None:
    """Why a member function declared `override` (or `final`) at `node`, in a class whose base
    clause names the deleted member's class, is a use of it: it overrides nothing once that is
    gone. None for any other declaration."""
    declarator = node.parent
    if declarator is None or declarator.type != "function_declarator":
        return None
    if not any(c.type == "virtual_specifier" for c in declarator.children):
        return None
    body = declarator.parent.parent if declarator.parent is not None else None
    owner = body.parent if body is not None and body.type == "field_declaration_list" else None
    clause = next((c for c in owner.children if c.type == "base_class_clause"), None) if owner is not None else None
    if clause is None:
        return None
    bases = {
        node_text(b).split("<", 1)[0].split("::")[-1].strip()
        for b in clause.named_children
        if b.type in ("type_identifier", "qualified_identifier", "template_type")
    }
    for item in items:
        if item.member and item.name == name and item.visible_namespace and item.visible_namespace[-1] in bases:
            full = "::".join((*item.visible_namespace, name))
            return f"overrides {full} ({item.path}), which the recipe deletes: `override` then names nothing"
    return None


def _call_arguments(node: tree_sitter.Node) -> list[str | None] | None:
    """When `node` names the function a call calls, its arguments' categories as far as literals
    and declared locals show them (None where not known); None when it is not a callee."""
    _, _, callee = _qualifier(node)
    if (
        callee.parent is not None
        and callee.parent.type == "field_expression"
        and callee.parent.child_by_field_name("field") == callee
    ):
        callee = callee.parent
    if callee.parent is not None and callee.parent.type == "template_function":
        callee = callee.parent
    call = callee.parent
    if call is None or call.type != "call_expression" or call.child_by_field_name("function") != callee:
        return None
    arguments = call.child_by_field_name("arguments")
    passed = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
    return [_argument_category(a) for a in passed]


@dataclass(frozen=True)
class _FileFacts:
    """What `_resolve` knows of the file a use is in: its using-directives, the deleted functions'
    signatures (`deleted_definitions`), the functions it declares (`declared`), its namespace regions."""

    directives: list[_Using]
    deleted_definitions: _DeletedDefinitions
    declared: set[tuple[str, tuple[str, ...]]]
    regions: tuple[NamespaceRegion, ...] = ()


def _resolve(node: tree_sitter.Node, name: str, items: list[DeletedCppItem], facts: _FileFacts) -> _Verdict | None:
    """(certainty, kind, resolution) if the name at `node` may name one of `items`.

    `facts.declared` holds (name, namespace) of the functions the file declares after the plan:
    one in a namespace around an unqualified use hides the deleted one there.
    `facts.deleted_definitions` holds the signatures of the deleted functions by (name, namespace):
    a declaration is one item with its definition when its signature is one of them (a
    declaration of another overload is not a use)."""
    directives, deleted_definitions, declared, regions = (
        facts.directives,
        facts.deleted_definitions,
        facts.declared,
        facts.regions,
    )
    qualifier, absolute, outer = _qualifier(node)
    enclosing = enclosing_scopes(node, regions)
    declarator = _declared_function(outer)
    if declarator is not None:
        overridden = _overrides(node, name, items)
        if overridden is not None:
            return DEFINITE, "override", overridden
        namespace = qualifier if absolute else enclosing_scopes(node, regions, classes=True) + qualifier
        signatures = deleted_definitions.get((name, tuple(n for n in namespace if n)), set())
        if _declared_signature(declarator) in signatures and declarator.type in ("declaration", "field_declaration"):
            return (
                DEFINITE,
                "declaration",
                (
                    f"declares {'::'.join((*namespace, name))}, whose definition the "
                    f"recipe deletes (a declaration and its definition are one item)"
                ),
            )
        return None
    if _is_local(node, name):
        return None
    visible_enclosing = tuple(n for n in enclosing if n)
    possible: _Verdict | None = None  # the first possible verdict, where no item is definite
    if (
        not qualifier
        and not absolute
        and any(n == name and visible_enclosing[: len(namespace)] == namespace for n, namespace in declared)
    ):
        return None
    for item in items:
        namespace = item.visible_namespace
        full = "::".join((*namespace, name))
        if qualifier or absolute:
            scopes = [()] if absolute else [visible_enclosing[:i] for i in range(len(visible_enclosing), -1, -1)]
            if any(scope + qualifier == namespace for scope in scopes):
                return DEFINITE, "qualified name", f"{'::'.join((*qualifier, name))} names {full} ({item.path})"
            continue
        if visible_enclosing[: len(namespace)] == namespace:
            return (
                DEFINITE,
                "name",
                f"{name} inside namespace {'::'.join(namespace) or '(global)'} names {full} ({item.path})",
            )
        directive = next(
            (d for d in directives if d.offset <= node.start_byte and d.target in (namespace, (*namespace, name))), None
        )
        if directive is not None:
            return DEFINITE, "name", f"{directive.text} makes {name} name {full} ({item.path})"
        if item.member:
            # Lookup reaches a member function unqualified only from a member function of its
            # class, or of a class that may derive from it; argument-dependent lookup never does.
            classes = member_function_classes(node)
            owner = namespace[-1] if namespace else ""
            if owner in classes:
                return DEFINITE, "name", f"{name} in a member function of {owner} names {full} ({item.path})"
            if not _may_derive(node):
                continue
            # A later item may be the member of the enclosing class itself (definite).
            possible = possible or (
                POSSIBLE,
                "name",
                (
                    f"unqualified {name} in a member function of {', '.join(sorted(classes))}, "
                    f"which may derive from {owner}: it may name {full} ({item.path})"
                ),
            )
            continue
        possible = possible or (
            POSSIBLE,
            "name",
            (
                f"unqualified {name} outside namespace {'::'.join(namespace)}: "
                f"argument-dependent lookup may find {full} ({item.path})"
            ),
        )
    return possible


def _member_access(
    node: tree_sitter.Node,
    items: list[DeletedCppItem],
    directives: list[_Using],
    visible: Callable[[], list[CppItem]],
    regions: tuple[NamespaceRegion, ...] = (),
) -> _Verdict | None:
    """(certainty, kind, resolution) when the member access whose member `node` names (`x.f`,
    `p->f`) may name one of the deleted member functions among `items` (the receiver typed by the
    items `visible()` gives, the file's and its includes'): definite on `this` in a
    member function of its class, or on a receiver whose declared type is its class; possible on
    `this` in a class that may derive from it, or on a receiver whose type the file does not show
    (`auto`, a template parameter, a call's result); None on a receiver of another class (one the
    file shows deriving from its class aside) and for a function that is no member."""
    access = node.parent
    if access is None:
        return None
    receiver = access.child_by_field_name("argument")
    name = node_text(node)
    for item in items:
        if not item.member or item.kind not in ("function", "declaration") or not item.visible_namespace:
            continue
        owner = item.visible_namespace[-1]
        full = f"{'::'.join((*item.visible_namespace, name))} ({item.path})"
        if receiver is not None and receiver.type == "this":
            classes = member_function_classes(node)
            if owner in classes:
                return DEFINITE, "method call", f"this->{name} in a member function of {owner} names {full}"
            if _may_derive(node):
                return (
                    POSSIBLE,
                    "method call",
                    (
                        f"this->{name} in a member function of "
                        f"{', '.join(sorted(classes))}, which may derive from {owner}: "
                        f"it may name {full}"
                    ),
                )
            continue
        written = receiver_class(access, visible())
        if written is None:
            return POSSIBLE, "method call", f"{name} on a receiver whose type is not known here may name {full}"
        if written == NOT_A_CLASS:
            continue
        certainty = _names_class(written, item, node, directives, visible(), regions)
        if certainty is None:
            continue
        derived = written.split("::")[-1] != owner
        arrow = access.child_by_field_name("operator")
        relation = "points to" if arrow is not None and arrow.type == "->" else "is"
        why = f"{node_text(receiver)} {relation} a {written}" + (
            (", which derives from " if certainty == DEFINITE else ", whose bases may include ") + owner
            if derived
            else ""
            if certainty == DEFINITE
            else f", which may be {'::'.join(item.visible_namespace)} here"
        )
        return certainty, "method call", f"{why}: {name} {'names' if certainty == DEFINITE else 'may name'} {full}"
    return None


def _names_class(
    written: str,
    item: DeletedCppItem,
    node: tree_sitter.Node,
    directives: list[_Using],
    file_items: list[CppItem],
    regions: tuple[NamespaceRegion, ...] = (),
) -> str | None:
    """Whether the class type `written` at `node` is the deleted member's class: DEFINITE when
    lookup from there reaches it (a qualified name whose namespace is its namespace, an
    unqualified one inside its namespace or after a `using`), POSSIBLE when an unqualified name
    that may be it or a class of the file whose bases may include it, None for another class."""
    absolute = written.startswith("::")
    parts = tuple(p for p in written.split("::") if p)
    namespace, owner = item.visible_namespace[:-1], item.visible_namespace[-1]
    enclosing = tuple(n for n in enclosing_scopes(node, regions, classes=True) if n)
    if parts[-1] != owner:
        return _derives(parts[-1], owner, file_items)
    qualifier = parts[:-1]
    if absolute:
        return DEFINITE if qualifier == namespace else None
    before = [d.target for d in directives if d.offset <= node.start_byte]
    if qualifier:
        scopes = [enclosing[:i] for i in range(len(enclosing), -1, -1)] + before
        return DEFINITE if any(scope + qualifier == namespace for scope in scopes) else None
    around = [
        i.scope
        for i in file_items
        if i.name == owner and i.kind in _CLASS_KINDS and enclosing[: len(i.scope)] == i.scope
    ]
    if around:
        return DEFINITE if max(around, key=len) == namespace else None
    if enclosing[: len(namespace)] == namespace or namespace in before or (*namespace, owner) in before:
        return DEFINITE
    return POSSIBLE


def _derives(name: str, owner: str, file_items: list[CppItem], seen: frozenset[str] = frozenset()) -> str | None:
    """Whether the class `name`, as the file declares it, derives from `owner`: DEFINITE when its
    bases (followed through the file's classes) name it, POSSIBLE when they name classes the file
    does not declare, None when it has no bases or the file does not declare it."""
    verdict = None
    for item in file_items:
        if item.name != name or item.kind not in _CLASS_KINDS or name in seen:
            continue
        clause = next((c for c in item.node.children if c.type == "base_class_clause"), None)
        for base in clause.named_children if clause is not None else ():
            if base.type not in ("type_identifier", "qualified_identifier", "template_type"):
                continue
            base_name = node_text(base).split("<", 1)[0].split("::")[-1].strip()
            if base_name == owner:
                return DEFINITE
            if not any(i.name == base_name and i.kind in _CLASS_KINDS for i in file_items):
                verdict = POSSIBLE
            elif _derives(base_name, owner, file_items, seen | {name}) == DEFINITE:
                return DEFINITE
    return verdict


def _declared_signature(declaration: tree_sitter.Node) -> tuple[str, ...] | None:
    """The normalised parameter types of the function a declaration declares."""
    declarator = function_declarator(declaration_of(declaration).child_by_field_name("declarator"))
    return parameters_signature(declarator.child_by_field_name("parameters")) if declarator is not None else None


def _operator_references(path: str, root: tree_sitter.Node, items: list[DeletedCppItem]) -> list[Reference]:
    """The expressions under `root` that apply a deleted operator (see operators.py): definite
    when every operand's type is known to fit and one is of the class a parameter names,
    possible when some operand's type is not known; none when an overload the plan keeps fits
    better."""
    found = []
    for use in operator_uses(root, {i.operator for i in items if i.operator is not None}):
        if in_inactive_branch(use.token):
            continue
        classes = {c for i in items for c in map(class_name, i.operands) if c is not None}
        operands = [_operand_type(o, classes) for o in use.operands]
        built_in = all(category is not None and declared is None for category, declared in operands)

        def fit(
            types: tuple[str, ...], operands: list[tuple[str | None, str | None]] = operands, built_in: bool = built_in
        ) -> tuple[str | None, int]:
            """The verdict of these operand types, and how many operands are known to fit."""
            matches = [operand_match(c, d, p) for (c, d), p in zip(operands, types)]
            return verdict(matches, built_in), sum(m != UNKNOWN for m in matches)

        for item in items:
            if item.operator != use.symbol or len(item.operands) != len(operands) + use.postfix:
                continue
            matched, known = fit(item.operands)
            if matched is None:
                continue
            rivals = [(o, *fit(o.operands)) for o in item.survivors if len(o.operands) == len(item.operands)]
            if any(m is not None and k > known for _, m, k in rivals):
                continue  # an overload the plan keeps takes more of the operands as they are
            exact = known == len(operands)
            full = "::".join((*item.visible_namespace, spelled(item.name, item.signature or ())))
            if matched == MATCH and exact:
                certainty, resolution = DEFINITE, f"its operands' types select {full} ({item.path})"
                kept = next((o for o, m, _ in rivals if m is not None), None)
                if kept is not None:
                    certainty = POSSIBLE
                    resolution += f"; overload resolution may pick {spelled(item.name, kept.signature)}, which stays"
            else:
                certainty, resolution = (
                    POSSIBLE,
                    (f"the types of its operands are not all known here; it may apply {full} ({item.path})"),
                )
            found.append(
                Reference(path, use.token.start_byte, use.token.end_byte, item.name, certainty, "operator", resolution)
            )
            break
    return found


def _operand_type(operand: tree_sitter.Node, classes: set[str]) -> tuple[str | None, str | None]:
    """An operand's category (signature.py's) and, for a declared local of class type or a
    temporary `Klass(..)` / `Klass{..}` of one of `classes` (those the operators' parameters
    name), its class; (None, None) when neither is known here."""
    while operand.type == "parenthesized_expression" and operand.named_children:
        operand = operand.named_children[0]
    if operand.type in ("call_expression", "compound_literal_expression"):
        callee = operand.child_by_field_name("function") or operand.child_by_field_name("type")
        constructed = node_text(callee).split("<", 1)[0].split("::")[-1].strip()
        if constructed in classes:
            return None, constructed
    if operand.type == "identifier":
        local = local_declaration(operand, node_text(operand))
        if local is not None:
            declaration, wrappers = local
            if "pointer_declarator" in wrappers or "array_declarator" in wrappers:
                return POINTER, None
            written = node_text(declaration.child_by_field_name("type"))
            category = type_category(written)
            return category, class_name(written) if category is None else None
    return _argument_category(operand), None


def _declared_class(variable: tree_sitter.Node) -> str | None:
    """The class a local or parameter is declared as, an object of it, a reference or a pointer
    to it (`Gauge g`, `const Gauge& g`, `Gauge* g`); None when not declared here or not a class."""
    local = local_declaration(variable, node_text(variable))
    if local is None or "array_declarator" in local[1] or local[1].count("pointer_declarator") > 1:
        return None
    written = node_text(local[0].child_by_field_name("type"))
    if template_parameter(local[0], written):
        return None  # `K& k` in a template of K: any class
    return class_name(written) if type_category(written) is None else None


def _field_reference(
    node: tree_sitter.Node, fields: list[DeletedCppItem], visible: Callable[[], list[CppItem]]
) -> _Verdict | None:
    """(certainty, kind, resolution) when the name at `node` may name one of the deleted data
    members `fields`: a member access on an object of its class or `this` in its class's member
    functions (definite), on a receiver of another or unknown type (possible), a constructor's
    initializer or a bare name in its class's member functions (definite), a qualified
    `Klass::name` (definite); None elsewhere."""
    parent = node.parent
    for item in fields:
        owner = item.visible_namespace[-1] if item.visible_namespace else ""
        full = "::".join((*item.visible_namespace, item.name))
        inside = owner in member_function_classes(node)
        if parent is not None and parent.type == "field_expression" and parent.child_by_field_name("field") == node:
            receiver = parent.child_by_field_name("argument")
            if receiver is not None and receiver.type == "this" and inside:
                return DEFINITE, "member", f"this->{item.name} in a member function of {owner} names {full}"
            declared = _declared_class(receiver) if receiver is not None and receiver.type == "identifier" else None
            if declared is None and receiver is not None and receiver.type in ("field_expression", "identifier"):
                # `ctx.info.flag`: the receiver typed through the file's (and its includes') classes.
                written = receiver_class(parent, visible())
                declared = written.split("::")[-1] if written and written != NOT_A_CLASS else None
            if declared == owner:
                return DEFINITE, "member", f"{node_text(receiver)} is a {owner}: .{item.name} names {full}"
            if declared is None:
                return POSSIBLE, "member", f"{_UNKNOWN_RECEIVER} may name {full}"
            continue
        qualifier, _, _ = _qualifier(node)
        if qualifier:
            if qualifier[-1] == owner:
                return DEFINITE, "qualified name", f"{'::'.join((*qualifier, item.name))} names {full}"
            continue
        if parent is not None and parent.type == "field_initializer" and inside:
            return DEFINITE, "member", f"the constructor of {owner} initialises {full}"
        if node.type == "identifier" and inside and not _is_local(node, item.name):
            return DEFINITE, "member", f"{item.name} in a member function of {owner} names {full}"
    return None


def _may_derive(node: tree_sitter.Node) -> bool:
    """Whether `node` sits in a member function of a class that may have bases: one defined out
    of line (its class body is not here), or in a class body with a base clause."""
    current = node.parent
    while current is not None:
        if current.type in ("class_specifier", "struct_specifier", "union_specifier") and any(
            c.type == "base_class_clause" for c in current.children
        ):
            return True
        if current.type == "function_definition":
            declarator = function_declarator(current.child_by_field_name("declarator"))
            named = declarator.child_by_field_name("declarator") if declarator is not None else None
            if named is not None and named.type == "qualified_identifier":
                return True
        current = current.parent
    return False


def _qualifier(node: tree_sitter.Node) -> tuple[tuple[str, ...], bool, tree_sitter.Node]:
    """(namespaces written before the name, whether it starts with `::`, the whole qualified node)."""
    scopes: list[str] = []
    current = node
    absolute = False
    while (
        current.parent is not None
        and current.parent.type == "qualified_identifier"
        and current.parent.child_by_field_name("name") == current
    ):
        current = current.parent
        scope = current.child_by_field_name("scope")
        if scope is None:
            absolute = True
        else:
            scopes.insert(0, node_text(scope))
    return tuple(scopes), absolute, current


def _declared_function(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The function definition or declaration whose declarator name is `node`, if it is one (the
    `init_declarator` of a function deleted with `= delete` outside a class, which tree-sitter-cpp
    reads as an initialised declarator: a definition of its own, not a declaration of another)."""
    parent = node.parent
    if parent is None or parent.type != "function_declarator" or parent.child_by_field_name("declarator") != node:
        return None
    current = parent
    while current.parent is not None and current.parent.type in (
        "pointer_declarator",
        "reference_declarator",
        "function_declarator",
    ):
        current = current.parent
    holder = current.parent
    if holder is not None and holder.type == "init_declarator" and holder.child_by_field_name("declarator") == current:
        value = holder.child_by_field_name("value")
        return holder if value is not None and value.type == "delete_expression" else None
    return (
        holder
        if holder is not None and holder.type in ("function_definition", "declaration", "field_declaration")
        else None
    )


def _is_local(node: tree_sitter.Node, name: str) -> bool:
    """Whether a parameter or a local variable declared before `node` in its function has the name."""
    return local_declaration(node, name) is not None


def _argument_category(argument: tree_sitter.Node) -> str | None:
    """What a call argument is, as far as a literal or a declared local shows (signature.py's
    categories), or None when that is not known."""
    if argument.type in _LITERAL_CATEGORIES:
        return _LITERAL_CATEGORIES[argument.type]
    if argument.type == "number_literal":
        return ZERO if argument.text == b"0" else ARITHMETIC
    if argument.type != "identifier":
        return None
    local = local_declaration(argument, node_text(argument))
    if local is None:
        return None
    declaration, wrappers = local
    if "pointer_declarator" in wrappers or "array_declarator" in wrappers:
        return POINTER
    return type_category(node_text(declaration.child_by_field_name("type")))


def _using(root: tree_sitter.Node) -> list[_Using]:
    """(namespace or qualified name, offset, text) of `using namespace X;` and `using X::f;`."""
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "using_declaration":
            target = next((c for c in node.named_children), None)
            if target is not None:
                parts = tuple(p for p in re.split(r"\s*::\s*", node_text(target)) if p)
                found.append(_Using(parts, node.start_byte, " ".join(node_text(node).split())))
            continue
        if node.type in (
            "translation_unit",
            "declaration_list",
            "namespace_definition",
            "linkage_specification",
            "function_definition",
            "compound_statement",
        ):
            stack.extend(node.named_children)
    return found
