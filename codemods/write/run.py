"""A recipe run end to end, as the library offers it: lock, recovery, plan, write.

`apply_recipe` is what `codemod apply` does, returned as a frozen `RunResult`
for the caller to render: it takes the tree's lock, finishes or rolls back a
write that an earlier run left half done (see journal.py), plans, and writes
the plan unless it is a dry run or blocked. A dry run takes no lock and
touches nothing; it only says whether an interrupted run's journal is there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from codemods.edit.codes import Code
from codemods.edit.values import Finding
from codemods.plan.planner import Plan, plan_recipe, usage_problem
from codemods.plan.recipe import Recipe


@dataclass(frozen=True)
class RunResult:
    """What one `apply_recipe` call did.

    `plan` is None when nothing could be planned: the tree is locked by another
    run, its lock cannot be taken, or an interrupted earlier write could not be
    recovered (`error` says which). `written` is whether the plan's changes
    are on disk now. `refusals` are findings of the write itself (a file
    changed since it was read); `error` is why a write failed (every file was
    put back). `recovery` says what was done about an earlier interrupted
    write (or, on a dry run, that its journal is waiting), None when there
    was none.
    """

    root: Path
    dry_run: bool
    plan: Plan | None
    written: bool = False
    refusals: tuple[Finding, ...] = ()
    error: str | None = None
    recovery: str | None = None

    @property
    def blocking(self) -> list[Finding]:
        """The findings that stopped the write: the plan's blocking ones, else the write's refusals."""
        if self.plan is None:
            return []
        return self.plan.blocking or list(self.refusals)


def apply_recipe(root: Path, recipe: Recipe, *, dry_run: bool = False, allow_dangling: bool = False,
                 allow_unreworded: bool = False, strict: bool = False,
                 options: Mapping[str, object] | None = None, allow_unmatched: bool = False,
                 progress: Callable[[str], None] | None = None) -> RunResult:
    """Plan `recipe` on `root` and, unless `dry_run` or the plan is blocked, write it.

    The overrides, `options` and `progress` are `plan_recipe`'s. Never raises on
    user input or on a failed write: what went wrong is in the result.
    """
    from codemods.edit.errors import TreeLocked, WriteFailed, WriteRefused
    from codemods.write.atomic import write_changes
    from codemods.write.journal import journal_path, journal_present, recover, shown, tree_lock

    root = Path(root)
    settings: dict[str, Any] = {"allow_dangling": allow_dangling, "allow_unreworded": allow_unreworded, "strict": strict,
                                "options": dict(options or {}), "allow_unmatched": allow_unmatched, "progress": progress}
    if usage_problem(root, recipe, settings["options"]) is not None:
        # Wrong input: nothing to lock or recover; the plan carries the usage-error finding.
        return RunResult(root, dry_run, plan_recipe(root, recipe, **settings))
    if dry_run:
        note = (f"note: {shown(root, journal_path(root))}/ is left from an interrupted run; `codemod apply {root}` recovers it "
                f"before planning" if journal_present(root) else None)
        return RunResult(root, True, plan_recipe(root, recipe, **settings), recovery=note)
    try:
        with tree_lock(root) as held:
            recovery = recover(root)
            recovered = f"recovered: {recovery.message}" if recovery.action != "none" else None
            if recovery.refused:
                return RunResult(root, False, None, error=f"recovery refused: {recovery.message}")
            plan = plan_recipe(root, recipe, **settings)
            if plan.blocking or not plan.changes:
                return RunResult(root, False, plan, recovery=recovered)
            try:
                if progress is not None:
                    progress(f"writing {len(plan.changes)} file(s)")
                write_changes(root, list(plan.changes), lock=held)
            except WriteRefused as refused:
                return RunResult(root, False, plan, refusals=tuple(refused.findings), recovery=recovered)
            except WriteFailed as failed:
                return RunResult(root, False, plan, error=str(failed), recovery=recovered)
            return RunResult(root, False, plan, written=True, recovery=recovered)
    except TreeLocked as locked:
        return RunResult(root, False, None, error=str(locked))
    except OSError as error:
        return RunResult(root, False, None,
                         error=f"cannot lock {root} for writing: {error.strerror or error}; nothing written")



def write_plan(plan: Plan) -> None:
    """Write a plan's changes atomically, holding the tree's lock. Raises WriteRefused (with
    its findings) if any file changed since it was read, WriteFailed if the write failed part
    way (`restored` says whether the tree is as it was), TreeLocked if another process holds
    the lock: all CodemodErrors.

    A write an earlier run left half done is finished or rolled back first; the
    plan, made on the half-written tree, is then refused as stale (finding
    "stale-plan": plan again), and if recovery cannot be done it is refused
    with the reason (finding "recovery-refused"). `apply_recipe` recovers
    before planning, so it never meets either.
    """
    from codemods.edit.errors import WriteRefused
    from codemods.write.atomic import write_changes
    from codemods.write.journal import recover, tree_lock

    with tree_lock(plan.root) as held:
        recovery = recover(plan.root)
        if recovery.refused:
            raise WriteRefused([Finding("", 0, 0, Code.RECOVERY_REFUSED, recovery.message)])
        if recovery.action in ("completed", "rolled-back"):
            raise WriteRefused([Finding("", 0, 0, Code.STALE_PLAN, f"{recovery.message}; plan again")])
        write_changes(plan.root, list(plan.changes), lock=held)


__all__ = ["RunResult", "apply_recipe", "write_plan"]
