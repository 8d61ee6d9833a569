"""The text reporter (the default): the diff (or `--stat`) on stdout, findings and the summary on
stderr; for `check`, one `path:line:col: SYMBOL [kind]` line per mention."""

from __future__ import annotations

import click

from codemods.report.base import ApplyReport, CheckReport, Output
from codemods.edit.diff import unified_diff


def diff_stat(diffs: list[tuple[str, str]]) -> list[str]:
    """`git diff --stat`-like lines: each file's added and removed lines, then the totals."""
    rows = []
    for path, diff in diffs:
        lines = diff.splitlines()
        added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
        removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
        rows.append((path, added, removed))
    width = max((len(path) for path, _, _ in rows), default=0)
    out = [
        f" {path:<{width}} | {click.style(f'+{a}', fg='green')} {click.style(f'-{r}', fg='red')}" for path, a, r in rows
    ]
    out.append(
        f" {len(rows)} file(s) changed, {sum(a for _, a, _ in rows)} insertion(s)(+), "
        f"{sum(r for _, _, r in rows)} deletion(s)(-)"
    )
    return out


def _undecodable(line: str) -> bool:
    """Whether a line holds bytes that are not UTF-8 (kept as surrogate escapes)."""
    return any("\udc80" <= c <= "\udcff" for c in line)


def diff_chunks(diff: str) -> list[str | bytes]:
    """A unified diff as stdout chunks: text with git's colours (click strips them when stdout is
    not a terminal), except that a line holding bytes that are not UTF-8 is those bytes, uncoloured,
    so that the printed diff applies (`git apply`) to the file it was made from."""
    lines = [line + "\n" for line in diff.split("\n") if line]
    try:
        diff.encode("utf-8")
    except UnicodeEncodeError:
        pass  # some line holds such bytes (surrogate escapes): line by line below
    else:
        return [coloured("".join(lines))] if lines else []
    chunks: list[str | bytes] = []
    text: list[str] = []  # the lines of the text chunk being gathered
    for line in lines:
        if _undecodable(line):
            if text:
                chunks.append(coloured("".join(text)))
                text = []
            chunks.append(line.encode("utf-8", "surrogateescape"))
        else:
            text.append(line)
    if text:
        chunks.append(coloured("".join(text)))
    return chunks


def coloured(diff: str) -> str:
    """A unified diff with git's colours (click strips them when stdout is not a terminal)."""
    out = []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("+++", "---")):
            out.append(click.style(line, bold=True))
        elif line.startswith("@@"):
            out.append(click.style(line, fg="cyan"))
        elif line.startswith("+"):
            out.append(click.style(line, fg="green"))
        elif line.startswith("-"):
            out.append(click.style(line, fg="red"))
        else:
            out.append(line)
    return "".join(out)


def render_apply(report: ApplyReport) -> Output:
    run, plan = report.run, report.plan
    stdout: list[str | bytes] = []
    if report.dry_run or (report.stat and run.written):
        diffs = [(c.path, unified_diff(c.path, c.before, c.after, edits=c.edits)) for c in plan.changes]
        if report.stat:
            stdout = [line + "\n" for line in diff_stat(diffs)]
        else:
            stdout = [chunk for _, diff in diffs for chunk in diff_chunks(diff)]
    return Output(stdout, report.finding_lines())


def render_check(report: CheckReport) -> Output:
    result = report.result
    stdout: list[str | bytes] = []
    if result.mentions:
        # Paths are kept byte for byte (surrogate-escaped), so write bytes.
        stdout.append(("\n".join(m.render() for m in result.mentions) + "\n").encode("utf-8", "surrogateescape"))
    stderr = [*result.binary, *result.errors]
    if not result.clean:
        stderr.append(
            f"codemod check: {len(result.mentions)} mention(s) of removed symbols in "
            f"{result.files_with_matches} file(s)"
            + (f", {len(result.binary)} binary file(s) with a match" if result.binary else "")
        )
        stderr.append(f"  {report.explanation()}")
    return Output(stdout, stderr)
