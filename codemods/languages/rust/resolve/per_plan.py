"""The plan's one Rust resolver, kept in its PlanState (made on first use), and the work started
for it ahead: the rg search of the `#[path]` attributes of the packages a plan edits, and the
resolution of many files at once, spread over processes."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, cast

from codemods.core.parallel import jobs
from codemods.core.registry import RUST, PlanState, References
from codemods.languages.rust.crates import PathAttributeSearch, package_folder
from codemods.edit.splice import conflicts, splice
from codemods.edit.values import Edit
from codemods.languages.rust.resolve.references import RustResolver
from codemods.languages.rust.resolve.values import DeletedRustItem
from codemods.parse import descendants, node_text, parse

# The memo under which `start_searches` keeps the search of the tree's `#[path]` attributes.
_PATH_ATTRIBUTES = "rust-path-attributes"


def plan_resolver(shared: PlanState) -> RustResolver:
    """The plan's Rust resolver, made on first use (with the `#[path]` search the plan started)."""
    return shared.memo(
        RUST, lambda: RustResolver(shared.root, shared.read, shared.memo(_PATH_ATTRIBUTES, lambda: None))
    )


def live_targets(deleted: Any, shared: PlanState) -> list[DeletedRustItem]:
    """The deleted Rust items whose uses are to be found: all of them, but the methods of a deleted
    trait impl whose type, as the plan leaves its file, derives that trait (`impl Default for
    Options` replaced by `#[derive(Default)]`: `Options::default()` is the derived one)."""
    items = cast(list[DeletedRustItem], deleted.of(RUST))
    if not any(i.trait and i.owner and i.owner_declared_here for i in items):
        return items
    derived: dict[tuple[str, str], set[str]] = shared.memo("rust-derived-after-plan", dict)
    kept = []
    for item in items:
        if item.trait and item.owner and item.owner_declared_here:
            key = (item.path, item.owner)
            if key not in derived:
                derived[key] = _derives_after_plan(item.path, item.owner, shared)
            if item.trait in derived[key]:
                continue
        kept.append(item)
    return kept


def _derives_after_plan(path: str, owner: str, shared: PlanState) -> set[str]:
    """The traits (last path segments) a `#[derive(...)]` of the struct, enum or union `owner`
    names in `path` as the plan's edits so far leave it; empty where they cannot be applied."""
    source = shared.read(path)
    if source is None:
        return set()
    edits = sorted(shared.planned(path), key=lambda e: (e.start, e.end))
    if conflicts(list(edits), source):
        return set()
    tree = parse(splice(source, list(edits)), RUST)
    found: set[str] = set()
    for node in descendants(tree.root_node, named=True):
        if (
            node.type not in ("struct_item", "enum_item", "union_item")
            or node_text(node.child_by_field_name("name")) != owner
        ):
            continue
        attribute = node.prev_named_sibling
        while attribute is not None and attribute.type in ("attribute_item", "line_comment", "block_comment"):
            text = node_text(attribute)
            if attribute.type == "attribute_item" and re.match(r"#\[\s*derive\s*\(", text):
                inner = text[text.index("(") + 1 : text.rindex(")")]
                found |= {part.strip().split("::")[-1] for part in inner.split(",") if part.strip()}
            attribute = attribute.prev_named_sibling
    return found


def start_searches(state: PlanState, paths: list[str]) -> None:
    """As a plan that deletes in the Rust files `paths` starts: rg looks for the `#[path]`
    attributes of their packages, which resolving their modules asks for (crates.PathAttributeSearch)."""
    if shutil.which("rg") is not None and paths:
        root = Path(state.root)
        found = {package_folder(root, path) for path in paths}
        # A folder inside another is searched with it (rg would give its files twice).
        folders = [f for f in sorted(found) if not any(o != f and (not o or f.startswith(o + "/")) for o in found)]
        state.memo(_PATH_ATTRIBUTES, lambda: PathAttributeSearch(root, folders))


def resolve_ahead(
    files: list[tuple[str, bytes]], deleted: Any, shared: PlanState, also: Callable[[str, bytes], object] | None = None
) -> None:
    """Resolve the uses of what the plan deletes in `files` ((path, text as read)) all at once,
    spread over processes (codemods/core/parallel.py), so that the import stage and `references`
    find them resolved; `also(path, text)` is worked out beside each file's uses, in the same
    process (`RustResolver.resolve_files`), and kept for `worked_ahead`."""
    if deleted.of(RUST):
        plan_resolver(shared).resolve_files(files, live_targets(deleted, shared), jobs(), also)


@dataclass(frozen=True)
class FileAhead:
    """What a forked process worked out for a file beside its uses (the plan's own process then
    parses it no more): for the import stage, whether a `use` of it may name a deleted item and,
    for a file the plan does not edit, the edits removing the imports it leaves unused (None: the
    plan's own process works them out, as where a re-export asks about other files); for the
    reference check, the plug-in's `references` of the file (its uses, the cxx bridge entries,
    and a definite use made possible by an unset `#[cfg]` around it)."""

    imports_named: bool
    import_edits: tuple[Edit, ...] | None
    references: References


def worked_ahead(shared: PlanState, path: str, source: bytes) -> FileAhead | None:
    """The FileAhead of the file at `path` with text `source`, where a forked process worked it out."""
    found = plan_resolver(shared).ahead(path, source)
    return found if isinstance(found, FileAhead) else None
