"""The JSON reporter (`--format json`, `--json`): one document on stdout, nothing on stderr."""

from __future__ import annotations

import json

from codemods.report.base import ApplyReport, CheckReport, Output


def render_apply(report: ApplyReport) -> Output:
    """The run's own document (`RunResult.to_json()`: the plan's, with what the write did and the
    exit code), so that a script using the library gets what the CLI prints."""
    return Output([report.run.to_json() + "\n"])


def render_check(report: CheckReport) -> Output:
    result = report.result
    return Output(
        [
            json.dumps(
                {
                    "recipe": report.recipe_id,
                    "summary": report.summary,
                    "pattern": report.pattern,
                    "mode": report.mode,
                    "scope": list(report.scope),
                    "mentions": [{**m.as_json(), "why": report.why_gone(m.kind)} for m in result.mentions],
                    "why": report.explanation() if result.mentions else "",
                    "binary": list(result.binary),
                    "errors": list(result.errors),
                    "files_with_matches": result.files_with_matches,
                    "exit_code": report.exit_code,
                },
                indent=2,
            )
            + "\n"
        ]
    )
