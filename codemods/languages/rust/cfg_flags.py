"""Rust code that no build of the tree compiles: under `#[cfg(flag)]` where `flag` is a custom
cfg name (no built-in one) that nothing in the tree sets.

A custom flag is set by a build script (`cargo:rustc-cfg=flag`), by `--cfg flag` in rustflags
(`.cargo/config.toml`, a CI workflow, a Makefile, a script) or declared for check-cfg in a
Cargo.toml: any file of the tree but Rust sources (build scripts aside) that spells the name
counts as setting it. Code under a predicate that holds only with such an unset flag (`flag`,
`all(.., flag, ..)`, `any(..)` of only such) is compiled by no build the tree describes, so a
use of a deleted item there is possible, not definite: a build with `RUSTFLAGS="--cfg flag"`
would still break. `not(..)` and `key = "value"` predicates are never judged unset.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable

import tree_sitter

from codemods.parse import node_text

# The bare cfg names rustc or cargo set (a name not here is a custom flag).
BUILTIN_FLAGS = frozenset(
    {
        "test",
        "debug_assertions",
        "unix",
        "windows",
        "doc",
        "doctest",
        "miri",
        "proc_macro",
        "overflow_checks",
        "ub_checks",
        "target_thread_local",
        "fmt_debug",
        "contract_checks",
        "emscripten_wasm_eh",
        "rustfmt",
        "clippy",
        "docsrs",
    }
)
_PREDICATE = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*")
_SKIPPED = {".git", "target", "node_modules"}


def unset_flags_around(node: tree_sitter.Node, is_set: Callable[[str], bool]) -> str | None:
    """The `#[cfg(...)]` text of an item (or statement, or file: `#![cfg(...)]`) around `node`
    whose predicate holds only with a custom flag `is_set` says nothing sets; None if none."""
    current: tree_sitter.Node | None = node
    while current is not None:
        for attribute in _attributes_of(current):
            text = node_text(attribute)
            inner = text[text.index("[") + 1 : text.rindex("]")].strip() if "[" in text and "]" in text else ""
            if inner.startswith("cfg(") and inner.endswith(")") and _unset(inner[4:-1], is_set):
                return text
        current = current.parent
    return None


def _attributes_of(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The outer attributes directly before `node` (its previous siblings), or a file's inner ones."""
    if node.type == "source_file":
        return [c for c in node.named_children if c.type == "inner_attribute_item"]
    found = []
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in ("attribute_item", "line_comment", "block_comment"):
        if sibling.type == "attribute_item":
            found.append(sibling)
        sibling = sibling.prev_named_sibling
    return found


def _unset(predicate: str, is_set: Callable[[str], bool]) -> bool:
    """Whether the cfg `predicate` holds only where a custom flag nothing sets is set."""
    predicate = predicate.strip()
    match = _PREDICATE.fullmatch(predicate)
    if match is not None:
        name = match.group(1)
        return name not in BUILTIN_FLAGS and not is_set(name)
    head = re.match(r"(all|any)\s*\((.*)\)\s*$", predicate, re.S)
    if head is None:
        return False
    parts = _split(head.group(2))
    if head.group(1) == "all":
        return any(_unset(p, is_set) for p in parts)
    return all(_unset(p, is_set) for p in parts)  # `any()` of nothing never holds


def _split(arguments: str) -> list[str]:
    """The comma-separated predicates of `all(...)` / `any(...)`, nested parentheses kept whole."""
    parts, depth, current = [], 0, ""
    for char in arguments:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += (char == "(") - (char == ")")
        current += char
    parts.append(current)
    return [p for p in (p.strip() for p in parts) if p]


def flag_is_set(root: Path, name: str) -> bool:
    """Whether any file of the tree but Rust sources (build scripts aside) spells `name`."""
    rg = shutil.which("rg")
    if rg is not None:
        done = subprocess.run(
            [
                rg,
                "--no-config",
                "--hidden",
                "--files-with-matches",
                "--no-messages",
                "--fixed-strings",
                "--word-regexp",
                "--glob",
                "!*.rs",
                "--glob",
                "build.rs",
                "--glob",
                "!.git/",
                "--glob",
                "!target/",
                "-e",
                name,
                "--",
                ".",
            ],
            cwd=root,
            capture_output=True,
        )
        if done.returncode in (0, 1):
            return bool(done.stdout.strip())
    word = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")
    for folder, folders, files in os.walk(root):
        folders[:] = [f for f in folders if f not in _SKIPPED]
        for file in files:
            if file.endswith(".rs") and file != "build.rs":
                continue
            try:
                if word.search((Path(folder) / file).read_bytes()):
                    return True
            except OSError:
                continue
    return False
