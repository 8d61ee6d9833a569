"""Property: definite dangling references are what rustc cannot resolve.

A seeded generator writes a small std-only crate: a tree of modules (files,
a `mod.rs` folder, inline modules, a `#[path]` module), each declaring
functions from a small pool of names (so that twins abound) with random
visibility, and calling them in every form valid before the deletion: a
bare name in the same module, `super::f`, `crate::a::b::f`, a glob
`use super::*`, a named `use`, and names shadowed by a local closure and a
block item. One function is deleted, the crate is checked with cargo
(offline: no registry is involved) and rustc's resolution errors (E0425
cannot find, E0432 unresolved import, E0433 failed to resolve) are compared
with the definite findings. rustc reports a use through a named import at
the import only, so a finding that resolves through a named `use` is checked
against that import's line instead.

The generator never lets a deletion rebind a name to a twin (a glob never
imports a name its own module declares), so every reference to the deleted
item is an error, and any other error is a bug of the generator.
"""

from __future__ import annotations

import difflib
import json
import os
import random
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from codemods.plan.planner import plan_recipe
from codemods.plan.references import DANGLING
from codemods import ItemTarget, Recipe

pytestmark = [pytest.mark.cargo, pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")]

NAMES = ("alpha", "beta", "gamma", "delta")
VISIBILITIES = ("", "pub(crate) ", "pub(super) ", "pub ")
RESOLUTION_ERRORS = {"E0425", "E0432", "E0433"}
CASES = 5


@dataclass
class Module:
    path: tuple[str, ...]
    file: str
    inline: bool = False
    functions: dict[str, str] = field(default_factory=dict)
    children: list["Module"] = field(default_factory=list)
    glob_parent: bool = False
    imports: dict[str, tuple[str, ...]] = field(default_factory=dict)
    path_attribute: str | None = None


def _within(module: tuple[str, ...], ancestor: tuple[str, ...]) -> bool:
    return module[: len(ancestor)] == ancestor


def _visible(owner: tuple[str, ...], visibility: str, user: tuple[str, ...]) -> bool:
    if visibility in ("pub ", "pub(crate) "):
        return True
    if visibility == "pub(super) ":
        return _within(user, owner[:-1])
    return _within(user, owner)


def _layout() -> list[Module]:
    """lib.rs with a file module `a` (holding an inline `deep` and a `#[path]` module),
    a folder module `b` (with `b/inner.rs`) and an inline module `c`."""
    root = Module((), "src/lib.rs")
    a = Module(("a",), "src/a.rs")
    b = Module(("b",), "src/b/mod.rs")
    c = Module(("c",), "src/lib.rs", inline=True)
    inner = Module(("b", "inner"), "src/b/inner.rs")
    extra = Module(("a", "tests"), "src/a_extra.rs", path_attribute="a_extra.rs")
    deep = Module(("a", "deep"), "src/a.rs", inline=True)
    root.children = [a, b, c]
    a.children = [extra, deep]
    b.children = [inner]
    return [root, a, b, c, inner, extra, deep]


def generate(rng: random.Random) -> tuple[dict[str, str], list[Module]]:
    """A crate as {path: text}, and its modules."""
    modules = _layout()
    for module in modules:
        for name in NAMES:
            if rng.random() < 0.5:
                module.functions[name] = rng.choice(VISIBILITIES if module.path else ("", "pub(crate) ", "pub "))
    parents = {child.path: module for module in modules for child in module.children}
    for module in modules[1:]:
        if rng.random() < 0.6 and not set(module.functions) & set(parents[module.path].functions):
            module.glob_parent = True
    for module in modules:
        for name in NAMES:
            if name in module.functions or module.glob_parent and name in parents[module.path].functions:
                continue
            if any(child.glob_parent and name in child.functions for child in module.children):
                continue
            owners = [
                m
                for m in modules
                if name in m.functions and m is not module and _visible(m.path, m.functions[name], module.path)
            ]
            if owners and rng.random() < 0.4:
                module.imports[name] = rng.choice(owners).path
    return _render(modules, parents, rng), modules


def _calls(module: Module, modules: list[Module], parents: dict, rng: random.Random) -> list[str]:
    """Statements calling functions in every form valid from `module`."""
    calls = [f"{name}();" for name in module.functions]
    parent = parents.get(module.path)
    if parent is not None:
        for name in parent.functions:
            calls.append(f"super::{name}();")
            if module.glob_parent:
                calls.append(f"{name}();")
    for other in modules:
        for name, visibility in other.functions.items():
            if _visible(other.path, visibility, module.path) and rng.random() < 0.5:
                calls.append(f"crate::{'::'.join((*other.path, name))}();")
    calls += [f"{name}();" for name in module.imports]
    rng.shuffle(calls)
    # Shadows: after these, `alpha` and `beta` are a local closure and a block item.
    return calls + ["let alpha = || 0u32;", "alpha();", "{ fn beta() {} beta(); }"]


def _module_text(module: Module, modules: list[Module], parents: dict, rng: random.Random, indent: str) -> list[str]:
    lines = [f"{indent}use super::*;"] if module.glob_parent else []
    lines += [f"{indent}use crate::{'::'.join((*path, name))};" for name, path in sorted(module.imports.items())]
    lines += [f"{indent}{visibility}fn {name}() {{}}" for name, visibility in module.functions.items()]
    lines.append(f"{indent}pub fn caller() {{")
    lines += [f"{indent}    {call}" for call in _calls(module, modules, parents, rng)]
    lines.append(f"{indent}}}")
    for child in module.children:
        if child.path_attribute:
            lines.append(f'{indent}#[path = "{child.path_attribute}"]')
        if child.inline:
            lines.append(f"{indent}pub mod {child.path[-1]} {{")
            lines += _module_text(child, modules, parents, rng, indent + "    ")
            lines.append(f"{indent}}}")
        else:
            lines.append(f"{indent}pub mod {child.path[-1]};")
    return lines


def _render(modules: list[Module], parents: dict, rng: random.Random) -> dict[str, str]:
    files = {"Cargo.toml": '[package]\nname = "generated"\nversion = "0.1.0"\nedition = "2021"\n'}
    for module in modules:
        if not module.inline:
            header = ["#![allow(dead_code, unused_imports, unused_variables)]"] if not module.path else []
            files[module.file] = "\n".join(header + _module_text(module, modules, parents, rng, "")) + "\n"
    return files


def deletable(modules: list[Module]) -> list[tuple[Module, str]]:
    """(module, function name) pairs a recipe can name without ambiguity: no other module
    of the same file declares the name."""
    return [
        (module, name)
        for module in modules
        for name in sorted(module.functions)
        if sum(1 for m in modules if m.file == module.file and name in m.functions) == 1
    ]


def qualified_in_file(module: Module, modules: list[Module], name: str) -> str:
    """`name` qualified by the inline modules between its file and `module`."""
    file_module = module.path
    while file_module and next(m for m in modules if m.path == file_module).inline:
        file_module = file_module[:-1]
    return "::".join((*module.path[len(file_module) :], name))


def rustc_errors(root: Path, target_dir: Path) -> tuple[set[tuple[str, int]], list[str]]:
    """(file, line) of rustc's resolution errors, and any other error (a generator bug)."""
    environment = dict(os.environ, CARGO_TARGET_DIR=str(target_dir), CARGO_NET_OFFLINE="true")
    result = subprocess.run(
        ["cargo", "check", "--offline", "--quiet", "--message-format=json"],
        cwd=root,
        capture_output=True,
        text=True,
        env=environment,
    )
    found, other = set(), []
    for line in result.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") != "compiler-message" or message["message"]["level"] != "error":
            continue
        code = (message["message"].get("code") or {}).get("code")
        if code is None:
            continue
        if code not in RESOLUTION_ERRORS:
            other.append(message["message"]["rendered"])
            continue
        found |= {(s["file_name"], s["line_start"]) for s in message["message"]["spans"] if s["is_primary"]}
    return found, other


def _blanked(before: bytes, after: bytes) -> bytes:
    """`before` with the lines the plan deletes left empty, so that rustc's line numbers are the
    findings' (which are located in the text before the plan)."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    kept = []
    for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        assert tag in ("equal", "delete"), "a deletion plan only deletes lines"
        kept += old[i1:i2] if tag == "equal" else [b"\n"] * (i2 - i1)
    return b"".join(kept)


def _named_import(resolution: str) -> tuple[str, int] | None:
    """(path, line) of the named `use` a resolution goes through first, if it does."""
    step = resolution.split("; ", 1)[0]
    if not step.startswith("use ") or " at " not in step:
        return None
    text, where = step.rsplit(" at ", 1)
    if text.endswith("::*"):
        return None
    path, line = where.rsplit(":", 1)
    return path, int(line)


def check_case(seed: int, workdir: Path) -> None:
    rng = random.Random(seed)
    files, modules = generate(rng)
    root = workdir / "crate"
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    owner, name = rng.choice(deletable(modules))
    target = ItemTarget(owner.file, "rust", "fn", qualified_in_file(owner, modules, name))
    plan = plan_recipe(root, Recipe(id="generated", summary="", deletions=(target,)))
    assert not [f for f in plan.findings if f.code != DANGLING], plan.findings
    definite = [f for f in plan.findings if f.code == DANGLING and f.certainty == "definite"]
    imports = {(f.path, f.line): _named_import(f.resolution) for f in definite if _named_import(f.resolution)}
    direct = {(f.path, f.line) for f in definite} - set(imports)
    for change in plan.changes:
        (root / change.path).write_bytes(_blanked(change.before, change.after))
    errors, other = rustc_errors(root, workdir / "target")
    assert not other, other
    assert direct == errors, (files, target)
    assert set(imports.values()) <= errors, (files, target)


@pytest.mark.parametrize("seed", range(CASES))
def test_definite_references_are_rustcs_resolution_errors(seed, tmp_path):
    check_case(seed, tmp_path)
