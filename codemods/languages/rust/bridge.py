"""The functions a `#[cxx::bridge]` module declares, and the bridge calls in generated code.

Generated code (a test helper) may only call what the target tree's bridge
declares, with as many arguments as the declaration has parameters; this is
checked before the code is written, so that a helper that cannot compile is
a finding rather than a build failure.
"""

from __future__ import annotations

from dataclasses import dataclass

from codemods.parse import RUST, parse
from codemods.pattern import Pattern
from codemods.languages.rust.items import rust_items

# A call through the bridge module by path: `ffi::name(args)`.
_BRIDGE_CALL = "$MODULE::$NAME($$$ARGS)"


@dataclass(frozen=True)
class BridgeFunction:
    """One function of an `extern "C++"` block: the name Rust code calls it by and its arity."""

    name: str
    parameters: int
    module: str
    start: int
    end: int


@dataclass(frozen=True)
class BridgeCall:
    """One call `module::name(...)` in a piece of Rust code."""

    module: str
    name: str
    arguments: int


def bridge_functions(source: bytes) -> list[BridgeFunction]:
    """Every function declared in the `#[cxx::bridge]` modules of a Rust file."""
    found = []
    for item in rust_items(source):
        if item.kind != "bridge_fn":
            continue
        parameters = item.node.child_by_field_name("parameters")
        count = (
            0
            if parameters is None
            else sum(
                1 for c in parameters.named_children if c.type in ("parameter", "self_parameter", "variadic_parameter")
            )
        )
        module = item.module_path[0] if item.module_path else ""
        found.append(BridgeFunction(item.rust_name or item.name, count, module, item.start, item.end))
    return found


def bridge_calls(code: str, modules: set[str]) -> list[BridgeCall]:
    """The calls `module::name(...)` in `code` whose module is one of `modules`."""
    source = code.encode("utf-8")
    calls = []
    for match in Pattern(_BRIDGE_CALL, RUST).find_all(source, parse(source, RUST).root_node):
        module = match.text("MODULE")
        if module in modules:
            calls.append(BridgeCall(module, match.text("NAME"), len(match.named("ARGS"))))
    return calls
