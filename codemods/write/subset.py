"""Writing part of a plan: `apply_recipe` with a choice between planning and writing.

`choose` gets the whole plan and returns the changes to skip (the
`--accept/--skip` selection, or the terminal walk of `--interactive`), or
None to write nothing. The path is `run_recipe`'s, the one every write takes:
the tree's lock held throughout, so nothing else writes while a reviewer
decides; the subset checked again (`plan_subset`, under the plan's
settings) and written by the same all-or-nothing journaled writer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Collection, Mapping

from codemods.plan.planner import Plan, PlanSettings
from codemods.config.recipe import Recipe
from codemods.plan.subset import Subset
from codemods.write.run import RunResult, run_recipe

if TYPE_CHECKING:
    from codemods.write.verify import Verification


@dataclass(frozen=True)
class ApplyOptions:
    """How `apply_selected` runs, as `run_recipe` takes it: a dry run or not, the plan's settings,
    the recipe's options and the check proving what is kept (`verify`)."""

    dry_run: bool = False
    settings: PlanSettings = field(default_factory=PlanSettings)
    options: Mapping[str, object] | None = None
    verify: Callable[[Plan], Verification] | None = None


def apply_selected(
    root: Path, recipe: Recipe, choose: Callable[[Plan], Collection[str] | None], how: ApplyOptions = ApplyOptions()
) -> tuple[RunResult, Subset | None]:
    """Plan `recipe` on `root` under `how.settings`, skip the changes `choose(plan)` names and,
    unless `how.dry_run`, the subset is blocked or `choose` returned None, write the rest.

    Returns the run (its plan is the subset's, or the whole plan when nothing
    was chosen) and the subset. Never raises on user input or a failed write;
    a KeyboardInterrupt raised by `choose` propagates with nothing written. `verify`: as for
    `run_recipe`, on what is kept.
    """
    return run_recipe(
        root, recipe, how.settings, options=how.options, dry_run=how.dry_run, choose=choose, verify=how.verify
    )


__all__ = ["ApplyOptions", "apply_selected"]
