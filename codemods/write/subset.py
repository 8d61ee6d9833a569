"""Writing part of a plan: `apply_recipe` with a choice between planning and writing.

`choose` gets the whole plan and returns the changes to skip (the
`--accept/--skip` selection, or the terminal walk of `--interactive`), or
None to write nothing. The path is `run_recipe`'s, the one every write takes:
the tree's lock held throughout, so nothing else writes while a reviewer
decides; the subset checked again (`plan_subset`, under the plan's
settings) and written by the same all-or-nothing journaled writer.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Collection, Mapping

from codemods.plan.planner import Plan, PlanSettings
from codemods.config.recipe import Recipe
from codemods.plan.subset import Subset
from codemods.write.run import RunResult, run_recipe

if TYPE_CHECKING:
    from codemods.write.verify import Verification


def apply_selected(root: Path, recipe: Recipe, choose: Callable[[Plan], Collection[str] | None], *,
                   dry_run: bool = False, settings: PlanSettings = PlanSettings(),
                   options: Mapping[str, object] | None = None,
                   verify: "Callable[[Plan], Verification] | None" = None) -> tuple[RunResult, Subset | None]:
    """Plan `recipe` on `root` under `settings`, skip the changes `choose(plan)` names and,
    unless `dry_run`, the subset is blocked or `choose` returned None, write the rest.

    Returns the run (its plan is the subset's, or the whole plan when nothing
    was chosen) and the subset. Never raises on user input or a failed write;
    a KeyboardInterrupt raised by `choose` propagates with nothing written. `verify`: as for
    `run_recipe`, on what is kept.
    """
    return run_recipe(root, recipe, settings, options=options, dry_run=dry_run, choose=choose, verify=verify)


__all__ = ["apply_selected"]
