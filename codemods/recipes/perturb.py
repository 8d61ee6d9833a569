"""A one-off mutation for the local check mlxcel #2230 asks for: scale the pooled kernel's output.

`codemod perturb ROOT --factor 1.01` makes the pooled decode route return
its output times the factor, so that the four pooled tests can be seen to
fail against their oracle. It goes through the same plan and writer as any
recipe. Never commit its result.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._edit import Edit, Finding
from .._parse import RUST, parse
from ..rust.statements import find_function, text
from ._model import Recipe, StepResult, Workspace
from .paged_compat_removal import LAYERS_RS

POOLED_ROUTE = "paged_decode_attention_pooled"


@dataclass(frozen=True)
class ScaleReturnedArray:
    """Wrap the tail expression of `function` (a Result<UniquePtr<MlxArray>, _>) to scale its output."""

    path: str
    function: str
    factor: float

    def __call__(self, workspace: Workspace) -> StepResult:
        source = workspace.read(self.path)
        if source is None:
            return StepResult(findings=(Finding(self.path, 0, 0, "missing-file", f"{self.path} not found"),))
        node = find_function(parse(source, RUST).root_node, self.function)
        body = node.child_by_field_name("body") if node is not None else None
        tail = body.named_children[-1] if body is not None and body.named_children else None
        if tail is None or tail.type.endswith("statement") or tail.type == "let_declaration":
            return StepResult(findings=(Finding(self.path, 0, 0, "shape-mismatch",
                                                f"{self.function}: no tail expression to scale"),))
        scaled = (f"({text(source, tail)})\n        .map(|out| ffi::multiply(&out, "
                  f"&ffi::from_slice_f32(&[{self.factor!r}_f32], &[1])))")
        return StepResult(edits=(Edit(self.path, tail.start_byte, tail.end_byte, scaled.encode(),
                                      f"perturb:{self.function}"),))


def perturbation_recipe(factor: float, function: str = POOLED_ROUTE, path: str = LAYERS_RS) -> Recipe:
    """A recipe that scales `function`'s returned array by `factor` (for a local check only)."""
    return Recipe(
        id="perturb-pooled-output",
        summary=f"scale the output of {function} by {factor} (local check; never commit)",
        steps=(ScaleReturnedArray(path, function, factor),),
        check_scope=(),
        expects=(path,),
    )
