"""mlxcel-codemods: reviewable, provable codemods for Rust, C++ and Python trees.

The library surface other refactor scripts use::

    from codemods import ItemTarget, Recipe, plan_recipe, render_diff, write_plan

    recipe = Recipe(id="my-cleanup", summary="...", deletions=(ItemTarget(...),))
    plan = plan_recipe(root, recipe)          # never writes, never raises on user input
    print(render_diff(plan))                  # review
    if not plan.blocking:
        write_plan(plan)                      # atomic, all files or none
"""

from __future__ import annotations

from ._apply import FileChange, WriteRefused, write_changes
from ._diff import unified_diff
from ._edit import Edit, Finding
from ._plan import Plan, plan_recipe
from .recipes import ItemTarget, Recipe, RecipeError, Rewording, StepResult, Workspace, load_recipe


def render_diff(plan: Plan) -> str:
    """The unified diff of every change in a plan, a/ and b/ paths relative to its root."""
    return "".join(unified_diff(c.path, c.before, c.after) for c in plan.changes)


def write_plan(plan: Plan) -> None:
    """Write a plan's changes atomically (refuses if any file changed since it was read)."""
    write_changes(plan.root, list(plan.changes))


__all__ = [
    "Edit",
    "FileChange",
    "Finding",
    "ItemTarget",
    "Plan",
    "Recipe",
    "RecipeError",
    "Rewording",
    "StepResult",
    "Workspace",
    "WriteRefused",
    "load_recipe",
    "plan_recipe",
    "render_diff",
    "unified_diff",
    "write_plan",
]
