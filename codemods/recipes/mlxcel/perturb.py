"""The one-off mutation mlxcel #2230 asks for as a local check: scale the pooled route's output.

`codemod apply --recipe perturb-pooled-output --param factor=1.01 ROOT`
makes the pooled decode route return its output times the factor, so that
the four pooled tests can be seen to fail against their oracle. It goes
through the same plan and writer as any recipe. Never commit its result.
"""

from __future__ import annotations

import dataclasses
import math

from codemods.edit.codes import Code
from codemods.edit.errors import RecipeInputError
from codemods.edit.values import Edit, Finding
from codemods.languages.rust.statements import find_function
from codemods.parse import RUST, node_text, parse
from codemods.config.builders import builds
from codemods.config.recipe import Parameter, Recipe, StepResult, Workspace
from codemods.recipes.mlxcel.paged_compat_removal import LAYERS_RS

POOLED_ROUTE = "paged_decode_attention_pooled"


def _factor(value: object) -> float:
    """A finite scale factor other than 1 (which would change nothing)."""
    try:
        factor = float(str(value))
    except ValueError:
        raise RecipeInputError(f"factor must be a number, not {value!r}") from None
    if not math.isfinite(factor):
        raise RecipeInputError(f"factor must be a finite number, not {value!r}")
    if factor == 1.0:
        raise RecipeInputError("factor 1 changes nothing; give another, e.g. --param factor=1.01")
    return factor


def _function(value: object) -> str:
    name = str(value)
    if not name.isidentifier():
        raise RecipeInputError(f"function must be a Rust function name, not {value!r}")
    return name


FACTOR = Parameter("factor", load=_factor, default="1.01", help="scale factor for the output")
FUNCTION = Parameter(
    "function",
    load=_function,
    default=POOLED_ROUTE,
    help="the Rust function of layers.rs whose returned array is scaled",
)


@dataclasses.dataclass(frozen=True)
class ScaleReturnedArray:
    """Wrap the tail expression of the function the `function` option names (a
    Result<UniquePtr<MlxArray>, _>) in `path` to scale its output by the `factor` option."""

    path: str

    def __call__(self, workspace: Workspace) -> StepResult:
        factor, function = workspace.options["factor"], _function(workspace.options["function"])
        source = workspace.read(self.path)
        if source is None:
            return StepResult(findings=(Finding(self.path, 0, 0, Code.MISSING_FILE, f"{self.path} not found"),))
        node = find_function(parse(source, RUST).root_node, function)
        if node is None:
            raise RecipeInputError(f"--param function={function}: no function {function} in {self.path}")
        body = node.child_by_field_name("body")
        tail = body.named_children[-1] if body is not None and body.named_children else None
        if tail is None or tail.type.endswith("statement") or tail.type == "let_declaration":
            return StepResult(
                findings=(Finding(self.path, 0, 0, Code.SHAPE_MISMATCH, f"{function}: no tail expression to scale"),)
            )
        scaled = (
            f"({node_text(tail)})\n        .map(|out| ffi::multiply(&out, "
            f"&ffi::from_slice_f32(&[{factor!r}_f32], &[1])))"
        )
        return StepResult(
            edits=(Edit(self.path, tail.start_byte, tail.end_byte, scaled.encode(), f"perturb:{function}"),)
        )


@builds("perturb-pooled-output")
def build(recipe: Recipe) -> Recipe:
    """perturb.toml's recipe with its step and its two parameters."""
    return dataclasses.replace(
        recipe, steps=(ScaleReturnedArray(LAYERS_RS),), parameters=(FACTOR, FUNCTION), expects=(LAYERS_RS,)
    )
