"""Writing part of a plan: lock, recovery, plan, choose the changes, check the subset, write.

`apply_selected` is `apply_recipe` with a choice between planning and
writing: `choose` gets the whole plan and returns the changes to skip (the
`--accept/--skip` selection, or the terminal walk of `--interactive`), or
None to write nothing. The tree's lock is held throughout, so nothing else
writes while a reviewer decides. The subset is checked again
(`plan_subset`) and written by the same all-or-nothing journaled writer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Collection, Mapping

from codemods.plan.planner import Plan, plan_recipe, usage_problem
from codemods.plan.recipe import Recipe
from codemods.plan.subset import Subset, plan_subset
from codemods.write.run import RunResult


def apply_selected(root: Path, recipe: Recipe, choose: Callable[[Plan], Collection[str] | None], *,
                   dry_run: bool = False, allow_dangling: bool = False, allow_unreworded: bool = False,
                   strict: bool = False, options: Mapping[str, object] | None = None) -> tuple[RunResult, Subset | None]:
    """Plan `recipe` on `root`, skip the changes `choose(plan)` names and, unless `dry_run`, the
    subset is blocked or `choose` returned None, write the rest.

    Returns the run (its plan is the subset's, or the whole plan when nothing
    was chosen) and the subset. Never raises on user input or a failed write;
    a KeyboardInterrupt raised by `choose` propagates with nothing written.
    """
    from codemods.write.atomic import TreeLocked, WriteFailed, WriteRefused, write_changes
    from codemods.write.journal import tree_lock, recover

    root = Path(root)
    settings = {"allow_dangling": allow_dangling, "allow_unreworded": allow_unreworded, "strict": strict,
                "options": dict(options or {})}
    if usage_problem(root, recipe, settings["options"]) is not None or dry_run:
        plan = plan_recipe(root, recipe, **settings)
        return _chosen(root, plan, choose, dry_run=True)
    try:
        with tree_lock(root) as held:
            recovery = recover(root)
            recovered = f"recovered: {recovery.message}" if recovery.action != "none" else None
            if recovery.refused:
                return RunResult(root, False, None, error=f"recovery refused: {recovery.message}"), None
            run, subset = _chosen(root, plan_recipe(root, recipe, **settings), choose, dry_run=False)
            if subset is None or run.plan.blocking or not run.plan.changes:
                return RunResult(root, False, run.plan, recovery=recovered), subset
            try:
                write_changes(root, list(run.plan.changes), lock=held)
            except WriteRefused as refused:
                return RunResult(root, False, run.plan, refusals=tuple(refused.findings), recovery=recovered), subset
            except WriteFailed as failed:
                return RunResult(root, False, run.plan, error=str(failed), recovery=recovered), subset
            return RunResult(root, False, run.plan, written=True, recovery=recovered), subset
    except TreeLocked as locked:
        return RunResult(root, False, None, error=str(locked)), None
    except OSError as error:
        return RunResult(root, False, None,
                         error=f"cannot lock {root} for writing: {error.strerror or error}; nothing written"), None


def _chosen(root: Path, plan: Plan, choose, *, dry_run: bool) -> tuple[RunResult, Subset | None]:
    """The run of the subset `choose` picks of `plan` (the whole plan, unchecked, when it picks
    nothing or the plan is a usage error)."""
    if plan.basis is None:
        return RunResult(root, dry_run, plan), None
    skipped = choose(plan)
    if skipped is None:
        return RunResult(root, dry_run, plan), None
    subset = plan_subset(plan, skipped)
    return RunResult(root, dry_run, subset.plan), subset


__all__ = ["apply_selected"]
