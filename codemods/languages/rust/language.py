"""Rust's operations for the language registry (core/registry.py): deleting items, rule scopes,
identifiers and parse errors of .rs files."""

from __future__ import annotations

from pathlib import Path

import tree_sitter

from codemods.edit.codes import Code
from codemods.edit.values import Edit, Finding
from codemods.core.registry import LANGUAGES, RUST, LanguageOperations, PlanState
from codemods.parse import enclosing, error_nodes, identifier_hits, parse
from codemods.languages.resolution import DEFINITE, Reference
from codemods.languages.scope import Scope, after_previous_sibling
from codemods.edit.item_spans import deletion_edits
from codemods.languages.rust.items import DELETABLE_KINDS as ITEM_KINDS
from codemods.languages.rust.items import RustTarget, delete_rust_items, rust_items, split_path
from codemods.languages.rust.members import FIELDS, MEMBER_KINDS, DeletedField, delete_members, field_references
from codemods.languages.rust.resolve import RustResolver, deleted_rust_items

# The kinds a recipe may delete (the registry reads them here): whole items, then parts of items.
DELETABLE_KINDS = (*ITEM_KINDS, *MEMBER_KINDS)


def parse_errors(source: bytes, tree: tree_sitter.Tree) -> list[tuple[int, int]]:
    return [(n.start_byte, n.end_byte) for n in error_nodes(tree)]


def identifiers(source: bytes, tree: tree_sitter.Tree, hits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    return identifier_hits(tree, hits, LANGUAGES[RUST].identifier_kinds)


def delete_items(path: str, source: bytes, targets: list, origin: str, absent, deleted) -> tuple[list[Edit], list[Finding]]:
    targets = [_file_relative(path, source, t) for t in targets]
    items = [RustTarget(t.kind, t.name) for t in targets if t.kind not in MEMBER_KINDS]
    found, resolved, findings = delete_rust_items(path, source, items, origin, absent)
    deleted.add(RUST, deleted_rust_items(path, resolved))
    members = [RustTarget(t.kind, t.name) for t in targets if t.kind in MEMBER_KINDS]
    reshaped: list[Edit] = []
    if members:
        more, reshaped, names, notes = delete_members(path, source, members, origin, absent)
        deleted.add(FIELDS, [DeletedField(path, *split_path(t.name)[-2:]) for t in members if t.kind == "field"
                             and any(d.origin == f"{origin}:field:{t.name}" for d in more)])
        found += more
        findings += notes
        deleted.spelled += [n for n in names if n not in deleted.spelled]
    edits = deletion_edits(path, source, found) + reshaped
    if any(t.kind == "use" for t in members):
        findings += _imports_still_used(path, source, edits, [t.name for t in members if t.kind == "use"])
    return edits, findings


def _file_module(path: str) -> tuple[str, ...] | None:
    """The module path of a file of a crate's `src/` as its location spells it (`src/a/mod.rs`
    and `src/a.rs`: `a`; `src/lib.rs`: none); None outside `src/` or under `src/bin/`."""
    parts = path.split("/")
    if "src" not in parts:
        return None
    inner = parts[len(parts) - parts[::-1].index("src"):]
    if not inner or inner[0] == "bin" and len(inner) > 1:
        return None
    *folders, name = inner
    stem = name[:-3] if name.endswith(".rs") else name
    return tuple(folders) if stem in ("mod", "lib", "main") and (stem == "mod" or not folders) else (*folders, stem)


def _file_relative(path: str, source: bytes, target):
    """The target with a name anchored at the crate root (`crate::a::b::item` in `src/a/b.rs`)
    spelt from the file's top level (`crate::item`), which is how the file's items are named;
    kept as written where the file's own top level has an item of the path's first module name."""
    from dataclasses import replace

    parts = split_path(target.name)
    module = _file_module(path)
    if not module or len(parts) <= len(module) + 1 or parts[0] != "crate" or parts[1:len(module) + 1] != module:
        return target
    if any(not i.module_path and i.name == module[0] for i in rust_items(source, parse(source, RUST))):
        return target
    return replace(target, name="::".join(("crate", *parts[len(module) + 1:])))


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
    `impl Tr for T`, `<T>#2` for the second impl block of that header); a type's scope takes
    its impl blocks of the file too."""
    from codemods.languages.rust.items import _matches_name, numbered_name

    items = rust_items(source, tree)
    wanted, ordinal = numbered_name(name)
    chosen = [i for i in items if _matches_name(i, wanted)]
    if ordinal is not None:
        chosen = [i for i in chosen if i.kind == "impl"][ordinal - 1:ordinal]
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


# The memo under which `start_searches` keeps the search of the tree's `#[path]` attributes.
_PATH_ATTRIBUTES = "rust-path-attributes"


def _resolver(shared: PlanState) -> RustResolver:
    """The plan's Rust resolver, made on first use (with the `#[path]` search the plan started)."""
    return shared.memo(RUST, lambda: RustResolver(shared.root, shared.read,
                                                  shared.memo(_PATH_ATTRIBUTES, lambda: None)))


def start_searches(state: PlanState, paths: list[str]) -> None:
    """As a plan that deletes in the Rust files `paths` starts: rg looks for the `#[path]`
    attributes of their packages, which resolving their modules asks for (crates.PathAttributeSearch)."""
    import shutil

    from codemods.languages.rust.crates import PathAttributeSearch, package_folder

    if shutil.which("rg") is not None and paths:
        root = Path(state.root)
        found = {package_folder(root, path) for path in paths}
        # A folder inside another is searched with it (rg would give its files twice).
        folders = [f for f in sorted(found) if not any(o != f and (not o or f.startswith(o + "/")) for o in found)]
        state.memo(_PATH_ATTRIBUTES, lambda: PathAttributeSearch(root, folders))


def references(path: str, text: bytes, deleted, shared: PlanState) -> tuple[list[Reference], list[str]]:
    """Uses in a Rust file of what the plan deletes: uses that resolve to a deleted Rust item, and
    cxx bridge (`extern "C++"`) declarations of a deleted foreign function; no name is matched by spelling alone.
    `shared` keeps the plan's resolver (made on first use from its root and reads)."""
    found: list[Reference] = []
    if deleted.of(RUST):
        resolver = _resolver(shared)
        found += resolver.references_in_file(path, text, deleted.of(RUST))
        found += _rust_bridge_entries(path, text, deleted.of(RUST), resolver)
    if deleted.of(FIELDS):
        found += field_references(path, text, deleted.of(FIELDS))
    foreign = deleted.foreign(RUST)
    functions = {i.name for i in foreign if getattr(i, "kind", None) not in _CPP_TYPE_KINDS}
    if functions:
        found += [Reference(path, start, start, name, DEFINITE, "cxx bridge declaration",
                            f"extern \"C++\" declaration of the C++ function {name}")
                  for start, name in _bridge_declarations(text, functions, "bridge_fn")]
    types = {i.name: i for i in foreign if getattr(i, "kind", None) in _CPP_TYPE_KINDS}
    if types:
        found += [Reference(path, start, start, name, DEFINITE, "cxx bridge type",
                            f"extern \"C++\" `type {name};` declares the C++ type {name} ({types[name].path}); "
                            f"delete it with kind bridge_type")
                  for start, name in _bridge_declarations(text, set(types), "bridge_type",
                                                          {n: tuple(i.visible_namespace) for n, i in types.items()})]
    return found, []


def resolve_ahead(files: list[tuple[str, bytes]], deleted, shared: PlanState) -> None:
    """Resolve the uses of what the plan deletes in `files` ((path, text as read)) all at once,
    spread over processes (codemods/core/parallel.py), so that the import stage and `references`
    find them resolved."""
    from codemods.core.parallel import jobs

    if deleted.of(RUST):
        _resolver(shared).resolve_files(files, deleted.of(RUST), jobs())


def _rust_bridge_entries(path: str, text: bytes, targets: list, resolver: RustResolver) -> list[Reference]:
    """The `extern "Rust"` entries of a cxx bridge (`type Ledger;`, `fn settle();`) that export a
    deleted Rust item: cxx names it in the bridge module's parent module."""
    names = {t.name for t in targets if t.kind in ("struct", "enum", "union", "type_alias", "fn")}
    if not names or b'extern "Rust"' not in text:
        return []
    found = []
    for item in rust_items(text, parse(text, RUST)):
        if item.kind not in ("bridge_type", "bridge_fn") or item.name not in names or _extern_cpp(item.node):
            continue
        namespace = "type" if item.kind == "bridge_type" else "value"
        exported = resolver.declares_deleted(path, item.module_path[:-1], item.name, namespace, targets)
        if exported is not None:
            found.append(Reference(path, item.node.start_byte, item.node.start_byte, item.name, DEFINITE,
                                   "cxx bridge export", f"extern \"Rust\" entry exporting {item.name} "
                                   f"({exported.path}); delete it with kind {item.kind}"))
    return found


# The C++ item kinds a cxx bridge declares with `type X;` (the others are functions).
_CPP_TYPE_KINDS = frozenset({"class", "struct", "union", "enum", "type"})


def _bridge_declarations(source: bytes, names: set[str], kind: str,
                         namespaces: dict[str, tuple[str, ...]] | None = None) -> list[tuple[int, str]]:
    """(start, name) of cxx bridge declarations (`kind`: bridge_fn or bridge_type) in the extern
    "C++" blocks of a Rust file of the C++ items `names`; where `namespaces` gives a C++ item's
    namespace and the bridge names one (`#[namespace = "..."]`, `#[cxx::bridge(namespace = ...)]`),
    they must agree."""
    if not any(n.encode() in source for n in names):
        return []
    found = []
    for item in rust_items(source, parse(source, RUST)):
        if item.kind != kind or item.name not in names or not _extern_cpp(item.node):
            continue
        declared = _cxx_namespace(source, item)
        if namespaces is not None and declared is not None and declared != namespaces.get(item.name, declared):
            continue
        found.append((item.node.start_byte, item.name))
    return found


def _cxx_namespace(source: bytes, item) -> tuple[str, ...] | None:
    """The C++ namespace a cxx bridge entry names (its own `#[namespace = "a::b"]`, else its extern
    block's, else its bridge module's `#[cxx::bridge(namespace = "a::b")]`); None where none is given."""
    import re

    from codemods.languages.rust.items import leading_trivia

    node = item.node
    while node is not None:
        if node.type in ("associated_type", "type_item", "function_signature_item", "foreign_mod_item", "mod_item"):
            start, _ = leading_trivia(source, node)
            said = re.search(rb'namespace\s*=\s*"([^"]*)"', source[start:node.start_byte])
            if said is not None:
                text = said.group(1).decode("utf-8", "replace")
                return tuple(p for p in text.split("::") if p)
        node = node.parent
    return None


def _extern_cpp(node: tree_sitter.Node) -> bool:
    current = node.parent
    while current is not None and current.type != "foreign_mod_item":
        current = current.parent
    return current is not None and b'"C++"' in current.text[:40]


def parse_errors_deletable(root, path: str) -> bool:
    """Whether a parse error lying wholly inside an item the plan deletes from `path` may go with
    it: in an edition 2015 crate (Cargo.toml without `edition`), whose valid code (`try!(...)`,
    `async` or `dyn` as names) the grammar, written for later editions, reads as errors."""
    from codemods.languages.rust.format import crate_edition

    return crate_edition(root, path) == "2015"


def format_item(text: str, indent: str, root, path: str) -> str | None:
    """`text` formatted by rustfmt at `indent`, with the edition of the crate holding `path`."""
    from codemods.languages.rust.format import crate_edition
    from codemods.languages.rust.format import format_item as rustfmt_item

    return rustfmt_item(text, indent, root, crate_edition(root, path))


def imports_left_unused(path: str, source: bytes, planned: list[Edit], deleted, shared: PlanState,
                        origin: str) -> list[Edit]:
    """Edits removing the `use` entries of a Rust file that the plan leaves naming a deleted item
    or used by nothing (see rust/imports.py), with the plan's root, reads and planned edits
    (`shared`)."""
    from codemods.languages.rust.imports import removal_edits

    if not planned and not _imports_a_name(source, deleted.all_names()):
        return []  # a file the plan does not edit changes only where a `use` names what it deletes
    return removal_edits(path, source, _entries_left_unused(path, shared, deleted), origin)


def _imports_a_name(source: bytes, names: list[str]) -> bool:
    """Whether a `use` declaration of `source` may name one of `names` (a lexical test, no parse:
    a file that only calls them, however large, is left to the reference check)."""
    if not names:
        return False
    from codemods.words import keyword_offsets, word_in

    covered = 0
    # From each `use` to the next `;` (where a declaration ends), each stretch searched once: a
    # `use` in prose before the same `;` adds no text.
    for start in keyword_offsets(source, b"use"):
        if start < covered:
            continue
        end = source.find(b";", start + 3)
        covered = len(source) if end < 0 else end
        if word_in(source, names, start + 3, covered):
            return True
    return False


def _entries_left_unused(path: str, shared: PlanState, deleted) -> list:
    """The `use` entries of `path` to remove, computed once per plan (a re-export's removal asks
    about the files that use its name)."""
    from codemods.languages.rust.format import crate_edition
    from codemods.languages.rust.imports import name_uses, unused_entries, use_entries
    from codemods.edit.splice import splice
    from codemods.search.files import files_with_words

    memo: dict = shared.memo("rust-unused-imports", dict)
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
        dangling = {r.start for r in _resolver(shared).references_in_file(path, source, deleted.of(RUST))
                    if r.certainty == DEFINITE}

    def reexport_unused(name: str) -> bool:
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
    memo[path] = unused_entries(source, planned, dangling, reexport_unused)
    return memo[path]


def _imports_from_another_crate(source: bytes, name: str, edition: str) -> bool:
    """Whether every `use` of the file binding `name` takes it from another crate (its path starts
    with a name the file neither declares nor imports, `std::time::Duration`; edition 2018 on,
    where such a path is another crate's) and no path of the file reaches `name` through
    `crate::`, `self::` or `super::`: the file's uses of `name` are then of the other crate's item."""
    import re

    from codemods.languages.rust.imports import use_entries

    if edition == "2015":
        return False
    tree = parse(source, RUST)
    entries = use_entries(tree)
    local = {i.name for i in rust_items(source, tree) if not i.module_path} | {e.binding for e in entries}
    binding = [e for e in entries if e.binding == name]
    roots = {e.declaration.child_by_field_name("argument").text.decode("utf-8", "replace").lstrip(":").split("::")[0].strip()
             for e in binding}
    if not binding or roots & (local | {"crate", "self", "super"}):
        return False
    return re.search(rb"\b(?:crate|self|super)\s*::[\w\s:]*?\b" + re.escape(name.encode()) + rb"\b", source) is None


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
        findings += _methods_traits_require(deleted.of(RUST) + items, read, root)
    return edits, findings, items


def _methods_traits_require(deleted: list, read, root) -> list[Finding]:
    """A method the plan takes out of a trait impl it keeps, where the trait (resolved through
    the tree, wherever it is defined) declares it without a default body: the impl would no
    longer compile. Where the trait is not defined in the tree, its items are not known: the
    deletion is refused only when it leaves the impl empty."""
    from codemods.edit.values import line_col

    taken = [i for i in deleted if i.left_impl and i.kind in ("fn", "test")]
    if not taken:
        return []
    resolver = RustResolver(root, read)
    gone = {(i.path, i.start) for i in deleted}
    findings: list[Finding] = []
    for item in taken:
        parsed = resolver.declared_tree(item.path)
        node = enclosing(parsed[1].root_node, item.start, ("impl_item",)) if parsed else None
        trait = node.child_by_field_name("trait") if node is not None else None
        if trait is None:
            continue
        spelled = " ".join(trait.text.decode("utf-8", "replace").split())
        owner = " ".join(node.child_by_field_name("type").text.decode("utf-8", "replace").split())
        declarations = resolver.trait_declarations(item.path, trait)
        line, col = line_col(parsed[0], item.start)
        if declarations is None:
            body = node.child_by_field_name("body")
            kept = [c for c in body.named_children if c.type in ("function_item", "const_item", "type_item")
                    and (item.path, c.start_byte) not in gone] if body is not None else []
            if not kept:
                findings.append(Finding(item.path, line, col, Code.REQUIRED_METHOD,
                                        f"<{owner} as {spelled}>::{item.name}: the impl would be left empty, and "
                                        f"{spelled} is not defined in the tree (whether it requires {item.name} is "
                                        f"not known); delete the impl (kind impl) instead", symbol=item.name))
            continue
        for file, start in declarations:
            required = _required_methods(resolver, file, start)
            if item.name in required and (file, required[item.name]) not in gone:
                trait_line = line_col(resolver.declared_tree(file)[0], start)[0]
                findings.append(Finding(item.path, line, col, Code.REQUIRED_METHOD,
                                        f"<{owner} as {spelled}>::{item.name}: trait {spelled} ({file}:{trait_line}) "
                                        f"declares {item.name} without a default, so the impl would no longer compile; delete "
                                        f"the declaration (kind trait_method) or the impl (kind impl) instead",
                                        symbol=item.name))
                break
    return findings


def _required_methods(resolver: RustResolver, file: str, start: int) -> dict[str, int]:
    """The methods the trait item at `start` of `file` declares without a default body, with
    the start of each declaration."""
    parsed = resolver.declared_tree(file)
    node = enclosing(parsed[1].root_node, start, ("trait_item",)) if parsed else None
    body = node.child_by_field_name("body") if node is not None else None
    return {c.child_by_field_name("name").text.decode("utf-8", "replace"): c.start_byte
            for c in (body.named_children if body is not None else []) if c.type == "function_signature_item"}


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
        node = enclosing(parse(source, RUST).root_node, item.start, ("trait_item", "impl_item")) if source else None
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


def format_excerpt(before: bytes, edits: list[tuple[int, int, bytes]], after: bytes) -> bytes | None:
    """The items around the edits in their blocks, for rustfmt to judge the edited file by (see excerpt.py)."""
    from codemods.languages.rust.excerpt import excerpt

    return excerpt(before, edits, after)


def prepare_formatting(root) -> None:
    """Ask rustup once, ahead, which rustfmt binary the tree's toolchain runs (see
    format._toolchain_rustfmt): the first formatting then starts it directly."""
    import os
    import shutil

    from codemods.languages.rust.format import _pinned_toolchain_missing, _toolchain_rustfmt

    rustfmt = shutil.which("rustfmt")
    if rustfmt is not None:
        toolchain = "stable" if _pinned_toolchain_missing(root) else os.environ.get("RUSTUP_TOOLCHAIN")
        _toolchain_rustfmt(rustfmt, root, toolchain, os.environ.get("RUSTUP_HOME"))


OPERATIONS = LanguageOperations(
    parse_errors=parse_errors,
    identifiers=identifiers,
    delete_items=delete_items,
    item_scopes=item_scopes,
    named_items=named_items,
    references=references,
    format_item=format_item,
    format_file=format_file,
    parse_errors_deletable=parse_errors_deletable,
    imports_left_unused=imports_left_unused,
    files_deleted_with=files_deleted_with,
    resolve_ahead=resolve_ahead,
    prepare_formatting=prepare_formatting,
    format_excerpt=format_excerpt,
    start_searches=start_searches,
    deletable_kinds=DELETABLE_KINDS,
)
