"""codemods: reviewable, provable codemods for Rust, C++ and Python trees.

The library surface other refactor scripts use::

    from codemods import ItemTarget, Recipe, plan_recipe, render_diff, write_plan

    recipe = Recipe(id="my-cleanup", summary="...", deletions=(ItemTarget(...),))
    plan = plan_recipe(root, recipe)          # never writes, never raises on user input
    print(render_diff(plan))                  # review
    write_plan(plan)                          # atomic, all files or none; PlanRefused if plan.blocking

Part of a plan, as `codemod apply --skip/--accept/--interactive` choose it::

    from codemods import changes_of, plan_subset

    ids = [change.id for change in changes_of(plan)]      # item-level changes, named by origin
    subset = plan_subset(plan, skip=[ids[0]])              # re-checked without them
    subset.plan.blocking, subset.new_findings, subset.needed_by

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
    edits = Rewrite(call, "layers::$F($Q, $$$REST)").edits("src/a.rs", source)   # tree optional
    new_source = apply_edits(source, edits)                # ValueError if two edits overlap
    new_source = replace_all(source, None, call, "layers::$F($Q, $$$REST)")   # the same, in one call

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
    "Edit": "codemods.edit.values",
    "Finding": "codemods.edit.values",
    "FileChange": "codemods.edit.splice",
    "apply_edits": "codemods.edit.splice",
    "WriteRefused": "codemods.write.atomic",
    "Plan": "codemods.plan.planner",
    "PlanSettings": "codemods.plan.planner",
    "PlanRefused": "codemods.write.run",
    "RunResult": "codemods.write.run",
    "apply_recipe": "codemods.write.run",
    "plan_recipe": "codemods.plan.planner",
    "plan_subset": "codemods.plan.subset",
    "changes_of": "codemods.plan.subset",
    "Change": "codemods.plan.subset",
    "Subset": "codemods.plan.subset",
    "USAGE_ERROR": "codemods.plan.planner",
    "unified_diff": "codemods.report.diff",
    "render_diff": "codemods.report.diff",
    "write_plan": "codemods.write.run",
    "Match": "codemods.pattern",
    "Pattern": "codemods.pattern",
    "PatternError": "codemods.pattern",
    "Rewrite": "codemods.pattern",
    "replace_all": "codemods.pattern",
    "ItemTarget": "codemods.plan.recipe",
    "Parameter": "codemods.plan.recipe",
    "PatternRewrite": "codemods.plan.recipe",
    "Recipe": "codemods.plan.recipe",
    "RecipeError": "codemods.plan.loader",
    "RecipeInputError": "codemods.plan.recipe",
    "Rewording": "codemods.plan.recipe",
    "Insertion": "codemods.plan.recipe",
    "StepResult": "codemods.plan.recipe",
    "Workspace": "codemods.plan.recipe",
    "load_recipe": "codemods.plan.loader",
}

if TYPE_CHECKING:
    from codemods.edit.splice import FileChange, apply_edits
    from codemods.edit.values import Edit, Finding
    from codemods.pattern import Match, Pattern, PatternError, Rewrite, replace_all
    from codemods.plan.loader import RecipeError, load_recipe
    from codemods.plan.planner import USAGE_ERROR, Plan, PlanSettings, plan_recipe
    from codemods.plan.recipe import (Insertion, ItemTarget, Parameter, PatternRewrite, Recipe, RecipeInputError,
                                      Rewording, StepResult, Workspace)
    from codemods.plan.subset import Change, Subset, changes_of, plan_subset
    from codemods.report.diff import render_diff, unified_diff
    from codemods.write.atomic import WriteRefused
    from codemods.write.run import PlanRefused, RunResult, apply_recipe, write_plan


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'codemods' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "USAGE_ERROR",
    "Change",
    "Edit",
    "FileChange",
    "Finding",
    "Insertion",
    "ItemTarget",
    "Match",
    "Parameter",
    "Pattern",
    "PatternError",
    "PatternRewrite",
    "Plan",
    "PlanRefused",
    "PlanSettings",
    "Recipe",
    "RecipeError",
    "RecipeInputError",
    "Rewording",
    "RunResult",
    "StepResult",
    "Subset",
    "Workspace",
    "WriteRefused",
    "apply_edits",
    "apply_recipe",
    "changes_of",
    "load_recipe",
    "plan_recipe",
    "plan_subset",
    "render_diff",
    "replace_all",
    "unified_diff",
    "write_plan",
]
