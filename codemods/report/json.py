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
    verification = getattr(run, "verification", None)
    if verification is not None:
        document["verify"] = {
            "seconds": round(verification.seconds, 3), "clean": verification.clean,
            "skipped": verification.skipped, "contradicted": len(verification.contradicted),
            "checks": [{"command": c.command, "kind": c.kind, "exit_code": c.exit_code,
                        "baseline_exit_code": c.baseline_exit_code, "new_errors": len(c.new_errors),
                        "seconds": round(c.seconds, 3), "baseline_seconds": round(c.baseline_seconds, 3),
                        "baseline_cached": c.baseline_cached} for c in verification.checks]}
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
