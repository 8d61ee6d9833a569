"""Rust's operations for the language registry (languages/registry.py): deleting items, rule scopes,
identifiers and parse errors of .rs files."""

from __future__ import annotations

import tree_sitter

from codemods.edit.codes import Code
from codemods.edit.values import Edit, Finding
from codemods.languages.registry import LANGUAGES, RUST
from codemods.parse import error_nodes, identifier_hits, parse
from codemods.languages.resolution import DEFINITE, Reference
from codemods.languages.scope import Scope, after_previous_sibling
from codemods.edit.item_spans import deletion_edits
from codemods.languages.rust.items import DELETABLE_KINDS as ITEM_KINDS
from codemods.languages.rust.items import RustTarget, delete_rust_items, rust_items
from codemods.languages.rust.members import MEMBER_KINDS, delete_members
from codemods.languages.rust.resolve import RustResolver, deleted_rust_items

# The kinds a recipe may delete: whole items, and members of items (the registry's item_kinds reads them here).
DELETABLE_KINDS = (*ITEM_KINDS, *MEMBER_KINDS)


# The kinds a recipe may delete (the registry reads them here): whole items, then parts of items.
DELETABLE_KINDS = (*ITEM_KINDS, *MEMBER_KINDS)


def parse_errors(source: bytes, tree: tree_sitter.Tree) -> list[tuple[int, int]]:
    return [(n.start_byte, n.end_byte) for n in error_nodes(tree)]


def identifiers(source: bytes, tree: tree_sitter.Tree, hits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    return identifier_hits(tree, hits, LANGUAGES[RUST].identifier_kinds)


def delete_items(path: str, source: bytes, targets: list, origin: str, absent, deleted) -> tuple[list[Edit], list[Finding]]:
    items = [RustTarget(t.kind, t.name) for t in targets if t.kind not in MEMBER_KINDS]
    found, resolved, findings = delete_rust_items(path, source, items, origin, absent)
    deleted.add(RUST, deleted_rust_items(path, resolved))
    members = [RustTarget(t.kind, t.name) for t in targets if t.kind in MEMBER_KINDS]
    reshaped: list[Edit] = []
    if members:
        more, reshaped, names, notes = delete_members(path, source, members, origin, absent)
        found += more
        findings += notes
        deleted.spelled += [n for n in names if n not in deleted.spelled]
    edits = deletion_edits(path, source, found) + reshaped
    if any(t.kind == "use" for t in members):
        findings += _imports_still_used(path, source, edits, [t.name for t in members if t.kind == "use"])
    return edits, findings


def _imports_still_used(path: str, source: bytes, edits: list[Edit], names: list[str]) -> list[Finding]:
    """A `use` entry the recipe deletes whose name the file still uses after its deletions."""
    from codemods.edit.splice import splice
    from codemods.edit.values import line_col
    from codemods.languages.rust.imports import name_uses

    bindings = {name: split for name in names if (split := name.rsplit("::", 1)[-1].strip()) not in ("self", "*")}
    if not bindings:
        return []
    after = parse(splice(source, sorted(edits, key=lambda e: (e.start, e.end))), RUST)
    counts = name_uses(after, set(bindings.values()))
    findings = []
    for name, binding in bindings.items():
        if counts[binding]:
            line, col = line_col(source, source.find(binding.encode()))
            findings.append(Finding(path, line, col, Code.IMPORT_STILL_USED,
                                    f"{name}: the file still uses {binding} ({counts[binding]} time(s)) after the "
                                    f"plan; delete or rewrite those uses too", symbol=binding))
    return findings


def item_scopes(source: bytes, tree: tree_sitter.Tree, name: str) -> list[Scope]:
    """The items `name` names, spelt as a deletion target names them (`crate::a::f`, `a::f`,
    `impl Tr for T`); a type's scope takes its impl blocks of the file too."""
    from codemods.languages.rust.items import _matches_name

    items = rust_items(source, tree)
    chosen = [i for i in items if _matches_name(i, name)]
    types = {(i.module_path, i.name) for i in chosen if i.kind in ("struct", "enum", "union", "trait")}
    chosen += [i for i in items if i.kind == "impl" and (i.module_path, i.name) in types and i not in chosen]
    return [Scope(name, item.start, item.end, after_previous_sibling(item.node), item.node) for item in chosen]


def references(path: str, text: bytes, deleted, shared: dict) -> tuple[list[Reference], list[str]]:
    """Uses in a Rust file of what the plan deletes: uses that resolve to a deleted Rust item, and
    cxx bridge (`extern "C++"`) declarations of a deleted foreign function; no name is matched by spelling alone.
    `shared` holds the plan's resolver (made on first use from its "root" and "read")."""
    found: list[Reference] = []
    if deleted.of(RUST):
        if RUST not in shared:
            shared[RUST] = RustResolver(shared["root"], shared["read"])
        found += shared[RUST].references_in_file(path, text, deleted.of(RUST))
    exported = {i.name for i in deleted.foreign(RUST)}
    if exported:
        found += [Reference(path, start, start, name, DEFINITE, "cxx bridge declaration",
                            f"extern \"C++\" declaration of the C++ function {name}")
                  for start, name in _bridge_declarations(text, exported)]
    return found, []


def _bridge_declarations(source: bytes, names: set[str]) -> list[tuple[int, str]]:
    """(start, name) of cxx bridge declarations of the C++ functions `names` in a Rust file."""
    if not any(n.encode() in source for n in names):
        return []
    return [(item.node.start_byte, item.name) for item in rust_items(source, parse(source, RUST))
            if item.kind == "bridge_fn" and item.name in names and _extern_cpp(item.node)]


def _extern_cpp(node: tree_sitter.Node) -> bool:
    current = node.parent
    while current is not None and current.type != "foreign_mod_item":
        current = current.parent
    return current is not None and b'"C++"' in current.text[:40]


def format_item(text: str, indent: str, root, path: str) -> str | None:
    """`text` formatted by rustfmt at `indent`, with the edition of the crate holding `path`."""
    from codemods.languages.rust.format import crate_edition
    from codemods.languages.rust.format import format_item as rustfmt_item

    return rustfmt_item(text, indent, root, crate_edition(root, path))


def imports_left_unused(path: str, source: bytes, planned: list[Edit], deleted, shared: dict,
                        origin: str) -> list[Edit]:
    """Edits removing the `use` entries of a Rust file that the plan leaves naming a deleted item
    or used by nothing (see rust/imports.py). `shared` holds the plan's "root", "read" and
    "planned" (a path's planned edits)."""
    from codemods.languages.rust.imports import removal_edits

    if not planned and not _imports_a_name(source, deleted.all_names()):
        return []  # a file the plan does not edit changes only where a `use` names what it deletes
    return removal_edits(path, source, _entries_left_unused(path, shared, deleted), origin)


def _imports_a_name(source: bytes, names: list[str]) -> bool:
    """Whether a `use` declaration of `source` may name one of `names` (a lexical test, no parse:
    a file that only calls them, however large, is left to the reference check)."""
    if not names:
        return False
    import re

    words = b"|".join(re.escape(n.encode()) for n in names)
    return re.search(rb"\buse\b[^;]*?\b(?:" + words + rb")\b", source) is not None


def _entries_left_unused(path: str, shared: dict, deleted) -> list:
    """The `use` entries of `path` to remove, computed once per plan (a re-export's removal asks
    about the files that use its name)."""
    from codemods.languages.rust.imports import name_uses, unused_entries, use_entries
    from codemods.edit.splice import splice
    from codemods.search.files import files_with_words

    memo = shared.setdefault("rust-unused-imports", {})
    if path in memo:
        return memo[path] or []
    memo[path] = None  # in progress: a re-export cycle keeps its entries
    source = shared["read"](path)
    planned = list(shared["planned"](path))
    if source is None or any(e.start == 0 and e.end == len(source) and not e.replacement for e in planned):
        memo[path] = []
        return []
    dangling: set[int] = set()
    if deleted.of(RUST) and _imports_a_name(source, [i.name for i in deleted.of(RUST)]):
        if RUST not in shared:
            shared[RUST] = RustResolver(shared["root"], shared["read"])
        dangling = {r.start for r in shared[RUST].references_in_file(path, source, deleted.of(RUST))
                    if r.certainty == DEFINITE}

    def reexport_unused(name: str) -> bool:
        for other in files_with_words(shared["root"], [name]):
            if other == path or not other.endswith(".rs"):
                continue
            text = shared["read"](other)
            edits = list(shared["planned"](other))
            if text is None or any(e.start == 0 and e.end == len(text) and not e.replacement for e in edits):
                continue
            if any(i.kind != "impl" and i.name == name for i in rust_items(text, parse(text, RUST))):
                continue  # the file declares its own item of that name: its uses are of that one
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
    memo[path] = unused_entries(source, planned, dangling, reexport_unused)
    return memo[path]


def files_deleted_with(deleted, read, origin: str, root=None, targets=()) -> tuple[list[Edit], list[Finding], list]:
    """What goes with the plan's deletions in other files: the files of the out-of-line
    modules (`mod foo;`) it deletes (`foo.rs` or `foo/mod.rs` beside the declaring file, or
    its `#[path]`, with their own modules' files), the methods of other files' impls of a
    trait whose method declaration it deletes, and the match arms of other files that name
    only a variant it deletes (`targets`: the recipe's Rust targets). Returns the edits,
    findings and the items deleted with them (for the reference check)."""
    from codemods.languages.rust.modules import module_files

    edits: list[Edit] = []
    findings: list[Finding] = []
    items: list = []
    seen: set[str] = set()
    for module in [i for i in deleted.of(RUST) if i.kind == "mod"]:
        for path, source, resolved in module_files(module.path, module.module, module.start, read, origin):
            if path in seen:
                continue
            seen.add(path)
            edits.append(Edit(path, 0, len(source), b"", f"{origin}:mod-file", delete_file=True))
            items += deleted_rust_items(path, resolved)
    if root is not None:
        more, gone = _trait_method_impls(deleted, read, root, seen, origin)
        edits += more
        items += gone
        edits += _variant_arms_elsewhere(targets, read, root, seen, origin)
        findings += _field_uses_elsewhere(targets, read, root)
    return edits, findings, items


def _field_uses_elsewhere(targets, read, root) -> list[Finding]:
    """Uses of a deleted field in the files other than its struct's (whose own are refused when
    the field is looked up)."""
    from codemods.languages.rust.items import split_path
    from codemods.languages.rust.members import field_uses_elsewhere
    from codemods.search.files import files_with_words

    findings: list[Finding] = []
    for target in targets:
        parts = split_path(target.name)
        if target.kind != "field" or len(parts) < 2:
            continue
        for path in files_with_words(root, [parts[-1]]):
            source = read(path) if path != target.path and path.endswith(".rs") else None
            if source is not None:
                findings += field_uses_elsewhere(source, path, parts[-2], parts[-1])
    return findings


def _variant_arms_elsewhere(targets, read, root, skipped: set[str], origin: str) -> list[Edit]:
    """The match arms (and `A | B` alternatives) naming only a deleted variant, in the files
    other than the enum's (its own file's go with the variant)."""
    from codemods.languages.rust.items import split_path
    from codemods.languages.rust.members import variant_uses
    from codemods.search.files import files_with_words

    variants = [(t.path, *split_path(t.name)[-2:]) for t in targets
                if t.kind == "variant" and len(split_path(t.name)) >= 2]
    edits: list[Edit] = []
    for home, enum, variant in variants:
        for path in files_with_words(root, [variant]):
            if path == home or path in skipped or not path.endswith(".rs"):
                continue
            source = read(path)
            if source is None:
                continue
            deletions, reshaped = variant_uses(source, path, parse(source, RUST), enum, variant,
                                               f"{origin}:variant:{enum}::{variant}")
            edits += deletion_edits(path, source, deletions) + reshaped
    return edits


def _trait_method_impls(deleted, read, root, skipped: set[str], origin: str) -> tuple[list[Edit], list]:
    """The methods, in other files than the trait's, of impls of a trait whose method
    declaration the plan deletes (`impl Float for f32 { fn is_sign_negative .. }`)."""
    from codemods.edit.item_spans import Deletion, whole_lines
    from codemods.languages.rust.items import DeletedItem, _without_arguments
    from codemods.search.files import files_with_words

    declared: dict[tuple[str, str], str] = {}  # (trait, method) -> the trait's file
    for item in deleted.of(RUST):
        if item.owner is None or item.kind not in ("fn", "fn_signature"):
            continue
        source = read(item.path)
        node = parse(source, RUST).root_node.descendant_for_byte_range(item.start, item.start) if source else None
        while node is not None and node.type not in ("trait_item", "impl_item"):
            node = node.parent
        if node is not None and node.type == "trait_item":
            declared[(item.owner, item.name)] = item.path
    if not declared:
        return [], []
    already = {(i.path, i.start) for i in deleted.of(RUST)}
    edits: list[Edit] = []
    gone: list = []
    for path in files_with_words(root, sorted({method for _, method in declared})):
        if path in skipped or not path.endswith(".rs"):
            continue
        source = read(path)
        if source is None:
            continue
        chosen = [i for i in rust_items(source, parse(source, RUST))
                  if i.impl_header is not None and i.impl_header[1] is not None and i.kind != "impl"
                  and (_without_arguments(i.impl_header[1]).split("::")[-1], i.name) in declared
                  and (path, i.node.start_byte) not in already]
        if not chosen:
            continue
        deletions = [Deletion(*whole_lines(source, i.start, i.end, (b"//",)), f"{origin}:trait-method-impl")
                     for i in chosen]
        edits += deletion_edits(path, source, deletions)
        gone += deleted_rust_items(path, [DeletedItem(RustTarget("fn", i.name), (i,), ()) for i in chosen])
    return edits, gone


def format_file(source: bytes, root, path: str) -> bytes | None:
    """The whole file formatted by rustfmt (the crate's edition, the tree's rustfmt.toml); None
    when rustfmt is not installed or rejects the file."""
    import shutil

    from codemods.languages.rust.format import _rustfmt, crate_edition

    rustfmt = shutil.which("rustfmt")
    if rustfmt is None:
        return None
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError:
        return None
    formatted = _rustfmt(rustfmt, text, root, crate_edition(root, path))
    return formatted.encode("utf-8") if formatted is not None else None
