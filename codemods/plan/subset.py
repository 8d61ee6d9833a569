"""Part of a plan: its edits grouped into item-level changes, and the plan made again with some
changes skipped, checked as the whole plan was.

A change is what a reviewer accepts or skips as one: the deletion of one
`[[delete]]` target (all its spans, its impls included), or the edits one
chosen stage (a recipe step, the rewrites, rewordings and insertions) made
inside one item (a recipe step's rewrite of one test with the bindings it
drops, a trimmed test, a reworded comment). What follows from the changes
kept is never a change of its own: the imports they leave unused, what goes
with a deletion in other files (a module's file), the blank lines and
emptied containers around a deletion, the formatting. Its id is the
edits' origin (`my-cleanup:type:Handle`), followed by `@ITEM` when the same
origin has changes in several items (`my-step@test_merge`);
these are the ids `codemod apply --accept/--skip` and the JSON output use.

`plan_subset` re-plans without the skipped changes on the plan's snapshot:
the kept deletions are settled again (deletions that were merged with a
skipped neighbour get their own blank lines), the chosen stages' accepted
edits are kept as planned, what follows from them is made again from what
is kept (the stages that remove imports and delete module files run again;
a skipped rewrite's call keeps its import), and every check of a whole plan
(the per-file gate, the reference check, the dead-symbol check, the
formatting) runs again, under the plan's settings (its overrides). A
name only a skipped deletion removes is not removed: its item is still there,
so the item itself and what names it are no finding. What the skips break is returned, not raised:
the error findings the whole plan did not have, and for each skipped change
the accepted changes that need it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Iterable, Mapping

from codemods.edit.codes import Code
from codemods.edit.errors import SelectionError
from codemods.edit.values import Edit, Finding, ItemTarget, line_col
from codemods.config.recipe import StepResult, Workspace
from codemods.plan.changes import Change, change_id, defined_names, item_changes, target_deletions
from codemods.plan.planner import Plan, PlanBasis, Staged
from codemods.plan.references import DeletedNames
from codemods.plan.stages import DeleteModuleFiles, RemoveImports, delete_in_file, targets_by_file
from codemods.words import whole_word_hits

# A finding of a subset only: an accepted change uses a name that a skipped change would have added.
NEEDS_SKIPPED = Code.NEEDS_SKIPPED_CHANGE


@dataclass(frozen=True)
class Subset:
    """A plan with some changes skipped, checked again.

    `plan` holds the accepted changes and their findings (its `blocking` is
    what stops the subset from being written, under the whole plan's
    overrides). `new_findings` are its error findings (overrides ignored) that
    the whole plan did not have; `needed_by` maps each skipped change that
    causes some of them to the accepted changes that need it. `accepted` and
    `skipped` together are every change of the whole plan, in its order.
    """

    plan: Plan
    skipped: tuple[str, ...]
    new_findings: tuple[Finding, ...]
    needed_by: Mapping[str, tuple[str, ...]]
    accepted: tuple[str, ...] = ()


def _basis(plan: Plan) -> PlanBasis:
    """What `plan` was made from; SelectionError when it has none (not made by `plan_recipe`, or a
    usage error)."""
    if plan.basis is None:
        raise SelectionError("the plan has no basis to group: it was not made by plan_recipe, or it is a usage error")
    return plan.basis


def changes_of(plan: Plan) -> tuple[Change, ...]:
    """The plan's item-level changes, in file order (see the module's docstring). A deletion's
    edits are those of its target deleted alone (as the plan shows them, neighbours merged).
    SelectionError for a plan without a basis (not made by `plan_recipe`, or a usage error)."""
    basis = _basis(plan)
    return item_changes(basis.recipe, basis.start, basis.stages)


def select(changes: Iterable[Change], accept: Iterable[str] = (), skip: Iterable[str] = ()) -> set[str]:
    """The ids of the changes to skip: with `accept`, every change no selector of it names; plus
    every change a selector of `skip` names. A selector names a change by its id, by the id
    without `@ITEM`, or by one of its edits' origins. Raises SelectionError for a selector that
    names no change."""
    changes = list(changes)

    def named(selector: str) -> set[str]:
        hits = {c.id for c in changes if selector in (c.id, c.id.split("@")[0], *c.origins)}
        if not hits:
            known = ", ".join(c.id for c in changes[:8]) + (", ..." if len(changes) > 8 else "")
            raise SelectionError(f"no change of the plan is named {selector!r} (its changes: {known})")
        return hits

    accepted = set().union(*(named(s) for s in accept)) if accept else {c.id for c in changes}
    skipped = {c.id for c in changes if c.id not in accepted}
    for selector in skip:
        skipped |= named(selector)
    return skipped


def _finding_key(finding: Finding) -> tuple[str, int, int, str, str | None]:
    return finding.path, finding.line, finding.col, finding.code, finding.symbol


def _lines_of(source: bytes, edits: Iterable[Edit], path: str) -> set[int]:
    lines: set[int] = set()
    for edit in edits:
        if edit.path == path:
            first = line_col(source, edit.start)[0]
            last = line_col(source, max(edit.start, edit.end - 1))[0]
            lines.update(range(first, last + 1))
    return lines


def _needs_skipped_definitions(plan: Plan, kept: list[Change], skipped: list[Change]) -> list[tuple[Finding, str, str]]:
    """An accepted change's new code naming an item that only a skipped change adds: (finding,
    skipped id, accepted id) for each."""
    found = []
    for gone in skipped:
        names = {n for e in gone.edits for n in defined_names(e.path, e.replacement)}
        if not names:
            continue
        for change in kept:
            for edit in change.edits:
                for _, _, name in whole_word_hits(edit.replacement, names):
                    line, col = line_col(_basis(plan).start.read(edit.path) or b"", edit.start)
                    found.append(
                        (
                            Finding(
                                edit.path,
                                line,
                                col,
                                NEEDS_SKIPPED,
                                f"{name}: {change.id} uses it, but {gone.id}, which adds it, is skipped",
                                symbol=name,
                            ),
                            gone.id,
                            change.id,
                        )
                    )
                    break
    return found


def _accepted_workspace(plan: Plan, changes: tuple[Change, ...], skipped_ids: set[str]) -> Staged:
    """The plan's snapshot holding only the accepted edits, what they delete, and the stages' own
    findings: the kept deletions settled again (blank lines, containers they empty), what goes
    with them in other files and the imports left unused made again from what is kept (never
    kept from the whole plan: a skipped rewrite's call keeps its import), the chosen stages'
    accepted edits as planned."""
    basis = _basis(plan)
    recipe = basis.recipe
    workspace = basis.start
    deleted = DeletedNames()
    findings: list[Finding] = list(basis.stages[0].findings) if basis.stages else []
    target_origins = {t.target: t.origins for t in target_deletions(basis.recipe, basis.start)}
    deletion_edits: list[Edit] = []
    kept_targets: list[ItemTarget] = []
    for path, targets in targets_by_file(recipe).items():
        source = workspace.read(path)
        # Change ids are the slugs of origins (`t:impl:Gauge-2` for `t:impl:<Gauge>#2`).
        wanted = [
            t for t in targets if t in target_origins and not {change_id(o) for o in target_origins[t]} & skipped_ids
        ]
        if source is None or not wanted:
            continue
        kept_targets += wanted
        file_deletions = delete_in_file(recipe, path, source, wanted)
        deletion_edits += file_deletions.edits
        deleted.merge(file_deletions.deleted)
    workspace = workspace.with_edits(deletion_edits)

    def take(result: StepResult) -> None:
        nonlocal workspace
        workspace = workspace.with_edits(result.edits)
        findings.extend(result.findings)
        deleted.merge(DeletedNames({k: list(v) for k, v in result.deleted.items()}, list(result.removed_names)))

    # What goes elsewhere with the kept targets only (a skipped variant keeps its arms in other files).
    take(DeleteModuleFiles(replace(recipe, deletions=tuple(kept_targets)), deleted)(workspace))
    for index in basis.chosen_stages:
        result = basis.stages[index]
        stage_changes = [c for c in changes if c.stage == index]
        kept = [e for c in stage_changes if c.id not in skipped_ids for e in c.edits]
        # A stage's deletions count while any of its changes is kept (or it has none: names only).
        counted = not stage_changes or any(c.id not in skipped_ids for c in stage_changes)
        take(
            StepResult(
                tuple(kept),
                result.findings,
                result.removed_names if counted else (),
                result.deleted if counted else MappingProxyType({}),
            )
        )
    take(RemoveImports(recipe, deleted, basis.referring.result)(workspace))
    return Staged(workspace, deleted, findings)


def _needers(
    workspace: Workspace, new: list[Finding], kept: list[Change], skipped: list[Change]
) -> dict[str, list[str]]:
    """For each skipped change that a new finding lies in: the accepted changes that need it (a
    finding naming what an accepted change deletes: a kept bridge entry of a deleted C++
    function makes that deletion need the skipped entry's deletion)."""
    needed_by: dict[str, list[str]] = {}
    for finding in new:
        source = workspace.read(finding.path) or b""
        for gone in skipped:
            if finding.line not in _lines_of(source, gone.edits, finding.path):
                continue
            for change in kept:
                if finding.symbol in change.removes and change.id not in needed_by.get(gone.id, []):
                    needed_by.setdefault(gone.id, []).append(change.id)
    return needed_by


def plan_subset(plan: Plan, skip: Iterable[str]) -> Subset:
    """`plan` without the changes whose ids are in `skip`, checked again on the same snapshot
    under the plan's own settings (see the module's docstring). Never writes."""
    changes = changes_of(plan)
    skipped_ids = set(skip)
    unknown = skipped_ids - {c.id for c in changes}
    if unknown:
        raise SelectionError(f"no change of the plan has the id {sorted(unknown)[0]!r}")
    kept = [c for c in changes if c.id not in skipped_ids]
    skipped = [c for c in changes if c.id in skipped_ids]
    accepted = _accepted_workspace(plan, changes, skipped_ids)
    workspace = accepted.workspace
    # What only the skipped deletions remove is still there: naming it is no dangling use.
    still_there = frozenset(plan.removed_names) - set(accepted.deleted.all_names())
    checked = _basis(plan).recheck(accepted, plan.settings, kept=still_there)
    whole = {_finding_key(f) for f in plan.findings}
    new = [f for f in checked.findings if f.blocking and _finding_key(f) not in whole]
    needed_by = _needers(workspace, new, kept, skipped)
    for finding, gone_id, accepted_id in _needs_skipped_definitions(plan, kept, skipped):
        new.append(finding)
        if accepted_id not in needed_by.get(gone_id, []):
            needed_by.setdefault(gone_id, []).append(accepted_id)
    checked = replace(checked, findings=(*checked.findings, *(f for f in new if f.code == NEEDS_SKIPPED)))
    return Subset(
        checked,
        tuple(c.id for c in skipped),
        tuple(new),
        {k: tuple(v) for k, v in needed_by.items()},
        tuple(c.id for c in kept),
    )


__all__ = ["NEEDS_SKIPPED", "Change", "Subset", "changes_of", "plan_subset", "select"]
