"""Rust name resolution for the dangling-reference check.

A use of a name refers to a deleted item only if it resolves to it. This
module resolves names the way rustc does, as far as the source shows it:

* crates and modules come from Cargo.toml and `mod` declarations
  (codemods/languages/rust/crates.py); another crate reaches an item through its crate
  name or a re-export; `extern crate x as y` (and `use x as y`, `pub use x`) binds a name
  to crate `x`'s root like any import, and at a crate root adds it to the extern prelude;
* lexical scopes: a `let`, parameter, closure parameter, pattern binding,
  generic parameter or block item of the same name shadows module items;
  a nested `fn` does not see the locals of the function around it;
* module scopes: items, `use` declarations (renames, groups, `self`, globs,
  `pub use` re-exports, `crate`/`self`/`super` paths; in an edition 2015
  crate a `use` path starts at the crate root), then glob imports,
  which bring in only what is visible to the importing module
  (private: the item's module and its descendants; `pub(crate)`,
  `pub(super)`, `pub(in path)`);
* qualified paths, segment by segment, in the type namespace before the last;
* `#[serde(default = "f")]`-like attributes name functions;
* a method call or field access `x.name` refers to a deleted method only
  where the receiver is `self` in an impl of its type; elsewhere it is
  *possible*, as is a use inside a `macro_rules!` body or inside an
  invocation of a macro whose arguments are not known to be expressions.

Module scopes are read from the tree before the plan (where the deleted items
still exist); uses and their local scopes from the text after it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Callable

import tree_sitter

from codemods.words import WORD_BYTES, word_matches
from codemods.edit.values import line_col
from codemods.languages.resolution import DEFINITE, POSSIBLE, Reference
from codemods.parse import RUST, descendants, enclosing, node_text, parse
from codemods.languages.rust.crates import CrateIndex, PathAttributeSearch, _join
from codemods.core.parallel import forked_map

VALUE = "value"
TYPE = "type"
MACRO = "macro"

# Macros whose arguments are expressions (or format strings and expressions):
# a name inside them resolves as in code.
EXPRESSION_MACROS = frozenset({
    "assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "vec",
    "format", "format_args", "print", "println", "eprint", "eprintln", "write", "writeln", "panic",
    "unreachable", "todo", "unimplemented", "dbg", "anyhow", "bail", "ensure", "json", "info", "warn",
    "error", "debug", "trace",
})

# serde attribute keys whose string value is a path to a function (or, for `with`, a module).
SERDE_FUNCTION_KEYS = frozenset({"default", "serialize_with", "deserialize_with", "skip_serializing_if", "getter"})
SERDE_MODULE_KEYS = frozenset({"with"})

_ITEM_NAMESPACES = {
    "function_item": (VALUE,),
    "function_signature_item": (VALUE,),
    "const_item": (VALUE,),
    "static_item": (VALUE,),
    "enum_item": (TYPE,),
    "union_item": (TYPE,),
    "trait_item": (TYPE,),
    "type_item": (TYPE,),
    "mod_item": (TYPE,),
    "macro_definition": (MACRO,),
    "associated_type": (TYPE,),  # declared in module scopes only as a cxx bridge's `type X;`
}

# Pattern nodes whose identifier children bind names.
_PATTERN_PARENTS = frozenset({
    "tuple_pattern", "or_pattern", "match_pattern", "ref_pattern", "mut_pattern", "slice_pattern",
    "reference_pattern", "closure_parameters", "captured_pattern",
})
# Nodes whose `pattern` field binds names.
_PATTERN_FIELDS = frozenset({"let_declaration", "parameter", "for_expression", "let_condition", "field_pattern",
                             "match_arm"})

# Item nodes whose `name` field declares the name (a use of the name there is not a reference).
_DECLARING = frozenset({
    "function_item", "function_signature_item", "const_item", "static_item", "struct_item", "enum_item",
    "union_item", "trait_item", "type_item", "mod_item", "macro_definition", "enum_variant",
    "type_parameter", "const_parameter", "field_declaration", "associated_type",
})


@dataclass(frozen=True)
class DeletedRustItem:
    """An item the plan deletes, as the resolver identifies it.

    `start` is the byte offset of the item node in the file before the plan
    (its identity); `module` the inline module path inside the file; `owner`
    the implemented type for a method, and `owner_declared_here` whether the
    file declares that type (then a namesake declared elsewhere is another type);
    `left_impl` whether it is a method taken out of a trait impl that the plan keeps
    (the trait must then not require it).
    """

    path: str
    module: tuple[str, ...]
    name: str
    kind: str
    start: int
    owner: str | None = None
    visibility: str = ""
    owner_declared_here: bool = False
    left_impl: bool = False


@dataclass(frozen=True)
class _Def:
    """An item declared in a module scope."""

    file: str
    start: int
    name: str
    kind: str
    namespaces: tuple[str, ...]
    module: tuple[str, tuple[str, ...]]
    visibility: str


@dataclass(frozen=True)
class _Mod:
    """A module, reached through a path; `definition` is its `mod` item where the tree declares it."""

    key: tuple[str, tuple[str, ...]]
    definition: _Def | None = None


@dataclass(frozen=True)
class _Import:
    """One name (or glob) bound by a `use` declaration, or the name an `extern crate` declaration
    binds (`crate`: then `segments` is the one crate name it loads, `self` for its own crate)."""

    name: str | None
    segments: tuple[str, ...]
    visibility: str
    file: str
    start: int
    text: str
    crate: bool = False


# Outcomes that are not items of the tree.
_EXTERNAL = "external"
_OTHER = "other"
_UNKNOWN = "unknown"


@dataclass(frozen=True)
class _Outcome:
    target: object
    via: tuple[str, ...] = ()

    def through(self, step: str) -> "_Outcome":
        return _Outcome(self.target, (step, *self.via))


@dataclass
class _Scope:
    """What a module (or a block) declares: items, named imports, globs, child module locations."""

    items: dict[str, list[_Def]]
    imports: dict[str, list[_Import]]
    globs: list[_Import]
    children: dict[str, tuple[str, tree_sitter.Node | None, str]]


def _visibility(node: tree_sitter.Node) -> str:
    modifier = next((c for c in node.children if c.type == "visibility_modifier"), None)
    return " ".join(node_text(modifier).split()) if modifier is not None else ""


def _struct_namespaces(node: tree_sitter.Node) -> tuple[str, ...]:
    body = node.child_by_field_name("body")
    return (TYPE,) if body is not None and body.type == "field_declaration_list" else (TYPE, VALUE)


def _path_segments(node: tree_sitter.Node) -> tuple[str, ...] | None:
    """`a::b::c` as ("a", "b", "c"); None for paths we do not follow (`<T as Tr>::x`)."""
    if node.type in ("scoped_identifier", "scoped_type_identifier"):
        path = node.child_by_field_name("path")
        name = node.child_by_field_name("name")
        head = _path_segments(path) if path is not None else ("",)
        if head is None or name is None:
            return None
        return (*head, node_text(name))
    if node.type == "generic_type":
        return _path_segments(node.child_by_field_name("type"))
    if node.type in ("identifier", "type_identifier", "crate", "self", "super", "metavariable"):
        return (node_text(node),)
    return None


def _flatten_use(node: tree_sitter.Node, prefix: tuple[str, ...]) -> list[tuple[str | None, tuple[str, ...], tree_sitter.Node]]:
    """(bound name or None for a glob, full path, node) for each leaf of a use tree."""
    kind = node.type
    if kind == "use_as_clause":
        path = _path_segments(node.child_by_field_name("path"))
        alias = node_text(node.child_by_field_name("alias"))
        return [(alias, (*prefix, *path), node)] if path else []
    if kind == "use_wildcard":
        inner = next((c for c in node.named_children), None)
        path = _path_segments(inner) if inner is not None else ()
        return [(None, (*prefix, *(path or ())), node)]
    if kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        head = _path_segments(path) if path is not None else ()
        found = []
        for child in node.child_by_field_name("list").named_children:
            found += _flatten_use(child, (*prefix, *(head or ())))
        return found
    if kind == "use_list":
        return [leaf for child in node.named_children for leaf in _flatten_use(child, prefix)]
    if kind == "self" and prefix:
        return [(prefix[-1], prefix, node)]
    path = _path_segments(node)
    if not path:
        return []
    return [(path[-1], (*prefix, *path), node)]


def _binds(pattern: tree_sitter.Node | None, name: bytes) -> bool:
    """Whether the pattern binds `name`."""
    stack = [pattern] if pattern is not None else []
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            if node.text == name and not _names_a_path(node):
                return True
        elif node.type == "shorthand_field_identifier":
            if node.text == name:
                return True
        elif node.type == "match_pattern":
            condition = node.child_by_field_name("condition")
            stack.extend(c for c in node.named_children if c != condition)
        elif node.type not in ("scoped_identifier", "scoped_type_identifier", "type_identifier"):
            stack.extend(node.named_children)
    return False


def _names_a_path(node: tree_sitter.Node) -> bool:
    """Whether an identifier in a pattern is the type of a tuple-struct or struct pattern."""
    parent = node.parent
    return parent is not None and parent.type in ("tuple_struct_pattern", "struct_pattern") \
        and parent.child_by_field_name("type") == node


def _is_binding(node: tree_sitter.Node) -> bool:
    """Whether this identifier is a name bound by a pattern (not a use)."""
    if _names_a_path(node):
        return False
    current = node
    parent = node.parent
    while parent is not None:
        if parent.type in _PATTERN_FIELDS and parent.child_by_field_name("pattern") == current:
            return True
        if parent.type == "closure_parameters":
            return True
        if parent.type == "match_pattern" and parent.child_by_field_name("condition") == current:
            return False
        if parent.type not in _PATTERN_PARENTS and parent.type not in ("tuple_struct_pattern", "struct_pattern"):
            return False
        current = parent
        parent = parent.parent
    return False


class RustResolver:
    """Resolves uses of names in a tree's Rust files against a set of deleted items."""

    def __init__(self, root: Path, read_before: Callable[[str], bytes | None],
                 path_attributes: PathAttributeSearch | None = None) -> None:
        self._root = Path(root)
        self._read = read_before
        self._trees: dict[str, tuple[bytes, tree_sitter.Tree] | None] = {}
        self._scopes: dict[tuple[str, tuple[str, ...]], _Scope | None] = {}
        self._subtrees: dict[tuple[str, tuple[str, ...]], set[str]] = {}
        self._references: dict[tuple[str, bytes, tuple[DeletedRustItem, ...]], tuple[Reference, ...]] = {}
        self._file_types: dict[str, _FileTypes] = {}  # of the files as read, where an alias is
        self._editions: dict[str, str] = {}
        self._existing: dict[str, bool] = {}
        self.crates = CrateIndex(self._root, self._exists, read_before, self._mod_declarations, path_attributes)

    # -- files --------------------------------------------------------------

    def _exists(self, path: str) -> bool:
        """Whether the tree holds the file `path` (asked once per path and plan: the module
        lookups ask the same candidates again and again)."""
        known = self._existing.get(path)
        if known is None:
            known = self._existing[path] = os.path.isfile(os.path.join(self._root, path))
        return known

    def _tree(self, path: str) -> tuple[bytes, tree_sitter.Tree] | None:
        if path not in self._trees:
            source = self._read(path) if path.endswith(".rs") else None
            self._trees[path] = (source, parse(source, RUST)) if source is not None else None
        return self._trees[path]

    def _mod_declarations(self, path: str) -> list[tuple[tuple[str, ...], str, str | None]]:
        parsed = self._tree(path)
        if parsed is None:
            return []
        found = []

        def visit(container: tree_sitter.Node, inline: tuple[str, ...]) -> None:
            for node in container.named_children:
                if node.type != "mod_item":
                    continue
                name = node_text(node.child_by_field_name("name"))
                body = node.child_by_field_name("body")
                if body is None:
                    found.append((inline, name, _attribute_string(node, b"path")))
                else:
                    visit(body, (*inline, name))

        visit(parsed[1].root_node, ())
        return found

    # -- module scopes ------------------------------------------------------

    def _location(self, key: tuple[str, tuple[str, ...]]) -> tuple[str, tree_sitter.Node, str] | None:
        """(file, node holding the module's items, folder of its out-of-line children)."""
        root, path = key
        if not path:
            parsed = self._tree(root)
            return (root, parsed[1].root_node, str(PurePosixPath(root).parent)) if parsed else None
        parent = self._scope((root, path[:-1]))
        if parent is None or path[-1] not in parent.children:
            return None
        file, node, folder = parent.children[path[-1]]
        if node is None:
            parsed = self._tree(file)
            return (file, parsed[1].root_node, folder) if parsed else None
        return file, node, folder

    def _scope(self, key: tuple[str, tuple[str, ...]]) -> _Scope | None:
        if key not in self._scopes:
            self._scopes[key] = None
            location = self._location(key)
            self._scopes[key] = self._build_scope(key, *location) if location else None
        return self._scopes[key]

    def _build_scope(self, key, file: str, container: tree_sitter.Node, folder: str) -> _Scope:
        scope = _Scope({}, {}, [], {})
        for node in container.named_children:
            self._declare(scope, node, file, folder, key)
        return scope

    def _declare(self, scope: _Scope, node: tree_sitter.Node, file: str, folder: str, key) -> None:
        kind = node.type
        if kind == "use_declaration":
            visibility = _visibility(node)
            argument = node.child_by_field_name("argument")
            for name, segments, leaf in _flatten_use(argument, ()) if argument is not None else []:
                text = "use " + "::".join(segments) + ("::*" if name is None else "")
                if name is not None and segments and segments[-1] != name:
                    text += f" as {name}"
                entry = _Import(name, segments, visibility, file, leaf.start_byte, text)
                if name is None:
                    scope.globs.append(entry)
                else:
                    scope.imports.setdefault(name, []).append(entry)
            return
        if kind == "extern_crate_declaration":
            # `extern crate x as y;` binds `y` (or `x`) to the root of crate `x` in the type namespace.
            crate = node_text(node.child_by_field_name("name"))
            alias = node.child_by_field_name("alias")
            name = node_text(alias) if alias is not None else crate
            if crate and name != "_":
                text = f"extern crate {crate}" + (f" as {name}" if alias is not None else "")
                scope.imports.setdefault(name, []).append(
                    _Import(name, (crate,), _visibility(node), file, node.start_byte, text, crate=True))
            return
        if kind == "foreign_mod_item":
            body = node.child_by_field_name("body") or next(
                (c for c in node.named_children if c.type == "declaration_list"), None)
            for child in body.named_children if body is not None else []:
                self._declare(scope, child, file, folder, key)
            return
        if kind == "struct_item":
            namespaces = _struct_namespaces(node)
        else:
            namespaces = _ITEM_NAMESPACES.get(kind)
        if namespaces is None:
            return
        name = node_text(node.child_by_field_name("name"))
        if kind == "function_signature_item":
            name = _attribute_string(node, b"rust_name") or name
        visibility = _visibility(node)
        if kind in ("function_signature_item", "associated_type") and not visibility:
            visibility = "pub"
        scope.items.setdefault(name, []).append(
            _Def(file, node.start_byte, name, kind, namespaces, key, visibility))
        if kind == "mod_item":
            body = node.child_by_field_name("body")
            if body is not None:
                scope.children[name] = (file, body, _join(folder, name))
            else:
                scope.children[name] = self._module_file(file, folder, name, _attribute_string(node, b"path"))

    def _module_file(self, file: str, folder: str, name: str, attr_path: str | None) -> tuple[str, None, str]:
        if attr_path is not None:
            base = str(PurePosixPath(file).parent) if folder == _own_folder(file) else folder
            target = _join(base, attr_path)
            return target, None, str(PurePosixPath(target).parent)
        flat = _join(folder, f"{name}.rs")
        if self._exists(flat):
            return flat, None, _join(folder, name)
        nested = _join(folder, name, "mod.rs")
        return nested, None, _join(folder, name)

    # -- lookups ------------------------------------------------------------

    def _visible(self, module: tuple[str, tuple[str, ...]], visibility: str,
                 importer: tuple[str, tuple[str, ...]]) -> bool:
        """Whether an item of `module` with `visibility` is visible from the module `importer`."""
        if visibility == "pub":
            return True
        if importer[0] != module[0]:
            return False
        if visibility in ("pub(crate)", "crate"):
            return True
        allowed = module[1]
        if visibility == "pub(super)":
            allowed = module[1][:-1]
        elif visibility.startswith("pub(in "):
            path = visibility[len("pub(in "):-1].replace(" ", "").split("::")
            allowed = tuple(p for p in path if p != "crate")
        return importer[1][: len(allowed)] == allowed

    def lookup(self, key, name: str, namespace: str, importer=None, seen=None) -> list[_Outcome]:
        """What `name` means in the module `key`: its items, then named imports, then globs.

        With `importer` (a glob lookup), only what is visible from that module counts.
        """
        seen = set() if seen is None else seen
        if (key, name, namespace) in seen:
            return []  # a cycle of imports on the path being resolved
        seen.add((key, name, namespace))
        try:
            return self._lookup(key, name, namespace, importer, seen)
        finally:
            # `seen` holds the lookups on the current path only: a sibling path (the glob tried
            # before an extern crate of the same name, say) may ask the same question again.
            seen.discard((key, name, namespace))

    def _lookup(self, key, name: str, namespace: str, importer, seen) -> list[_Outcome]:
        scope = self._scope(key)
        if scope is None:
            return [_Outcome(_UNKNOWN, (f"module {self._modulenode_text(key)} not found",))]
        found = [_Outcome(_Mod((key[0], (*key[1], name)), d) if d.kind == "mod_item" else d)
                 for d in scope.items.get(name, [])
                 if namespace in d.namespaces and (importer is None or self._visible(key, d.visibility, importer))]
        for entry in scope.imports.get(name, []):
            if importer is not None and not self._visible(key, entry.visibility, importer):
                continue
            step = f"{entry.text} at {entry.file}:{self._line(entry.file, entry.start)}"
            found += [o.through(step) for o in self._resolve_import(key, entry, namespace, seen)]
        if found:
            return found
        for entry in scope.globs:
            if importer is not None and not self._visible(key, entry.visibility, importer):
                continue
            step = f"{entry.text} at {entry.file}:{self._line(entry.file, entry.start)}"
            for base in self._resolve_module_path(*self._import_start(key, entry.segments), seen):
                if isinstance(base.target, _Mod):
                    found += [o.through(step) for o in self.lookup(base.target.key, name, namespace, key, seen)]
                elif base.target == _UNKNOWN:
                    found.append(base.through(step))
        return found

    def _resolve_import(self, key, entry: _Import, namespace: str, seen) -> list[_Outcome]:
        if entry.crate:
            return self._loaded_crate(key[0], entry.segments[0]) if namespace == TYPE else []
        segments = entry.segments
        if segments and segments[-1] == "self":
            segments = segments[:-1]
        start, segments = self._import_start(key, segments)
        return self._resolve_segments(start, None, segments, namespace, seen)

    def _import_start(self, key, segments: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], tuple[str, ...]]:
        """Where a `use` path of module `key` starts: the module itself (edition 2018 on), or, in an
        edition 2015 crate, the crate root (`use Evented;`, `use ::io::Read;` name root items),
        unless the path says `self`, `super` or `crate`."""
        root = key[0]
        if root not in self._editions:
            from codemods.languages.rust.format import crate_edition

            self._editions[root] = crate_edition(self._root, root)
        if self._editions[root] != "2015" or not segments:
            return key, segments
        if segments[0] == "" and len(segments) > 1:
            segments = segments[1:]
        if segments[0] in ("crate", "self", "super", "$crate"):
            return key, segments
        return (root, ()), segments

    def _resolve_module_path(self, key, segments: tuple[str, ...], seen) -> list[_Outcome]:
        if not segments:
            return [_Outcome(_UNKNOWN)]
        return self._resolve_segments(key, None, segments, TYPE, seen)

    def _resolve_segments(self, key, occurrence: tree_sitter.Node | None, segments: tuple[str, ...],
                          namespace: str, seen=None) -> list[_Outcome]:
        """Resolve a path; the first segment from `occurrence`'s lexical scope (or module `key`)."""
        seen = set() if seen is None else seen
        first, rest = segments[0], segments[1:]
        root, module = key
        first_namespace = TYPE if rest else namespace
        if first == "":
            current = self._extern(root, rest[0]) if rest else []
            rest = rest[1:]
        elif first in ("crate", "$crate"):
            current = [_Outcome(_Mod((root, ())))]
        elif first == "self":
            current = [_Outcome(_Mod(key))]
        elif first == "super":
            current = [_Outcome(_Mod((root, module[:-1])))]
            while rest and rest[0] == "super":
                module = module[:-1]
                current = [_Outcome(_Mod((root, module[:-1])))]
                rest = rest[1:]
        elif first == "Self":
            return [_Outcome(_OTHER)]
        elif occurrence is not None:
            current = self._lexical(key, occurrence, first, first_namespace)
        else:
            current = self.lookup(key, first, first_namespace, None, seen)
            if not current and first_namespace == TYPE:
                current = self._extern(root, first)
        for index, segment in enumerate(rest):
            last = index == len(rest) - 1
            wanted = namespace if last else TYPE
            following: list[_Outcome] = []
            for outcome in current:
                target = outcome.target
                if isinstance(target, _Mod):
                    following += [_Outcome(o.target, outcome.via + o.via)
                                  for o in self.lookup(target.key, segment, wanted, None, seen)]
                elif target in (_EXTERNAL, _UNKNOWN):
                    following.append(outcome)
                elif isinstance(target, _Def):
                    following.append(_Outcome(("assoc", target, segment), outcome.via))
                else:
                    following.append(_Outcome(_OTHER, outcome.via))
            current = following
        return current

    def _extern(self, root: str, name: str) -> list[_Outcome]:
        """What `name` means in the extern prelude of the crate `root`: a crate it depends on, or
        the name an `extern crate` declaration of its root module binds (rustc adds those too)."""
        found = self._loaded_crate(root, name)
        if found:
            return found
        declared = self._scope((root, ()))
        for entry in declared.imports.get(name, []) if declared is not None else []:
            if entry.crate and entry.segments[0] != name:
                step = f"{entry.text} at {entry.file}:{self._line(entry.file, entry.start)}"
                found += [o.through(step) for o in self._loaded_crate(root, entry.segments[0])]
        return found

    def _loaded_crate(self, root: str, crate: str) -> list[_Outcome]:
        """The root of the crate that the crate `root` names `crate` on its command line (its Cargo
        dependencies and std's crates), or its own root for `self`."""
        if crate == "self":
            return [_Outcome(_Mod((root, ())))]
        known, lib = self.crates.crate(root).extern(crate)
        if lib is not None:
            return [_Outcome(_Mod((lib, ())))]
        return [_Outcome(_EXTERNAL)] if known else []

    def _lexical(self, key, occurrence: tree_sitter.Node, name: str, namespace: str) -> list[_Outcome]:
        """What the bare `name` means at `occurrence` (a node of the file after the plan)."""
        raw = name.encode()
        locals_visible = True
        child = occurrence
        node = occurrence.parent
        while node is not None:
            kind = node.type
            if kind in ("mod_item", "source_file"):
                break
            if locals_visible and namespace == VALUE and _binds_here(node, child, raw):
                return [_Outcome(_OTHER)]
            if locals_visible and namespace == TYPE and _generic_here(node, raw):
                return [_Outcome(_OTHER)]
            if kind == "block":
                found = self._block_items(key, node, name, namespace)
                if found:
                    return found
            if kind == "function_item":
                locals_visible = False
            child = node
            node = node.parent
        found = self.lookup(key, name, namespace)
        if not found and namespace == TYPE:
            found = self._extern(key[0], name)
        if not found and namespace == MACRO and key[1]:
            return self._lexical_macro(key, name)
        return found

    def _lexical_macro(self, key, name: str) -> list[_Outcome]:
        """macro_rules! are visible in the modules declared after them: look in the parents."""
        root, module = key
        while module:
            module = module[:-1]
            found = self.lookup((root, module), name, MACRO)
            if found:
                return found
        return []

    def _block_items(self, key, block: tree_sitter.Node, name: str, namespace: str) -> list[_Outcome]:
        """Items and `use` declarations of a block (they are visible in all of it)."""
        scope = _Scope({}, {}, [], {})
        file = self._current_file
        for statement in block.named_children:
            if statement.type == "use_declaration":
                self._declare(scope, statement, file, "", key)
            elif node_text(statement.child_by_field_name("name")) == name and namespace in (
                    _struct_namespaces(statement) if statement.type == "struct_item"
                    else _ITEM_NAMESPACES.get(statement.type, ())):
                return [_Outcome(_OTHER)]
        found: list[_Outcome] = []
        for entry in scope.imports.get(name, []):
            step = f"{entry.text} at {file}:{line_col(self._current_source, entry.start)[0]}"
            found += [o.through(step) for o in self._resolve_import(key, entry, namespace, set())]
        if found:
            return found
        for entry in scope.globs:
            step = f"{entry.text} at {file}:{line_col(self._current_source, entry.start)[0]}"
            for base in self._resolve_module_path(key, entry.segments, set()):
                if isinstance(base.target, _Mod):
                    found += [o.through(step) for o in self.lookup(base.target.key, name, namespace, key)]
        return found

    # -- rendering ----------------------------------------------------------

    def _line(self, file: str, offset: int) -> int:
        parsed = self._tree(file)
        return line_col(parsed[0], offset)[0] if parsed else 0

    def _modulenode_text(self, key) -> str:
        crate = self.crates.crate(key[0]).name
        return "::".join((crate, *key[1]))

    def describe(self, definition: _Def) -> str:
        return (f"{self._modulenode_text(definition.module)}::{definition.name} "
                f"({definition.file}:{self._line(definition.file, definition.start)})")

    # -- uses in one file ---------------------------------------------------

    def references_in_file(self, path: str, source: bytes, targets: list[DeletedRustItem]) -> list[Reference]:
        """Every use in `source` (the file at `path` after the plan) of a name of `targets`
        that resolves, or may resolve, to one of them. Resolved once per plan for each text: the
        import stage asks about the files it may edit, and the reference check again."""
        key = (path, source, tuple(targets))
        if key not in self._references:
            self._references[key] = tuple(self._references_in_text(path, source, targets))
        return list(self._references[key])

    def resolve_files(self, files: list[tuple[str, bytes]], targets: list[DeletedRustItem], processes: int) -> None:
        """Resolve the uses in each (path, text) of `files` ahead of `references_in_file`, spread
        over `processes` forked processes (their results are kept here), or here where the work
        is too small to be worth a fork (under PARALLEL_FILES files that may reach a target) or
        cannot be forked."""
        key = tuple(targets)
        pending = [(path, source) for path, source in files if (path, source, key) not in self._references
                   and any(self._may_reach(t, path) for t in targets)]
        if len(pending) < PARALLEL_FILES or processes < 2:
            return
        # A package's files go to one process (its module tree is then resolved once), unless it
        # holds more than half a process's share of the bytes; the groups are dealt largest first
        # to the process with the fewest bytes to parse so far.
        by_package: dict[str, list[tuple[str, bytes]]] = {}
        for path, source in pending:
            package = self.crates.package_of(path)
            by_package.setdefault(package.dir if package is not None else "", []).append((path, source))
        half_share = sum(len(source) for _, source in pending) / processes / 2
        groups = [group for files_of_package in by_package.values()
                  for group in ([[file] for file in files_of_package]
                                if sum(len(f[1]) for f in files_of_package) > half_share else [files_of_package])]
        shares: list[list[tuple[str, bytes]]] = [[] for _ in range(processes)]
        loads = [0] * processes
        for group in sorted(groups, key=lambda files: -sum(len(f[1]) for f in files)):
            least = loads.index(min(loads))
            shares[least] += group
            loads[least] += sum(len(f[1]) for f in group)
        shares = [share for share in shares if share]
        found = forked_map(lambda index: [tuple(self._references_in_text(path, source, targets))
                                          for path, source in shares[index]], len(shares), processes)
        for share, results in zip(shares, found or ()):
            for (path, source), references in zip(share, results):
                self._references[(path, source, key)] = references

    def _references_in_text(self, path: str, source: bytes, targets: list[DeletedRustItem]) -> list[Reference]:
        by_name: dict[str, list[DeletedRustItem]] = {}
        for target in targets:
            if self._may_reach(target, path):
                by_name.setdefault(target.name, []).append(target)
        if not by_name:
            return []
        methods = {name for name, deleted in by_name.items()
                   if all(t.owner is not None and t.kind in ("fn", "fn_signature") for t in deleted)}
        hits = [hit for hit in word_matches(source, by_name)
                if hit.group().decode() not in methods or _after_member_access(source, hit.start())]
        if not hits:
            return []  # not parsed: no spelling here can name what the plan deletes
        instances = self.crates.instances(path)
        tree = parse(source, RUST)
        self._current_file, self._current_source, self._current_tree = path, source, tree
        self._types: _FileTypes | None = None
        identities = {(t.path, t.start): t for t in targets}
        found: dict[tuple[int, int], Reference] = {}
        for match in hits:
            name = match.group().decode()
            node = tree.root_node.descendant_for_byte_range(match.start(), match.end())
            if node is None:
                continue
            use = _classify(node, match.start(), match.end(), name)
            if use is None:
                continue
            if not instances:
                if any(self._may_reach_orphan(path, t) for t in by_name[name]):
                    found[(match.start(), match.end())] = Reference(
                        path, match.start(), match.end(), name, POSSIBLE, use.kind,
                        f"{path} is not in the module tree of any crate (no `mod` declaration reaches it)")
                continue
            for root, file_module in instances:
                key = (root, file_module + _inline_modules(node))
                reference = self._resolve_use(key, node, use, name, by_name[name], identities, path, match)
                if reference is not None:
                    previous = found.get((match.start(), match.end()))
                    if previous is None or previous.certainty == POSSIBLE and reference.certainty == DEFINITE:
                        found[(match.start(), match.end())] = reference
        return sorted(found.values(), key=lambda r: r.start)

    def trait_declarations(self, path: str, trait: tree_sitter.Node) -> list[tuple[str, int]] | None:
        """(file, start) of the `trait` items of the tree that the trait path `trait` (a node of
        the file at `path` as read, in an impl header) resolves to; None when it resolves to
        nothing of the tree (a trait of another crate, or a path that does not resolve)."""
        segments = _path_segments(trait)
        if not segments:
            return None
        found: list[tuple[str, int]] = []
        instances = self.crates.instances(path)
        for root, file_module in instances:
            key = (root, file_module + _inline_modules(trait))
            for outcome in self._resolve_segments(key, None, segments, TYPE):
                target = outcome.target
                if isinstance(target, _Def) and target.kind == "trait_item" and (target.file, target.start) not in found:
                    found.append((target.file, target.start))
        if not instances and len(segments) == 1:
            # A file no crate reaches (no Cargo.toml): only its own traits are known.
            found = [(d.file, d.start) for d in (self._scope((path, _inline_modules(trait))) or _Scope({}, {}, [], {}))
                     .items.get(segments[0], []) if d.kind == "trait_item"]
        return found or None

    def declares_deleted(self, path: str, module: tuple[str, ...], name: str, namespace: str,
                         targets: list[DeletedRustItem]) -> DeletedRustItem | None:
        """The deleted item of `targets` that `name` means in the inline module `module` of the
        file at `path`, as the tree was before the plan (None: it means none of them)."""
        identities = {(t.path, t.start): t for t in targets}
        for root, file_module in self.crates.instances(path):
            for outcome in self.lookup((root, file_module + module), name, namespace):
                target = outcome.target.definition if isinstance(outcome.target, _Mod) else outcome.target
                if isinstance(target, _Def) and (target.file, target.start) in identities:
                    return identities[(target.file, target.start)]
        return None

    def declared_tree(self, path: str) -> tuple[bytes, tree_sitter.Tree] | None:
        """The file at `path` as read, with its syntax tree (shared with the resolver's lookups)."""
        return self._tree(path)

    def _may_reach(self, target: DeletedRustItem, path: str) -> bool:
        """Whether code in the file at `path` could see `target` at all (a cheap first cut,
        so that files that cannot refer to a private item are never parsed)."""
        if target.visibility in ("", "pub(self)"):
            return path in self._subtree_files(target.path, target.module)
        package, home = self.crates.package_of(path), self.crates.package_of(target.path)
        if package is home or target.visibility.startswith("pub("):
            return package is home
        return package is None or home is None or home.lib is None or self.crates.depends_on(package, home.lib)

    def _subtree_files(self, file: str, module: tuple[str, ...]) -> set[str]:
        """The files of the module `module` of `file` and of its descendant modules."""
        key = (file, module)
        if key not in self._subtrees:
            found = {file}
            package = self.crates.package_of(file)
            is_root = package is not None and (file == package.lib or file in package.roots)
            folder = str(PurePosixPath(file).parent) if is_root else _own_folder(file)
            pending = [(file, folder, module)]
            while pending:
                current, current_folder, inside = pending.pop()
                for inline, name, attr_path in self._mod_declarations(current):
                    if inline[: len(inside)] != inside:
                        continue
                    child, _, child_folder = self._module_file(current, _join(current_folder, *inline), name, attr_path)
                    if child not in found and self._exists(child):
                        found.add(child)
                        pending.append((child, child_folder, ()))
            self._subtrees[key] = found
        return self._subtrees[key]

    def _may_reach_orphan(self, path: str, target: DeletedRustItem) -> bool:
        package = self.crates.package_of(path)
        return package is not None and package is self.crates.package_of(target.path)

    def _resolve_use(self, key, node, use: "_Use", name: str, candidates: list[DeletedRustItem],
                     identities, path: str, match) -> Reference | None:
        if use.kind == "method call":
            return self._method_call(key, use, name, candidates, path, match)
        outcomes: list[_Outcome] = []
        for namespace in use.namespaces:
            if len(use.segments) == 1 and use.scope_node is not None:
                outcomes += self._lexical(key, use.scope_node, use.segments[0], namespace)
            else:
                start, segments = self._import_start(key, use.segments) if use.kind == "import" else (key, use.segments)
                outcomes += self._resolve_segments(start, use.scope_node, segments, namespace)
        for outcome in outcomes:
            target = outcome.target
            deleted = None
            certain = use.certain
            reason = use.reason
            if isinstance(target, _Mod):
                target = target.definition
            if isinstance(target, _Def):
                deleted = identities.get((target.file, target.start))
            elif isinstance(target, tuple) and target[0] == "assoc":
                owner_def, member = target[1], target[2]
                deleted = next((t for t in candidates if t.owner == owner_def.name and t.name == member), None)
                if deleted is not None and deleted.path != owner_def.file:
                    if deleted.owner_declared_here:
                        continue  # a namesake: the deleted impl is of the type declared beside it
                    # The type resolved here is declared in another file than the deleted impl:
                    # the impl may be of this type or of a namesake.
                    certain = False
                    reason = f"{owner_def.name} is declared in {owner_def.file}, the deleted impl is in {deleted.path}"
            if deleted is None:
                continue
            via = "; ".join(outcome.via)
            where = (f"{deleted.owner}::{deleted.name} ({deleted.path}:{self._line(deleted.path, deleted.start)})"
                     if deleted.owner else self.describe(target) if isinstance(target, _Def) else deleted.name)
            resolution = f"{via}; resolves to {where}" if via else f"resolves to {where}"
            certainty = DEFINITE if certain else POSSIBLE
            if reason:
                resolution = f"{reason}; {resolution}"
            return Reference(path, match.start(), match.end(), name, certainty, use.kind, resolution)
        unknown = next((o for o in outcomes if o.target == _UNKNOWN), None)
        if unknown is not None:
            return Reference(path, match.start(), match.end(), name, POSSIBLE, use.kind,
                             "; ".join((*unknown.via, "resolution stops there, so this may name the deleted item")))
        return None


    def _method_call(self, key, use: "_Use", name: str, candidates: list[DeletedRustItem], path: str,
                     match) -> Reference | None:
        """`receiver.name(...)`: definite where the receiver's type is the deleted method's type,
        nothing where it is known to be another type, possible where it is not known."""
        methods = [t for t in candidates if t.owner is not None]
        if not methods:
            return None
        if self._types is None:
            self._types = _FileTypes.of(self._current_tree.root_node)
        receiver = _receiver_type(use.receiver, self._types) if use.receiver is not None else None
        if receiver is not None and not receiver[1] and receiver[0].isidentifier() \
                and receiver[0] not in _PRIMITIVES:
            receiver = self._type_behind(key, use.receiver, receiver[0])
        if receiver is not None:
            type_name, declared_in_this_file = receiver
            same_type = [t for t in methods if t.owner == type_name]
            if not same_type:
                return None
            if declared_in_this_file and any(t.path == path for t in same_type):
                return Reference(path, match.start(), match.end(), name, DEFINITE, "method call",
                                 f"the receiver is a {type_name}; resolves to {type_name}::{name}")
            if declared_in_this_file and all(t.owner_declared_here for t in same_type):
                return None  # this file's own type of that name, not the deleted impl's
        deleted = ", ".join(dict.fromkeys(f"{t.owner}::{t.name}" for t in methods))
        return Reference(path, match.start(), match.end(), name, POSSIBLE, "method call",
                         f"`.{name}(...)` on a receiver whose type is not known here (deleted: {deleted})")


    def _type_behind(self, key, place: tree_sitter.Node, type_name: str, depth: int = 0) -> tuple[str, bool] | None:
        """What the type name `type_name` (not declared in this file) is at `place`: the struct,
        enum or union it resolves to (through imports, renames and type aliases), None where it
        may be anything (a name resolution cannot follow), or a type outside the tree."""
        outcomes = self._lexical(key, place, type_name, TYPE)
        names = set()
        for outcome in outcomes:
            target = outcome.target
            if isinstance(target, _Def) and target.kind in ("struct_item", "enum_item", "union_item"):
                names.add(target.name)
            elif isinstance(target, _Def) and target.kind == "type_item" and depth < 8:
                aliased = self._alias_target(target, depth)
                if aliased is None:
                    return None
                names.add(aliased)
            elif target != _EXTERNAL:
                return None
        if len(names) > 1:
            return None
        if names:
            return names.pop(), False
        # Outside the tree (std, a registry crate), or not found (a prelude type): by its name.
        return ("<a type outside the tree>", False) if outcomes else (type_name, False)


    def _alias_target(self, alias: _Def, depth: int) -> str | None:
        """The type a `type` alias stands for (followed to a struct, enum or union), where that shows."""
        found = self._tree(alias.file)
        node = enclosing(found[1].root_node, alias.start, ("type_item",)) if found else None
        aliased = node.child_by_field_name("type") if node is not None else None
        if aliased is None:
            return None
        if alias.file not in self._file_types:
            self._file_types[alias.file] = _FileTypes.of(found[1].root_node)
        named = _named_type(aliased, aliased, False, self._file_types[alias.file])
        if named is None or not named[0].isidentifier() or named[0] in _PRIMITIVES:
            return None
        if named[1]:
            return named[0]
        behind = self._type_behind(alias.module, aliased, named[0], depth + 1)
        return behind[0] if behind is not None else None


@dataclass(frozen=True)
class _Use:
    """What a name at one place is: a path to resolve (in some namespaces) or a member access."""

    kind: str
    segments: tuple[str, ...] = ()
    namespaces: tuple[str, ...] = (VALUE,)
    scope_node: tree_sitter.Node | None = None
    certain: bool = True
    reason: str = ""
    receiver: tree_sitter.Node | None = None


def _after_member_access(source: bytes, start: int) -> bool:
    """Whether the word at `start` follows `.` or `::` (blanks between): the only places a method
    or an associated function is named (`x.len()`, `Type::len`, `Self::len`, a serde path string),
    never as a bare word, so a file without such a spelling is not parsed for it."""
    before = source[max(0, start - 256):start].rstrip()
    return before.endswith(b".") or before.endswith(b"::")


def _own_folder(file: str) -> str:
    path = PurePosixPath(file)
    if path.name in ("mod.rs", "lib.rs", "main.rs"):
        return str(path.parent)
    return _join(str(path.parent), path.stem)


def _attribute_string(node: tree_sitter.Node, name: bytes) -> str | None:
    """The string of the nearest `#[NAME = "string"]` among the attributes (and comments) directly above `node`."""
    previous = node.prev_named_sibling
    while previous is not None and previous.type in ("attribute_item", "line_comment", "block_comment"):
        if previous.type == "attribute_item":
            match = _attribute_pattern(name).match(previous.text)
            if match:
                return match.group(1).decode("utf-8", "replace")
        previous = previous.prev_named_sibling
    return None


@lru_cache(maxsize=None)
def _attribute_pattern(name: bytes) -> re.Pattern[bytes]:
    return re.compile(rb'#\[\s*' + name + rb'\s*=\s*"([^"]*)"\s*\]')


def _inline_modules(node: tree_sitter.Node) -> tuple[str, ...]:
    names = []
    current = node.parent
    while current is not None:
        if current.type == "mod_item":
            names.append(node_text(current.child_by_field_name("name")))
        current = current.parent
    return tuple(reversed(names))


def _impl_type(node: tree_sitter.Node) -> str | None:
    current = node.parent
    while current is not None:
        if current.type == "impl_item":
            kind = current.child_by_field_name("type")
            while kind is not None and kind.type in ("generic_type", "scoped_type_identifier"):
                kind = kind.child_by_field_name("type") if kind.type == "generic_type" else kind.child_by_field_name("name")
            return node_text(kind) if kind is not None else None
        current = current.parent
    return None


# Fewer files than this that may use a deleted item are resolved in the plan's own process:
# forking costs more than resolving them.
PARALLEL_FILES = 64
_TYPE_ITEMS = frozenset({"struct_item", "enum_item", "union_item"})
_BUILTIN_TYPES = frozenset({"primitive_type", "array_type", "tuple_type", "pointer_type", "function_type",
                            "unit_type", "never_type"})
_PRIMITIVES = frozenset({"bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
                         "i64", "i128", "isize", "f32", "f64"})
# The type of a literal receiver (`"text".len()`); byte strings and numbers are left unknown.
_LITERAL_TYPES = {"string_literal": "str", "raw_string_literal": "str", "char_literal": "char",
                  "boolean_literal": "bool"}
_POINTERS = frozenset({"Box", "Arc", "Rc", "RefCell", "Mutex", "RwLock"})
_SEQUENCES = frozenset({"Vec", "VecDeque", "SmallVec"})


def _after_type_keyword(source: bytes, at: int) -> bool:
    """Whether `struct`, `enum` or `union` and blanks come right before byte `at` (regex
    `\\b(?:struct|enum|union)\\s+` ending there)."""
    start = at
    while start > 0 and source[start - 1] in _BLANKS:
        start -= 1
    if start == at:
        return False
    for keyword in (b"struct", b"enum", b"union"):
        begin = start - len(keyword)
        if begin >= 0 and source[begin:start] == keyword and (begin == 0 or source[begin - 1] not in WORD_BYTES):
            return True
    return False


_BLANKS = frozenset(b" \t\n\r\f\v")


class _FileTypes:
    """The types a file declares (struct, enum, union, at any depth), asked by name: whether it
    declares one, and the field types of its first struct of that name. Each name is looked up
    where the source spells `struct NAME` (or enum, union), and confirmed in the tree there: a
    file is asked about a few names, and a walk or a query of all its nodes costs milliseconds."""

    def __init__(self, root: tree_sitter.Node) -> None:
        self._root = root
        self._source = root.text or b""  # from the root's first byte (not the file's, after leading blanks)
        self._items: dict[str, list[tree_sitter.Node]] = {}

    @classmethod
    def of(cls, root: tree_sitter.Node) -> "_FileTypes":
        return cls(root)

    def _declarations(self, name: str) -> list[tree_sitter.Node]:
        if name not in self._items:
            found = []
            base = self._root.start_byte
            for match in word_matches(self._source, (name,)):
                if not _after_type_keyword(self._source, match.start()):
                    continue  # not `struct NAME`, `enum NAME` or `union NAME`
                node = self._root.descendant_for_byte_range(base + match.start(), base + match.end())
                item = node.parent if node is not None else None
                if item is not None and item.type in _TYPE_ITEMS and item.child_by_field_name("name") == node:
                    found.append(item)
            self._items[name] = found
        return self._items[name]

    def declares(self, name: str) -> bool:
        return bool(self._declarations(name))

    def fields(self, name: str) -> dict[str, tree_sitter.Node]:
        """Field name -> type node of the first struct `name` with named fields ({} if none)."""
        for item in self._declarations(name):
            body = item.child_by_field_name("body")
            if item.type == "struct_item" and body is not None:
                return {node_text(d.child_by_field_name("name")): d.child_by_field_name("type")
                        for d in body.named_children if d.type == "field_declaration"}
        return {}


def _receiver_type(receiver: tree_sitter.Node, types: _FileTypes) -> tuple[str, bool] | None:
    """(type name, whether this file declares it) where the source shows the receiver's type:
    `self` in an impl; a field (`self.field`, `value.field`, and `...[i]`) of a struct this file
    declares, with the field's declared type; a local or parameter with a type annotation, a
    `Type { .. }` or `Type::new(..)` value (a constructor: `new`, `default`, `with_...`); a string
    or char literal."""
    if receiver.type == "self":
        owner = _impl_type(receiver)
        return (owner, True) if owner else None
    if receiver.type in _LITERAL_TYPES:
        return _named_type(receiver, receiver, False, types)
    indexed = receiver.type == "index_expression"
    access = (receiver.named_children or [None])[0] if indexed else receiver
    if access is not None and access.type == "field_expression":
        value = access.child_by_field_name("value")
        owner = _impl_type(access) if value.type == "self" else _struct_of(value, types)
        fields = types.fields(owner) if owner else {}
        return _named_type(fields.get(node_text(access.child_by_field_name("field"))), access, indexed, types)
    if receiver.type == "identifier":
        loop = _loop_over_field(receiver)
        if loop is not None:
            owner = _impl_type(loop)
            fields = types.fields(owner) if owner else {}
            return _named_type(fields.get(node_text(loop.child_by_field_name("field"))), loop, True, types)
        return _named_type(_local_type(receiver), receiver, False, types)
    return None


def _struct_of(value: tree_sitter.Node, types: _FileTypes) -> str | None:
    """The struct this file declares that `value` (the left of `value.field`) is, where that shows."""
    if value.type not in ("identifier", "field_expression", "index_expression"):
        return None
    known = _receiver_type(value, types)
    return known[0] if known is not None and known[1] else None


def _loop_over_field(variable: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `self.field` walked by the `for variable in &self.field` (or `self.field.iter()`,
    `.iter_mut()`) loop that binds `variable`, if that is what binds it."""
    name = variable.text
    child, current = variable, variable.parent
    while current is not None and current.type not in ("function_item", "closure_expression"):
        if current.type == "for_expression" and child == current.child_by_field_name("body"):
            pattern = current.child_by_field_name("pattern")
            if pattern is not None and _binds(pattern, name):
                return _walked_field(current.child_by_field_name("value")) if pattern.type == "identifier" else None
        elif _binds_here(current, child, name):
            return None
        child, current = current, current.parent
    return None


def _walked_field(value: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """`self.field` for the loop values `&self.field`, `&mut self.field`, `self.field.iter()`, `self.field.iter_mut()`."""
    if value is not None and value.type == "reference_expression":
        value = value.child_by_field_name("value")
    if value is not None and value.type == "call_expression":
        method = value.child_by_field_name("function")
        arguments = value.child_by_field_name("arguments")
        if method is None or method.type != "field_expression" or arguments is None or arguments.named_children \
                or node_text(method.child_by_field_name("field")) not in ("iter", "iter_mut"):
            return None
        value = method.child_by_field_name("value")
    if value is not None and value.type == "field_expression" and value.child_by_field_name("value").type == "self":
        return value
    return None


def _named_type(node: tree_sitter.Node | None, place: tree_sitter.Node, indexed: bool,
                types: _FileTypes) -> tuple[str, bool] | None:
    """The base name of a type node (through references, Box/Arc/Rc, and for `indexed` a Vec's
    or an array's element), unless it is a generic parameter; and whether this file declares it."""
    while node is not None:
        if node.type == "reference_type":
            node = node.child_by_field_name("type")
        elif indexed and node.type in ("array_type", "slice_type"):
            node, indexed = node.child_by_field_name("element") or (node.named_children or [None])[0], False
        elif node.type == "generic_type":
            base = node_text(node.child_by_field_name("type")).split("::")[-1]
            arguments = node.child_by_field_name("type_arguments")
            inner = arguments.named_children[0] if arguments is not None and arguments.named_children else None
            if base in _POINTERS or indexed and base in _SEQUENCES:
                indexed = indexed and base not in _SEQUENCES
                node = inner
            else:
                return None if indexed else _declared_type(base, place, types)
        elif node.type in ("type_identifier", "scoped_type_identifier", "identifier", "scoped_identifier"):
            name = node_text(node).split("::")[-1]
            if name == "Self":
                owner = _impl_type(place)
                return (owner, True) if owner and not indexed else None
            return None if indexed else _declared_type(name, place, types)
        elif node.type in _BUILTIN_TYPES and not indexed and node.child_by_field_name("length") is None:
            # A primitive, slice, tuple or pointer: no struct's or enum's method is called on it.
            # (An array is left unknown: its methods include those of the slice it unsizes to.)
            return "".join(node_text(node).split()), False
        elif node.type in _LITERAL_TYPES and not indexed and not node.text.startswith(b"b"):
            return _LITERAL_TYPES[node.type], False
        else:
            return None
    return None


def _declared_type(name: str, place: tree_sitter.Node, types: _FileTypes) -> tuple[str, bool] | None:
    """(name, declared in this file) unless `name` is a generic parameter around `place`."""
    current = place
    while current is not None:
        if _generic_here(current, name.encode()):
            return None
        current = current.parent
    return name, types.declares(name)


def _local_type(variable: tree_sitter.Node) -> tree_sitter.Node | None:
    """The type of a local or parameter where it is written: `let x: T`, `let x = T { .. }`, `x: T`."""
    name = variable.text
    child, current = variable, variable.parent
    while current is not None and current.type not in ("function_item", "closure_expression"):
        if current.type == "block":
            latest = None
            for statement in current.named_children:
                if statement.start_byte >= child.start_byte:
                    break
                pattern = statement.child_by_field_name("pattern") if statement.type == "let_declaration" else None
                if pattern is not None and _binds(pattern, name):
                    latest = statement
            if latest is not None:
                if latest.child_by_field_name("pattern").type != "identifier":
                    return None
                value = latest.child_by_field_name("value")
                if latest.child_by_field_name("type") is None and value is not None:
                    return _constructed_type(value)
                return latest.child_by_field_name("type")
        elif _binds_here(current, child, name):
            return None
        child, current = current, current.parent
    if current is not None and current.type == "function_item":
        parameters = current.child_by_field_name("parameters")
        for parameter in parameters.named_children if parameters is not None else []:
            pattern = parameter.child_by_field_name("pattern")
            if parameter.type == "parameter" and pattern is not None and pattern.type == "identifier" \
                    and pattern.text == name:
                return parameter.child_by_field_name("type")
    return None


def _constructed_type(value: tree_sitter.Node) -> tree_sitter.Node | None:
    """The node naming the type a `let` value evidently has: `Type { .. }`, a constructor call
    `Type::new(..)`, `Type::default()` or `Type::with_...(..)` (by Rust's naming convention these
    return the type), a string or char literal; None for any other value."""
    if value.type == "struct_expression":
        return value.child_by_field_name("name")
    if value.type in _LITERAL_TYPES:
        return value
    function = value.child_by_field_name("function") if value.type == "call_expression" else None
    if function is None or function.type != "scoped_identifier":
        return None
    name = node_text(function.child_by_field_name("name"))
    path = function.child_by_field_name("path")
    # The path names a type (UpperCamelCase, as rustc asks), not a module's function `new`.
    last = node_text(path.child_by_field_name("type") if path is not None and path.type == "generic_type" else path)
    is_type = last.split("::")[-1][:1].isupper()
    conventional = name in ("new", "default") or name.startswith("with_")
    return path if is_type and (conventional or _returns_own_type(value, last.split("::")[-1], name)) else None


def _returns_own_type(place: tree_sitter.Node, owner: str, name: str) -> bool:
    """Whether the file of `place` has an impl of `owner` whose function `name` is declared to
    return `Self` or `owner` (`fn unlit() -> Self`): a call of it gives an `owner`."""
    root = _root_of(place)
    spelled = re.compile(rb"\bfn\s+(" + re.escape(name.encode()) + rb")\b[^{;]*?->\s*(?:Self|"
                         + re.escape(owner.encode()) + rb")\s*(?:\{|where\b)")
    for match in spelled.finditer(root.text or b""):
        node = root.descendant_for_byte_range(root.start_byte + match.start(1), root.start_byte + match.end(1))
        function = node.parent if node is not None else None
        if function is not None and function.type == "function_item" and _impl_type(function) == owner:
            return True
    return False


def _binds_here(node: tree_sitter.Node, child: tree_sitter.Node, name: bytes) -> bool:
    """Whether `node` binds the value `name` for its descendant `child`."""
    kind = node.type
    if kind == "block":
        for statement in node.named_children:
            if statement.start_byte >= child.start_byte:
                break
            if statement.type == "let_declaration":
                pattern = statement.child_by_field_name("pattern")
                if pattern is not None and _binds(pattern, name):
                    return True
        return False
    if kind == "function_item":
        parameters = node.child_by_field_name("parameters")
        return child == node.child_by_field_name("body") and parameters is not None and any(
            p.type == "parameter" and _binds(p.child_by_field_name("pattern"), name)
            for p in parameters.named_children)
    if kind == "closure_expression":
        parameters = node.child_by_field_name("parameters")
        return child == node.child_by_field_name("body") and parameters is not None and _binds(parameters, name)
    if kind == "match_arm":
        pattern = node.child_by_field_name("pattern")
        return child != pattern and pattern is not None and _binds(pattern, name)
    if kind == "for_expression":
        pattern = node.child_by_field_name("pattern")
        return child == node.child_by_field_name("body") and _binds(pattern, name)
    if kind in ("if_expression", "while_expression"):
        condition = node.child_by_field_name("condition")
        return child == node.child_by_field_name("consequence") and condition is not None and _let_binds(condition, name)
    if kind == "let_chain":
        return any(c.end_byte <= child.start_byte and _let_binds(c, name) for c in node.named_children)
    return False


def _let_binds(condition: tree_sitter.Node, name: bytes) -> bool:
    if condition.type == "let_condition":
        pattern = condition.child_by_field_name("pattern")
        return pattern is not None and _binds(pattern, name)
    if condition.type == "let_chain":
        return any(_let_binds(c, name) for c in condition.named_children)
    return False


def _generic_here(node: tree_sitter.Node, name: bytes) -> bool:
    parameters = node.child_by_field_name("type_parameters") if node.type in (
        "function_item", "impl_item", "struct_item", "enum_item", "trait_item", "type_item", "union_item") else None
    if parameters is None:
        return False
    for parameter in parameters.named_children:
        declared = parameter.child_by_field_name("name") or (
            parameter if parameter.type == "type_identifier" else None)
        if declared is not None and declared.text == name:
            return True
    return False


def _classify(node: tree_sitter.Node, start: int, end: int, name: str) -> _Use | None:
    """What the name at [start, end) is: a use to resolve, a member access, or nothing (a
    declaration, a comment, a string that is not a serde path)."""
    if node.type == "string_content":
        return _serde_use(node, start, name)
    if node.start_byte != start or node.end_byte != end:
        return None
    kind = node.type
    parent = node.parent
    if parent is None:
        return None
    if kind == "field_identifier":
        caller = parent.parent
        if parent.type == "field_expression" and parent.child_by_field_name("field") == node and \
                caller is not None and caller.type == "call_expression" and caller.child_by_field_name("function") == parent:
            return _Use("method call", receiver=parent.child_by_field_name("value"))
        return None
    if kind == "shorthand_field_identifier":
        return _Use("field shorthand", (name,), (VALUE,), node) if parent.type == "field_initializer_list" else None
    if kind not in ("identifier", "type_identifier"):
        return None
    if parent.type in _DECLARING and parent.child_by_field_name("name") == node:
        return None
    if _is_binding(node):
        return None
    if parent.type == "token_tree" or _in_macro_definition(node):
        return _token_use(node, name)
    return _code_use(node, name)


def _in_macro_definition(node: tree_sitter.Node) -> bool:
    current = node.parent
    while current is not None:
        if current.type == "macro_definition":
            return True
        current = current.parent
    return False


def _code_use(node: tree_sitter.Node, name: str) -> _Use | None:
    """A name in code (not in macro tokens): a segment of a path, an import, or a bare name."""
    use_declaration = _ancestor(node, "use_declaration")
    if use_declaration is not None:
        return _import_use(node, use_declaration)
    segments = _segments_until(node)
    if segments is None:
        return None
    whole = node.parent if node.parent.type in _SCOPED and node.parent.child_by_field_name("name") == node else node
    if whole.parent is not None and whole.parent.type == "generic_type" and whole.parent.child_by_field_name("type") == whole:
        whole = whole.parent
    if whole.parent is not None and whole.parent.type in _SCOPED and whole.parent.child_by_field_name("path") == whole:
        return _Use("path", segments, (TYPE,), node)
    outer = _outermost_path(node)
    container = outer.parent
    if container is not None and container.type == "macro_invocation" and container.child_by_field_name("macro") == outer:
        return _Use("macro", segments, (MACRO,), node)
    if container is not None and container.type in ("attribute", "attribute_item", "visibility_modifier"):
        return None
    if node.type == "type_identifier" or outer.type in ("scoped_type_identifier", "generic_type"):
        namespaces: tuple[str, ...] = (TYPE,)
    elif container is not None and container.type in ("struct_expression", "struct_pattern"):
        namespaces = (TYPE,)
    else:
        namespaces = (VALUE,)
    kind = "call" if container is not None and container.type == "call_expression" else "path" if len(
        segments) > 1 else "name"
    return _Use(kind, segments, namespaces, node)


_SCOPED = ("scoped_identifier", "scoped_type_identifier")
_SEGMENT_NODES = ("identifier", "type_identifier", "crate", "self", "super", "metavariable")


def _import_use(node: tree_sitter.Node, use_declaration: tree_sitter.Node) -> _Use | None:
    """A name inside a `use` tree: the path up to it, in every namespace if it is what the
    leaf imports, in the type namespace if it is a module on the way."""
    top = node
    while top.parent is not None and top.parent.type == "scoped_identifier":
        top = top.parent
    leaves = sorted((n for n in descendants(top, named=True) if n.type in _SEGMENT_NODES), key=lambda n: n.start_byte)
    position = next((i for i, n in enumerate(leaves) if n == node), None)
    if position is None:
        return None
    segments = tuple(node_text(n) for n in leaves[: position + 1])
    holder = top.parent
    if holder is not None and holder.type == "use_as_clause" and holder.child_by_field_name("alias") == top:
        return None
    is_last = position == len(leaves) - 1
    if holder is not None and (holder.type == "use_wildcard" or holder.type == "scoped_use_list"
                               and holder.child_by_field_name("path") == top):
        is_last = False
    child, current = top, top.parent
    while current is not None and current != use_declaration:
        if current.type == "scoped_use_list" and current.child_by_field_name("list") == child:
            segments = (*(_path_segments(current.child_by_field_name("path")) or ()), *segments)
        child, current = current, current.parent
    namespaces = (VALUE, TYPE, MACRO) if is_last else (TYPE,)
    return _Use("import", segments, namespaces, None)


def _root_of(node: tree_sitter.Node) -> tree_sitter.Node:
    while node.parent is not None:
        node = node.parent
    return node


def _ancestor(node: tree_sitter.Node, kind: str) -> tree_sitter.Node | None:
    current = node.parent
    while current is not None:
        if current.type == kind:
            return current
        if current.type in ("block", "source_file", "declaration_list"):
            return None
        current = current.parent
    return None


def _outermost_path(node: tree_sitter.Node) -> tree_sitter.Node:
    current = node
    while current.parent is not None and current.parent.type in (
            "scoped_identifier", "scoped_type_identifier", "generic_type", "generic_function"):
        current = current.parent
    return current


def _segments_until(node: tree_sitter.Node) -> tuple[str, ...] | None:
    """The path segments up to and including `node`: `a::b` for the `b` of `a::b::c`."""
    parent = node.parent
    if parent is not None and parent.type in _SCOPED and parent.child_by_field_name("name") == node:
        return _path_segments(parent)
    return (node_text(node),)


def _token_use(node: tree_sitter.Node, name: str) -> _Use | None:
    """A name inside a macro invocation's tokens or a macro_rules! body."""
    previous = node.prev_sibling
    if previous is not None and previous.type == ".":
        return _Use("method call")
    segments = [name]
    current = node
    while True:
        separator = current.prev_sibling
        if separator is None or separator.type != "::":
            break
        head = separator.prev_sibling
        if head is None or head.type not in ("identifier", "crate", "self", "super", "metavariable"):
            segments.insert(0, "")
            break
        segments.insert(0, node_text(head))
        current = head
    following = node.next_sibling
    if following is not None and following.type == "!":
        namespaces: tuple[str, ...] = (MACRO,)
    elif following is not None and following.type == "::":
        namespaces = (TYPE,)
    else:
        namespaces = (VALUE, TYPE)
    if _in_macro_definition(node):
        return _Use("macro_rules body", tuple(segments), namespaces, node, certain=False,
                    reason="inside a macro_rules! body (resolved where the macro is defined)")
    outer = node.parent
    while outer.parent is not None and outer.parent.type == "token_tree":
        outer = outer.parent
    invocation = outer.parent
    if invocation is None or invocation.type != "macro_invocation":
        return None
    if _closure_parameter_in_tokens(outer, node, name.encode()):
        return None
    macro = node_text(invocation.child_by_field_name("macro")).split("::")[-1]
    if macro in EXPRESSION_MACROS or _whole_argument(outer, current, node):
        return _Use("macro argument", tuple(segments), namespaces, invocation)
    return _Use("macro argument", tuple(segments), namespaces, invocation, certain=False,
                reason=f"inside an invocation of {macro}!, whose arguments may not be expressions")


def _whole_argument(tokens: tree_sitter.Node, first: tree_sitter.Node, last: tree_sitter.Node) -> bool:
    """Whether the path from token `first` to token `last` is a whole top-level argument of a macro
    invocation's tokens (`register!(Meter, crate::Gauge)`): a path standing alone there names
    what it resolves to, whatever the macro does with it (a macro that declared an item of that
    name beside the deleted one would not have compiled either)."""
    before, after = first.prev_sibling, last.next_sibling
    return (first.parent == tokens and last.parent == tokens and before is not None and after is not None
            and before.type in ("(", "[", "{", ",") and after.type in (",", ")", "]", "}"))


def _closure_parameter_in_tokens(tokens: tree_sitter.Node, node: tree_sitter.Node, name: bytes) -> bool:
    """Whether a closure parameter list `|..name..|` or a `let name` in the macro's tokens binds
    `name` before `node`."""
    flat: list[tree_sitter.Node] = []
    stack = [tokens]
    while stack:
        current = stack.pop()
        if current.type == "token_tree":
            stack.extend(reversed(current.children))
        else:
            flat.append(current)
    open_bar = None
    for index, token in enumerate(flat):
        if token.start_byte >= node.start_byte:
            break
        if token.type == "|":
            if open_bar is None:
                open_bar = index
            else:
                if any(t.text == name and t.type == "identifier" for t in flat[open_bar + 1:index]):
                    return True
                open_bar = None
        elif open_bar is not None and token.type not in ("identifier", ",", ":", "&", "mut", "primitive_type",
                                                         "(", ")", "_"):
            open_bar = None
        if token.type == "let" and index + 1 < len(flat) and flat[index + 1].text == name:
            return True
    return False


def _serde_use(node: tree_sitter.Node, start: int, name: str) -> _Use | None:
    """The path in `#[serde(default = "path")]` (and with, serialize_with, ...)."""
    literal = node.parent
    if literal is None or literal.type != "string_literal":
        return None
    tokens = literal.parent
    if tokens is None or tokens.type != "token_tree":
        return None
    attribute = tokens
    while attribute is not None and attribute.type not in ("attribute_item", "inner_attribute_item"):
        attribute = attribute.parent
    if attribute is None:
        return None
    equals = literal.prev_sibling
    key = equals.prev_sibling if equals is not None and equals.type == "=" else None
    if key is None:
        return None
    # `default` is a keyword token in the grammar, the other keys identifiers.
    key_name = node_text(key)
    if key_name not in SERDE_FUNCTION_KEYS | SERDE_MODULE_KEYS:
        return None
    text = node_text(node)
    segments = tuple(text.split("::"))
    offset = start - node.start_byte
    consumed = 0
    for index, segment in enumerate(segments):
        if consumed == offset and segment == name:
            is_last = index == len(segments) - 1
            namespace = VALUE if is_last and key_name in SERDE_FUNCTION_KEYS else TYPE
            return _Use(f"serde {key_name}", segments[: index + 1], (namespace,), attribute)
        consumed += len(segment.encode()) + 2
    return None


def deleted_rust_items(path: str, resolved) -> list[DeletedRustItem]:
    """The resolver's view of what `delete_rust_items` deleted in the file at `path`:
    one entry per name code can use (a bridge entry's `rust_name` too)."""
    found = []
    for deleted in resolved:
        for item in deleted.items:
            if item.kind == "impl":
                continue
            container = item.node.parent.parent if item.node.parent is not None else None
            in_impl = container is not None and container.type in ("impl_item", "trait_item")
            owner = item.module_path[-1] if in_impl and item.module_path else None
            module = item.module_path[:-1] if owner else item.module_path
            # Bridge entries, trait methods and trait impl methods are as visible as their trait.
            public = item.kind in ("bridge_fn", "bridge_type") or in_impl and (
                container.type == "trait_item" or container.child_by_field_name("trait") is not None)
            visibility = "pub" if public else _visibility(item.node)
            declared_here = owner is not None and _FileTypes.of(_root_of(item.node)).declares(owner)
            left_impl = (in_impl and container.type == "impl_item" and container.child_by_field_name("trait") is not None
                         and deleted.target.kind not in ("impl", "struct", "enum", "union", "type", "mod"))
            for name in item.visible_names:
                found.append(DeletedRustItem(path, module, name, item.kind, item.node.start_byte, owner, visibility,
                                             declared_here, left_impl))
    return found
