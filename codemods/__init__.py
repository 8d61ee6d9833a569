"""codemods: reviewable, provable codemods for Rust, C++ and Python trees.

The public surface is `__all__`; every other module is internal and may change. The names
are typed (the package ships `py.typed`, and `make test` type-checks them strictly)::

    from codemods import ItemTarget, Recipe, plan_recipe, render_diff, write_plan

    recipe = Recipe(id="my-cleanup", summary="...", deletions=(ItemTarget(...),))
    plan = plan_recipe(root, recipe)          # never writes, never raises on user input
    print(render_diff(plan))                  # review
    write_plan(plan)                          # atomic, all files or none; PlanRefused (a WriteRefused)
                                              # if plan.blocking, unless allow_blocking=True

Findings a script acts on: each has a code of the catalogue `Code` (docs/findings.md), the
`ItemTarget` it is about (`finding.target`, where it has one) and a place; `plan.to_dict()`
is the whole plan as one JSON document (`plan.to_json()`: the same as text), and an
`apply_recipe` run's `to_dict()` / `to_json()` add what the run did: exactly what `codemod
apply --json` prints::

    from codemods import Code

    missing = [f.target for f in plan.findings if f.code == Code.NO_SUCH_ITEM]

Part of a plan, as `codemod apply --skip/--accept/--interactive` choose it::

    from codemods import Change, Subset, changes_of, plan_subset

    changes: tuple[Change, ...] = changes_of(plan)         # item-level changes, stable slug ids
    subset: Subset = plan_subset(plan, skip=[changes[0].id])  # re-checked without them
    subset.plan.blocking, subset.new_findings, subset.needed_by

or, in one call as `codemod apply` does it (the tree's lock held, and a write
an earlier run left half done finished or rolled back first)::

    from codemods import apply_recipe

    run = apply_recipe(root, recipe, dry_run=False)   # a frozen RunResult
    run.plan, run.written, run.blocking, run.error, run.recovery

Structural patterns (Rust and C++; `$X` one node, `$$$XS` a sequence)::

    from codemods import Pattern, Rewrite, apply_edits, parse_source, replace_all

    call = Pattern("crate::layers::$F(&$Q, $$$REST)", "rust")
    for match in call.find_all(source):                    # source: the file's bytes
        print(match.text("F"))
    tree = parse_source(source, "rust")                    # tree-sitter, cached per source
    for match in call.find_all(source, tree.root_node):    # the same, on a tree you hold
        print(match.text("F"))
    edits = Rewrite(call, "layers::$F($Q, $$$REST)").edits("src/a.rs", source)
    new_source = apply_edits(source, edits)                # EditError if two edits overlap
    new_source = replace_all(source, None, call, "layers::$F($Q, $$$REST)")   # the same, in one call

Errors: wrong input to a plan is a blocking finding, never an exception: a root that does not
exist or holds none of the recipe's paths, invalid recipe data (an unknown kind, an invalid
dead-symbol pattern), an option the recipe does not take, or an input a step rejects (a step
raises `RecipeInputError`) give a plan with no changes and one finding of code `usage-error`;
a step that raises anything else gives one of code `step-failed`. What is raised is one family,
`CodemodError` (each also the built-in it replaced, e.g. ValueError):

- `RecipeError`: `load_recipe` of an unknown id or a file that does not load or match the
  schema (docs/recipes.md); `Recipe(...)` with data of the wrong type or an unknown language;
- `PatternError`: `Pattern(...)` that does not parse, a replacement naming a metavariable
  the pattern does not capture, a source that is not bytes (`find_all`, `Rewrite.edits`);
- `EditError`: `Edit(...)` with a bad range, `apply_edits` of overlapping edits or a `str`;
- `LanguageError`: `parse_source` of a language without a grammar, a plug-in registered twice;
- `SelectionError`: `changes_of` / `plan_subset` of a plan without a basis, or an id that
  names no change;
- `WriteRefused` (with `findings`), `WriteFailed`, `TreeLocked`: `write_plan` / `apply_recipe`
  (whose `RunResult` carries them instead when it can); `PlanRefused`, a `WriteRefused`:
  `write_plan` of a plan with blocking findings (under the settings, `PlanSettings`, it was
  made with), unless `allow_blocking=True`.

Proof by the project's own build before writing (`codemod apply --verify`; docs/verify.md)::

    from codemods import verify_plan

    proof = verify_plan(plan)                 # cargo check / compile_commands.json / Python, detected
    proof.plan.blocking                       # + a `build-error` finding per new compiler error
    proof.checks, proof.clean, proof.contradicted, proof.seconds
    run = apply_recipe(root, recipe, verify=True, trust_build=False)   # the same, before the write

`verify_plan` returns a `Verification`: the plan with its new findings, and a `CheckRun` per
check (the command, its exit codes on the planned tree and the tree as it is, the time, and
its `new_errors`, each a `BuildError`: the compiler's path, line, column and message).

A recipe inferred from a change (two trees; `codemod infer`), its TOML text and what it
cannot say::

    from codemods import infer_recipe

    inferred = infer_recipe(before_root, after_root)      # a frozen InferredRecipe
    print(inferred.toml); inferred.unexpressed            # ("path:line: why", ...)

The test harness for your own recipes: `codemods.testing.assert_recipe`.

The rest of the surface, each name once:

- `CATALOGUE`: every `Code` with its `CodeInfo` (`meaning`, `remedy`, and `override`: the
  `codemod apply` flag and `plan_recipe` keyword that lets a blocking finding through; the
  table of docs/findings.md is made from it). `USAGE_ERROR` is `Code.USAGE_ERROR`, the code of
  the one finding of a plan that could not start (the CLI's exit 2).
- `Finding` (a path, line, column, code and message; `blocking` unless a note) and
  `FileChange` (one file's bytes before and after, with the edits between them) are what a
  `Plan` holds; `render_diff(plan)` shows all of its changes, `unified_diff(path, before,
  after)` one file's.
- A recipe's rules beside its `deletions`: `PatternRewrite` (`[[rewrite]]`: a structural
  pattern and its replacement), `Rewording` (`[[reword]]`: prose in comments, strings or
  Markdown), `Insertion` (`[[insert]]`: lines before or after an item or a pattern's matches)
  and `Parameter` (an option of `codemod apply`, `--param NAME=VALUE`).
- A recipe's own steps: each is a `Step`, a function from the `Workspace` it plans on (the
  tree's snapshot, read through its `TreeReads` once per file, with the edits planned before
  it) to a `StepResult`. `builds(ID)` registers a recipe's `RecipeBuilder`, which returns the
  recipe made from its file with its steps and parameters (docs/recipes.md); a
  `RewordingSelector` (`Recipe.select_rewordings`) picks the rewording rules that fit a tree.
- `Plan.basis`, a `PlanBasis`, is what the plan was made from (its `recipe`, the `start`
  workspace and each stage's result, `stages`), which `changes_of` and `plan_subset` read.
- `Match`: one match of a `Pattern` (`match.text("F")` is what `$F` captured);
  `descendants(node)` walks a tree-sitter node and every node below it, in source order.
- `__version__`: the installed distribution's version.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# Public name -> module that defines it. Imported on first use, so that
# `codemod check` (a pre-commit hook) does not pay for the whole engine.
_EXPORTS = {
    "CATALOGUE": "codemods.edit.codes",
    "Code": "codemods.edit.codes",
    "CodeInfo": "codemods.edit.codes",
    "CodemodError": "codemods.edit.errors",
    "EditError": "codemods.edit.errors",
    "LanguageError": "codemods.edit.errors",
    "PatternError": "codemods.edit.errors",
    "PlanRefused": "codemods.edit.refusals",
    "RecipeError": "codemods.edit.errors",
    "RecipeInputError": "codemods.edit.errors",
    "SelectionError": "codemods.edit.errors",
    "TreeLocked": "codemods.edit.errors",
    "WriteFailed": "codemods.edit.errors",
    "WriteRefused": "codemods.edit.refusals",
    "Edit": "codemods.edit.values",
    "Finding": "codemods.edit.values",
    "ItemTarget": "codemods.edit.values",
    "FileChange": "codemods.edit.splice",
    "apply_edits": "codemods.edit.splice",
    "render_diff": "codemods.edit.diff",
    "unified_diff": "codemods.edit.diff",
    "descendants": "codemods.parse",
    "parse_source": "codemods.parse",
    "Match": "codemods.pattern",
    "Pattern": "codemods.pattern",
    "Rewrite": "codemods.pattern",
    "replace_all": "codemods.pattern",
    "Insertion": "codemods.config.recipe",
    "Parameter": "codemods.config.recipe",
    "PatternRewrite": "codemods.config.recipe",
    "Recipe": "codemods.config.recipe",
    "Rewording": "codemods.config.recipe",
    "StepResult": "codemods.config.recipe",
    "Workspace": "codemods.config.recipe",
    "RewordingSelector": "codemods.config.recipe",
    "Step": "codemods.config.recipe",
    "TreeReads": "codemods.config.recipe",
    "load_recipe": "codemods.config.loader",
    "RecipeBuilder": "codemods.config.builders",
    "builds": "codemods.config.builders",
    "USAGE_ERROR": "codemods.plan.planner",
    "Plan": "codemods.plan.planner",
    "PlanBasis": "codemods.plan.planner",
    "PlanSettings": "codemods.plan.planner",
    "plan_recipe": "codemods.plan.planner",
    "InferredRecipe": "codemods.plan.infer",
    "infer_recipe": "codemods.plan.infer",
    "Change": "codemods.plan.changes",
    "Subset": "codemods.plan.subset",
    "changes_of": "codemods.plan.subset",
    "plan_subset": "codemods.plan.subset",
    "RunResult": "codemods.write.run",
    "apply_recipe": "codemods.write.run",
    "write_plan": "codemods.write.run",
    "BuildError": "codemods.write.checks",
    "CheckRun": "codemods.write.verify",
    "Verification": "codemods.write.verify",
    "verify_plan": "codemods.write.verify",
}

if TYPE_CHECKING:
    from codemods.edit.codes import CATALOGUE, Code, CodeInfo
    from codemods.edit.diff import render_diff, unified_diff
    from codemods.edit.errors import (
        CodemodError,
        EditError,
        LanguageError,
        PatternError,
        RecipeError,
        RecipeInputError,
        SelectionError,
        TreeLocked,
        WriteFailed,
    )
    from codemods.edit.refusals import PlanRefused, WriteRefused
    from codemods.edit.splice import FileChange, apply_edits
    from codemods.edit.values import Edit, Finding, ItemTarget
    from codemods.parse import descendants, parse_source
    from codemods.pattern import Match, Pattern, Rewrite, replace_all
    from codemods.config.builders import RecipeBuilder, builds

    from codemods.plan.infer import InferredRecipe, infer_recipe
    from codemods.config.loader import load_recipe
    from codemods.plan.planner import USAGE_ERROR, Plan, PlanBasis, PlanSettings, plan_recipe
    from codemods.config.recipe import (
        Insertion,
        Parameter,
        PatternRewrite,
        Recipe,
        Rewording,
        RewordingSelector,
        Step,
        StepResult,
        TreeReads,
        Workspace,
    )
    from codemods.plan.changes import Change
    from codemods.plan.subset import Subset, changes_of, plan_subset
    from codemods.write.run import RunResult, apply_recipe, write_plan
    from codemods.write.checks import BuildError
    from codemods.write.verify import CheckRun, Verification, verify_plan

    __version__: str


def _version() -> str:
    """The installed distribution's version, read on first use (importlib.metadata loads the
    email and socket modules, which `codemod check` and a recipe's imports should not pay for)."""
    # here: importlib.metadata loads email and socket, which `codemod check` should not pay for
    from importlib.metadata import packages_distributions, version

    distributions = packages_distributions().get(__name__)
    if not distributions:  # imported from a source tree that was never installed
        return "0+unknown"
    return version(distributions[0])


def __dir__() -> list[str]:
    """The module's names with every public one (`__all__`), so that `help(codemods)`, `dir()`
    and completion list the lazy exports too."""
    return sorted({*globals(), *__all__})


def __getattr__(name: str) -> object:
    if name == "__version__":
        return _version()
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'codemods' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "CATALOGUE",
    "USAGE_ERROR",
    "BuildError",
    "Change",
    "CheckRun",
    "Code",
    "CodeInfo",
    "CodemodError",
    "Edit",
    "EditError",
    "FileChange",
    "Finding",
    "InferredRecipe",
    "Insertion",
    "ItemTarget",
    "LanguageError",
    "Match",
    "Parameter",
    "Pattern",
    "PatternError",
    "PatternRewrite",
    "Plan",
    "PlanBasis",
    "PlanRefused",
    "PlanSettings",
    "Recipe",
    "RecipeBuilder",
    "RecipeError",
    "RecipeInputError",
    "Rewording",
    "RewordingSelector",
    "Rewrite",
    "RunResult",
    "SelectionError",
    "Step",
    "StepResult",
    "Verification",
    "Subset",
    "TreeLocked",
    "TreeReads",
    "Workspace",
    "WriteFailed",
    "WriteRefused",
    "__version__",
    "apply_edits",
    "apply_recipe",
    "builds",
    "changes_of",
    "descendants",
    "infer_recipe",
    "load_recipe",
    "parse_source",
    "plan_recipe",
    "plan_subset",
    "render_diff",
    "replace_all",
    "unified_diff",
    "verify_plan",
    "write_plan",
]
