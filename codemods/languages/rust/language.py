"""Rust's operations for the language registry (core/registry.py): deleting items, rule scopes,
identifiers and parse errors of .rs files, the uses of what a plan deletes, the import stage,
what deletions take with them in other files, and rustfmt.

The plug-in is imported only when a plan handles Rust files (the registry imports it on first
use), so its imports are at module level: `codemod check` never loads it."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import tree_sitter

from codemods.core.registry import CPP, LANGUAGES, RUST, LanguageOperations, PlanState, References
from codemods.languages.resolution import DEFINITE, POSSIBLE, Reference
from codemods.languages.rust.cfg_flags import flag_is_set, unset_flags_around
from codemods.languages.rust import format as rustfmt
from codemods.languages.rust.bridge_references import cpp_declarations, rust_exports
from codemods.languages.rust.cascade import files_deleted_with
from codemods.languages.rust.deletion import delete_items
from codemods.languages.rust.excerpt import excerpt
from codemods.languages.rust.items import DELETABLE_KINDS as ITEM_KINDS
from codemods.languages.rust.items import matches_name, numbered_name, rust_items
from codemods.languages.rust.macro_impls import macro_impl_methods
from codemods.languages.rust.member_references import FIELDS, VARIANTS, field_references, variant_references
from codemods.languages.rust.members import MEMBER_KINDS
from codemods.languages.rust.resolve.per_plan import (
    FileAhead,
    live_targets,
    plan_resolver,
    resolve_ahead,
    start_searches,
    worked_ahead,
)
from codemods.languages.rust.unused_imports import imports_ahead, imports_left_unused, still_used_after
from codemods.languages.scope import Scope, after_previous_sibling
from codemods.parse import error_nodes, identifier_hits, parse

# The kinds a recipe may delete (the registry reads them here): whole items, then parts of items.
DELETABLE_KINDS = (*ITEM_KINDS, *MEMBER_KINDS)


def parse_errors(source: bytes, tree: tree_sitter.Tree) -> list[tuple[int, int]]:
    return [(n.start_byte, n.end_byte) for n in error_nodes(tree)]


def identifiers(source: bytes, tree: tree_sitter.Tree, hits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    return identifier_hits(tree, hits, LANGUAGES[RUST].identifier_kinds)


def item_scopes(source: bytes, tree: tree_sitter.Tree, name: str) -> list[Scope]:
    """The items `name` names, spelt as a deletion target names them (`crate::a::f`, `a::f`,
    `impl Tr for T`, `<T>#2` for the second impl block of that header); a type's scope takes
    its impl blocks of the file too."""
    items = rust_items(source, tree)
    wanted, ordinal = numbered_name(name)
    chosen = [i for i in items if matches_name(i, wanted)]
    if ordinal is not None:
        chosen = [i for i in chosen if i.kind == "impl"][ordinal - 1 : ordinal]
    types = {(i.module_path, i.name) for i in chosen if i.kind in ("struct", "enum", "union", "trait")}
    chosen += [i for i in items if i.kind == "impl" and (i.module_path, i.name) in types and i not in chosen]
    return [Scope(name, item.start, item.end, after_previous_sibling(item.node), item.node) for item in chosen]


def named_items(source: bytes, tree: tree_sitter.Tree) -> list[tuple[int, int, str]]:
    """(start, end, qualified name) of the file's named items (not its `use` declarations and
    extern blocks); an impl block is named `impl TYPE` (`impl TRAIT for TYPE`)."""
    named = []
    for item in rust_items(source, tree):
        if item.kind in ("use", "extern_block"):
            continue
        name = item.qualified_name
        if item.kind == "impl":
            header = item.impl_header or (item.name, item.trait)
            name = "::".join((*item.module_path, f"impl {header[1] + ' for ' if header[1] else ''}{header[0]}"))
        named.append((item.start, item.end, name))
    return named


def references(path: str, text: bytes, deleted: Any, shared: PlanState) -> References:
    """Uses in a Rust file of what the plan deletes: uses that resolve to a deleted Rust item, and
    cxx bridge entries exporting one or declaring a deleted C++ item; no name is matched by
    spelling alone. `shared` keeps the plan's resolver (made on first use from its root and reads).
    A forked process that resolved the file ahead worked this out already (FileAhead)."""
    ahead = worked_ahead(shared, path, text)
    return ahead.references if ahead is not None else _references(path, text, deleted, shared)


def _references(path: str, text: bytes, deleted: Any, shared: PlanState) -> References:
    found: list[Reference] = []
    if deleted.of(RUST):
        resolver = plan_resolver(shared)
        targets = live_targets(deleted, shared)
        found += resolver.references_in_file(path, text, targets)
        found += rust_exports(path, text, targets, resolver)
        found += macro_impl_methods(path, text, targets)
    if deleted.of(FIELDS):
        found += field_references(path, text, deleted.of(FIELDS))
    if deleted.of(VARIANTS):
        found += variant_references(path, text, deleted.of(VARIANTS))
    # A cxx bridge declares C++ items only: deleted items of other languages (Python's) never link.
    found += cpp_declarations(path, text, [i for i in deleted.foreign(RUST) if i in deleted.of(CPP)])
    return References(tuple(_compiled_by_no_build(path, text, found, shared)))


def _compiled_by_no_build(path: str, text: bytes, found: list[Reference], shared: PlanState) -> list[Reference]:
    """`found`, a definite use under a `#[cfg(flag)]` whose custom flag nothing in the tree sets
    made possible (cfg_flags.py): no build the tree describes compiles it."""
    if not any(r.certainty == DEFINITE for r in found) or b"cfg" not in text:
        return found
    known = _cfg_around(text, [r for r in found if r.certainty == DEFINITE], shared)
    out = []
    for reference in found:
        cfg = known.get((reference.start, reference.end)) if reference.certainty == DEFINITE else None
        out.append(
            reference
            if cfg is None
            else dataclasses.replace(
                reference,
                certainty=POSSIBLE,
                resolution=f"{reference.resolution}; under {cfg}, a flag nothing in the tree sets",
            )
        )
    return out


def _cfg_around(text: bytes, definite: list[Reference], shared: PlanState) -> dict[tuple[int, int], str | None]:
    """The `#[cfg(...)]` around each of `definite` ((start, end)) whose custom flag nothing in the
    tree sets (None: none)."""
    flags: dict[str, bool] = shared.memo("rust_cfg_flags_set", dict)

    def is_set(name: str) -> bool:
        if name not in flags:
            flags[name] = flag_is_set(shared.root, name)
        return flags[name]

    tree = parse(text, RUST)
    known: dict[tuple[int, int], str | None] = {}
    for reference in definite:
        node = tree.root_node.descendant_for_byte_range(reference.start, reference.end)
        known[(reference.start, reference.end)] = unset_flags_around(node, is_set) if node is not None else None
    return known


def _resolve_ahead(files: list[tuple[str, bytes]], deleted: Any, shared: PlanState) -> None:
    """`resolve_ahead`, each forked process also working out, for each file it resolves, what the
    import stage and the reference check would parse it again for (a FileAhead)."""

    def also(path: str, source: bytes) -> FileAhead:
        named, edits = imports_ahead(path, source, deleted, shared)
        return FileAhead(named, edits, _references(path, source, deleted, shared))

    resolve_ahead(files, deleted, shared, also)


def parse_errors_deletable(root: Path, path: str) -> bool:
    """Whether a parse error lying wholly inside an item the plan deletes from `path` may go with
    it: in an edition 2015 crate (Cargo.toml without `edition`), whose valid code (`try!(...)`,
    `async` or `dyn` as names) the grammar, written for later editions, reads as errors."""
    return rustfmt.crate_edition(root, path) == "2015"


def format_item(text: str, indent: str, root: Path, path: str) -> str | None:
    """`text` formatted by rustfmt at `indent`, with the edition of the crate holding `path`."""
    return rustfmt.format_item(text, indent, root, rustfmt.crate_edition(root, path))


class RustOperations(LanguageOperations):
    """Rust's `LanguageOperations`: the functions of this module and of the modules beside it."""

    parse_errors = staticmethod(parse_errors)
    identifiers = staticmethod(identifiers)
    delete_items = staticmethod(delete_items)
    item_scopes = staticmethod(item_scopes)
    named_items = staticmethod(named_items)
    references = staticmethod(references)
    format_item = staticmethod(format_item)
    format_file = staticmethod(rustfmt.format_file)
    parse_errors_deletable = staticmethod(parse_errors_deletable)
    imports_left_unused = staticmethod(imports_left_unused)
    files_deleted_with = staticmethod(files_deleted_with)
    resolve_ahead = staticmethod(_resolve_ahead)
    prepare_formatting = staticmethod(rustfmt.prepare_formatting)
    format_excerpt = staticmethod(excerpt)
    start_searches = staticmethod(start_searches)
    holds_after = staticmethod(still_used_after)
    deletable_kinds = DELETABLE_KINDS


OPERATIONS = RustOperations()
