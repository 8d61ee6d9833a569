"""The SARIF reporter (`--format sarif`): check mentions and plan findings as a SARIF 2.1.0 log.

SARIF (OASIS, version 2.1.0) is what code-scanning dashboards ingest: one
log, one run, the tool with its rules, one result per mention or finding.
Its columns count UTF-16 code units (the format's default); ours are byte
columns, so each is converted from the bytes of its line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from urllib.parse import quote

import json

from codemods.edit.values import Finding
from codemods.report.base import FIX_MENTION, ApplyReport, CheckReport, Output, finding_level, removed_by, tool_version
from codemods.search.mentions import Mention

# A JSON object of the log (SARIF's objects nest objects, arrays, strings and numbers).
SarifObject = dict[str, object]

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_VERSION = "2.1.0"
TOOL_NAME = "codemod"


def symbol_groups(pattern: str) -> list[str]:
    """The top-level alternatives of a regex: `a(b|c)|d` -> ["a(b|c)", "d"]."""
    groups: list[str] = []
    depth = 0
    in_class = False
    escaped = False
    current: list[str] = []
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            groups.append("".join(current))
            current = []
            continue
        current.append(char)
    groups.append("".join(current))
    return groups


def _group_of(symbol: str, groups: Sequence[str]) -> int:
    """Index of the first alternative that matches the whole symbol (the last one if none does)."""
    for index, group in enumerate(groups):
        try:
            if re.fullmatch(group, symbol):
                return index
        except re.error:
            continue
    return len(groups) - 1


class _Lines:
    """Lines of the files under a root, read once each, to turn byte columns into UTF-16 ones."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._files: dict[str, list[bytes] | None] = {}

    def utf16_column(self, path: str, line: int, col: int) -> int:
        if path not in self._files:
            try:
                self._files[path] = (self._root / path).read_bytes().split(b"\n")
            except OSError:
                self._files[path] = None
        lines = self._files[path]
        if lines is None or not 0 < line <= len(lines):
            return col
        prefix = lines[line - 1][: col - 1]
        if prefix.isascii():
            return col
        return len(prefix.decode("utf-8", "replace").encode("utf-16-le")) // 2 + 1


def _artifact(path: str) -> SarifObject:
    if Path(path).is_absolute():
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(path), "uriBaseId": "ROOT"}


def _location(path: str, line: int, col: int, end_col: int | None, lines: _Lines) -> SarifObject:
    physical: SarifObject = {"artifactLocation": _artifact(path)}
    if line > 0:
        region = {"startLine": line, "startColumn": lines.utf16_column(path, line, max(col, 1))}
        if end_col is not None:
            region["endColumn"] = lines.utf16_column(path, line, end_col)
        physical["region"] = region
    return {"physicalLocation": physical}


def _log(root: Path, rules: list[SarifObject], results: list[SarifObject], properties: SarifObject) -> SarifObject:
    base = root.resolve().as_uri().rstrip("/") + "/"
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {"driver": {"name": TOOL_NAME, "version": tool_version(), "rules": rules}},
                "originalUriBaseIds": {"ROOT": {"uri": base}},
                "columnKind": "utf16CodeUnits",
                "results": results,
                "properties": properties,
            }
        ],
    }


def check_sarif(
    root: Path, recipe_id: str, pattern: str, mentions: Iterable[Mention], summary: str = ""
) -> SarifObject:
    """A SARIF log of a check: a rule per removed-symbol group of the pattern (its description
    says which recipe removed the symbols, with its summary, and why they must stay gone), a
    result per mention (its message, why a mention of its kind fails).

    `root` is what the mention paths are relative to (ROOT, or the working
    directory for named files).
    """
    groups = symbol_groups(pattern)
    by = removed_by(recipe_id, summary)
    rules: list[SarifObject] = [
        {
            "id": f"{recipe_id}/removed-symbol-{index + 1}",
            "name": f"RemovedSymbolNamedAgain{index + 1}",
            "shortDescription": {"text": f"A symbol the {recipe_id} recipe removed is named again: {group}"},
            "fullDescription": {
                "text": f"Symbols matching {group} were removed by {by}; code, comments "
                f"and strings must not name them again. To fix: {FIX_MENTION}."
            },
            "defaultConfiguration": {"level": "error"},
            "properties": {"pattern": group},
        }
        for index, group in enumerate(groups)
    ]
    lines = _Lines(root)
    results = []
    for mention in mentions:
        index = _group_of(mention.matched, groups)
        results.append(
            {
                "ruleId": rules[index]["id"],
                "ruleIndex": index,
                "level": "error",
                "message": {
                    "text": f"{mention.symbol} [{mention.kind}]: a removed symbol is named again. It was "
                    f"removed by {by}; {CheckReport.why_gone(mention.kind)}."
                },
                "locations": [
                    _location(
                        mention.path,
                        mention.line,
                        mention.col,
                        mention.col + len(mention.symbol.encode("utf-8", "surrogateescape")),
                        lines,
                    )
                ],
                "properties": {"kind": mention.kind, "symbol": mention.symbol},
            }
        )
    return _log(root, rules, results, {"recipe": recipe_id, "summary": summary, "pattern": pattern})


def plan_sarif(root: Path, recipe_id: str, findings: Sequence[Finding], overrides: frozenset[str]) -> SarifObject:
    """A SARIF log of a plan's findings: a rule per finding code, a result per finding."""
    codes = list(dict.fromkeys(f.code for f in findings))
    rules: list[SarifObject] = [
        {"id": code, "name": code.title().replace("-", ""), "shortDescription": {"text": code.replace("-", " ")}}
        for code in codes
    ]
    lines = _Lines(root)
    results = []
    for finding in findings:
        result = {
            "ruleId": finding.code,
            "ruleIndex": codes.index(finding.code),
            "level": finding_level(finding, overrides),
            "message": {"text": finding.message},
        }
        if finding.path:  # a finding about the whole plan (the layout recognised, say) has no location
            result["locations"] = [_location(finding.path, finding.line, finding.col, None, lines)]
        properties = {
            key: value
            for key, value in (
                ("symbol", finding.symbol),
                ("certainty", finding.certainty),
                ("reference", finding.reference_kind),
                ("resolution", finding.resolution),
            )
            if value
        }
        if properties:
            result["properties"] = properties
        results.append(result)
    return _log(root, rules, results, {"recipe": recipe_id})


def render_apply(report: ApplyReport) -> Output:
    """The plan's findings as a SARIF log on stdout (no diff); the run's messages on stderr."""
    plan = report.plan
    log = plan_sarif(report.root, report.recipe_id, [*plan.findings, *report.run.refusals], plan.overrides)
    return Output([json.dumps(log, indent=2) + "\n"], report.finding_lines())


def render_check(report: CheckReport) -> Output:
    log = check_sarif(report.root, report.recipe_id, report.pattern, report.result.mentions, report.summary)
    return Output([json.dumps(log, indent=2) + "\n"], [*report.result.binary, *report.result.errors])
