"""C++ name resolution for the dangling-reference check, as far as one file shows it.

A use of a deleted C++ function counts where it can name it:

* a `static` function, or one in an anonymous namespace, lives in its
  translation unit: uses in other files are other functions;
* a qualified name `a::b::f` names it when `a::b` is its namespace, looked up
  from the namespaces around the use outwards (`::a::b::f` from the top);
* an unqualified `f` names it inside its namespace (or a nested one), in the
  global namespace, or after `using namespace a::b;` / `using a::b::f;`,
  unless the file declares another `f` in a namespace around the use;
  elsewhere only argument-dependent lookup could find it: *possible*;
* a local variable or parameter of the same name, and member accesses
  `x.f` / `x->f`, are not uses;
* a declaration in a header and its definition are one item: a surviving
  declaration of a function whose definition is deleted is reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from codemods.words import whole_words
from codemods.parse import CPP, parse
from codemods.languages.resolution import DEFINITE, POSSIBLE, Reference
from codemods.languages.cpp.items import CppTarget, cpp_items

_HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".cuh")
_NAME_NODES = ("identifier", "field_identifier", "type_identifier", "namespace_identifier")


@dataclass(frozen=True)
class DeletedCppItem:
    """A C++ function (definition or declaration) a plan deletes: the namespace code names it
    through (anonymous namespaces are transparent), and whether it is local to its translation
    unit (`static`, or in an anonymous namespace)."""

    path: str
    name: str
    visible_namespace: tuple[str, ...]
    kind: str
    translation_unit_local: bool

    @property
    def linkable(self) -> bool:
        """Whether code of another language (a cxx bridge) can name it: not static or anonymous-namespace."""
        return not self.translation_unit_local


def deleted_cpp_items(path: str, source: bytes, targets: list[CppTarget], names: list[str]) -> list[DeletedCppItem]:
    """The resolver's view of what `delete_cpp_items` deleted in one file (`names`: the names
    it reports deleted)."""
    found = []
    for item in cpp_items(source, parse(source, CPP)):
        if item.name in names and any(t.selects(item) and t.kind in ("any", item.kind) for t in targets):
            node = item.node
            static = any(c.type == "storage_class_specifier" and c.text == b"static" for c in _declaration(node).children)
            local = (static or _in_anonymous_namespace(node)) and not path.endswith(_HEADER_SUFFIXES)
            found.append(DeletedCppItem(path, item.name, item.scope, item.kind, local))
    return found


def _in_anonymous_namespace(node: tree_sitter.Node) -> bool:
    current = node.parent
    while current is not None:
        if current.type == "namespace_definition" and current.child_by_field_name("name") is None:
            return True
        current = current.parent
    return False


def _declaration(node: tree_sitter.Node) -> tree_sitter.Node:
    if node.type == "template_declaration":
        return next((c for c in node.named_children if c.type in ("function_definition", "declaration")), node)
    return node


def cpp_references(path: str, source: bytes, items: list[DeletedCppItem]) -> list[Reference]:
    """Uses in `source` (the C++ file at `path` after the plan) of the deleted functions `items`."""
    reachable = [i for i in items if not i.translation_unit_local or i.path == path]
    by_name: dict[str, list[DeletedCppItem]] = {}
    for item in reachable:
        by_name.setdefault(item.name, []).append(item)
    if not by_name:
        return []
    hits = list(whole_words(sorted(by_name)).finditer(source))
    if not hits:
        return []
    tree = parse(source, CPP)
    directives = _using(tree.root_node)
    declared = {(i.name, i.scope) for i in cpp_items(source, tree)}
    deleted_definitions = {(i.name, i.visible_namespace) for i in items if i.kind == "function"}
    found = []
    for match in hits:
        name = match.group().decode()
        node = tree.root_node.descendant_for_byte_range(match.start(), match.end())
        if node is None or node.type not in _NAME_NODES or (node.start_byte, node.end_byte) != match.span():
            continue
        reference = _resolve(node, name, by_name[name], directives, deleted_definitions, declared)
        if reference is not None:
            certainty, kind, resolution = reference
            found.append(Reference(path, match.start(), match.end(), name, certainty, kind, resolution))
    return found


def _resolve(node, name, items, directives, deleted_definitions, declared):
    """(certainty, kind, resolution) if the name at `node` may name one of `items`.

    `declared` holds (name, namespace) of the functions the file declares after the plan:
    one in a namespace around an unqualified use hides the deleted one there."""
    parent = node.parent
    if node.type == "field_identifier" and parent is not None and parent.type == "field_expression":
        return None
    qualifier, absolute, outer = _qualifier(node)
    enclosing = _enclosing_namespaces(node)
    declarator = _declared_function(outer)
    if declarator is not None:
        namespace = qualifier if absolute else enclosing + qualifier
        if (name, tuple(n for n in namespace if n)) in deleted_definitions and declarator.type == "declaration":
            return DEFINITE, "declaration", (f"declares {'::'.join((*namespace, name))}, whose definition the "
                                             f"recipe deletes (a declaration and its definition are one item)")
        return None
    if _is_local(node, name):
        return None
    visible_enclosing = tuple(n for n in enclosing if n)
    if not qualifier and not absolute and any(
            n == name and visible_enclosing[: len(namespace)] == namespace for n, namespace in declared):
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
            return DEFINITE, "name", f"{name} inside namespace {'::'.join(namespace) or '(global)'} names {full} ({item.path})"
        directive = next((d for d in directives if d[1] <= node.start_byte and d[0] in (namespace, (*namespace, name))), None)
        if directive is not None:
            return DEFINITE, "name", f"{directive[2]} makes {name} name {full} ({item.path})"
        return POSSIBLE, "name", (f"unqualified {name} outside namespace {'::'.join(namespace)}: "
                                  f"argument-dependent lookup may find {full} ({item.path})")
    return None


def _qualifier(node: tree_sitter.Node) -> tuple[tuple[str, ...], bool, tree_sitter.Node]:
    """(namespaces written before the name, whether it starts with `::`, the whole qualified node)."""
    scopes: list[str] = []
    current = node
    absolute = False
    while current.parent is not None and current.parent.type == "qualified_identifier" \
            and current.parent.child_by_field_name("name") == current:
        current = current.parent
        scope = current.child_by_field_name("scope")
        if scope is None:
            absolute = True
        else:
            scopes.insert(0, scope.text.decode("utf-8", "replace"))
    return tuple(scopes), absolute, current


def _enclosing_namespaces(node: tree_sitter.Node) -> tuple[str, ...]:
    names = []
    current = node.parent
    while current is not None:
        if current.type == "namespace_definition":
            name = current.child_by_field_name("name")
            names.insert(0, name.text.decode("utf-8", "replace") if name is not None else "")
        current = current.parent
    return tuple(names)


def _declared_function(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The function definition or declaration whose declarator name is `node`, if it is one."""
    parent = node.parent
    if parent is None or parent.type != "function_declarator" or parent.child_by_field_name("declarator") != node:
        return None
    current = parent
    while current.parent is not None and current.parent.type in (
            "pointer_declarator", "reference_declarator", "function_declarator"):
        current = current.parent
    holder = current.parent
    return holder if holder is not None and holder.type in ("function_definition", "declaration",
                                                            "field_declaration") else None


def _is_local(node: tree_sitter.Node, name: str) -> bool:
    """Whether a parameter or a local variable declared before `node` in its function has the name."""
    raw = name.encode()
    current = node.parent
    while current is not None and current.type != "function_definition":
        if current.type == "compound_statement":
            for statement in current.named_children:
                if statement.start_byte >= node.start_byte:
                    break
                if statement.type == "declaration" and _declares_variable(statement, raw):
                    return True
        current = current.parent
    if current is None:
        return False
    declarator = current.child_by_field_name("declarator")
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    return parameters is not None and any(_declares_variable(p, raw) for p in parameters.named_children)


def _declares_variable(declaration: tree_sitter.Node, name: bytes) -> bool:
    stack = [c for c in declaration.named_children if c != declaration.child_by_field_name("type")]
    while stack:
        node = stack.pop()
        if node.type == "function_declarator":
            continue
        if node.type == "identifier" and node.text == name:
            return True
        if node.type in ("init_declarator", "pointer_declarator", "reference_declarator", "array_declarator",
                         "parameter_declaration", "optional_parameter_declaration"):
            stack.extend(c for c in node.named_children if c.type != "argument_list" and c.type != "initializer_list"
                         and c != node.child_by_field_name("value") and c != node.child_by_field_name("type"))
    return False


def _using(root: tree_sitter.Node) -> list[tuple[tuple[str, ...], int, str]]:
    """(namespace or qualified name, offset, text) of `using namespace X;` and `using X::f;`."""
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "using_declaration":
            target = next((c for c in node.named_children), None)
            if target is not None:
                parts = tuple(p for p in re.split(r"\s*::\s*", target.text.decode("utf-8", "replace")) if p)
                found.append((parts, node.start_byte, " ".join(node.text.decode("utf-8", "replace").split())))
            continue
        if node.type in ("translation_unit", "declaration_list", "namespace_definition", "linkage_specification",
                         "function_definition", "compound_statement"):
            stack.extend(node.named_children)
    return found
