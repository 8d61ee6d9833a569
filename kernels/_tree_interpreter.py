"""The interpreter behind TreeKernel.bind: evaluates a launch site's C++ on arrays.

It covers the subset that sets up an MLX custom-kernel launch: integer and
dtype declarations, shape/dtype queries on the launcher's arrays, `astype`
and the elementwise ops of a compiled compute_dt lambda, calls into other
functions of the tree, braced lists and `make_tuple`.  Anything else is an
`_Unreadable` expression, which `bind` turns into a one-line TreeKernelError
naming path:line.

The arrays are an `ArrayOps` backend's: `TORCH_OPS` runs the op chain op by
op in torch (ssm-diff --tree); kernels.mlx_engine passes MLX's, which runs it
through `mx.compile` as mlxcel does (ssm-diff --engine mlx).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Protocol

import torch
import tree_sitter

from codemods import descendants
from kernels._tree_model import (
    MLX_DTYPES,
    TYPE_STRING,
    BoundLaunch,
    Function,
    KernelSite,
    TreeKernelError,
    call_args,
    declarations,
    last_name,
    node_text,
    where_of,
)


class ArrayOps(Protocol):
    """The array library a launch site is evaluated with: MLX's names, that library's arrays and dtypes."""

    def is_array(self, value: object) -> bool: ...
    def is_dtype(self, value: object) -> bool: ...
    def dtype_named(self, name: str) -> object | None: ...
    def dtype_name(self, dtype: object) -> str: ...
    def query(self, array, method: str) -> object: ...
    def scalar(self, value: float): ...
    def astype(self, array, dtype): ...
    def unary(self, name: str, array): ...
    def binary(self, name: str, a, b): ...
    def clip(self, array, lo, hi): ...
    def compile(self, function: Callable, shapeless: bool) -> Callable: ...
    def contiguous(self, array): ...


_UNARY = ("exp", "log1p", "log", "negative", "sigmoid", "abs")
_BINARY = ("add", "subtract", "multiply", "divide", "maximum", "minimum")


class TorchOps:
    """torch tensors; a compiled lambda runs op by op (torch has no mx.compile)."""

    _unary: ClassVar[dict[str, Callable]] = {
        "exp": torch.exp,
        "log1p": torch.log1p,
        "log": torch.log,
        "negative": torch.neg,
        "sigmoid": torch.sigmoid,
        "abs": torch.abs,
    }
    _binary: ClassVar[dict[str, Callable]] = {
        "add": torch.add,
        "subtract": torch.sub,
        "multiply": torch.mul,
        "divide": torch.div,
        "maximum": torch.maximum,
        "minimum": torch.minimum,
    }

    def is_array(self, value):
        return isinstance(value, torch.Tensor)

    def is_dtype(self, value):
        return isinstance(value, torch.dtype)

    def dtype_named(self, name):
        return MLX_DTYPES.get(name)

    def dtype_name(self, dtype):
        return TYPE_STRING.get(dtype, str(dtype))

    def query(self, array, method):
        return {
            "shape": lambda: tuple(array.shape),
            "dtype": lambda: array.dtype,
            "ndim": array.dim,
            "size": array.numel,
        }[method]()

    def scalar(self, value):
        return torch.tensor(float(value), dtype=torch.float32)

    def astype(self, array, dtype):
        return array.to(dtype)

    def unary(self, name, array):
        return self._unary[name](array)

    def binary(self, name, a, b):
        return self._binary[name](a, b.to(a.device))

    def clip(self, array, lo, hi):
        return torch.minimum(torch.maximum(array, lo.to(array.device)), hi.to(array.device))

    def compile(self, function, shapeless):
        return function

    def contiguous(self, array):
        return array.contiguous()


TORCH_OPS = TorchOps()


@dataclass(frozen=True)
class EvaluatedLaunch:
    """A launch site evaluated with some backend: its input arrays, output shapes and dtypes, template, geometry."""

    inputs: tuple[object, ...]
    output_shapes: tuple[tuple[int, ...], ...]
    output_dtypes: tuple[object, ...]
    template_values: tuple[tuple[str, object], ...]
    grid: tuple[int, int, int]
    threadgroup: tuple[int, int, int]
    dt_chain: tuple[str, ...]


def bind_launch(kernel: KernelSite, args: dict[str, object]) -> BoundLaunch:
    """The kernel's launch for the launcher's arguments (torch tensors and floats, by parameter name)."""
    site = evaluate_launch(kernel, args, TORCH_OPS)
    device = site.inputs[0].device
    outputs = tuple(
        torch.empty(s, dtype=d, device=device) for s, d in zip(site.output_shapes, site.output_dtypes, strict=True)
    )
    return BoundLaunch(kernel, site.inputs, outputs, site.template_values, site.grid, site.threadgroup, site.dt_chain)


def evaluate_launch(kernel: KernelSite, args: dict[str, object], ops: ArrayOps) -> EvaluatedLaunch:
    """Run the kernel's launch site on the launcher's arguments with `ops`'s arrays."""
    return _Interpreter(kernel, args, ops).bind()


class _Unreadable(Exception):
    """An expression the interpreter does not evaluate."""

    def __init__(self, node: tree_sitter.Node, why: str):
        super().__init__(why)
        self.node = node


@dataclass
class _Frame:
    """Local values of one interpreted function."""

    values: dict[str, object]
    declared: dict[str, tree_sitter.Node]


class _Interpreter:
    """Evaluates the launch site's C++ on torch values: the subset that sets up an MLX kernel launch."""

    def __init__(self, kernel: KernelSite, args: dict[str, object], ops: ArrayOps):
        self.kernel = kernel
        self.site = kernel.launch
        self.array_ops = ops
        self.ops: list[str] = []
        self.frame = _Frame(dict(args), declarations(self.site.function))
        self.missing = {p for p in self.site.function.params if p not in args}

    def bind(self) -> EvaluatedLaunch:
        site = self.site
        reads = [
            f"{n}_{k}"
            for n in self.kernel.input_names
            for k in ("shape", "strides", "ndim")
            if f"{n}_{k}" in self.kernel.source
        ]
        if reads:
            raise TreeKernelError(
                f"{self.kernel.source_where}: the kernel reads {', '.join(reads)}, which this wrapper does not pass"
            )
        try:
            inputs, chain = [], ()
            for name, node in zip(self.kernel.input_names, site.inputs, strict=True):
                self.ops = []
                inputs.append(self.array_ops.contiguous(self._array(self.eval(node, self.frame), node)))
                if name == "dt":
                    chain = tuple(self.ops)
            shapes = tuple(tuple(int(v) for v in self.eval(n, self.frame)) for n in site.output_shapes)
            dtypes = tuple(self.eval(n, self.frame) for n in site.output_dtypes)
            template = tuple((name, self.eval(n, self.frame)) for name, n in site.template_args)
            grid = tuple(int(self.eval(n, self.frame)) for n in site.grid)
            block = tuple(int(self.eval(n, self.frame)) for n in site.threadgroup)
        except _Unreadable as error:
            where = where_of(self.site.function.where.path, error.node)
            raise TreeKernelError(
                f"cannot read the call site at {where}: {error} in `{node_text(error.node)}`"
            ) from None
        for name, dtype in zip(self.kernel.output_names, dtypes, strict=True):
            if not self.array_ops.is_dtype(dtype):
                raise TreeKernelError(f"cannot read the call site at {site.where}: output {name} has no dtype")
        return EvaluatedLaunch(tuple(inputs), shapes, dtypes, template, grid, block, chain)

    def _array(self, value: object, node: tree_sitter.Node):
        if not self.array_ops.is_array(value):
            raise _Unreadable(node, "expected an array")
        return value

    def eval(self, node: tree_sitter.Node, frame: _Frame) -> object:
        kind = node.type
        if kind in ("parenthesized_expression", "argument_list") and len(node.named_children) == 1:
            return self.eval(node.named_children[0], frame)
        if kind == "number_literal":
            text = node_text(node).rstrip("fFuUlL")
            return float(text) if any(c in text for c in ".eE") else int(text, 0)
        if kind in ("true", "false"):
            return kind == "true"
        if kind in ("identifier", "qualified_identifier"):
            return self.lookup(node, frame)
        if kind == "field_expression":
            base = self.eval(node.child_by_field_name("argument"), frame)
            if node_text(node.child_by_field_name("field")) == "inner" and self.array_ops.is_array(base):
                return base
            raise _Unreadable(node, "unsupported member")
        if kind == "subscript_expression":
            base = self.eval(node.child_by_field_name("argument"), frame)
            index = self.eval(node.child_by_field_name("indices").named_children[0], frame)
            return base[index]
        if kind == "binary_expression":
            return self.binary(node, frame)
        if kind == "unary_expression" and node_text(node.child_by_field_name("operator")) == "-":
            return -self.eval(node.child_by_field_name("argument"), frame)
        if kind == "cast_expression":
            return self.eval(node.child_by_field_name("value"), frame)
        if kind in ("initializer_list", "compound_literal_expression"):
            items = node if kind == "initializer_list" else node.child_by_field_name("value")
            return [self.eval(c, frame) for c in items.named_children if c.type != "comment"]
        if kind == "call_expression":
            return self.call(node, frame)
        if kind == "lambda_expression":
            return self.lambda_value(node, frame)
        raise _Unreadable(node, f"unsupported {kind}")

    def lookup(self, node: tree_sitter.Node, frame: _Frame) -> object:
        name = last_name(node)
        if name in frame.values:
            return frame.values[name]
        if name in frame.declared:
            value = self.eval(frame.declared[name], frame)
            frame.values[name] = value
            return value
        dtype = self.array_ops.dtype_named(name)
        if dtype is not None:
            return dtype
        if name in self.missing:
            raise _Unreadable(node, f"launcher parameter {name} was not given a value")
        raise _Unreadable(node, f"unknown name {name}")

    def binary(self, node: tree_sitter.Node, frame: _Frame) -> object:
        left = self.eval(node.child_by_field_name("left"), frame)
        right = self.eval(node.child_by_field_name("right"), frame)
        operator = node_text(node.child_by_field_name("operator"))
        if operator == "/" and isinstance(left, int) and isinstance(right, int):
            return int(left / right)
        table = {
            "+": lambda a, b: a + b,
            "-": lambda a, b: a - b,
            "*": lambda a, b: a * b,
            "/": lambda a, b: a / b,
            "%": lambda a, b: a % b,
        }
        if operator not in table:
            raise _Unreadable(node, f"unsupported operator {operator}")
        return table[operator](left, right)

    def call(self, node: tree_sitter.Node, frame: _Frame) -> object:
        target = node.child_by_field_name("function")
        args = call_args(node)
        if target.type == "field_expression":
            method = node_text(target.child_by_field_name("field"))
            base = self.eval(target.child_by_field_name("argument"), frame)
            if self.array_ops.is_array(base) and method in ("shape", "dtype", "ndim", "size"):
                return self.array_ops.query(base, method)
            raise _Unreadable(node, f"unsupported method {method}")
        name = last_name(target)
        if target.type == "template_function" or name.startswith("static_cast"):
            return self.eval(args[0], frame)
        if name in frame.values and callable(frame.values[name]):
            return frame.values[name](*[self.eval(a, frame) for a in args])
        if name == "compile":
            shapeless = len(args) > 1 and bool(self.eval(args[1], frame))
            return self.array_ops.compile(self.eval(args[0], frame), shapeless)
        return self.mlx_op(node, name, args, frame)

    def mlx_op(self, node, name, args, frame) -> object:
        if name in ("Shape", "make_tuple"):
            return [self.eval(a, frame) for a in args]
        if name == "array" and len(args) == 1:
            value = self.eval(args[0], frame)
            return value if self.array_ops.is_array(value) else self.array_ops.scalar(value)
        line = node.start_point.row + 1
        if name == "astype" and len(args) == 2:
            array, dtype = self._array(self.eval(args[0], frame), args[0]), self.eval(args[1], frame)
            self.ops.append(f"astype({self.array_ops.dtype_name(dtype)}) :{line}")
            return self.array_ops.astype(array, dtype)
        if name in _UNARY and len(args) == 1:
            array = self._array(self.eval(args[0], frame), args[0])
            self.ops.append(f"{name} :{line}")
            return self.array_ops.unary(name, array)
        if name in _BINARY and len(args) == 2:
            a, b = (self._array(self.eval(a, frame), a) for a in args)
            self.ops.append(f"{name} :{line}")
            return self.array_ops.binary(name, a, b)
        if name == "clip" and len(args) == 3:
            a, lo, hi = (self._array(self.eval(a, frame), a) for a in args)
            self.ops.append(f"clip :{line}")
            return self.array_ops.clip(a, lo, hi)
        function = self.kernel.functions.get(name)
        if function is not None:
            return self.invoke(function, [self.eval(a, frame) for a in args], node)
        raise _Unreadable(node, f"unsupported call {name}")

    def invoke(self, function: Function, values: list[object], node) -> object:
        if len(values) != len(function.params):
            raise _Unreadable(node, f"{function.name} takes {len(function.params)} arguments")
        frame = _Frame(dict(zip(function.params, values, strict=True)), declarations(function))
        return self.run_body(function.body, frame, node)

    def run_body(self, body: tree_sitter.Node, frame: _Frame, node) -> object:
        """Statements of a body in order: declarations, assignments, a return."""
        for statement in body.named_children:
            if statement.type == "comment":
                continue
            if statement.type == "declaration":
                for declarator in statement.children_by_field_name("declarator"):
                    value = declarator.child_by_field_name("value")
                    names = [
                        n
                        for n in descendants(declarator.child_by_field_name("declarator") or declarator)
                        if n.type == "identifier"
                    ]
                    if value is not None and names:
                        frame.values[node_text(names[-1])] = self.eval(value, frame)
            elif statement.type == "expression_statement":
                expression = statement.named_children[0]
                if expression.type != "assignment_expression":
                    raise _Unreadable(expression, "unsupported statement")
                frame.values[node_text(expression.child_by_field_name("left"))] = self.eval(
                    expression.child_by_field_name("right"), frame
                )
            elif statement.type == "return_statement":
                return self.eval(statement.named_children[0], frame)
            else:
                raise _Unreadable(statement, f"unsupported {statement.type}")
        raise _Unreadable(node, "function body without a return")

    def lambda_value(self, node: tree_sitter.Node, frame: _Frame) -> Callable[..., object]:
        declarator = node.child_by_field_name("declarator")
        params = []
        if declarator is not None:
            for param in declarator.child_by_field_name("parameters").named_children:
                names = [n for n in descendants(param) if n.type == "identifier"]
                params.append(node_text(names[-1]))
        body = node.child_by_field_name("body")

        def run(*values: object) -> object:
            inner = _Frame(dict(frame.values) | dict(zip(params, values, strict=True)), {})
            return self.run_body(body, inner, node)

        return run
