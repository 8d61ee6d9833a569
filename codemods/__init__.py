"""mlxcel-codemods: reviewable, provable codemods for Rust, C++ and Python trees.

The library surface other refactor scripts use::

    from codemods import ItemTarget, Recipe, plan_recipe, render_diff, write_plan

    recipe = Recipe(id="my-cleanup", summary="...", deletions=(ItemTarget(...),))
    plan = plan_recipe(root, recipe)          # never writes, never raises on user input
    print(render_diff(plan))                  # review
    if not plan.blocking:
        write_plan(plan)                      # atomic, all files or none

or, in one call as `codemod apply` does it (the tree's lock held, and a write
an earlier run left half done finished or rolled back first)::

    from codemods import apply_recipe

    run = apply_recipe(root, recipe, dry_run=False)   # a frozen RunResult
    run.plan, run.written, run.blocking, run.error, run.recovery

Structural patterns (Rust and C++; `$X` one node, `$$$XS` a sequence)::

    from codemods import Pattern, Rewrite

    call = Pattern("crate::layers::$F(&$Q, $$$REST)", "rust")
    for match in call.find_all(source, tree.root_node):   # tree: tree-sitter parse of source
        print(match.text("F"))
    edits = Rewrite(call, "layers::$F($Q, $$$REST)").edits("src/a.rs", source, tree.root_node)

Wrong input is a blocking finding, never an exception: a root that does not
exist or holds none of the recipe's paths, invalid recipe data (an unknown
kind, an invalid dead-symbol pattern), an option the recipe does not take, or
an input a step rejects all give a plan with no changes and one finding of
code `USAGE_ERROR` ("usage-error"); a recipe step signals such input by
raising `RecipeInputError`. `load_recipe` raises `RecipeError` for an unknown
id or a recipe file that does not load or match the schema (docs/recipes.md).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# Public name -> module that defines it. Imported on first use, so that
# `codemod check` (a pre-commit hook) does not pay for the whole engine.
_EXPORTS = {
    "Edit": "._edit",
    "Finding": "._edit",
    "FileChange": "._splice",
    "WriteRefused": "._apply",
    "Plan": "._plan",
    "RunResult": "._run",
    "apply_recipe": "._run",
    "plan_recipe": "._plan",
    "USAGE_ERROR": "._plan",
    "unified_diff": "._diff",
    "Match": ".pattern",
    "Pattern": ".pattern",
    "PatternError": ".pattern",
    "Rewrite": ".pattern",
    "replace_all": ".pattern",
    "ItemTarget": ".recipes",
    "Parameter": ".recipes",
    "PatternRewrite": ".recipes",
    "Recipe": ".recipes",
    "RecipeError": ".recipes",
    "RecipeInputError": ".recipes",
    "Rewording": ".recipes",
    "StepResult": ".recipes",
    "Workspace": ".recipes",
    "load_recipe": ".recipes",
}

if TYPE_CHECKING:
    from ._apply import WriteRefused
    from ._diff import unified_diff
    from ._edit import Edit, Finding
    from ._plan import USAGE_ERROR, Plan, plan_recipe
    from ._run import RunResult, apply_recipe
    from ._splice import FileChange
    from .pattern import Match, Pattern, PatternError, Rewrite, replace_all
    from .recipes import (ItemTarget, Parameter, PatternRewrite, Recipe, RecipeError, RecipeInputError, Rewording,
                          StepResult, Workspace, load_recipe)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'codemods' has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)


def render_diff(plan: Plan) -> str:
    """The unified diff of every change in a plan, a/ and b/ paths relative to its root."""
    from ._diff import unified_diff

    return "".join(unified_diff(c.path, c.before, c.after, edits=c.edits) for c in plan.changes)


def write_plan(plan: Plan) -> None:
    """Write a plan's changes atomically, holding the tree's lock (refuses if any file changed
    since it was read).

    A write an earlier run left half done is finished or rolled back first; the
    plan, made on the half-written tree, is then refused as stale (finding
    "stale-plan": plan again), and if recovery cannot be done it is refused
    with the reason (finding "recovery-refused"). `apply_recipe` recovers
    before planning, so it never meets either.
    """
    from ._apply import WriteRefused, write_changes
    from ._edit import Finding
    from ._journal import recover, tree_lock

    with tree_lock(plan.root) as held:
        recovery = recover(plan.root)
        if recovery.refused:
            raise WriteRefused([Finding("", 0, 0, "recovery-refused", recovery.message)])
        if recovery.action in ("completed", "rolled-back"):
            raise WriteRefused([Finding("", 0, 0, "stale-plan", f"{recovery.message}; plan again")])
        write_changes(plan.root, list(plan.changes), lock=held)


__all__ = [
    "USAGE_ERROR",
    "Edit",
    "FileChange",
    "Finding",
    "ItemTarget",
    "Match",
    "Parameter",
    "Pattern",
    "PatternError",
    "PatternRewrite",
    "Plan",
    "Recipe",
    "RecipeError",
    "RecipeInputError",
    "Rewording",
    "RunResult",
    "StepResult",
    "Workspace",
    "WriteRefused",
    "apply_recipe",
    "load_recipe",
    "plan_recipe",
    "render_diff",
    "replace_all",
    "unified_diff",
    "write_plan",
]
