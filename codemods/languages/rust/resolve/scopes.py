"""Scopes: what a module declares (its items, `use` and `extern crate` bindings, globs and child
modules, read from the tree before the plan), and what a lexical scope binds (a `let`, a
parameter, a closure parameter, a pattern, a generic parameter)."""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from pathlib import Path, PurePosixPath
from typing import Callable

import tree_sitter

from codemods.edit.values import line_col
from codemods.languages.rust.crates import CrateIndex, ModDeclaration, PathAttributeSearch, join_path
from codemods.languages.rust.format import crate_edition
from codemods.languages.rust.resolve.syntax import (
    attribute_string,
    flatten_use,
    own_folder,
    struct_namespaces,
    visibility_of,
)
from codemods.languages.rust.resolve.values import ITEM_NAMESPACES, Def, Import, ModuleKey, ModuleLocation, ModuleScope
from codemods.parse import RUST, enclosing, forget, node_text, parse
from codemods.words import blanks_after, blanks_before, keyword_offsets, word_ends_at, word_in, word_starts

# From a whole-word `pub`: a `use` declaration with that visibility (`pub use`, `pub(crate) use`, ...)
# holding a `*` before its `;`.
_PUBLIC_USE_WITH_STAR = re.compile(rb"pub\s*+(?:\([^)]*\))?\s*+use\b[^;]*\*")


def spells_glob_use(source: bytes, public: bool = False) -> bool:
    """Whether `source` may import through a glob, by spelling: a `*` right after `::`, `{` or `,`
    (blanks between: `use a::*`, `{*, ..}`); with `public`, a `pub use` (any visibility) holding a
    `*`: the only globs a module outside the one declaring them may see through. A file without
    one imports no name it does not spell. Each `*` (or `pub`) is found by substring search and
    looked at from there: a regex trying a match at each `{` and `,` took about sixty times as long."""
    if public:
        return any(_PUBLIC_USE_WITH_STAR.match(source, at) for at in word_starts(source, b"pub"))
    at = source.find(b"*")
    while at >= 0:
        before = blanks_before(source, at)
        if source[before - 1 : before] in (b"{", b",") or source[max(0, before - 2) : before] == b"::":
            return True
        at = source.find(b"*", at + 1)
    return False


# The keywords that may stand right before the name an item binds (`pub(crate) async fn NAME`,
# `static mut NAME`, `extern crate x as NAME`), blanks and comments between; and `macro_rules!`.
_BINDING_KEYWORDS = (
    b"fn",
    b"struct",
    b"enum",
    b"union",
    b"trait",
    b"type",
    b"mod",
    b"const",
    b"static",
    b"mut",
    b"crate",
    b"as",
)
# A visibility ending right before a `use` keyword (`pub `, `pub(crate) `, `pub(in a::b) `).
_VISIBILITY_BEFORE = re.compile(rb"\bpub\s*+(?:\([^)]*\))?\s*+\Z")


def _after_binding_keyword(source: bytes, at: int) -> bool:
    """Whether the name at byte `at` (after an `r#`, if any) may follow a binding keyword: one
    right before it, blanks between, is; a comment between (a `*/` right before, or a `//` on
    an earlier line the blanks cross) may be, so that counts too (True costs a parse, never an
    answer). What the pattern `(fn|struct|..)(blanks|comments)*(r#)?NAME` once searched the
    whole file for, from each whole-word NAME back: ten times faster on large files."""
    end = at - 2 if at >= 2 and source[at - 2 : at] == b"r#" else at
    i = blanks_before(source, end)
    if source.find(b"\n", i, end) >= 0 and source.find(b"//", source.rfind(b"\n", 0, i) + 1, i) >= 0:
        return True
    if source[max(0, i - 2) : i] == b"*/":
        return True
    return word_ends_at(source, i, _BINDING_KEYWORDS) or source[max(0, i - 12) : i] == b"macro_rules!"


def spells_binding(source: bytes, name: str, public_imports: bool = False) -> bool:
    """Whether the text of a Rust file may bind `name` in its module scope, by spelling (no
    parse): `name` right after an item's keyword (`fn`, `struct`, `mod`, `static mut`,
    `macro_rules!`, `extern crate .. as`, ...), in a `use` declaration (a leaf or its `as`; with
    `public_imports`, only one with a visibility, `pub use`: the only imports a module outside
    may see), or quoted (a cxx `rust_name = "name"`). Every binding a module scope holds
    (scopes.declare) is spelled one of these ways, so False means the scope binds no such `name`
    but through a glob; True may be wrong (a word in a comment), which costs a parse, never an
    answer."""
    needle = name.encode()
    if source.find(needle) < 0:
        return False
    if b'"' + needle + b'"' in source or any(_after_binding_keyword(source, at) for at in word_starts(source, needle)):
        return True
    covered = 0
    for start in keyword_offsets(source, b"use"):
        if start < covered:
            continue
        end = source.find(b";", start + 3)
        covered = len(source) if end < 0 else end
        if word_in(source, (name,), start + 3, covered) and (
            not public_imports or _VISIBILITY_BEFORE.search(source, max(0, start - 64), start) is not None
        ):
            return True
    return False


# Pattern nodes whose identifier children bind names.
_PATTERN_PARENTS = frozenset(
    {
        "tuple_pattern",
        "or_pattern",
        "match_pattern",
        "ref_pattern",
        "mut_pattern",
        "slice_pattern",
        "reference_pattern",
        "closure_parameters",
        "captured_pattern",
    }
)
# Nodes whose `pattern` field binds names.
_PATTERN_FIELDS = frozenset(
    {"let_declaration", "parameter", "for_expression", "let_condition", "field_pattern", "match_arm"}
)


class DeferredImports(dict[str, list[Import]]):
    """The named imports of a module scope (name -> its `use` and `extern crate` bindings, in the
    order the module declares them), where a `use` declaration that holds no glob is read only
    once a name it may bind is asked for (`get`): a lookup asks a module about a few names (`Vec`,
    the type of a receiver), and reading every leaf of its twenty `use` declarations cost more
    than the rest of its scope. A `use` binds only names it spells as a whole word (`r#` is no
    word byte), and not one whose every occurrence leads a path (`std::`) where it spells no
    `self`. One that spells a `*` anywhere (a glob, or a star in a comment) or holds a syntax
    error is read with the rest of the scope, so the answers are those of a scope read at once."""

    def __init__(self, source: bytes, settle: Callable[[list[tuple[int, int]]], dict[str, list[Import]]]) -> None:
        super().__init__()
        self.source = source  # the module's file as read
        self.pending: list[tuple[int, int]] = []  # (start, end) of each `use` not read yet, in order
        self._settle = settle  # reads the `use` declarations at those bytes

    def get(self, name: str, default: list[Import] | None = None) -> list[Import] | None:  # type: ignore[override]
        pending = self.pending
        if pending:
            # Each whole-word occurrence of the name from the first unread `use` to the last, placed
            # in the one it falls in (the uses are in order and do not overlap).
            starts = [use[0] for use in pending]
            spelled: dict[int, None] = {}
            needle = name.encode()
            for at in word_starts(self.source, needle, starts[0], pending[-1][1]):
                index = bisect_right(starts, at) - 1
                if index >= 0 and at < pending[index][1] and not self._leads_a_path(at + len(needle), pending[index]):
                    spelled[index] = None
            if spelled:
                self.pending = [use for index, use in enumerate(pending) if index not in spelled]
                for bound, entries in self._settle([pending[index] for index in spelled]).items():
                    merged = self.setdefault(bound, [])
                    merged += entries
                    merged.sort(key=lambda entry: entry.start)  # the module's order (sorting is stable)
        return super().get(name, default)

    def _leads_a_path(self, end: int, use: tuple[int, int]) -> bool:
        """Whether the name ending at byte `end` of the `use` declaration spanning `use` is
        followed by `::` (blanks between), in a declaration that spells no `self`: a segment
        that leads a path (`std` of `use std::fmt;`) binds nothing there; only `N::{self}` would."""
        return (
            self.source.startswith(b"::", blanks_after(self.source, end, use[1]))
            and next(word_starts(self.source, b"self", *use), None) is None
        )


class ModuleScopes:
    """The module scopes of a tree's crates, built on demand from its files as read (before the
    plan), with the crates and module paths of its files (`crates`)."""

    def __init__(
        self, root: Path, read_before: Callable[[str], bytes | None], path_attributes: PathAttributeSearch | None = None
    ) -> None:
        self._root = Path(root)
        self._read = read_before
        self._trees: dict[str, tuple[bytes, tree_sitter.Tree] | None] = {}
        self._scopes: dict[ModuleKey, ModuleScope | None] = {}
        self._subtrees: dict[ModuleKey, set[str]] = {}
        self._editions: dict[str, str] = {}
        self._existing: dict[str, bool] = {}
        # may_bind's answers for files whose scope is not read: (file, name, inside) and (file,
        # inside) for its glob test; a lookup through globs asks the same file about `Vec` and
        # `HashMap` from every module that imports it.
        self._spelled: dict[tuple[str, str, bool], bool] = {}
        self._globbed: dict[tuple[str, bool], bool] = {}
        self._mod_declarations: dict[str, list[ModDeclaration]] = {}
        self.crates = CrateIndex(self._root, self.exists, read_before, self.mod_declarations, path_attributes)

    # -- files --------------------------------------------------------------

    def exists(self, path: str) -> bool:
        """Whether the tree holds the file `path` (asked once per path and plan: the module
        lookups ask the same candidates again and again)."""
        known = self._existing.get(path)
        if known is None:
            known = self._existing[path] = os.path.isfile(os.path.join(self._root, path))
        return known

    def tree(self, path: str) -> tuple[bytes, tree_sitter.Tree] | None:
        """The file at `path` as read, with its syntax tree (None: not a Rust file of the tree)."""
        if path not in self._trees:
            source = self._read(path) if path.endswith(".rs") else None
            self._trees[path] = (source, parse(source, RUST)) if source is not None else None
        return self._trees[path]

    def text(self, path: str) -> bytes | None:
        """The file at `path` as read (None: not a Rust file of the tree), without parsing it."""
        parsed = self._trees.get(path)
        if parsed is not None:
            return parsed[0]
        return self._read(path) if path.endswith(".rs") and path not in self._trees else None

    def release(self, path: str, source: bytes) -> None:
        """Let go of the trees of the file at `path` (its module scopes and `mod` declarations, once
        read, stay), for a caller done with it whose text of it is `source`: unless the plan edits
        it (`source` is not the file as read), whose trees the plan's checks read next. Asked
        again, it is parsed again."""
        parsed = self._trees.get(path)
        if (parsed[0] if parsed is not None else self._read(path)) == source:
            self._trees.pop(path, None)
            forget(source, RUST)

    def mod_declarations(self, path: str) -> list[ModDeclaration]:
        """The out-of-line `mod` declarations of a file, read once per plan (every file of a folder
        asks its parent's; callers must not change the list)."""
        if path not in self._mod_declarations:
            self._mod_declarations[path] = self._read_mod_declarations(path)
        return self._mod_declarations[path]

    def _read_mod_declarations(self, path: str) -> list[ModDeclaration]:
        parsed = self.tree(path)
        if parsed is None:
            return []
        found: list[ModDeclaration] = []

        def visit(container: tree_sitter.Node, inline: tuple[str, ...]) -> None:
            for node in container.named_children:
                if node.type != "mod_item":
                    continue
                name = node_text(node.child_by_field_name("name"))
                body = node.child_by_field_name("body")
                if body is None:
                    found.append(ModDeclaration(inline, name, attribute_string(node, b"path")))
                else:
                    visit(body, (*inline, name))

        visit(parsed[1].root_node, ())
        return found

    # -- module scopes ------------------------------------------------------

    def _location(self, key: ModuleKey) -> ModuleLocation | None:
        """Where the module `key` is: its file, the node holding its items, the folder of its
        out-of-line children."""
        root, path = key
        if not path:
            parsed = self.tree(root)
            return ModuleLocation(root, parsed[1].root_node, str(PurePosixPath(root).parent)) if parsed else None
        parent = self.scope((root, path[:-1]))
        if parent is None or path[-1] not in parent.children:
            return None
        child = parent.children[path[-1]]
        if child.node is None:
            parsed = self.tree(child.file)
            return ModuleLocation(child.file, parsed[1].root_node, child.folder) if parsed else None
        return child

    def scope(self, key: ModuleKey) -> ModuleScope | None:
        """What the module `key` declares (None: no such module in the tree)."""
        if key not in self._scopes:
            self._scopes[key] = None
            location = self._location(key)
            self._scopes[key] = self._build_scope(key, location) if location else None
        return self._scopes[key]

    def may_bind(self, key: ModuleKey, name: str, importer: ModuleKey | None = None) -> bool:
        """False only where the scope of module `key`, not read yet, surely binds no `name` that
        `importer` (a module looking through a glob; None: the module itself) may see: the module
        is a whole file (not an inline `mod { }`) that spells no binding of `name`
        (`spells_binding`) and holds no glob import `importer` could see through. Only a glob
        brings names a file does not spell, and a private glob only for the module and those
        inside it. So a lookup through the globs of many modules (`pub use values::*;` beside
        thirty others) parses only those that may answer."""
        if key in self._scopes:
            return True
        root, path = key
        if path:
            parent = self.scope((root, path[:-1]))
            child = parent.children.get(path[-1]) if parent is not None else None
            if child is None or child.node is not None:
                return True
            file = child.file
        else:
            file = root
        if not file.endswith(".rs") or file in self._trees:
            return True
        inside = importer is None or (importer[0] == root and importer[1][: len(path)] == path)
        spelled = self._spelled.get((file, name, inside))
        if spelled is None:
            source = self._read(file)
            if source is None:
                return True
            spelled = self._spelled[(file, name, inside)] = spells_binding(source, name, public_imports=not inside)
        if spelled:
            return True
        globbed = self._globbed.get((file, inside))
        if globbed is None:
            source = self._read(file)
            globbed = self._globbed[(file, inside)] = source is None or spells_glob_use(source, public=not inside)
        return globbed

    def _build_scope(self, key: ModuleKey, location: ModuleLocation) -> ModuleScope:
        assert location.node is not None
        file, folder = location.file, location.folder
        parsed = self.tree(file)
        source = parsed[0] if parsed is not None else b""

        def settle(uses: list[tuple[int, int]]) -> dict[str, list[Import]]:
            """The imports of the `use` declarations spanning `uses` ((start, end) bytes). It holds
            no node: a node holds its whole tree, which a forked process lets go of (`release`)."""
            found = ModuleScope({}, {}, [], {})
            again = self.tree(file)  # parsed again where a forked process let it go
            for start, end in uses:
                node = enclosing(again[1].root_node, start, ("use_declaration",)) if again is not None else None
                if node is None or (node.start_byte, node.end_byte) != (start, end):
                    raise AssertionError(f"{file}: no use declaration at bytes {start}..{end}")
                self.declare(found, node, file, folder, key)
            return found.imports

        scope = ModuleScope({}, DeferredImports(source, settle), [], {})
        for node in location.node.named_children:
            self.declare(scope, node, file, folder, key)
        return scope

    def declare(self, scope: ModuleScope, node: tree_sitter.Node, file: str, folder: str, key: ModuleKey) -> None:
        """Add to `scope` what the statement `node` of the module `key` declares or imports."""
        kind = node.type
        if kind == "use_declaration":
            imports = scope.imports
            if (
                isinstance(imports, DeferredImports)
                and not node.has_error
                and imports.source.find(b"*", node.start_byte, node.end_byte) < 0
            ):
                imports.pending.append((node.start_byte, node.end_byte))  # read when a name it binds is asked
                return
            visibility = visibility_of(node)
            argument = node.child_by_field_name("argument")
            for leaf in flatten_use(argument, ()) if argument is not None else []:
                name, segments = leaf.name, leaf.segments
                text = "use " + "::".join(segments) + ("::*" if name is None else "")
                if name is not None and segments and segments[-1] != name:
                    text += f" as {name}"
                entry = Import(name, segments, visibility, file, leaf.node.start_byte, text)
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
                    Import(name, (crate,), visibility_of(node), file, node.start_byte, text, crate=True)
                )
            return
        if kind == "foreign_mod_item":
            body = node.child_by_field_name("body") or next(
                (c for c in node.named_children if c.type == "declaration_list"), None
            )
            for child in body.named_children if body is not None else []:
                self.declare(scope, child, file, folder, key)
            return
        namespaces: tuple[str, ...] | None
        if kind == "struct_item":
            namespaces = struct_namespaces(node)
        else:
            namespaces = ITEM_NAMESPACES.get(kind)
        if namespaces is None:
            return
        name = node_text(node.child_by_field_name("name"))
        if kind == "function_signature_item":
            name = attribute_string(node, b"rust_name") or name
        visibility = visibility_of(node)
        if kind in ("function_signature_item", "associated_type") and not visibility:
            visibility = "pub"
        scope.items.setdefault(name, []).append(Def(file, node.start_byte, name, kind, namespaces, key, visibility))
        if kind == "mod_item":
            body = node.child_by_field_name("body")
            if body is not None:
                scope.children[name] = ModuleLocation(file, body, join_path(folder, name))
            else:
                scope.children[name] = self.module_file(file, folder, name, attribute_string(node, b"path"))

    def module_file(self, file: str, folder: str, name: str, attr_path: str | None) -> ModuleLocation:
        """The file of the module `mod name;` declared in `file` (children loaded from `folder`)."""
        if attr_path is not None:
            base = str(PurePosixPath(file).parent) if folder == own_folder(file) else folder
            target = join_path(base, attr_path)
            return ModuleLocation(target, None, str(PurePosixPath(target).parent))
        flat = join_path(folder, f"{name}.rs")
        if self.exists(flat):
            return ModuleLocation(flat, None, join_path(folder, name))
        nested = join_path(folder, name, "mod.rs")
        return ModuleLocation(nested, None, join_path(folder, name))

    def subtree_files(self, file: str, module: tuple[str, ...]) -> set[str]:
        """The files of the module `module` of `file` and of its descendant modules."""
        key = (file, module)
        if key not in self._subtrees:
            found = {file}
            package = self.crates.package_of(file)
            is_root = package is not None and (file == package.lib or file in package.roots)
            folder = str(PurePosixPath(file).parent) if is_root else own_folder(file)
            pending = [(file, folder, module)]
            while pending:
                current, current_folder, inside = pending.pop()
                for inline, name, attr_path in self.mod_declarations(current):
                    if inline[: len(inside)] != inside:
                        continue
                    child = self.module_file(current, join_path(current_folder, *inline), name, attr_path)
                    if child.file not in found and self.exists(child.file):
                        found.add(child.file)
                        pending.append((child.file, child.folder, ()))
            self._subtrees[key] = found
        return self._subtrees[key]

    def line(self, file: str, offset: int) -> int:
        """The line of byte `offset` of `file` as read (0 when it cannot be read)."""
        parsed = self.tree(file)
        return line_col(parsed[0], offset)[0] if parsed else 0

    def edition(self, root: str) -> str:
        """The edition of the crate whose root file is `root`."""
        if root not in self._editions:
            self._editions[root] = crate_edition(self._root, root)
        return self._editions[root]


# -- lexical scopes ---------------------------------------------------------


def binds(pattern: tree_sitter.Node | None, name: bytes) -> bool:
    """Whether the pattern binds `name`."""
    stack = [pattern] if pattern is not None else []
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            if node.text == name and not names_a_path(node):
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


def names_a_path(node: tree_sitter.Node) -> bool:
    """Whether an identifier in a pattern is the type of a tuple-struct or struct pattern."""
    parent = node.parent
    return (
        parent is not None
        and parent.type in ("tuple_struct_pattern", "struct_pattern")
        and parent.child_by_field_name("type") == node
    )


def is_binding(node: tree_sitter.Node) -> bool:
    """Whether this identifier is a name bound by a pattern (not a use)."""
    if names_a_path(node):
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


def binds_here(node: tree_sitter.Node, child: tree_sitter.Node, name: bytes) -> bool:
    """Whether `node` binds the value `name` for its descendant `child`."""
    kind = node.type
    if kind == "block":
        for statement in node.named_children:
            if statement.start_byte >= child.start_byte:
                break
            if statement.type == "let_declaration":
                pattern = statement.child_by_field_name("pattern")
                if pattern is not None and binds(pattern, name):
                    return True
        return False
    if kind == "function_item":
        parameters = node.child_by_field_name("parameters")
        return (
            child == node.child_by_field_name("body")
            and parameters is not None
            and any(
                p.type == "parameter" and binds(p.child_by_field_name("pattern"), name)
                for p in parameters.named_children
            )
        )
    if kind == "closure_expression":
        parameters = node.child_by_field_name("parameters")
        return child == node.child_by_field_name("body") and parameters is not None and binds(parameters, name)
    if kind == "match_arm":
        pattern = node.child_by_field_name("pattern")
        return child != pattern and pattern is not None and binds(pattern, name)
    if kind == "for_expression":
        pattern = node.child_by_field_name("pattern")
        return child == node.child_by_field_name("body") and binds(pattern, name)
    if kind in ("if_expression", "while_expression"):
        condition = node.child_by_field_name("condition")
        return (
            child == node.child_by_field_name("consequence") and condition is not None and _let_binds(condition, name)
        )
    if kind == "let_chain":
        return any(c.end_byte <= child.start_byte and _let_binds(c, name) for c in node.named_children)
    return False


def _let_binds(condition: tree_sitter.Node, name: bytes) -> bool:
    if condition.type == "let_condition":
        pattern = condition.child_by_field_name("pattern")
        return pattern is not None and binds(pattern, name)
    if condition.type == "let_chain":
        return any(_let_binds(c, name) for c in condition.named_children)
    return False


def generic_here(node: tree_sitter.Node, name: bytes) -> bool:
    parameters = (
        node.child_by_field_name("type_parameters")
        if node.type
        in ("function_item", "impl_item", "struct_item", "enum_item", "trait_item", "type_item", "union_item")
        else None
    )
    if parameters is None:
        return False
    for parameter in parameters.named_children:
        declared = parameter.child_by_field_name("name") or (parameter if parameter.type == "type_identifier" else None)
        if declared is not None and declared.text == name:
            return True
    return False
