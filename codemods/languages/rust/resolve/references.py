"""References: the uses, in a file as the plan leaves it, of the items the plan deletes. Each
spelling of a deleted item's name is classified (occurrences.py) and resolved in every crate
and module the file is compiled as (lookup.py; a method call by its receiver's type,
receivers.py); the files of a large plan are resolved ahead in forked processes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import tree_sitter

from codemods.core.parallel import forked_queues
from codemods.languages.resolution import DEFINITE, POSSIBLE, Reference
from codemods.languages.rust.crates import Package, PathAttributeSearch
from codemods.languages.rust.items import DeletedItem
from codemods.languages.rust.resolve.lookup import PathLookup
from codemods.languages.rust.resolve.occurrences import Use, after_member_access, classify, local_macro_path
from codemods.languages.rust.resolve.receivers import FileTypes, ReceiverTypes
from codemods.languages.rust.resolve.scopes import ModuleScopes
from codemods.languages.rust.resolve.syntax import inline_modules, path_segments, root_of, visibility_of
from codemods.languages.rust.resolve.values import (
    TYPE,
    UNKNOWN,
    AssociatedItem,
    Def,
    DeletedRustItem,
    Mod,
    ModuleKey,
    ModuleScope,
    Outcome,
    Place,
    SourceFile,
    Spelling,
)
from codemods.parse import RUST, node_text, parse
from codemods.words import word_in, word_matches

# Fewer files than this that may use a deleted item are resolved in the plan's own process:
# forking costs more than resolving them.
PARALLEL_FILES = 64

# A file to resolve: its path and its text after the plan.
FileText = tuple[str, bytes]


@dataclass(frozen=True)
class _CheckedFile:
    """The file whose uses are being resolved (its text after the plan), the deleted items by
    identity ((file, start)), and the types the file declares."""

    file: SourceFile
    identities: dict[tuple[str, int], DeletedRustItem]
    types: FileTypes


class RustResolver:
    """Resolves uses of names in a tree's Rust files against a set of deleted items.

    Module scopes are read from the tree before the plan (where the deleted items still exist);
    uses and their local scopes from the text after it."""

    def __init__(
        self, root: Path, read_before: Callable[[str], bytes | None], path_attributes: PathAttributeSearch | None = None
    ) -> None:
        self.scopes = ModuleScopes(root, read_before, path_attributes)
        self.paths = PathLookup(self.scopes)
        self.receivers = ReceiverTypes(self.paths)
        self.crates = self.scopes.crates
        self._references: dict[tuple[str, bytes, tuple[DeletedRustItem, ...]], tuple[Reference, ...]] = {}
        self._ahead: dict[tuple[str, bytes], object] = {}

    def references_in_file(self, path: str, source: bytes, targets: list[DeletedRustItem]) -> list[Reference]:
        """Every use in `source` (the file at `path` after the plan) of a name of `targets`
        that resolves, or may resolve, to one of them. Resolved once per plan for each text: the
        import stage asks about the files it may edit, and the reference check again."""
        key = (path, source, tuple(targets))
        found = self._references.get(key)  # one lookup: the key hashes every target
        if found is None:
            found = self._references[key] = tuple(self._references_in_text(path, source, targets))
        return list(found)

    def resolve_files(
        self,
        files: list[FileText],
        targets: list[DeletedRustItem],
        processes: int,
        also: Callable[[str, bytes], object] | None = None,
    ) -> None:
        """Resolve the uses in each (path, text) of `files` ahead of `references_in_file`, spread
        over `processes` forked processes (their results are kept here), or here where the work
        is too small to be worth a fork (under PARALLEL_FILES files that may reach a target) or
        cannot be forked. `also(path, text)`, when given, runs in the same process right after a
        file's uses are resolved (its tree still at hand); its value, which must pickle, is kept
        for `ahead`."""
        key = tuple(targets)
        pending = [
            (path, source)
            for path, source in files
            if (path, source, key) not in self._references and any(self._may_reach(t, path) for t in targets)
        ]
        if len(pending) < PARALLEL_FILES or processes < 2:
            return
        # Each process takes the groups of its share, then what is left of the others'.
        groups: list[list[FileText]] = []
        queues: list[list[int]] = []
        for share in deal_groups(pending, self.crates.package_of, processes):
            queues.append(list(range(len(groups), len(groups) + len(share))))
            groups += share
        found = forked_queues(lambda index: self._resolve_share(groups[index], targets, also), queues)
        for group, results in zip(groups, found or ()):
            for (path, source), (references, extra) in zip(group, results):
                self._references[(path, source, key)] = references
                if also is not None:
                    self._ahead[(path, source)] = extra

    def ahead(self, path: str, source: bytes) -> object | None:
        """The value `resolve_files`' `also` gave for the file at `path` with text `source` in a
        forked process; None where it was not asked there."""
        return self._ahead.get((path, source))

    def _resolve_share(
        self, share: list[FileText], targets: list[DeletedRustItem], also: Callable[[str, bytes], object] | None
    ) -> list[tuple[tuple[Reference, ...], object]]:
        """The uses in each file of `share` (with `also`'s value), in a forked process. Once a file
        the plan leaves as it is has been resolved, its tree is let go, so that the next file's
        parse reuses its memory (keeping every tree of a workspace's files made each process fault
        in hundreds of MB afresh); the few that later lookups ask for again are parsed again."""
        found: list[tuple[tuple[Reference, ...], object]] = []
        for path, source in share:
            references = tuple(self.references_in_file(path, source, targets))
            found.append((references, also(path, source) if also is not None else None))
            self.scopes.release(path, source)
        return found

    def _references_in_text(self, path: str, source: bytes, targets: list[DeletedRustItem]) -> list[Reference]:
        by_name: dict[str, list[DeletedRustItem]] = {}
        for target in targets:
            if self._may_reach(target, path):
                by_name.setdefault(target.name, []).append(target)
        if not by_name:
            return []
        methods = {
            name
            for name, deleted in by_name.items()
            if all(t.owner is not None and t.kind in ("fn", "fn_signature") for t in deleted)
        }
        hits = [
            hit
            for hit in word_matches(source, by_name)
            if hit.group().decode() not in methods or after_member_access(source, hit.start())
        ]
        if not hits:
            return []  # not parsed: no spelling here can name what the plan deletes
        instances = self.crates.instances(path)
        tree = parse(source, RUST)
        checked = _CheckedFile(
            SourceFile(path, source, tree), {(t.path, t.start): t for t in targets}, FileTypes(tree.root_node)
        )
        found: dict[tuple[int, int], Reference] = {}
        # An inline module spells `mod` as a word: in a file that does not, no walk up for them.
        nested = word_in(source, ("mod",))
        for match in hits:
            name = match.group().decode()
            node = tree.root_node.descendant_for_byte_range(match.start(), match.end())
            if node is None:
                continue
            use = classify(node, match.start(), match.end(), name)
            if use is None:
                continue
            if not instances:
                if any(self._may_reach_orphan(path, t) for t in by_name[name]):
                    found[(match.start(), match.end())] = Reference(
                        path,
                        match.start(),
                        match.end(),
                        name,
                        POSSIBLE,
                        use.kind,
                        f"{path} is not in the module tree of any crate (no `mod` declaration reaches it)",
                    )
                continue
            spelling = Spelling(name, match.start(), match.end(), tuple(by_name[name]))
            for root, file_module in instances:
                key = (root, file_module + inline_modules(node)) if nested else (root, file_module)
                reference = self._resolve_use(checked, key, use, spelling)
                if reference is not None:
                    previous = found.get((match.start(), match.end()))
                    if previous is None or previous.certainty == POSSIBLE and reference.certainty == DEFINITE:
                        found[(match.start(), match.end())] = reference
        return sorted(found.values(), key=lambda r: r.start)

    def trait_declarations(self, path: str, trait: tree_sitter.Node) -> list[tuple[str, int]] | None:
        """(file, start) of the `trait` items of the tree that the trait path `trait` (a node of
        the file at `path` as read, in an impl header) resolves to; None when it resolves to
        nothing of the tree (a trait of another crate, or a path that does not resolve)."""
        segments = path_segments(trait)
        if not segments:
            return None
        found: list[tuple[str, int]] = []
        instances = self.crates.instances(path)
        for root, file_module in instances:
            key = (root, file_module + inline_modules(trait))
            for outcome in self.paths.resolve_segments(key, None, segments, TYPE):
                target = outcome.target
                if isinstance(target, Def) and target.kind == "trait_item" and (target.file, target.start) not in found:
                    found.append((target.file, target.start))
        if not instances and len(segments) == 1:
            # A file no crate reaches (no Cargo.toml): only its own traits are known.
            scope = self.scopes.scope((path, inline_modules(trait))) or ModuleScope({}, {}, [], {})
            found = [(d.file, d.start) for d in scope.items.get(segments[0], []) if d.kind == "trait_item"]
        return found or None

    def declares_deleted(
        self, path: str, module: tuple[str, ...], name: str, namespace: str, targets: list[DeletedRustItem]
    ) -> DeletedRustItem | None:
        """The deleted item of `targets` that `name` means in the inline module `module` of the
        file at `path`, as the tree was before the plan (None: it means none of them)."""
        identities = {(t.path, t.start): t for t in targets}
        for root, file_module in self.crates.instances(path):
            for outcome in self.paths.lookup((root, file_module + module), name, namespace):
                target = outcome.target.definition if isinstance(outcome.target, Mod) else outcome.target
                if isinstance(target, Def) and (target.file, target.start) in identities:
                    return identities[(target.file, target.start)]
        return None

    def declared_tree(self, path: str) -> tuple[bytes, tree_sitter.Tree] | None:
        """The file at `path` as read, with its syntax tree (shared with the resolver's lookups)."""
        return self.scopes.tree(path)

    def _may_reach(self, target: DeletedRustItem, path: str) -> bool:
        """Whether code in the file at `path` could see `target` at all (a cheap first cut,
        so that files that cannot refer to a private item are never parsed)."""
        if target.visibility in ("", "pub(self)"):
            return path in self.scopes.subtree_files(target.path, target.module)
        package, home = self.crates.package_of(path), self.crates.package_of(target.path)
        if package is home or target.visibility.startswith("pub("):
            return package is home
        return package is None or home is None or home.lib is None or self.crates.depends_on(package, home.lib)

    def _may_reach_orphan(self, path: str, target: DeletedRustItem) -> bool:
        package = self.crates.package_of(path)
        return package is not None and package is self.crates.package_of(target.path)

    def _resolve_use(self, checked: _CheckedFile, key: ModuleKey, use: Use, spelling: Spelling) -> Reference | None:
        """The reference the use `use` of `spelling` in module `key` makes to a deleted item, if any."""
        if use.kind == "method call":
            return self.receivers.method_call(key, checked.file, checked.types, use.receiver, spelling)
        place = Place(checked.file, use.scope_node) if use.scope_node is not None else None
        outcomes: list[Outcome] = []
        for namespace in use.namespaces:
            if len(use.segments) == 1 and place is not None:
                outcomes += self.paths.lexical(key, place, use.segments[0], namespace)
            else:
                start, segments = (
                    self.paths.import_start(key, use.segments) if use.kind == "import" else (key, use.segments)
                )
                outcomes += self.paths.resolve_segments(start, place, segments, namespace)
        path, name = checked.file.path, spelling.name
        for outcome in outcomes:
            target = outcome.target
            deleted = None
            certain = use.certain
            reason = use.reason
            if isinstance(target, Mod):
                target = target.definition
            if isinstance(target, Def):
                deleted = checked.identities.get((target.file, target.start))
            elif isinstance(target, AssociatedItem):
                owner_def, member = target.owner, target.name
                deleted = next((t for t in spelling.candidates if t.owner == owner_def.name and t.name == member), None)
                if deleted is not None and deleted.path != owner_def.file:
                    if deleted.owner_declared_here:
                        continue  # a namesake: the deleted impl is of the type declared beside it
                    # The type resolved here is declared in another file than the deleted impl:
                    # the impl may be of this type or of a namesake.
                    certain = False
                    reason = f"{owner_def.name} is declared in {owner_def.file}, the deleted impl is in {deleted.path}"
            if deleted is None:
                continue
            if (
                use.kind == "macro_rules body"
                and not certain
                and deleted.path == path
                and use.scope_node is not None
                and local_macro_path(use.scope_node)
            ):
                certain, reason = True, "inside a macro_rules! body of the file that declares it, not exported"
            via = "; ".join(outcome.via)
            where = (
                f"{deleted.owner}::{deleted.name} ({deleted.path}:{self.scopes.line(deleted.path, deleted.start)})"
                if deleted.owner
                else self.paths.describe(target)
                if isinstance(target, Def)
                else deleted.name
            )
            resolution = f"{via}; resolves to {where}" if via else f"resolves to {where}"
            certainty = DEFINITE if certain else POSSIBLE
            if reason:
                resolution = f"{reason}; {resolution}"
            return Reference(path, spelling.start, spelling.end, name, certainty, use.kind, resolution)
        unknown = next((o for o in outcomes if o.target == UNKNOWN), None)
        if unknown is not None:
            return Reference(
                path,
                spelling.start,
                spelling.end,
                name,
                POSSIBLE,
                use.kind,
                "; ".join((*unknown.via, "resolution stops there, so this may name the deleted item")),
            )
        return None


def deal_groups(
    pending: list[FileText], package_of: Callable[[str], Package | None], processes: int
) -> list[list[list[FileText]]]:
    """`pending` dealt to at most `processes` shares of about as many bytes each, as groups of
    files, largest first. A package's files are one group (its module tree is then resolved
    once), unless it holds more than half a share's bytes: then its folders are, each (split the
    same way, down to single files) holding at most half a share, so that the files of one
    module subtree still share the scopes of its `mod.rs` files. The groups are dealt largest
    first to the share with the fewest bytes so far."""
    by_package: dict[str, list[FileText]] = {}
    for path, source in pending:
        package = package_of(path)
        by_package.setdefault(package.dir if package is not None else "", []).append((path, source))
    half_share = sum(len(source) for _, source in pending) / processes / 2
    groups = [group for files in by_package.values() for group in _folder_groups(files, half_share)]
    shares: list[list[list[FileText]]] = [[] for _ in range(processes)]
    loads = [0] * processes
    for group in sorted(groups, key=lambda files: -_size(files)):
        least = loads.index(min(loads))
        shares[least].append(group)
        loads[least] += _size(group)
    return [share for share in shares if share]


def _folder_groups(files: list[FileText], most: float, depth: int = 0) -> list[list[FileText]]:
    """`files` (paths sharing their first `depth` folders) as one group if they hold at most `most`
    bytes, else split by their next folder (the files of the folder itself one group), each part
    split again the same way; a single file, however large, is a group of its own."""
    if _size(files) <= most or len(files) == 1:
        return [files]
    by_folder: dict[str, list[FileText]] = {}
    for path, source in files:
        parts = path.split("/")
        by_folder.setdefault(parts[depth] if depth < len(parts) - 1 else "", []).append((path, source))
    if len(by_folder) == 1 and "" not in by_folder:
        return _folder_groups(files, most, depth + 1)
    groups: list[list[FileText]] = []
    for folder, inside in by_folder.items():
        if not folder:
            groups += [inside] if _size(inside) <= most else [[file] for file in inside]
        else:
            groups += _folder_groups(inside, most, depth + 1)
    return groups


def _size(files: Iterable[FileText]) -> int:
    return sum(len(source) for _, source in files)


def deleted_rust_items(path: str, resolved: Iterable[DeletedItem]) -> list[DeletedRustItem]:
    """The resolver's view of what `delete_rust_items` deleted in the file at `path`:
    one entry per name code can use (a bridge entry's `rust_name` too)."""
    found: list[DeletedRustItem] = []
    for deleted in resolved:
        for item in deleted.items:
            if item.kind == "impl":
                continue
            container = item.node.parent.parent if item.node.parent is not None else None
            in_impl = container is not None and container.type in ("impl_item", "trait_item")
            owner = item.module_path[-1] if in_impl and item.module_path else None
            module = item.module_path[:-1] if owner else item.module_path
            # Bridge entries, trait methods and trait impl methods are as visible as their trait.
            public = (
                item.kind in ("bridge_fn", "bridge_type")
                or in_impl
                and container is not None
                and (container.type == "trait_item" or container.child_by_field_name("trait") is not None)
            )
            visibility = "pub" if public else visibility_of(item.node)
            declared_here = owner is not None and FileTypes(root_of(item.node)).declares(owner)
            left_impl = (
                in_impl
                and container is not None
                and container.type == "impl_item"
                and container.child_by_field_name("trait") is not None
                and deleted.target.kind not in ("impl", "struct", "enum", "union", "type", "mod")
            )
            trait_node = container.child_by_field_name("trait") if in_impl and container is not None else None
            trait = node_text(trait_node).split("<", 1)[0].split("::")[-1].strip() if trait_node is not None else ""
            for name in item.visible_names:
                found.append(
                    DeletedRustItem(
                        path,
                        module,
                        name,
                        item.kind,
                        item.node.start_byte,
                        owner,
                        visibility,
                        declared_here,
                        left_impl,
                        trait,
                        container is not None and container.type == "trait_item",
                    )
                )
    return found
