"""Formatting the files a plan edits, scheduled beside the planning: each edited file's job
starts as soon as its text is known (`format_ahead`: as the stages leave it, before the import
stage resolves), the file as read is formatted beside it where the formatter changes a whole
file (to tell a file that was clean from one that was not), and `start_formatting` collects the
jobs into the plan's changes. A missing formatter is a note where the tree asks for it."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import cast

from codemods.core.registry import FormatFile, Language, language_for
from codemods.edit.codes import Code
from codemods.edit.splice import FileChange, conflicts, splice, with_line_endings_of
from codemods.edit.values import Edit, Finding
from codemods.config.recipe import Workspace

# Formatting jobs by path: {path: (the text formatted, the future of its formatted text)}.
Jobs = dict[str, tuple[bytes, Future[bytes | None]]]


def format_job(path: str) -> FormatFile | None:
    """The language plug-in's optional `format_file(source, root, path)` for `path`, or None."""
    language = language_for(path)
    return language.operations.format_file if language is not None else None


def formatter_missing(language: Language) -> bool:
    """Whether the language names a formatter tool that is not installed."""
    return language.formatter is not None and shutil.which(language.formatter) is None


def formatter_present(path: str) -> bool:
    """Whether the language of `path` has a formatter function and its tool is installed."""
    language = language_for(path)
    return language is not None and language.operations.format_file is not None and not formatter_missing(language)


def format_ahead(
    root: Path,
    workspace: Workspace,
    pool: ThreadPoolExecutor,
    paths: Iterable[str],
    ahead: Jobs,
    originals: Jobs | None = None,
) -> None:
    """Start formatting each file of `paths` as `workspace`'s edits leave it, in `pool`, while
    the plan goes on (the formatter runs in other processes, on another CPU): `ahead` gets
    {path: (edited text, future of that text formatted)}, a job of an older text cancelled
    where it has not started. Files whose edits do not splice (the check refuses them) are left
    out; `start_formatting` takes a job whose text is the change's. `originals` gets the jobs
    formatting a file as read, started where the formatter changes the edited text (see
    `submit_formatting`)."""
    for path in dict.fromkeys(paths):
        edits, source = workspace.planned(path), workspace.read(path)
        if (
            source is None
            or not edits
            or any(e.delete_file for e in edits)
            or not formatter_present(path)
            or conflicts(list(edits), source)
        ):
            continue
        spliced = with_line_endings_of(source, list(edits))
        after = splice(source, spliced)
        if path in ahead:
            if ahead[path][0] == after:
                continue
            ahead.pop(path)[1].cancel()
        if after.strip():
            change = FileChange(path, source, after, tuple(spliced))
            ahead[path] = (after, submit_formatting(pool, root, change, originals))


def submit_formatting(
    pool: ThreadPoolExecutor, root: Path, change: FileChange, originals: Jobs | None = None
) -> Future[bytes | None]:
    """Format `change.after` (`before` with `edits`) in `pool`: the future of the formatter's text. Where
    the plug-in makes an excerpt of the edited places (`format_excerpt`), the formatter runs
    on that first, and on the whole file only where it changes the excerpt: an excerpt left
    as it is stands for the file left as edited; where the whole file changes, formatting the
    file as read (what `start_formatting` asks next) starts at once, into `originals`. The
    excerpt is made here, in the planner's thread (it reads the file's tree)."""
    path, before, after = change.path, change.before, change.after
    job = cast(FormatFile, format_job(path))
    language = language_for(path)
    make = language.operations.format_excerpt if language is not None else None
    excerpt = make(before, [(e.start, e.end, e.replacement) for e in change.edits], after) if make is not None else None
    if excerpt is None:
        return pool.submit(job, after, root, path)

    def judged() -> bytes | None:
        if job(excerpt, root, path) != excerpt:
            formatted = job(after, root, path)
            if formatted is not None and formatted != after and originals is not None:
                # The file as read is formatted next (`start_formatting`): started now, beside it.
                originals[path] = (before, pool.submit(job, before, root, path))
            return formatted
        return after

    return pool.submit(judged)


def start_formatting(
    root: Path,
    changes: dict[str, FileChange],
    pool: ThreadPoolExecutor,
    ahead: Jobs | None = None,
    originals: Jobs | None = None,
) -> Callable[[], tuple[dict[str, FileChange], list[Finding]]]:
    """Start running each change through its language's formatter in `pool` (while the caller
    checks references); the returned function waits and gives the changes with each file that
    was clean by its formatter before formatted after (so that only what the plan edited
    changes), and a note for each file left as edited because the formatter is missing (where
    the plug-in's optional `formatting_applies(root, path)` says the tree asks for it). The
    file as read is formatted only where the formatter changes the edited text: where it
    leaves that as it is, the file is as edited either way. A job of `ahead` (`format_ahead`)
    whose text is the change's is taken as it is, and so is one of `originals` formatting the
    file as read."""
    wanted = {p: c for p, c in changes.items() if not c.deleted and format_job(p) is not None}
    notes = []
    for path in sorted(wanted):
        language = language_for(path)
        if language is None:
            continue
        applies = language.operations.formatting_applies
        if formatter_missing(language):
            del wanted[path]
            if applies is not None and not applies(root, path):
                continue
            notes.append(
                Finding(
                    path,
                    0,
                    0,
                    Code.UNFORMATTED,
                    f"{language.formatter} is not installed: {path} is written as edited, not formatted",
                    severity="note",
                )
            )
    # A file the plan empties stays empty (rustfmt would write one newline).
    wanted = {p: c for p, c in wanted.items() if c.after.strip()}
    ahead = ahead or {}
    originals = {} if originals is None else originals
    jobs = {
        p: ahead[p][1] if p in ahead and ahead[p][0] == c.after else submit_formatting(pool, root, c, originals)
        for p, c in wanted.items()
    }

    def finish() -> tuple[dict[str, FileChange], list[Finding]]:
        out = dict(changes)
        settled: dict[str, bytes] = {}
        asked: dict[str, Future[bytes | None]] = {}
        for path, job in jobs.items():
            change, formatted = wanted[path], job.result()
            if formatted is None or formatted == change.after:
                continue
            started = originals.get(path)
            asked[path] = (
                started[1]
                if started is not None and started[0] == change.before
                else pool.submit(cast(FormatFile, format_job(path)), change.before, root, path)
            )
            settled[path] = formatted
        for path, before in asked.items():
            if before.result() != wanted[path].before:
                del settled[path]  # not clean before: the edited text is not formatted at all
        for path, formatted in settled.items():
            change = wanted[path]
            out[path] = FileChange(path, change.before, formatted, (one_edit(path, change.before, formatted),))
        return out, notes

    return finish


def one_edit(path: str, before: bytes, after: bytes) -> Edit:
    """The one edit that turns `before` into `after` (their common head and tail kept)."""
    head = 0
    limit = min(len(before), len(after))
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[len(before) - 1 - tail] == after[len(after) - 1 - tail]:
        tail += 1
    return Edit(path, head, len(before) - tail, after[head : len(after) - tail], "format")
