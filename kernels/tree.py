"""mlxcel's own SSM decode kernel, read from a source tree by structure.

`find_tree_kernels(root)` parses the C++ under `src/lib/mlxcel-core/cpp/` with
tree-sitter and finds every `mlx::core::fast::cuda_kernel(name, inputs,
outputs, source)` call whose input and output names are the SSM update's
(`A_log`, `B`, `C`, `D`, `dt` in, a `state*` out).  For each it follows the
names outward (holder struct, getter, port table, ...) to the call site that
launches the kernel -- `kernel(inputs, output_shapes, output_dtypes,
make_tuple(grid), make_tuple(threadgroup), template_args, ...)` -- and keeps
that site's inputs, outputs, template arguments, grid and threadgroup as
syntax.

`TreeKernel.bind(inputs)` then runs the call site on one update's tensors:
a small interpreter (kernels/_tree_interpreter.py) evaluates the site's own declarations (`int dh =
shape[3]`, `auto input_type = hidden_states.inner.dtype()`), the expressions
it passes as kernel inputs (`astype(D.inner, input_type)`) and the
`compute_dt` op chain that produces dt' (an `mlx::core::compile`d lambda of
`astype`, `add`, `exp`, `log1p`, `clip`), op by op in torch.  The result is a
`BoundLaunch`: the kernel's input and output tensors, the template values, the
grid and block, and the kernel text wrapped the way MLX's `cuda_kernel` wraps
it (mlx/backend/cuda/custom_kernel.cpp, `build_kernel`): a `__global__`
function named `custom_kernel_<name><template hash>` in `namespace
mlx::core::cu`, one `const <dtype>* <input>` parameter per input in the
input's runtime dtype, one `<dtype>* <output>` per output, then `using T =
...;` / `constexpr int Dh = ...;` for the template arguments, then the body.

Nothing here needs CUDA; `kernels.tree_diff` builds and runs the wrapper.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import tree_sitter

from codemods import descendants, parse_source
from kernels._tree_interpreter import bind_launch
from kernels._tree_model import (
    CUDA_TYPE,
    MLX_DTYPES,
    TYPE_STRING,
    BoundLaunch,
    Function,
    LaunchSite,
    TreeKernelError,
    Where,
    call_args,
    declarations,
    last_name,
    node_text,
    where_of,
)

__all__ = [
    "CUDA_TYPE",
    "KERNEL_DIR",
    "MLX_DTYPES",
    "TYPE_STRING",
    "WRAPPER_PRELUDE",
    "BoundLaunch",
    "LaunchSite",
    "TreeKernel",
    "TreeKernelError",
    "Where",
    "compile_unit",
    "find_tree_kernels",
    "launch_key",
    "select_instances",
]

KERNEL_DIR = "src/lib/mlxcel-core/cpp"
"""Where mlxcel keeps the C++ that registers its custom kernels."""
SSM_INPUTS = frozenset({"A_log", "B", "C", "D", "dt"})
"""Input names that mark a cuda_kernel call as the SSM update (with a `state*` output)."""
LINK_DEPTH = 5
"""How many name hops (holder -> getter -> port table -> launcher ...) the call-site search follows."""

WRAPPER_PRELUDE = """\
// NVRTC defines none of these; torch's nvcc flags do, and they would remove
// the implicit float <-> __nv_bfloat16 conversions the kernel text relies on.
#undef __CUDA_NO_HALF_OPERATORS__
#undef __CUDA_NO_HALF_CONVERSIONS__
#undef __CUDA_NO_HALF2_OPERATORS__
#undef __CUDA_NO_BFLOAT16_OPERATORS__
#undef __CUDA_NO_BFLOAT16_CONVERSIONS__
#undef __CUDA_NO_BFLOAT162_OPERATORS__
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda/std/array>
#include <cuda/std/limits>
#include <cuda/std/tuple>

#define inf cuda::std::numeric_limits<float>::infinity()
"""
"""What stands in for MLX's default JIT header (device/utils.cuh, cooperative_groups, `inf`)."""


@dataclass(frozen=True)
class TreeKernel:
    """One SSM instance of the tree: the cuda_kernel registration and the site that launches it."""

    name: str
    where: Where
    input_names: tuple[str, ...]
    output_names: tuple[str, ...]
    source: str
    source_name: str
    source_where: Where
    launch: LaunchSite
    functions: dict[str, Function] = field(repr=False)

    def bind(self, args: dict[str, object]) -> BoundLaunch:
        """Run the call site on the launcher's arguments (tensors and floats, by parameter name)."""
        return bind_launch(self, args)

    def parameter_roles(self) -> dict[str, str]:
        """Launcher parameter -> what it carries: a kernel input's name, or dt/dt_bias/dt_min/dt_max.

        A parameter that reaches a kernel input takes that input's name.  The
        kernel's `dt` input is a local computed by a call (compute_dt); that
        call's four arguments are read as (dt, dt_bias, dt_min, dt_max), the
        order of compute_dt's own signature.
        """
        params = set(self.launch.function.params)
        declared = declarations(self.launch.function)
        roles: dict[str, str] = {}
        for name, expression in zip(self.input_names, self.launch.inputs, strict=True):
            used = _ordered_names(expression)
            direct = [n for n in used if n in params]
            if direct:
                roles[direct[0]] = name
                continue
            local = next((n for n in used if n in declared), None)
            call = declared.get(local) if local else None
            if name != "dt" or call is None or call.type != "call_expression" or len(call_args(call)) != 4:
                raise TreeKernelError(
                    f"cannot read the call site at {self.launch.where}: which parameter feeds input {name}"
                )
            for role, arg in zip(("dt", "dt_bias", "dt_min", "dt_max"), call_args(call), strict=True):
                fed = [n for n in _ordered_names(arg) if n in params]
                if not fed:
                    raise TreeKernelError(
                        f"cannot read the compute_dt call at {where_of(self.launch.where.path, call)}: {role}"
                    )
                roles[fed[0]] = role
        return roles


def find_tree_kernels(root: Path) -> tuple[TreeKernel, ...]:
    """Every SSM cuda_kernel instance under ROOT/src/lib/mlxcel-core/cpp, with its launch site."""
    folder = root / KERNEL_DIR
    if not folder.is_dir():
        raise TreeKernelError(f"{root} has no {KERNEL_DIR}/ (is ROOT an mlxcel checkout?)")
    files = sorted(p for p in folder.iterdir() if p.suffix in (".cpp", ".cu", ".cc") and p.is_file())
    parsed = [(p.relative_to(root).as_posix(), parse_source(p.read_bytes(), "cpp").root_node) for p in files]
    functions = {f.name: f for rel, tree in parsed for f in _functions(tree, rel)}
    registrations = [(rel, call) for rel, tree in parsed for call in _cuda_kernel_calls(tree)]
    found = []
    for rel, call in registrations:
        kernel = _read_registration(rel, call, parsed, functions)
        if kernel is not None:
            found.append(kernel)
    if not found:
        raise TreeKernelError(
            f"no SSM kernel in {KERNEL_DIR}/: no cuda_kernel(name, inputs, outputs, source) call takes "
            f"{', '.join(sorted(SSM_INPUTS))} and returns a state"
        )
    return tuple(found)


def select_instances(kernels: tuple[TreeKernel, ...], instance: str | None) -> tuple[TreeKernel, ...]:
    """The instances named `instance` (a cuda_kernel name), or all of them when None."""
    if instance is None:
        return kernels
    chosen = tuple(k for k in kernels if k.name == instance)
    if not chosen:
        names = ", ".join(k.name for k in kernels)
        raise TreeKernelError(f"no SSM kernel instance named {instance!r} (the tree has: {names})")
    return chosen


def _strings(node: tree_sitter.Node) -> tuple[str, ...] | None:
    """The strings of `{"a", "b"}`; None when it is not a list of string literals."""
    if node.type != "initializer_list":
        return None
    items = [c for c in node.named_children if c.type != "comment"]
    if not all(c.type == "string_literal" for c in items):
        return None
    return tuple(_string_value(c) for c in items)


def _string_value(node: tree_sitter.Node) -> str:
    return "".join(node_text(c) for c in node.named_children if c.type in ("string_content", "escape_sequence"))


def _functions(tree: tree_sitter.Node, rel: str) -> Iterator[Function]:
    """Every function definition: name (last component), parameter names, body."""
    for node in descendants(tree):
        if node.type != "function_definition":
            continue
        declarator = _function_declarator(node)
        body = node.child_by_field_name("body")
        if declarator is None or body is None:
            continue
        params = []
        for param in declarator.child_by_field_name("parameters").named_children:
            names = [n for n in descendants(param) if n.type == "identifier"]
            if names:
                params.append(node_text(names[-1]))
        yield Function(
            last_name(declarator.child_by_field_name("declarator")), tuple(params), body, where_of(rel, node)
        )


def _function_declarator(definition: tree_sitter.Node) -> tree_sitter.Node | None:
    """The function_declarator of a definition, under any pointer/reference declarators."""
    declarator = definition.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = next((c for c in declarator.named_children if c.type.endswith("declarator")), None)
    return declarator


def _cuda_kernel_calls(tree: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    for node in descendants(tree):
        if node.type == "call_expression" and last_name(node.child_by_field_name("function")) == "cuda_kernel":
            yield node


def _read_registration(rel, call, parsed, functions) -> TreeKernel | None:
    """The TreeKernel of one cuda_kernel call, or None when it is not the SSM update."""
    args = call_args(call)
    if len(args) < 4 or args[0].type != "string_literal":
        return None
    inputs, outputs = _strings(args[1]), _strings(args[2])
    if inputs is None or outputs is None:
        return None
    if not SSM_INPUTS <= set(inputs) or not any(o.startswith("state") for o in outputs):
        return None
    name = _string_value(args[0])
    where = where_of(rel, call)
    source_name, source_node, source_rel = _source_of(args[3], rel, parsed)
    if source_node is None:
        raise TreeKernelError(
            f"{where}: cuda_kernel {name!r} takes source {source_name}, whose raw string was not found"
        )
    content = next(c for c in source_node.named_children if c.type == "raw_string_content")
    launch = _find_launch(call, inputs, outputs, functions, rel)
    if launch is None:
        raise TreeKernelError(
            f"{where}: found cuda_kernel {name!r} but no call site launching it "
            f"(a kernel(inputs, shapes, dtypes, make_tuple(grid), make_tuple(threadgroup), template_args) "
            f"call within {LINK_DEPTH} name hops)"
        )
    return TreeKernel(
        name=name,
        where=where,
        input_names=inputs,
        output_names=outputs,
        source=node_text(content),
        source_name=source_name,
        source_where=where_of(source_rel, content),
        launch=launch,
        functions=functions,
    )


def _source_of(arg, rel, parsed):
    """(name, raw_string_literal node, file) of the kernel source argument."""
    if arg.type == "raw_string_literal":
        return "an inline raw string", arg, rel
    if arg.type != "identifier":
        return node_text(arg), None, rel
    name = node_text(arg)
    ordered = sorted(parsed, key=lambda item: item[0] != rel)
    for file_rel, tree in ordered:
        for node in descendants(tree):
            if node.type != "init_declarator" or node.child_by_field_name("value") is None:
                continue
            value = node.child_by_field_name("value")
            declared = [n for n in descendants(node.child_by_field_name("declarator")) if n.type == "identifier"]
            if declared and node_text(declared[-1]) == name and value.type == "raw_string_literal":
                return name, value, file_rel
    return name, None, rel


def _enclosing_name(node: tree_sitter.Node) -> str | None:
    """The struct/class holding a call, or else the function around it."""
    current = node.parent
    function_name = None
    while current is not None:
        if current.type in ("struct_specifier", "class_specifier") and current.child_by_field_name("name"):
            return node_text(current.child_by_field_name("name"))
        if current.type == "function_definition" and function_name is None:
            declarator = _function_declarator(current)
            if declarator is not None:
                function_name = last_name(declarator.child_by_field_name("declarator"))
        current = current.parent
    return function_name


def _ordered_names(node: tree_sitter.Node) -> list[str]:
    return [node_text(n) for n in descendants(node) if n.type == "identifier"]


def _names_in(node: tree_sitter.Node) -> set[str]:
    return {node_text(n) for n in descendants(node) if n.type in ("identifier", "type_identifier", "field_identifier")}


def _find_launch(call, inputs, outputs, functions: dict[str, Function], rel) -> LaunchSite | None:
    """Follow names outward from the registration until a function launches a kernel of this arity."""
    start = _enclosing_name(call)
    if start is None:
        return None
    reached, frontier = {start}, {start}
    for _ in range(LINK_DEPTH):
        referrers = [f for f in functions.values() if f.name not in reached and _names_in(f.body) & frontier]
        for function in referrers:
            site = _launch_in(function, len(inputs), len(outputs))
            if site is not None:
                return site
        frontier = {f.name for f in referrers}
        reached |= frontier
        if not frontier:
            return None
    return None


def _list_items(node: tree_sitter.Node, declared: dict[str, tree_sitter.Node]) -> tuple[tree_sitter.Node, ...] | None:
    """The items of `{a, b}` or of the list a local was initialised with."""
    if node.type == "identifier" and node_text(node) in declared:
        node = declared[node_text(node)]
    if node.type != "initializer_list":
        return None
    return tuple(c for c in node.named_children if c.type != "comment")


def _launch_in(function: Function, n_inputs: int, n_outputs: int) -> LaunchSite | None:
    declared = declarations(function)
    rel = function.where.path
    for node in descendants(function.body):
        if node.type != "call_expression":
            continue
        args = call_args(node)
        if len(args) < 6 or not all(
            a.type == "call_expression" and last_name(a.child_by_field_name("function")) == "make_tuple"
            for a in args[3:5]
        ):
            continue
        ins, shapes, dtypes = (_list_items(a, declared) for a in args[:3])
        if ins is None or len(ins) != n_inputs or shapes is None or dtypes is None or len(dtypes) != n_outputs:
            continue
        targs_node = args[5]
        template_where = where_of(rel, declared.get(node_text(targs_node), targs_node))
        return LaunchSite(
            function=function,
            where=where_of(rel, node),
            inputs=ins,
            output_shapes=shapes,
            output_dtypes=dtypes,
            grid=tuple(call_args(args[3])),
            threadgroup=tuple(call_args(args[4])),
            template_args=_template_args(targs_node, declared, function),
            template_where=template_where,
        )
    return None


def _template_args(node, declared, function: Function) -> tuple[tuple[str, tree_sitter.Node], ...]:
    """`{{"T", input_type}, ...}` (declared or inline), plus any later push_back/emplace_back onto it."""
    pairs = []
    for item in _list_items(node, declared) or ():
        parts = [c for c in item.named_children if c.type != "comment"] if item.type == "initializer_list" else []
        if len(parts) == 2 and parts[0].type == "string_literal":
            pairs.append((_string_value(parts[0]), parts[1]))
    if node.type == "identifier":
        for call in descendants(function.body):
            target = call.child_by_field_name("function") if call.type == "call_expression" else None
            if target is None or target.type != "field_expression":
                continue
            if node_text(target.child_by_field_name("argument")) != node_text(node):
                continue
            if node_text(target.child_by_field_name("field")) not in ("push_back", "emplace_back"):
                continue
            args = call_args(call)
            parts = (
                [c for c in args[0].named_children] if len(args) == 1 and args[0].type == "initializer_list" else args
            )
            if len(parts) == 2 and parts[0].type == "string_literal":
                pairs.append((_string_value(parts[0]), parts[1]))
    return tuple(pairs)


def compile_unit(launches: tuple[BoundLaunch, ...]) -> str:
    """One .cu: the prelude, each distinct module's wrapper, and launch_tree_kernel (csrc/tree_launch.cpp)."""
    modules: dict[str, BoundLaunch] = {}
    for launch in launches:
        modules.setdefault(launch_key(launch), launch)
    symbols = {}
    parts = [WRAPPER_PRELUDE]
    for key, launch in modules.items():
        symbol = (
            launch.module_name
            if launch.module_name not in symbols.values()
            else f"{launch.module_name}_as_{len(symbols)}"
        )
        symbols[key] = symbol
        parts.append(launch.wrapper().replace(f"void {launch.module_name}(", f"void {symbol}(", 1))
    table = ",\n".join(
        f'      {{"{key}", reinterpret_cast<const void*>(&mlx::core::cu::{symbol})}}' for key, symbol in symbols.items()
    )
    parts.append(
        "#include <cuda_runtime.h>\n#include <cstring>\n#include <string>\n#include <utility>\n\n"
        "cudaError_t launch_tree_kernel(const std::string& name, void** args, dim3 grid, dim3 block,\n"
        "                               cudaStream_t stream) {\n"
        "  static const std::pair<const char*, const void*> kernels[] = {\n"
        f"{table}}};\n"
        "  for (const auto& [key, fn] : kernels) {\n"
        "    if (name == key) return cudaLaunchKernel(fn, grid, block, args, 0, stream);\n"
        "  }\n"
        "  return cudaErrorInvalidDeviceFunction;\n"
        "}\n"
    )
    return "\n".join(parts)


def launch_key(launch: BoundLaunch) -> str:
    """The name compile_unit's table knows a compiled kernel by: module name and signature."""
    return launch.module_name + "|" + ",".join(launch.signature)
