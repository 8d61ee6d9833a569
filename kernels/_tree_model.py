"""What the tree reader and its interpreter share: syntax helpers, places, the launch site and the bound launch.

`kernels.tree` finds the SSM kernel and its launch site in a tree; the
interpreter (`kernels._tree_interpreter`) runs that site on one update's
arrays.  Both build on this module, which imports neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import torch
import tree_sitter

from codemods import descendants

CUDA_TYPE = {torch.float32: "float", torch.bfloat16: "__nv_bfloat16", torch.float16: "__half"}
"""MLX's dtype_to_cuda_type for the dtypes the SSM update uses."""
TYPE_STRING = {torch.float32: "float32", torch.bfloat16: "bfloat16", torch.float16: "float16"}
"""MLX's get_type_string, which names a module in template_arguments_hash."""
MLX_DTYPES = {name: dtype for dtype, name in TYPE_STRING.items()}


class TreeKernelError(Exception):
    """The tree has no SSM kernel we can find, or its call site cannot be read; one line."""


@dataclass(frozen=True)
class Where:
    """A place in the tree: a path relative to ROOT and a 1-based line."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Function:
    """A parsed function definition: its name, parameters and body."""

    name: str
    params: tuple[str, ...]
    body: tree_sitter.Node
    where: Where


@dataclass(frozen=True)
class LaunchSite:
    """The call that launches the kernel, as syntax: `kernel(inputs, shapes, dtypes, grid, block, targs, ...)`."""

    function: Function
    where: Where
    inputs: tuple[tree_sitter.Node, ...]
    output_shapes: tuple[tree_sitter.Node, ...]
    output_dtypes: tuple[tree_sitter.Node, ...]
    grid: tuple[tree_sitter.Node, ...]
    threadgroup: tuple[tree_sitter.Node, ...]
    template_args: tuple[tuple[str, tree_sitter.Node], ...]
    template_where: Where


class KernelSite(Protocol):
    """What the interpreter and a bound launch read of a tree's kernel (kernels.tree.TreeKernel is one)."""

    name: str
    input_names: tuple[str, ...]
    output_names: tuple[str, ...]
    source: str
    source_where: Where
    launch: LaunchSite
    functions: dict[str, Function]


@dataclass(frozen=True)
class BoundLaunch:
    """The tree kernel's launch for one update: tensors, template values, geometry and the wrapper."""

    kernel: KernelSite
    inputs: tuple[torch.Tensor, ...]
    outputs: tuple[torch.Tensor, ...]
    template_values: tuple[tuple[str, object], ...]
    grid: tuple[int, int, int]
    threadgroup: tuple[int, int, int]
    dt_chain: tuple[str, ...]

    @property
    def blocks(self) -> tuple[int, int, int]:
        """MLX's launch grid: ceil(grid / threadgroup) in each dimension."""
        return tuple(-(-g // t) for g, t in zip(self.grid, self.threadgroup, strict=True))

    @property
    def module_name(self) -> str:
        """`custom_kernel_<name>` plus MLX's template_arguments_hash: the JIT module's cache key."""
        return "custom_kernel_" + self.kernel.name + "".join(f"_{hash_part(v)}" for _, v in self.template_values)

    @property
    def signature(self) -> tuple[str, ...]:
        """The C types of the generated parameters, which the module name may or may not key on."""
        return tuple(CUDA_TYPE[t.dtype] for t in self.inputs + self.outputs)

    def wrapper(self) -> str:
        """The kernel as MLX's cuda_kernel builds it, without the JIT header (see WRAPPER_PRELUDE)."""
        lines = ["namespace mlx::core::cu {", "", "namespace cg = cooperative_groups;", ""]
        lines.append(f"__global__ void {self.module_name}(")
        params = [
            f"    const {CUDA_TYPE[t.dtype]}* {n}" for n, t in zip(self.kernel.input_names, self.inputs, strict=True)
        ]
        params += [
            f"    {CUDA_TYPE[t.dtype]}* {n}" for n, t in zip(self.kernel.output_names, self.outputs, strict=True)
        ]
        lines.append(",\n".join(params) + ") {")
        for name, value in self.template_values:
            if isinstance(value, torch.dtype):
                lines.append(f"  using {name} = {CUDA_TYPE[value]};")
            elif isinstance(value, bool):
                lines.append(f"  constexpr bool {name} = {str(value).lower()};")
            else:
                lines.append(f"  constexpr int {name} = {value};")
        lines.append("")
        return "\n".join(lines) + "\n" + self.kernel.source + "\n}\n\n} // namespace mlx::core::cu\n"


def hash_part(value: object) -> str:
    if isinstance(value, torch.dtype):
        return TYPE_STRING[value]
    if isinstance(value, bool):
        return "t" if value else "f"
    return str(value)


def node_text(node: tree_sitter.Node) -> str:
    return node.text.decode("utf-8", "replace")


def where_of(rel: str, node: tree_sitter.Node) -> Where:
    return Where(rel, node.start_point.row + 1)


def last_name(node: tree_sitter.Node) -> str:
    """`mlx::core::fast::cuda_kernel` -> `cuda_kernel`; `fn` -> `fn`."""
    return node_text(node).rsplit("::", 1)[-1].strip()


def call_args(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    arguments = call.child_by_field_name("arguments")
    return [] if arguments is None else [a for a in arguments.named_children if a.type != "comment"]


def declarations(function: Function) -> dict[str, tree_sitter.Node]:
    """name -> initializer of each `T name = value;` in a body (the first one wins)."""
    found: dict[str, tree_sitter.Node] = {}
    for node in descendants(function.body):
        if node.type != "init_declarator":
            continue
        value = node.child_by_field_name("value")
        names = [n for n in descendants(node.child_by_field_name("declarator")) if n.type == "identifier"]
        if value is not None and names:
            found.setdefault(node_text(names[-1]), value)
    return found
