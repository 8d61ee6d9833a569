"""The plan's one Rust resolver, kept in its PlanState (made on first use), and the work started
for it ahead: the rg search of the `#[path]` attributes of the packages a plan edits, and the
resolution of many files at once, spread over processes."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from codemods.core.parallel import jobs
from codemods.core.registry import RUST, PlanState
from codemods.languages.rust.crates import PathAttributeSearch, package_folder
from codemods.languages.rust.resolve.references import RustResolver

# The memo under which `start_searches` keeps the search of the tree's `#[path]` attributes.
_PATH_ATTRIBUTES = "rust-path-attributes"


def plan_resolver(shared: PlanState) -> RustResolver:
    """The plan's Rust resolver, made on first use (with the `#[path]` search the plan started)."""
    return shared.memo(
        RUST, lambda: RustResolver(shared.root, shared.read, shared.memo(_PATH_ATTRIBUTES, lambda: None))
    )


def start_searches(state: PlanState, paths: list[str]) -> None:
    """As a plan that deletes in the Rust files `paths` starts: rg looks for the `#[path]`
    attributes of their packages, which resolving their modules asks for (crates.PathAttributeSearch)."""
    if shutil.which("rg") is not None and paths:
        root = Path(state.root)
        found = {package_folder(root, path) for path in paths}
        # A folder inside another is searched with it (rg would give its files twice).
        folders = [f for f in sorted(found) if not any(o != f and (not o or f.startswith(o + "/")) for o in found)]
        state.memo(_PATH_ATTRIBUTES, lambda: PathAttributeSearch(root, folders))


def resolve_ahead(files: list[tuple[str, bytes]], deleted: Any, shared: PlanState) -> None:
    """Resolve the uses of what the plan deletes in `files` ((path, text as read)) all at once,
    spread over processes (codemods/core/parallel.py), so that the import stage and `references`
    find them resolved."""
    if deleted.of(RUST):
        plan_resolver(shared).resolve_files(files, deleted.of(RUST), jobs())
