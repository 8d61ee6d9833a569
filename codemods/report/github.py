"""The GitHub reporter (`--format github`): workflow commands (`::error file=...,line=...,col=...::message`),
which become review annotations when printed by a job step."""

from __future__ import annotations

from collections.abc import Iterable

from codemods.edit.values import Finding
from codemods.report.base import FIX_MENTION, ApplyReport, CheckReport, Output, finding_level
from codemods.search.mentions import Mention


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(level: str, path: str, line: int, col: int, message: str, title: str) -> str:
    """One workflow command: `::error file=PATH,line=N,col=C,title=T::MESSAGE` (line 0: the file only;
    no path: no file)."""
    properties = [f"file={_escape_property(path)}"] if path else []
    if path and line > 0:
        properties += [f"line={line}", f"col={max(col, 1)}"]
    properties.append(f"title={_escape_property(title)}")
    return f"::{level} {','.join(properties)}::{_escape_data(message)}"


def check_github(report: CheckReport) -> list[str]:
    """An error annotation per mention: the symbol, the recipe that removed it and why it must
    stay gone."""
    mentions: Iterable[Mention] = report.result.mentions
    return [
        github_annotation(
            "error",
            m.path,
            m.line,
            m.col,
            f"{m.symbol} [{m.kind}]: a removed symbol is named again. It was removed by "
            f"{report.removed_by}; {report.why_gone(m.kind)}. To fix: {FIX_MENTION}.",
            "removed symbol",
        )
        for m in mentions
    ]


def plan_github(findings: Iterable[Finding], overrides: frozenset[str]) -> list[str]:
    levels = {"error": "error", "warning": "warning", "note": "notice"}
    return [
        github_annotation(levels[finding_level(f, overrides)], f.path, f.line, f.col, f.message, f.code)
        for f in findings
    ]


def render_apply(report: ApplyReport) -> Output:
    plan = report.plan
    lines = plan_github([*plan.findings, *report.run.refusals], plan.overrides)
    return Output([line + "\n" for line in lines], report.finding_lines())


def render_check(report: CheckReport) -> Output:
    mentions = report.result.mentions
    out: list[str | bytes] = []
    if mentions:
        out.append(("\n".join(check_github(report)) + "\n").encode("utf-8", "surrogateescape"))
    return Output(out, [*report.result.binary, *report.result.errors])
