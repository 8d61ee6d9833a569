"""Lookup: what a name or a path means in a module, as rustc resolves it as far as the source
shows: a module's items, then its named imports (`use`, `extern crate`), then its globs (only
what is visible to the importing module); the extern prelude (Cargo dependencies, and what an
`extern crate` of the crate root binds); paths segment by segment, in the type namespace before
the last; `use` paths from the crate root in an edition 2015 crate; and at a place in code, the
lexical scopes around it (locals, generics, block items) before the module's."""

from __future__ import annotations

import tree_sitter

from codemods.edit.values import line_col
from codemods.languages.rust.resolve.scopes import ModuleScopes, binds_here, generic_here
from codemods.languages.rust.resolve.syntax import struct_namespaces
from codemods.languages.rust.resolve.values import (
    EXTERNAL,
    ITEM_NAMESPACES,
    MACRO,
    OTHER,
    TYPE,
    UNKNOWN,
    VALUE,
    AssociatedItem,
    Def,
    Import,
    Mod,
    ModuleKey,
    ModuleScope,
    Outcome,
    Place,
    SourceFile,
)
from codemods.parse import node_text

# A lookup's path so far: (module, name, namespace) asked and not yet answered (a cycle of imports).
Seen = set[tuple[ModuleKey, str, str]]
# A lookup asked: (module, name, namespace).
Asked = tuple[ModuleKey, str, str]
# A lookup asked within another: (module, name, namespace, what the importer sees: `_sees`).
Nested = tuple[ModuleKey, str, str, tuple[bool, ...] | None]


class PathLookup:
    """Names and paths resolved against the module scopes of a tree (`scopes`)."""

    def __init__(self, scopes: ModuleScopes) -> None:
        self.scopes = scopes
        # What a name means in a module, asked afresh (no importer, no lookup in progress): the
        # same few names (`Vec`, `HashMap`, a crate's own types) are asked in every file of a module.
        self._fresh: dict[tuple[ModuleKey, str, str], list[Outcome]] = {}
        # What a name means in a module asked within another lookup (through an import or a
        # glob), by what the importer sees there, with the lookups its computation made (its
        # footprint). Kept only where that computation cut no cycle short (`_cuts` did not move),
        # and given again only to a lookup whose path so far (`seen`) holds none of its footprint:
        # asked again there, it would make the same lookups and cut none, so the answer is the one
        # the computation would give.
        self._nested: dict[Nested, tuple[list[Outcome], frozenset[Asked]]] = {}
        self._cuts = 0
        self._asked: list[Asked] = []  # the lookups made since the outermost one began
        self._depth = 0
        # The visibilities of what may answer a name in a module (`_sees`), sorted.
        self._visibilities: dict[tuple[ModuleKey, str], tuple[str, ...]] = {}

    def _visible(self, module: ModuleKey, visibility: str, importer: ModuleKey) -> bool:
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
            path = visibility[len("pub(in ") : -1].replace(" ", "").split("::")
            allowed = tuple(p for p in path if p != "crate")
        return importer[1][: len(allowed)] == allowed

    def lookup(
        self, key: ModuleKey, name: str, namespace: str, importer: ModuleKey | None = None, seen: Seen | None = None
    ) -> list[Outcome]:
        """What `name` means in the module `key`: its items, then named imports, then globs.

        With `importer` (a glob lookup), only what is visible from that module counts.
        """
        if not seen and importer is None:
            # Asked afresh, the answer depends on the tree alone: kept (a copy given out).
            fresh = self._fresh.get((key, name, namespace))
            if fresh is None:
                fresh = self._fresh[(key, name, namespace)] = self._lookup(
                    key, name, namespace, None, {(key, name, namespace)}
                )
            return list(fresh)
        seen = set() if seen is None else seen
        asked = (key, name, namespace)
        if asked in seen:
            self._cuts += 1
            return []  # a cycle of imports on the path being resolved
        if importer is not None and not self.scopes.may_bind(key, name, importer):
            return []  # as `_lookup` would answer
        sees = self._sees(key, name, importer)
        memo = (key, name, namespace, sees)
        kept = self._nested.get(memo)
        if kept is not None and kept[1].isdisjoint(seen):
            self._asked += kept[1]
            return list(kept[0])
        cuts, first = self._cuts, len(self._asked)
        self._asked.append(asked)
        self._depth += 1
        seen.add(asked)
        try:
            found = self._lookup(key, name, namespace, importer, seen)
        finally:
            # `seen` holds the lookups on the current path only: a sibling path (the glob tried
            # before an extern crate of the same name, say) may ask the same question again.
            seen.discard(asked)
            self._depth -= 1
        if cuts == self._cuts:
            self._nested[memo] = (found, frozenset(self._asked[first:]))
        if not self._depth:
            self._asked.clear()
        return list(found)

    def _sees(self, key: ModuleKey, name: str, importer: ModuleKey | None) -> tuple[bool, ...] | None:
        """What of module `key`'s entries that may answer `name` the module `importer` sees: None
        for the module itself (all of them), else whether it sees each of their visibilities (in
        order)."""
        if importer is None:
            return None
        visibilities = self._visibilities.get((key, name))
        if visibilities is None:
            scope = self.scopes.scope(key)
            found = set()
            if scope is not None:
                found = {d.visibility for d in scope.items.get(name, [])}
                found |= {entry.visibility for entry in scope.imports.get(name, [])}
                found |= {entry.visibility for entry in scope.globs}
            visibilities = self._visibilities[(key, name)] = tuple(sorted(found))
        return tuple(v == "pub" or self._visible(key, v, importer) for v in visibilities)

    def _lookup(
        self, key: ModuleKey, name: str, namespace: str, importer: ModuleKey | None, seen: Seen
    ) -> list[Outcome]:
        if not self.scopes.may_bind(key, name, importer):
            return []
        scope = self.scopes.scope(key)
        if scope is None:
            return [Outcome(UNKNOWN, (f"module {self.module_name(key)} not found",))]
        found = [
            Outcome(Mod((key[0], (*key[1], name)), d) if d.kind == "mod_item" else d)
            for d in scope.items.get(name, [])
            if namespace in d.namespaces and (importer is None or self._visible(key, d.visibility, importer))
        ]
        for entry in scope.imports.get(name, []):
            if importer is not None and not self._visible(key, entry.visibility, importer):
                continue
            step = f"{entry.text} at {entry.file}:{self.scopes.line(entry.file, entry.start)}"
            found += [o.through(step) for o in self._resolve_import(key, entry, namespace, seen)]
        if found:
            return found
        for entry in scope.globs:
            if importer is not None and not self._visible(key, entry.visibility, importer):
                continue
            step = f"{entry.text} at {entry.file}:{self.scopes.line(entry.file, entry.start)}"
            for base in self._resolve_module_path(*self.import_start(key, entry.segments), seen):
                if isinstance(base.target, Mod):
                    found += [o.through(step) for o in self.lookup(base.target.key, name, namespace, key, seen)]
                elif base.target == UNKNOWN:
                    found.append(base.through(step))
        return found

    def _resolve_import(self, key: ModuleKey, entry: Import, namespace: str, seen: Seen) -> list[Outcome]:
        if entry.crate:
            return self._loaded_crate(key[0], entry.segments[0]) if namespace == TYPE else []
        segments = entry.segments
        if segments and segments[-1] == "self":
            segments = segments[:-1]
        start, segments = self.import_start(key, segments)
        return self.resolve_segments(start, None, segments, namespace, seen)

    def import_start(self, key: ModuleKey, segments: tuple[str, ...]) -> tuple[ModuleKey, tuple[str, ...]]:
        """Where a `use` path of module `key` starts: the module itself (edition 2018 on), or, in an
        edition 2015 crate, the crate root (`use Evented;`, `use ::io::Read;` name root items),
        unless the path says `self`, `super` or `crate`."""
        root = key[0]
        if self.scopes.edition(root) != "2015" or not segments:
            return key, segments
        if segments[0] == "" and len(segments) > 1:
            segments = segments[1:]
        if segments[0] in ("crate", "self", "super", "$crate"):
            return key, segments
        return (root, ()), segments

    def _resolve_module_path(self, key: ModuleKey, segments: tuple[str, ...], seen: Seen) -> list[Outcome]:
        if not segments:
            return [Outcome(UNKNOWN)]
        return self.resolve_segments(key, None, segments, TYPE, seen)

    def resolve_segments(
        self, key: ModuleKey, place: Place | None, segments: tuple[str, ...], namespace: str, seen: Seen | None = None
    ) -> list[Outcome]:
        """Resolve a path in module `key`; the first segment from the lexical scope of `place`
        (without one, from the module's scope)."""
        seen = set() if seen is None else seen
        first, rest = segments[0], segments[1:]
        root, module = key
        first_namespace = TYPE if rest else namespace
        if first == "":
            current = self._extern(root, rest[0]) if rest else []
            rest = rest[1:]
        elif first in ("crate", "$crate"):
            current = [Outcome(Mod((root, ())))]
        elif first == "self":
            current = [Outcome(Mod(key))]
        elif first == "super":
            current = [Outcome(Mod((root, module[:-1])))]
            while rest and rest[0] == "super":
                module = module[:-1]
                current = [Outcome(Mod((root, module[:-1])))]
                rest = rest[1:]
        elif first == "Self":
            return [Outcome(OTHER)]
        elif place is not None:
            current = self.lexical(key, place, first, first_namespace)
        else:
            current = self.lookup(key, first, first_namespace, None, seen)
            if not current and first_namespace == TYPE:
                current = self._extern(root, first)
        for index, segment in enumerate(rest):
            last = index == len(rest) - 1
            wanted = namespace if last else TYPE
            following: list[Outcome] = []
            for outcome in current:
                target = outcome.target
                if isinstance(target, Mod):
                    following += [
                        Outcome(o.target, outcome.via + o.via)
                        for o in self.lookup(target.key, segment, wanted, None, seen)
                    ]
                elif target in (EXTERNAL, UNKNOWN):
                    following.append(outcome)
                elif isinstance(target, Def):
                    following.append(Outcome(AssociatedItem(target, segment), outcome.via))
                else:
                    following.append(Outcome(OTHER, outcome.via))
            current = following
        return current

    def _extern(self, root: str, name: str) -> list[Outcome]:
        """What `name` means in the extern prelude of the crate `root`: a crate it depends on, or
        the name an `extern crate` declaration of its root module binds (rustc adds those too)."""
        found = self._loaded_crate(root, name)
        if found:
            return found
        declared = self.scopes.scope((root, ()))
        for entry in declared.imports.get(name, []) if declared is not None else []:
            if entry.crate and entry.segments[0] != name:
                step = f"{entry.text} at {entry.file}:{self.scopes.line(entry.file, entry.start)}"
                found += [o.through(step) for o in self._loaded_crate(root, entry.segments[0])]
        return found

    def _loaded_crate(self, root: str, crate: str) -> list[Outcome]:
        """The root of the crate that the crate `root` names `crate` on its command line (its Cargo
        dependencies and std's crates), or its own root for `self`."""
        if crate == "self":
            return [Outcome(Mod((root, ())))]
        known, lib = self.scopes.crates.crate(root).extern(crate)
        if lib is not None:
            return [Outcome(Mod((lib, ())))]
        return [Outcome(EXTERNAL)] if known else []

    def lexical(self, key: ModuleKey, place: Place, name: str, namespace: str) -> list[Outcome]:
        """What the bare `name` means at `place` (in the module `key`)."""
        raw = name.encode()
        locals_visible = True
        child = place.node
        node = child.parent
        while node is not None:
            kind = node.type
            if kind in ("mod_item", "source_file"):
                break
            if locals_visible and namespace == VALUE and binds_here(node, child, raw):
                return [Outcome(OTHER)]
            if locals_visible and namespace == TYPE and generic_here(node, raw):
                return [Outcome(OTHER)]
            if kind == "block":
                found = self._block_items(key, place.file, node, name, namespace)
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

    def _lexical_macro(self, key: ModuleKey, name: str) -> list[Outcome]:
        """macro_rules! are visible in the modules declared after them: look in the parents."""
        root, module = key
        while module:
            module = module[:-1]
            found = self.lookup((root, module), name, MACRO)
            if found:
                return found
        return []

    def _block_items(
        self, key: ModuleKey, file: SourceFile, block: tree_sitter.Node, name: str, namespace: str
    ) -> list[Outcome]:
        """Items and `use` declarations of a block of `file` (they are visible in all of it)."""
        scope = ModuleScope({}, {}, [], {})
        for statement in block.named_children:
            if statement.type == "use_declaration":
                self.scopes.declare(scope, statement, file.path, "", key)
            elif node_text(statement.child_by_field_name("name")) == name and namespace in (
                struct_namespaces(statement)
                if statement.type == "struct_item"
                else ITEM_NAMESPACES.get(statement.type, ())
            ):
                return [Outcome(OTHER)]
        found: list[Outcome] = []
        for entry in scope.imports.get(name, []):
            step = f"{entry.text} at {file.path}:{line_col(file.source, entry.start)[0]}"
            found += [o.through(step) for o in self._resolve_import(key, entry, namespace, set())]
        if found:
            return found
        for entry in scope.globs:
            step = f"{entry.text} at {file.path}:{line_col(file.source, entry.start)[0]}"
            for base in self._resolve_module_path(key, entry.segments, set()):
                if isinstance(base.target, Mod):
                    found += [o.through(step) for o in self.lookup(base.target.key, name, namespace, key)]
        return found

    # -- rendering ----------------------------------------------------------

    def module_name(self, key: ModuleKey) -> str:
        """`crate_name::a::b` for the module `key`."""
        crate = self.scopes.crates.crate(key[0]).name
        return "::".join((crate, *key[1]))

    def describe(self, definition: Def) -> str:
        """`crate_name::module::item (file:line)`."""
        return (
            f"{self.module_name(definition.module)}::{definition.name} "
            f"({definition.file}:{self.scopes.line(definition.file, definition.start)})"
        )
