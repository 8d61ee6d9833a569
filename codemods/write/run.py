"""A recipe run end to end, as the library offers it: lock, recovery, plan, (choose,) write.

`run_recipe` is the one write path, for whole plans and subsets;
`apply_recipe` is what `codemod apply` does, returned as a frozen `RunResult`
for the caller to render: it takes the tree's lock, finishes or rolls back a
write that an earlier run left half done (see journal.py), plans, and writes
the plan unless it is a dry run or blocked. A dry run takes no lock and
touches nothing; it only says whether an interrupted run's journal is there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Mapping, Sequence

from codemods.edit.codes import EXIT_FINDINGS, Code
from codemods.edit.values import Finding
from codemods.plan.planner import Plan, PlanSettings, plan_recipe, usage_problem
from codemods.config.recipe import Recipe
from codemods.plan.subset import Subset, plan_subset
from codemods.edit.refusals import PlanRefused, WriteRefused
from codemods.edit.errors import TreeLocked, WriteFailed
from codemods.write.atomic import write_changes
from codemods.write.journal import journal_path, journal_present, recover, shown, tree_lock

if TYPE_CHECKING:
    from codemods.write.verify import Verification


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
    was none. `verification` is what `--verify` (`verify=`) found, None when it was not asked for.
    """

    root: Path
    dry_run: bool
    plan: Plan | None
    written: bool = False
    refusals: tuple[Finding, ...] = ()
    error: str | None = None
    recovery: str | None = None
    verification: "Verification | None" = None

    @property
    def blocking(self) -> list[Finding]:
        """The findings that stopped the write: the plan's blocking ones, else the write's refusals."""
        if self.plan is None:
            return []
        return self.plan.blocking or list(self.refusals)

    @property
    def exit_code(self) -> int:
        """What `codemod apply` exits with after this run: the plan's (`Plan.exit_code`), else 1
        where nothing could be planned, the write was refused or failed."""
        if self.plan is None or self.error or self.refusals:
            return EXIT_FINDINGS
        return self.plan.exit_code

    def to_dict(self) -> dict[str, Any]:
        """The run as `codemod apply --json` prints it: the plan's document (`Plan.to_dict`), with
            whether it was a dry run, what the write did (its refusals among the findings, the
            blocking count its), why it failed, what recovery did, the run's exit code and, where it was
        asked for, what `--verify` found (`verify`). Without a
            plan: the root, the error and the exit code."""
        document: dict[str, Any] = {"root": str(self.root)}
        if self.plan is not None:
            document = self.plan.to_dict()
            document["findings"] += [f.as_json() for f in self.refusals]
            document["blocking"] = len(self.blocking)
        document.update(
            {
                "dry_run": self.dry_run,
                "written": self.written,
                "write_error": self.error,
                "recovered": self.recovery,
                "exit_code": self.exit_code,
            }
        )
        if self.verification is not None:
            document["verify"] = self.verification.to_dict()
        return document

    def to_json(self) -> str:
        """`to_dict()` as JSON text, as `codemod apply --json` prints it."""
        return json.dumps(self.to_dict(), indent=2)


def apply_recipe(
    root: Path,
    recipe: Recipe,
    *,
    dry_run: bool = False,
    allow_dangling: bool = False,
    allow_unreworded: bool = False,
    strict: bool = False,
    options: Mapping[str, object] | None = None,
    allow_unmatched: bool = False,
    progress: Callable[[str], None] | None = None,
    settings: PlanSettings | None = None,
    verify: bool | Sequence[str] = False,
    trust_build: bool = False,
) -> RunResult:
    """Plan `recipe` on `root` and, unless `dry_run` or the plan is blocked, write it.

    The overrides (`settings`, or the flags that make them), `options` and
    `progress` are `plan_recipe`'s. With `verify` (True, or the commands to run), the plan is
    built first (`verify_plan`, with `trust_build`; `progress` hears it too) and a new build
    error blocks it. Never raises on user input or on a failed write: what went wrong is in
    the result.
    """
    settings = PlanSettings.given(
        settings,
        allow_dangling=allow_dangling,
        allow_unreworded=allow_unreworded,
        allow_unmatched=allow_unmatched,
        strict=strict,
    )
    run, _ = run_recipe(
        root,
        recipe,
        settings,
        options=options,
        dry_run=dry_run,
        progress=progress,
        verify=verifier(verify, trust_build, progress),
    )
    return run


def verifier(
    verify: bool | Sequence[str], trust_build: bool, progress: Callable[[str], None] | None
) -> "Callable[[Plan], Verification] | None":
    """What `run_recipe` calls to verify a plan: `verify_plan` with these commands (True: none,
    detect them), or None when `verify` is False."""
    if verify is False:
        return None

    # here: only a run that verifies needs it (and its hashlib, tempfile and build checks, 0.01 s)
    from codemods.write.verify import verify_plan

    commands = () if verify is True else tuple(verify)
    return lambda plan: verify_plan(plan, commands, trust_build=trust_build, progress=progress)


@dataclass(frozen=True)
class _Planned:
    """What `run_recipe` plans: the plan or the chosen subset's plan, the subset (None when none
    was chosen), and whether anything is to be written."""

    plan: Plan
    subset: Subset | None
    writable: bool


def run_recipe(
    root: Path,
    recipe: Recipe,
    settings: PlanSettings,
    *,
    options: Mapping[str, object] | None = None,
    dry_run: bool = False,
    progress: Callable[[str], None] | None = None,
    choose: Callable[[Plan], Collection[str] | None] | None = None,
    verify: "Callable[[Plan], Verification] | None" = None,
) -> tuple[RunResult, Subset | None]:
    """The one path from a recipe to written files, for whole plans and subsets: plan under
    `settings`, let `choose` (when given) name the changes to skip, check what is kept
    (`plan_subset`, the plan's own settings), and unless `dry_run`, the result is blocked or
    `choose` returned None, write it. `verify` (see `verifier`), when given, proves what is kept
    with the project's check first; its plan, with the build's findings, is the one written.

    Without `dry_run` the tree's lock is held throughout (nothing else writes while a reviewer
    decides) and a write an earlier run left half done is recovered before planning. Returns
    the run (its plan is the subset's when one was chosen) and the subset (None when none was).
    A KeyboardInterrupt raised by `choose` propagates with nothing written.
    """
    root = Path(root)
    options = dict(options or {})
    verified: list[Verification] = []

    def planned() -> _Planned:
        plan = plan_recipe(root, recipe, options=options, progress=progress, settings=settings)
        subset = None
        if choose is not None and plan.basis is not None:
            skipped = choose(plan)
            if skipped is None:
                return _Planned(plan, None, False)
            subset = plan_subset(plan, skipped)
            plan = subset.plan
        if verify is not None and not any(f.code == Code.USAGE_ERROR for f in plan.findings):
            verified.append(verify(plan))
            plan = verified[-1].plan
        return _Planned(plan, subset, not plan.blocking and bool(plan.changes))

    def proven() -> Verification | None:
        return verified[-1] if verified else None

    if usage_problem(root, recipe, options) is not None or dry_run:
        # Wrong input has nothing to lock or recover (the plan carries the usage-error finding).
        note = (
            f"note: {shown(root, journal_path(root))}/ is left from an interrupted run; `codemod apply {root}` "
            f"recovers it before planning"
            if dry_run and journal_present(root)
            else None
        )
        dry = planned()
        return RunResult(root, dry_run, dry.plan, recovery=note, verification=proven()), dry.subset
    try:
        with tree_lock(root) as held:
            recovery = recover(root)
            recovered = f"recovered: {recovery.message}" if recovery.action != "none" else None
            if recovery.refused:
                return RunResult(root, False, None, error=f"recovery refused: {recovery.message}"), None
            chosen = planned()
            plan, subset = chosen.plan, chosen.subset
            if not chosen.writable:
                return RunResult(root, False, plan, recovery=recovered, verification=proven()), subset
            try:
                if progress is not None:
                    progress(f"writing {len(plan.changes)} file(s)")
                write_changes(root, list(plan.changes), lock=held)
            except WriteRefused as refused:
                return RunResult(
                    root, False, plan, refusals=tuple(refused.findings), recovery=recovered, verification=proven()
                ), subset
            except WriteFailed as failed:
                return RunResult(
                    root, False, plan, error=str(failed), recovery=recovered, verification=proven()
                ), subset
            return RunResult(root, False, plan, written=True, recovery=recovered, verification=proven()), subset
    except TreeLocked as locked:
        return RunResult(root, False, None, error=str(locked)), None
    except OSError as error:
        return RunResult(
            root, False, None, error=f"cannot lock {root} for writing: {error.strerror or error}; nothing written"
        ), None


def write_plan(plan: Plan, *, allow_blocking: bool = False) -> None:
    """Write a plan's changes (a whole plan, or a subset's `plan`) atomically, holding the tree's
    lock.

    A plan with blocking findings (under the overrides it was made with) is
    refused as `apply_recipe` refuses it: PlanRefused (a WriteRefused), nothing
    written, unless `allow_blocking` (the explicit override) is given. Raises
    WriteRefused (with its findings) if any file changed since it was read,
    WriteFailed if the write failed part way (`restored` says whether the tree
    is as it was), TreeLocked if another process holds the lock: all
    CodemodErrors.

    A write an earlier run left half done is finished or rolled back first; the
    plan, made on the half-written tree, is then refused as stale (finding
    "stale-plan": plan again), and if recovery cannot be done it is refused
    with the reason (finding "recovery-refused"). `apply_recipe` recovers
    before planning, so it never meets either.
    """
    if plan.blocking and not allow_blocking:
        raise PlanRefused(plan.blocking)
    with tree_lock(plan.root) as held:
        recovery = recover(plan.root)
        if recovery.refused:
            raise WriteRefused([Finding("", 0, 0, Code.RECOVERY_REFUSED, recovery.message)])
        if recovery.action in ("completed", "rolled-back"):
            raise WriteRefused([Finding("", 0, 0, Code.STALE_PLAN, f"{recovery.message}; plan again")])
        write_changes(plan.root, list(plan.changes), lock=held)


__all__ = ["RunResult", "apply_recipe", "run_recipe", "write_plan"]
