"""Deleting a recipe's Rust targets from one file: its items (rust/items.py) and the parts of
items (rust/members.py), each named as the file's items are (a name anchored at the crate root
is spelt from the file's top level), recording what goes for the reference check; a `use` entry
it deletes whose name the file still uses is a finding."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from codemods.core.registry import RUST, Deletions
from codemods.edit.item_spans import deletion_edits
from codemods.edit.values import Edit, ItemTarget
from codemods.languages.rust.items import RustTarget, delete_rust_items, rust_items, split_path
from codemods.languages.rust.member_references import FIELDS, VARIANTS, DeletedField, DeletedVariant
from codemods.languages.rust.members import MEMBER_KINDS, delete_members
from codemods.languages.rust.resolve import deleted_rust_items
from codemods.languages.rust.unused_imports import imports_still_used
from codemods.parse import parse


def delete_items(
    path: str, source: bytes, targets: list[ItemTarget], origin: str, absent: Callable[[], bool] | None, deleted: Any
) -> Deletions:
    """The edits deleting `targets` (items and members) from the file at `path`, and the findings;
    what goes is added to `deleted` (the resolver's view of it, deleted fields, spelt names)."""
    given = targets
    targets = [_file_relative(path, source, t) for t in targets]
    items = [RustTarget(t.kind, t.name) for t in targets if t.kind not in MEMBER_KINDS]
    rust = delete_rust_items(path, source, items, origin, absent)
    found, findings = rust.taken, rust.findings
    deleted.add(RUST, deleted_rust_items(path, rust.gone))
    members = [RustTarget(t.kind, t.name) for t in targets if t.kind in MEMBER_KINDS]
    reshaped: list[Edit] = []
    if members:
        taken = delete_members(path, source, members, origin, absent)
        deleted.add(
            FIELDS,
            [
                DeletedField(path, *split_path(t.name)[-2:])
                for t in members
                if t.kind == "field" and any(d.origin == f"{origin}:field:{t.name}" for d in taken.deletions)
            ],
        )
        deleted.add(
            VARIANTS,
            [
                DeletedVariant(path, *split_path(t.name)[-2:])
                for t in members
                if t.kind == "variant" and any(d.origin == f"{origin}:variant:{t.name}" for d in taken.deletions)
            ],
        )
        found += taken.deletions
        reshaped = taken.reshaped
        findings += taken.findings
        deleted.spelled += [n for n in taken.names if n not in deleted.spelled]
    edits = deletion_edits(path, source, found) + reshaped
    uses = [t for t in given if t.kind == "use"]
    if uses:
        findings += imports_still_used(path, source, edits, uses)
    return Deletions(tuple(edits), tuple(findings))


def _file_module(path: str) -> tuple[str, ...] | None:
    """The module path of a file of a crate's `src/` as its location spells it (`src/a/mod.rs`
    and `src/a.rs`: `a`; `src/lib.rs`: none); None outside `src/` or under `src/bin/`."""
    parts = path.split("/")
    if "src" not in parts:
        return None
    inner = parts[len(parts) - parts[::-1].index("src") :]
    if not inner or inner[0] == "bin" and len(inner) > 1:
        return None
    *folders, name = inner
    stem = name[:-3] if name.endswith(".rs") else name
    return tuple(folders) if stem in ("mod", "lib", "main") and (stem == "mod" or not folders) else (*folders, stem)


def _file_relative(path: str, source: bytes, target: ItemTarget) -> ItemTarget:
    """The target with a name anchored at the crate root (`crate::a::b::item` in `src/a/b.rs`)
    spelt from the file's top level (`crate::item`), which is how the file's items are named;
    kept as written where the file's own top level has an item of the path's first module name."""
    parts = split_path(target.name)
    module = _file_module(path)
    if not module or len(parts) <= len(module) + 1 or parts[0] != "crate" or parts[1 : len(module) + 1] != module:
        return target
    if any(not i.module_path and i.name == module[0] for i in rust_items(source, parse(source, RUST))):
        return target
    return replace(target, name="::".join(("crate", *parts[len(module) + 1 :])))
