"""The JSON reporter (`--format json`, `--json`): one document on stdout, nothing on stderr."""

from __future__ import annotations

import json

from codemods.report.base import ApplyReport, CheckReport, Output
from codemods.report.diff import render_text, unified_diff


def render_apply(report: ApplyReport) -> Output:
    run, plan = report.run, report.run.plan
    document = {
        "recipe": report.recipe_id,
        "root": str(report.root),
        "dry_run": report.dry_run,
        "written": run.written,
        "changes": [{"path": c.path, "diff": render_text(unified_diff(c.path, c.before, c.after, edits=c.edits))}
                    for c in plan.changes],
        "items": [{"id": c.id, "path": c.path, "origins": list(c.origins), "item": c.item,
                   "removes": list(c.removes)} for c in report.items],
        "findings": [f.as_json() for f in (*plan.findings, *run.refusals)],
        "blocking": len(run.blocking),
        "removed_names": list(plan.removed_names),
        "write_error": run.error,
        "recovered": run.recovery,
        "exit_code": report.exit_code,
    }
    return Output([json.dumps(document, indent=2) + "\n"])


def render_check(report: CheckReport) -> Output:
    result = report.result
    return Output([json.dumps({
        "recipe": report.recipe_id,
        "pattern": report.pattern,
        "mode": report.mode,
        "scope": list(report.scope),
        "mentions": [m.as_json() for m in result.mentions],
        "binary": list(result.binary),
        "errors": list(result.errors),
        "files_with_matches": result.files_with_matches,
        "exit_code": report.exit_code,
    }, indent=2) + "\n"])
