"""The JSON reporter (`--format json`, `--json`): one document on stdout, nothing on stderr."""

from __future__ import annotations

import json

from codemods.report.base import ApplyReport, CheckReport, Output


def render_apply(report: ApplyReport) -> Output:
    """`Plan.to_json()`, with the item-level changes, what the write did and the exit code."""
    run = report.run
    document = {
        **run.plan.to_json(),
        "dry_run": report.dry_run,
        "written": run.written,
        "items": [{"id": c.id, "path": c.path, "origins": list(c.origins), "item": c.item,
                   "removes": list(c.removes)} for c in report.items],
        "findings": [f.as_json() for f in (*run.plan.findings, *run.refusals)],
        "blocking": len(run.blocking),
        "write_error": run.error,
        "recovered": run.recovery,
        "exit_code": report.exit_code,
    }
    return Output([json.dumps(document, indent=2) + "\n"])


def render_check(report: CheckReport) -> Output:
    result = report.result
    return Output([json.dumps({
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
    }, indent=2) + "\n"])
