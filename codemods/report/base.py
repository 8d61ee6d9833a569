"""What every reporter renders, and how the CLI finds one.

A reporter is a module of this package named after its format (`text.py` is
`--format text`) that defines `render_apply(ApplyReport) -> Output` and
`render_check(CheckReport) -> Output`. Adding an output format is adding
one such file: `FORMATS` lists the modules here.
"""

from __future__ import annotations

import importlib
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from codemods.edit.codes import Code
from codemods.edit.values import Finding

if TYPE_CHECKING:
    from collections.abc import Iterable

    from codemods.plan.planner import Plan
    from codemods.search.check import CheckResult
    from codemods.write.run import RunResult


_NOT_REPORTERS = {"__init__", "base"}
FORMATS = tuple(
    sorted(
        (
            name[:-3]
            for name in os.listdir(os.path.dirname(__file__))
            if name.endswith(".py") and name[:-3] not in _NOT_REPORTERS
        ),
        key=lambda name: (name != "text", name),
    )
)

# Finding codes that an explicit override lets through, and the flag that does (keyed by str, as
# `Finding.code` is: a Code is its slug).
OVERRIDE_FLAGS: dict[str, str] = {
    Code.DANGLING_REFERENCE: "--allow-dangling",
    Code.UNREWORDED_MENTION: "--allow-unreworded",
    Code.REWRITE_NOT_FOUND: "--allow-unmatched",
    Code.REWORDING_NOT_FOUND: "--allow-unmatched",
}


@dataclass(frozen=True)
class Output:
    """What a reporter prints: chunks for stdout (str, or bytes kept byte for byte) and lines for stderr."""

    stdout: list[str | bytes] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ApplyReport:
    """One `codemod apply` run to render: the recipe, the RunResult, and how it was asked for."""

    root: Path
    recipe_id: str
    run: RunResult  # one that planned: `plan` is not None
    dry_run: bool
    verbose: bool = False
    stat: bool = False
    colour: bool | None = None

    @property
    def plan(self) -> Plan:
        """The run's plan (the CLI reports a run that could not plan without a reporter)."""
        plan = self.run.plan
        if plan is None:
            raise ValueError("an ApplyReport renders a run that planned (its plan is None)")
        return plan

    @property
    def exit_code(self) -> int:
        return self.run.exit_code

    def finding_lines(self) -> list[str]:
        """The run's messages as `codemod apply` prints them on stderr: the recovery, each finding
        (notes and allowed ones marked), why nothing was written, and the summary line last."""
        run, plan = self.run, self.plan
        lines = [f"codemod: {run.recovery}"] if run.recovery else []
        absent = [f for f in plan.findings if f.code == Code.NOT_FOUND and not f.blocking]
        grouped = {} if self.verbose else _possible_by_name(plan.findings)
        for finding in (*plan.findings, *run.refusals):
            if finding in absent and not self.verbose:
                continue
            symbol = finding.symbol
            if symbol is not None and symbol in grouped and _is_possible_note(finding):
                if finding is grouped[symbol][0]:
                    lines.append(_possible_group_line(symbol, grouped[symbol]))
                continue
            if not finding.blocking:
                why = "possible; --strict blocks it" if finding.certainty == "possible" else "note"
                lines.append(f"{finding.render()} ({why})")
            elif finding.code in plan.overrides:
                lines.append(f"{finding.render()} (allowed by {OVERRIDE_FLAGS[finding.code]})")
            else:
                lines.append(finding.render())
        blocking = run.blocking
        if blocking:
            flags = sorted({OVERRIDE_FLAGS[f.code] for f in blocking if f.code in OVERRIDE_FLAGS})
            hint = (
                f" (override with {' '.join(flags)})"
                if flags and all(f.code in OVERRIDE_FLAGS for f in blocking)
                else ""
            )
            if self.dry_run:
                lines.append(f"codemod: the plan has {len(blocking)} blocking finding(s): apply would refuse it{hint}")
            else:
                lines.append(
                    f"codemod: {'write' if run.refusals else 'plan'} refused: {len(blocking)} blocking "
                    f"finding(s); nothing written{hint}"
                )
        elif run.error:
            lines.append(f"codemod: write failed: {run.error}")
        if absent and not self.verbose:
            lines.append(f"codemod: {len(absent)} target(s) of the recipe already absent (--verbose lists them)")
        nothing_to_do = not self.dry_run and not plan.changes and not blocking
        verb = "changed" if run.written or nothing_to_do else "would change"
        findings = sum(1 for f in plan.findings if f.blocking)
        notes = len(plan.findings) - findings
        verification = run.verification
        verified = (
            f"; verified by {len(verification.checks)} check(s) in {verification.seconds:.1f} s"
            if verification is not None and verification.checks
            else ""
        )
        lines.append(
            f"codemod: {self.recipe_id}: {verb} {len(plan.changes)} file(s); {findings} finding(s), "
            f"{len(blocking)} blocking" + (f"; {notes} note(s)" if notes else "") + verified
        )
        return lines


def _is_possible_note(finding: Finding) -> bool:
    return finding.certainty == "possible" and not finding.blocking


def _possible_by_name(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """The possible uses that only note (not --strict), by name, for the names that have several:
    a common method name (`len`) can have hundreds, one line each would bury the rest."""
    by_name: dict[str, list[Finding]] = {}
    for finding in findings:
        if _is_possible_note(finding) and finding.symbol:
            by_name.setdefault(finding.symbol, []).append(finding)
    return {name: group for name, group in by_name.items() if len(group) > 1}


def _possible_group_line(name: str, group: list[Finding]) -> str:
    """One line for the possible uses of `name`: how many, of which kinds, in how many files, the first."""
    kinds = Counter(f.reference_kind or "use" for f in group)
    shown = ", ".join(f"{kind}: {count}" for kind, count in sorted(kinds.items(), key=lambda k: (-k[1], k[0])))
    first = group[0]
    return (
        f"codemod: {name}: {len(group)} possible uses ({shown}) in {len({f.path for f in group})} file(s), "
        f"first {first.path}:{first.line}:{first.col} (possible; --strict blocks them, --verbose or --json "
        f"lists them)"
    )


# Why a mention of a removed symbol fails the check, by the mention's kind.
_WHY_GONE = {
    "code": "code that names the symbol refers to an item that no longer exists",
    "comment": "a comment that names the symbol describes code that no longer exists",
    "string": "a string that names the symbol refers to code that no longer exists",
}
_WHY_UNKNOWN = "the symbol names code that no longer exists (where the scan cannot tell code from prose)"
# What to do about a mention.
FIX_MENTION = (
    "delete or reword the mention; if the symbol is meant to come back, change the recipe's dead_symbol_pattern"
)


def removed_by(recipe_id: str, summary: str) -> str:
    """The recipe that removed the symbols, as a failure says it: `recipe ID ("SUMMARY")`."""
    return f"recipe {recipe_id}" + (f' ("{summary}")' if summary else "")


@dataclass(frozen=True)
class CheckReport:
    """One `codemod check` to render: the recipe (its id and summary, which say what removed the
    symbols), its pattern and scope, and the CheckResult."""

    root: Path
    recipe_id: str
    pattern: str
    scope: tuple[str, ...]
    mode: str  # "tree" or "files"
    result: CheckResult
    exit_code: int
    summary: str = ""

    @property
    def removed_by(self) -> str:
        """The recipe that removed the symbols (see `removed_by`)."""
        return removed_by(self.recipe_id, self.summary)

    @staticmethod
    def why_gone(kind: str) -> str:
        """Why a mention of `kind` (code, comment, string, unknown) must not name a removed symbol."""
        return _WHY_GONE.get(kind, _WHY_UNKNOWN)

    def explanation(self) -> str:
        """Who removed the mentioned symbols and why they must stay gone, in one sentence for the
        whole check (the reasons of the kinds of mention it found)."""
        kinds = sorted({m.kind for m in self.result.mentions}, key=lambda k: (k not in _WHY_GONE, k))
        reasons = "; ".join(self.why_gone(kind) for kind in kinds)
        return f"These symbols were removed by {self.removed_by} and must stay gone: {reasons}. To fix: {FIX_MENTION}."


class Reporter(Protocol):
    """A reporter module's interface."""

    def render_apply(self, report: ApplyReport) -> Output: ...

    def render_check(self, report: CheckReport) -> Output: ...


def reporter(name: str) -> Reporter:
    """The reporter of format `name` (one of FORMATS)."""
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r} (one of: {', '.join(FORMATS)})")
    # A module is not a Protocol's instance to mypy; FORMATS names the modules that define both functions.
    return cast(Reporter, importlib.import_module(f"{__package__}.{name}"))


def finding_level(finding: Finding, overrides: frozenset[str]) -> str:
    """error (blocks), warning (would block, allowed by an override) or note."""
    if not finding.blocking:
        return "note"
    return "warning" if finding.code in overrides else "error"


def tool_version() -> str:
    """The version of the distribution that ships this package ("0+unknown" when not installed)."""
    # here: importlib.metadata loads email and socket, which `codemod check` should not pay for
    from importlib.metadata import PackageNotFoundError, packages_distributions, version

    top = __package__.split(".")[0]
    for distribution in packages_distributions().get(top, []):
        try:
            return version(distribution)
        except PackageNotFoundError:
            continue
    return "0+unknown"
