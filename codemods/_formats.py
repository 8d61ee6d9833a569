"""Check mentions and plan findings as CI systems read them: SARIF 2.1.0 and GitHub annotations.

SARIF (OASIS, version 2.1.0) is what code-scanning dashboards ingest: one
log, one run, the tool with its rules, one result per mention or finding.
Its columns count UTF-16 code units (the format's default); ours are byte
columns, so each is converted from the bytes of its line. GitHub's
workflow commands (`::error file=...,line=...,col=...::message`) become
review annotations when printed by a job step.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from urllib.parse import quote

from ._edit import Finding
from .mentions import Mention

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_VERSION = "2.1.0"
TOOL_NAME = "codemod"


def tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mlxcel-codemods")
    except PackageNotFoundError:
        return "0+unknown"


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
    import re

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


def _artifact(path: str) -> dict:
    if Path(path).is_absolute():
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(path), "uriBaseId": "ROOT"}


def _location(path: str, line: int, col: int, end_col: int | None, lines: _Lines) -> dict:
    physical: dict = {"artifactLocation": _artifact(path)}
    if line > 0:
        region = {"startLine": line, "startColumn": lines.utf16_column(path, line, max(col, 1))}
        if end_col is not None:
            region["endColumn"] = lines.utf16_column(path, line, end_col)
        physical["region"] = region
    return {"physicalLocation": physical}


def _log(root: Path, rules: list[dict], results: list[dict], properties: dict) -> dict:
    base = root.resolve().as_uri().rstrip("/") + "/"
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {"name": TOOL_NAME, "version": tool_version(), "rules": rules}},
            "originalUriBaseIds": {"ROOT": {"uri": base}},
            "columnKind": "utf16CodeUnits",
            "results": results,
            "properties": properties,
        }],
    }


def check_sarif(root: Path, recipe_id: str, pattern: str, mentions: Iterable[Mention]) -> dict:
    """A SARIF log of a check: a rule per removed-symbol group of the pattern, a result per mention.

    `root` is what the mention paths are relative to (ROOT, or the working
    directory for named files).
    """
    groups = symbol_groups(pattern)
    rules = [{
        "id": f"{recipe_id}/removed-symbol-{index + 1}",
        "name": f"RemovedSymbolNamedAgain{index + 1}",
        "shortDescription": {"text": f"A symbol the {recipe_id} recipe removed is named again: {group}"},
        "defaultConfiguration": {"level": "error"},
        "properties": {"pattern": group},
    } for index, group in enumerate(groups)]
    lines = _Lines(root)
    results = []
    for mention in mentions:
        index = _group_of(mention.symbol, groups)
        results.append({
            "ruleId": rules[index]["id"],
            "ruleIndex": index,
            "level": "error",
            "message": {"text": f"{mention.symbol} [{mention.kind}]: a removed symbol is named again"},
            "locations": [_location(mention.path, mention.line, mention.col,
                                    mention.col + len(mention.symbol.encode("utf-8", "surrogateescape")), lines)],
            "properties": {"kind": mention.kind, "symbol": mention.symbol},
        })
    return _log(root, rules, results, {"recipe": recipe_id, "pattern": pattern})


def _level(finding: Finding, overrides: frozenset[str]) -> str:
    if not finding.blocking:
        return "note"
    return "warning" if finding.code in overrides else "error"


def plan_sarif(root: Path, recipe_id: str, findings: Sequence[Finding], overrides: frozenset[str]) -> dict:
    """A SARIF log of a plan's findings: a rule per finding code, a result per finding."""
    codes = list(dict.fromkeys(f.code for f in findings))
    rules = [{"id": code, "name": code.title().replace("-", ""), "shortDescription": {"text": code.replace("-", " ")}}
             for code in codes]
    lines = _Lines(root)
    results = []
    for finding in findings:
        result = {
            "ruleId": finding.code,
            "ruleIndex": codes.index(finding.code),
            "level": _level(finding, overrides),
            "message": {"text": finding.message},
            "locations": [_location(finding.path, finding.line, finding.col, None, lines)],
        }
        properties = {key: value for key, value in (("symbol", finding.symbol), ("certainty", finding.certainty),
                                                     ("reference", finding.reference),
                                                     ("resolution", finding.resolution)) if value}
        if properties:
            result["properties"] = properties
        results.append(result)
    return _log(root, rules, results, {"recipe": recipe_id})


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(level: str, path: str, line: int, col: int, message: str, title: str) -> str:
    """One workflow command: `::error file=PATH,line=N,col=C,title=T::MESSAGE` (line 0: the file only)."""
    properties = [f"file={_escape_property(path)}"]
    if line > 0:
        properties += [f"line={line}", f"col={max(col, 1)}"]
    properties.append(f"title={_escape_property(title)}")
    return f"::{level} {','.join(properties)}::{_escape_data(message)}"


def check_github(mentions: Iterable[Mention]) -> list[str]:
    return [github_annotation("error", m.path, m.line, m.col, f"{m.symbol} [{m.kind}]: a removed symbol is named again",
                              "removed symbol") for m in mentions]


def plan_github(findings: Iterable[Finding], overrides: frozenset[str]) -> list[str]:
    levels = {"error": "error", "warning": "warning", "note": "notice"}
    return [github_annotation(levels[_level(f, overrides)], f.path, f.line, f.col, f.message, f.code)
            for f in findings]
