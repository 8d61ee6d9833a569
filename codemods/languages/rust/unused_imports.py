"""The import stage of a Rust plan: the `use` entries of a file that the plan leaves naming a
deleted item or used by nothing (what goes, and how a declaration is reshaped: rust/imports.py),
a re-exported name kept while another file of the tree still uses it; and the `use` entries a
recipe deletes whose names the file still uses."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from codemods.core.registry import RUST, PlanState
from codemods.edit.codes import Code
from codemods.edit.splice import map_offset, splice
from codemods.edit.values import Edit, Finding, ItemTarget, line_col
from codemods.languages.resolution import DEFINITE, DeletedRecord
from codemods.languages.rust.format import crate_edition
from codemods.languages.rust.imports import (
    UseEntry,
    use_declarations,
    name_use_offsets,
    name_uses,
    removal_edits,
    unused_entries,
    use_entries,
)
from codemods.languages.rust.items import rust_items
from codemods.languages.rust.resolve.per_plan import live_targets, plan_resolver, worked_ahead
from codemods.languages.rust.resolve.syntax import flatten_use
from codemods.languages.rust.resolve.values import TYPE, Def
from codemods.parse import node_text, parse
from codemods.search.files import files_with_words
from codemods.words import keyword_offsets, word_in


def imports_left_unused(
    path: str, source: bytes, planned: list[Edit], deleted: DeletedRecord, shared: PlanState, origin: str
) -> list[Edit]:
    """Edits removing the `use` entries of a Rust file that the plan leaves naming a deleted item
    or used by nothing (see rust/imports.py), with the plan's root, reads and planned edits
    (`shared`)."""
    ahead = worked_ahead(shared, path, source) if not planned else None
    if ahead is not None and ahead.import_edits is not None:
        return [dataclasses.replace(edit, origin=origin) for edit in ahead.import_edits]
    if not planned and not (ahead.imports_named if ahead is not None else _imports_a_name(source, deleted.all_names())):
        return []  # a file the plan does not edit changes only where a `use` names what it deletes
    return removal_edits(path, source, _entries_left_unused(path, shared, deleted), origin)


def imports_ahead(
    path: str, source: bytes, deleted: DeletedRecord, shared: PlanState
) -> tuple[bool, tuple[Edit, ...] | None]:
    """For a forked process resolving the file at `path` (text `source`): whether a `use` of it
    may name a deleted item, and, where the plan does not edit it, the edits removing the imports
    it leaves unused (origin left empty: `imports_left_unused` gives its own), as the plan's own
    process would work them out; None where that asked about other files (a re-export: the
    answer may then hang on the order files are asked in)."""
    named = _imports_a_name(source, deleted.all_names())
    if shared.planned(path) or shared.read(path) != source:
        return named, None
    if not named:
        return named, ()
    asked = shared.memo(_REEXPORTS_ASKED, lambda: [0])
    before = asked[0]
    edits = tuple(removal_edits(path, source, _entries_left_unused(path, shared, deleted), ""))
    return named, edits if asked[0] == before else None


def _imports_a_name(source: bytes, names: list[str]) -> bool:
    """Whether a `use` declaration of `source` may name one of `names` (a lexical test, no parse:
    a file that only calls them, however large, is left to the reference check)."""
    if not names:
        return False
    covered = 0
    needles = [name.encode() for name in set(names)]
    # From each `use` to the next `;` (where a declaration ends), each stretch searched once: a
    # `use` in prose before the same `;` adds no text. A stretch holding no name even inside a
    # word (most) is passed over by substring search alone.
    for start in keyword_offsets(source, b"use"):
        if start < covered:
            continue
        end = source.find(b";", start + 3)
        covered = len(source) if end < 0 else end
        for needle in needles:
            if source.find(needle, start + 3, covered) >= 0:
                if word_in(source, names, start + 3, covered):
                    return True
                break
    return False


# How many times the import stage asked whether another file uses a re-exported name (a count
# `imports_ahead` reads before and after a file).
_REEXPORTS_ASKED = "rust-reexports-asked"


def _entries_left_unused(path: str, shared: PlanState, deleted: DeletedRecord) -> list[UseEntry]:
    """The `use` entries of `path` to remove, computed once per plan (a re-export's removal asks
    about the files that use its name)."""
    memo: dict[str, list[UseEntry] | None] = shared.memo("rust-unused-imports", dict)
    if path in memo:
        return memo[path] or []
    memo[path] = None  # in progress: a re-export cycle keeps its entries
    source = shared.read(path)
    planned = list(shared.planned(path))
    if source is None or any(e.start == 0 and e.end == len(source) and not e.replacement for e in planned):
        memo[path] = []
        return []
    dangling: set[int] = set()
    if deleted.of(RUST) and _imports_a_name(source, [i.name for i in deleted.of(RUST)]):
        targets = live_targets(deleted, shared)  # the Rust plug-in records DeletedRustItems
        dangling = {
            r.start for r in plan_resolver(shared).references_in_file(path, source, targets) if r.certainty == DEFINITE
        }

    def reexport_unused(name: str) -> bool:
        shared.memo(_REEXPORTS_ASKED, lambda: [0])[0] += 1
        for other in files_with_words(shared.root, [name]):
            if other == path or not other.endswith(".rs"):
                continue
            text = shared.read(other)
            edits = list(shared.planned(other))
            if text is None or any(e.start == 0 and e.end == len(text) and not e.replacement for e in edits):
                continue
            if any(i.kind != "impl" and i.name == name for i in rust_items(text, parse(text, RUST))):
                continue  # the file declares its own item of that name: its uses are of that one
            if _imports_from_another_crate(text, name, crate_edition(shared.root, other)):
                continue  # `use std::time::Duration`: its uses are of that one
            if memo.get(other, ()) is None:
                return False
            removed = _entries_left_unused(other, shared, deleted)
            after = splice(text, edits) if edits else text
            tree = parse(after, RUST)
            if name_uses(tree, {name})[name]:
                return False
            gone = {e.node.start_byte for e in removed}
            kept = [e for e in use_entries(parse(text, RUST)) if e.binding == name and e.node.start_byte not in gone]
            if kept:
                return False
        return True

    if not dangling and not planned:
        memo[path] = []
        return []
    entries = unused_entries(source, planned, dangling, reexport_unused, shared.keep_unused_imports)
    unnamed = [e for e in entries if not any(e.node.start_byte <= s < e.node.end_byte for s in dangling)]
    if unnamed:
        # A trait is used by calls of its methods, which never spell its name: one the tree
        # declares stays where the file, as the plan leaves it, still calls a method of its.
        calls = _method_calls(splice(source, planned) if planned else source)
        kept = {id(e) for e in unnamed if calls and _trait_methods(path, e, shared) & calls}
        entries = [e for e in entries if id(e) not in kept]
    memo[path] = entries
    return entries


def _method_calls(source: bytes) -> set[str]:
    """The names called as methods in `source` (`.name(`, `.name::<`), by spelling."""
    return {m.decode() for m in re.findall(rb"\.\s*([A-Za-z_]\w*)\s*(?:\(|::\s*<)", source)}


def _trait_methods(path: str, entry: UseEntry, shared: PlanState) -> set[str]:
    """The method names of the trait the `use` entry of `path` imports, where it resolves to one
    the tree declares (empty otherwise: a type, a function, another crate's item)."""
    if not entry.binding:
        return set()
    resolver = plan_resolver(shared)
    methods: set[str] = set()
    for root, module in resolver.crates.instances(path):
        for outcome in resolver.paths.lookup((root, module), entry.binding, TYPE):
            target = outcome.target
            if not isinstance(target, Def) or target.kind != "trait_item":
                continue
            parsed = resolver.scopes.tree(target.file)
            node = parsed[1].root_node.descendant_for_byte_range(target.start, target.start) if parsed else None
            while node is not None and node.type != "trait_item":
                node = node.parent
            body = node.child_by_field_name("body") if node is not None else None
            for item in body.named_children if body is not None else ():
                if item.type in ("function_item", "function_signature_item"):
                    methods.add(node_text(item.child_by_field_name("name")))
    return methods


def _imports_from_another_crate(source: bytes, name: str, edition: str) -> bool:
    """Whether every `use` of the file binding `name` takes it from another crate (its path starts
    with a name the file neither declares nor imports, `std::time::Duration`; edition 2018 on,
    where such a path is another crate's) and no path of the file reaches `name` through
    `crate::`, `self::` or `super::`: the file's uses of `name` are then of the other crate's item."""
    if edition == "2015":
        return False
    tree = parse(source, RUST)
    entries = use_entries(tree)
    local = {i.name for i in rust_items(source, tree) if not i.module_path} | {e.binding for e in entries}
    binding = [e for e in entries if e.binding == name]
    roots = {
        node_text(e.declaration.child_by_field_name("argument")).lstrip(":").split("::")[0].strip() for e in binding
    }
    if not binding or roots & (local | {"crate", "self", "super"}):
        return False
    return re.search(rb"\b(?:crate|self|super)\s*::[\w\s:]*?\b" + re.escape(name.encode()) + rb"\b", source) is None


def imports_still_used(path: str, source: bytes, edits: list[Edit], uses: list[ItemTarget]) -> list[Finding]:
    """A `use` entry the recipe deletes (of `uses`, its targets) whose name the file still uses
    after its deletions: one finding at each such use, as the file is read. The planner asks
    again on the file as the whole plan leaves it (`still_used_after`): a rewrite may take those
    uses away."""
    bindings = {t: split for t in uses if (split := t.name.rsplit("::", 1)[-1].strip()) not in ("self", "*")}
    if not bindings:
        return []
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    after = parse(splice(source, ordered), RUST)
    offsets = name_use_offsets(after, set(bindings.values()), through_paths=False)
    findings = []
    for target, binding in bindings.items():
        places = [map_offset(ordered, at) for at, name in offsets if name == binding]
        removal = next(
            (e for e in ordered if any(o.endswith(f":use:{target.name}") for o in e.origin.split("+"))), None
        )
        import_line = line_col(source, removal.start if removal is not None else source.find(binding.encode()))[0]
        for at in places:
            line, col = line_col(source, at)
            findings.append(
                Finding(
                    path,
                    line,
                    col,
                    Code.IMPORT_STILL_USED,
                    f"{target.name}: the file still uses {binding} here ({len(places)} use(s) in all) after the "
                    f"plan deletes its import (line {import_line}); delete or rewrite those uses too",
                    symbol=binding,
                    target=target,
                )
            )
    return findings


# The names each edition's prelude brings into every module, by the paths of std, core and alloc
# that declare them (`std::prelude::rust_20xx`): a deleted `use` of one of these paths leaves the
# file's uses of the name to the prelude, which names the same item.
_PRELUDE: dict[str, tuple[str, ...]] = {
    "marker": ("Copy", "Send", "Sized", "Sync", "Unpin"),
    "ops": ("Drop", "Fn", "FnMut", "FnOnce"),
    "mem": ("drop",),
    "boxed": ("Box",),
    "borrow": ("ToOwned",),
    "clone": ("Clone",),
    "cmp": ("PartialEq", "PartialOrd", "Eq", "Ord"),
    "convert": ("AsRef", "AsMut", "Into", "From"),
    "default": ("Default",),
    "iter": ("Iterator", "Extend", "IntoIterator", "DoubleEndedIterator", "ExactSizeIterator"),
    "option": ("Option",),
    "result": ("Result",),
    "string": ("String", "ToString"),
    "vec": ("Vec",),
}
_PRELUDE_SINCE: dict[str, dict[str, tuple[str, ...]]] = {
    "2021": {"convert": ("TryFrom", "TryInto"), "iter": ("FromIterator",)},
    "2024": {"future": ("Future", "IntoFuture")},
}
_EDITIONS = ("2015", "2018", "2021", "2024")


def prelude_path(path: str, edition: str) -> bool:
    """Whether the `use` path `path` (`std::future::Future`) names an item the prelude of
    `edition` brings into every module anyway."""
    parts = [p.strip() for p in path.lstrip(":").split("::")]
    if len(parts) != 3 or parts[0] not in ("std", "core", "alloc"):
        return False
    module, name = parts[1], parts[2]
    brought = [*_PRELUDE.get(module, ())]
    for since, extra in _PRELUDE_SINCE.items():
        if edition in _EDITIONS and _EDITIONS.index(edition) >= _EDITIONS.index(since):
            brought += extra.get(module, ())
    return name in brought


def still_used_after(root: Path, path: str, text: bytes, finding: Finding) -> bool:
    """Whether a finding `delete_items` made still holds on `text`, the file as the whole plan
    leaves it. An `import-still-used` holds where the file still uses the name, unless the deleted
    path is of an item the crate edition's prelude brings anyway (the uses then name it through
    the prelude); other findings hold."""
    if finding.code != Code.IMPORT_STILL_USED or not finding.symbol:
        return True
    tree = parse(text, RUST)
    if (
        finding.target is not None
        and prelude_path(finding.target.name, crate_edition(root, path))
        and not any(e.binding == finding.symbol for e in use_entries(tree))
        and not any(
            leaf.name is None  # a glob (`a::*`, `a::{b, *}`)
            for declaration in use_declarations(tree)
            if (argument := declaration.child_by_field_name("argument")) is not None
            for leaf in flatten_use(argument, ())
        )
    ):
        return False  # (a glob import, or another of the name, would shadow the prelude)
    return name_uses(tree, {finding.symbol}, through_paths=False)[finding.symbol] > 0
