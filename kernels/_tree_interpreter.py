"""The interpreter behind TreeKernel.bind: evaluates a launch site's C++ on torch values.

It covers the subset that sets up an MLX custom-kernel launch: integer and
dtype declarations, shape/dtype queries on the launcher's arrays, `astype`
and the elementwise ops of a compiled compute_dt lambda (run op by op in
torch), calls into other functions of the tree, braced lists and
`make_tuple`.  Anything else is an `_Unreadable` expression, which `bind`
turns into a one-line TreeKernelError naming path:line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import tree_sitter

from codemods.parse import descendants
from kernels.tree import (
    MLX_DTYPES,
    TYPE_STRING,
    BoundLaunch,
    TreeKernel,
    TreeKernelError,
    _args,
    _declarations,
    _Function,
    _last_name,
    _text,
    _where,
)


def bind_launch(kernel: TreeKernel, args: dict[str, object]) -> BoundLaunch:
    """The kernel's launch for the launcher's arguments (by parameter name)."""
    return _Interpreter(kernel, args).bind()


class _Unreadable(Exception):
    """An expression the interpreter does not evaluate."""

    def __init__(self, node: tree_sitter.Node, why: str):
        super().__init__(why)
        self.node = node


_UNARY_OPS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "exp": torch.exp,
    "log1p": torch.log1p,
    "log": torch.log,
    "negative": torch.neg,
    "sigmoid": torch.sigmoid,
    "abs": torch.abs,
}
_BINARY_OPS: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "add": torch.add,
    "subtract": torch.sub,
    "multiply": torch.mul,
    "divide": torch.div,
    "maximum": torch.maximum,
    "minimum": torch.minimum,
}


@dataclass
class _Frame:
    """Local values of one interpreted function."""

    values: dict[str, object]
    declared: dict[str, tree_sitter.Node]


class _Interpreter:
    """Evaluates the launch site's C++ on torch values: the subset that sets up an MLX kernel launch."""

    def __init__(self, kernel: TreeKernel, args: dict[str, object]):
        self.kernel = kernel
        self.site = kernel.launch
        self.ops: list[str] = []
        self.frame = _Frame(dict(args), _declarations(self.site.function))
        self.missing = {p for p in self.site.function.params if p not in args}

    def bind(self) -> BoundLaunch:
        site = self.site
        reads = [f"{n}_{k}" for n in self.kernel.input_names for k in ("shape", "strides", "ndim") if f"{n}_{k}" in self.kernel.source]
        if reads:
            raise TreeKernelError(f"{self.kernel.source_where}: the kernel reads {', '.join(reads)}, which this wrapper does not pass")
        try:
            inputs, chain = [], ()
            for name, node in zip(self.kernel.input_names, site.inputs, strict=True):
                self.ops = []
                inputs.append(_as_tensor(self.eval(node, self.frame), node).contiguous())
                if name == "dt":
                    chain = tuple(self.ops)
            shapes = [self.eval(n, self.frame) for n in site.output_shapes]
            dtypes = [self.eval(n, self.frame) for n in site.output_dtypes]
            template = tuple((name, self.eval(n, self.frame)) for name, n in site.template_args)
            grid = tuple(int(self.eval(n, self.frame)) for n in site.grid)
            block = tuple(int(self.eval(n, self.frame)) for n in site.threadgroup)
        except _Unreadable as error:
            where = _where(self.site.function.where.path, error.node)
            raise TreeKernelError(f"cannot read the call site at {where}: {error} in `{_text(error.node)}`") from None
        for name, dtype in zip(self.kernel.output_names, dtypes, strict=True):
            if not isinstance(dtype, torch.dtype):
                raise TreeKernelError(f"cannot read the call site at {site.where}: output {name} has no dtype")
        device = inputs[0].device
        outputs = tuple(torch.empty(tuple(s), dtype=d, device=device) for s, d in zip(shapes, dtypes, strict=True))
        return BoundLaunch(self.kernel, tuple(inputs), outputs, template, grid, block, chain)

    def eval(self, node: tree_sitter.Node, frame: _Frame) -> object:
        kind = node.type
        if kind in ("parenthesized_expression", "argument_list") and len(node.named_children) == 1:
            return self.eval(node.named_children[0], frame)
        if kind == "number_literal":
            text = _text(node).rstrip("fFuUlL")
            return float(text) if any(c in text for c in ".eE") else int(text, 0)
        if kind in ("true", "false"):
            return kind == "true"
        if kind in ("identifier", "qualified_identifier"):
            return self.lookup(node, frame)
        if kind == "field_expression":
            base = self.eval(node.child_by_field_name("argument"), frame)
            if _text(node.child_by_field_name("field")) == "inner" and isinstance(base, torch.Tensor):
                return base
            raise _Unreadable(node, "unsupported member")
        if kind == "subscript_expression":
            base = self.eval(node.child_by_field_name("argument"), frame)
            index = self.eval(node.child_by_field_name("indices").named_children[0], frame)
            return base[index]
        if kind == "binary_expression":
            return self.binary(node, frame)
        if kind == "unary_expression" and _text(node.child_by_field_name("operator")) == "-":
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
        name = _last_name(node)
        if name in frame.values:
            return frame.values[name]
        if name in frame.declared:
            value = self.eval(frame.declared[name], frame)
            frame.values[name] = value
            return value
        if name in MLX_DTYPES:
            return MLX_DTYPES[name]
        if name in self.missing:
            raise _Unreadable(node, f"launcher parameter {name} was not given a value")
        raise _Unreadable(node, f"unknown name {name}")

    def binary(self, node: tree_sitter.Node, frame: _Frame) -> object:
        left = self.eval(node.child_by_field_name("left"), frame)
        right = self.eval(node.child_by_field_name("right"), frame)
        operator = _text(node.child_by_field_name("operator"))
        if operator == "/" and isinstance(left, int) and isinstance(right, int):
            return int(left / right)
        table = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b, "%": lambda a, b: a % b}
        if operator not in table:
            raise _Unreadable(node, f"unsupported operator {operator}")
        return table[operator](left, right)

    def call(self, node: tree_sitter.Node, frame: _Frame) -> object:
        target = node.child_by_field_name("function")
        args = _args(node)
        if target.type == "field_expression":
            method = _text(target.child_by_field_name("field"))
            base = self.eval(target.child_by_field_name("argument"), frame)
            if isinstance(base, torch.Tensor) and method in ("shape", "dtype", "ndim", "size"):
                return {"shape": tuple(base.shape), "dtype": base.dtype, "ndim": base.dim(), "size": base.numel()}[method]
            raise _Unreadable(node, f"unsupported method {method}")
        name = _last_name(target)
        if target.type == "template_function" or name.startswith("static_cast"):
            return self.eval(args[0], frame)
        if name in frame.values and callable(frame.values[name]):
            return frame.values[name](*[self.eval(a, frame) for a in args])
        if name == "compile":
            return self.eval(args[0], frame)
        return self.mlx_op(node, name, args, frame)

    def mlx_op(self, node, name, args, frame) -> object:
        if name in ("Shape", "make_tuple"):
            return [self.eval(a, frame) for a in args]
        if name == "array" and len(args) == 1:
            value = self.eval(args[0], frame)
            return value if isinstance(value, torch.Tensor) else torch.tensor(float(value), dtype=torch.float32)
        line = node.start_point.row + 1
        if name == "astype" and len(args) == 2:
            tensor, dtype = _as_tensor(self.eval(args[0], frame), args[0]), self.eval(args[1], frame)
            self.ops.append(f"astype({TYPE_STRING.get(dtype, dtype)}) :{line}")
            return tensor.to(dtype)
        if name in _UNARY_OPS and len(args) == 1:
            tensor = _as_tensor(self.eval(args[0], frame), args[0])
            self.ops.append(f"{name} :{line}")
            return _UNARY_OPS[name](tensor)
        if name in _BINARY_OPS and len(args) == 2:
            a, b = (_as_tensor(self.eval(a, frame), a) for a in args)
            self.ops.append(f"{name} :{line}")
            return _BINARY_OPS[name](a, b.to(a.device))
        if name == "clip" and len(args) == 3:
            a, lo, hi = (_as_tensor(self.eval(a, frame), a) for a in args)
            self.ops.append(f"clip :{line}")
            return torch.minimum(torch.maximum(a, lo.to(a.device)), hi.to(a.device))
        function = self.kernel.functions.get(name)
        if function is not None:
            return self.invoke(function, [self.eval(a, frame) for a in args], node)
        raise _Unreadable(node, f"unsupported call {name}")

    def invoke(self, function: _Function, values: list[object], node) -> object:
        if len(values) != len(function.params):
            raise _Unreadable(node, f"{function.name} takes {len(function.params)} arguments")
        frame = _Frame(dict(zip(function.params, values, strict=True)), _declarations(function))
        return self.run_body(function.body, frame, node)

    def run_body(self, body: tree_sitter.Node, frame: _Frame, node) -> object:
        """Statements of a body in order: declarations, assignments, a return."""
        for statement in body.named_children:
            if statement.type == "comment":
                continue
            if statement.type == "declaration":
                for declarator in statement.children_by_field_name("declarator"):
                    value = declarator.child_by_field_name("value")
                    names = [n for n in descendants(declarator.child_by_field_name("declarator") or declarator) if n.type == "identifier"]
                    if value is not None and names:
                        frame.values[_text(names[-1])] = self.eval(value, frame)
            elif statement.type == "expression_statement":
                expression = statement.named_children[0]
                if expression.type != "assignment_expression":
                    raise _Unreadable(expression, "unsupported statement")
                frame.values[_text(expression.child_by_field_name("left"))] = self.eval(expression.child_by_field_name("right"), frame)
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
                params.append(_text(names[-1]))
        body = node.child_by_field_name("body")

        def run(*values: object) -> object:
            inner = _Frame(dict(frame.values) | dict(zip(params, values, strict=True)), {})
            return self.run_body(body, inner, node)

        return run


def _as_tensor(value: object, node: tree_sitter.Node) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        raise _Unreadable(node, "expected an array")
    return value
