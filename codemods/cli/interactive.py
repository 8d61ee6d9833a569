"""`codemod apply --interactive` and `--accept/--skip`: choose which changes of a plan to write.

Both pick a set of changes to skip (codemods.plan.subset); the write, the
re-check of what remains and the journaled writer are `apply_selected`'s.
A plan blocked as a whole says so first, with its blocking findings, and
offers to stop. The walk shows each item-level change as a coloured diff of
what will be written (formatted, as `--dry-run` shows it) and asks
`[y]es / [n]o / [a]ll remaining / [q]uit / [?]`. A skip that leaves accepted
changes pointing at nothing (or code the recipe removes named again) is
answered at once with the accepted changes that need the skipped one.
"""

from __future__ import annotations

import os
import re
import sys
import termios
import tty
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from codemods.cli.style import UsageLine
from codemods.edit.splice import splice
from codemods.plan.subset import Change, changes_of, plan_subset, select
from codemods.edit.diff import changed_lines, render_text, unified_diff, with_runs
from codemods.report.text import coloured
from codemods.plan.planner import USAGE_ERROR
from codemods.edit.codes import EXIT_FINDINGS
from codemods.report.base import ApplyReport, reporter
from codemods.write.subset import ApplyOptions, apply_selected

if TYPE_CHECKING:
    from pathlib import Path

    from codemods.plan.planner import Plan, PlanSettings
    from codemods.config.recipe import Recipe
    from codemods.write.verify import Verification

# Exit code of a walk interrupted with Ctrl-C (nothing written), as for `apply`.
EXIT_INTERRUPTED = 130
# Exit code of a walk quit without writing: nothing changed, as for a refused plan.
EXIT_QUIT = 1

HELP = """\
y - write this change
n - skip it (if accepted changes need it, they are named and you choose)
a - write this change and all the remaining ones
q - stop here: check what the changes accepted so far give, then write them (after one
    confirmation), write nothing, or go back to this change
e - show this change in $EDITOR (what you change there is not applied)
? - this help
Ctrl-C - stop and write nothing"""

_SHOWN_FINDINGS = 6


def needs_terminal() -> None:
    """The one-line usage error of --interactive without a terminal on stdin and stdout."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageLine("--interactive needs a terminal on stdin and stdout")


@contextmanager
def keys_as_typed() -> Iterator[None]:
    """The terminal in cbreak mode for the whole walk: each key is read as it is typed, without
    echo, and none typed ahead is lost (raw mode, switched on per key, would flush them); Ctrl-C
    still interrupts. Restored on the way out."""
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd, termios.TCSANOW)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def read_key() -> str:
    """One key from the terminal (in `keys_as_typed`)."""
    return os.read(sys.stdin.fileno(), 1).decode("utf-8", "replace")


def selection(accept: tuple[str, ...], skip: tuple[str, ...]) -> Callable[[Plan], set[str]]:
    """The `choose` of `apply_selected` for --accept/--skip: the ids to skip; a selector that names
    no change of the plan is a usage error."""

    def choose(plan: Plan) -> set[str]:
        try:
            return select(changes_of(plan), accept, skip)
        except ValueError as error:
            raise UsageLine(str(error)) from None

    return choose


def _edit_lines(source: bytes, change: Change, path: str) -> list[tuple[int, int]]:
    """The (first, last) 0-based lines of `source` that `change`'s edits in `path` touch."""
    return [
        (source.count(b"\n", 0, e.start), source.count(b"\n", 0, max(e.start, e.end - 1)))
        for e in change.edits
        if e.path == path
    ]


def _split_deletions(
    before: bytes, run: tuple[int, int, int, int], owned: list[tuple[int, int]]
) -> list[tuple[int, int, int, int]]:
    """A run that only removes lines, split where the lines `owned` (edited by some change) start
    or stop: an import left unused beside a deleted item is a run of its own."""
    i1, i2, j1, j2 = run
    if j1 != j2 or i2 - i1 < 2:
        return [run]
    lines = before.split(b"\n")
    parts, at = [], i1
    last = any(first <= i1 <= end for first, end in owned)
    for line in range(i1 + 1, i2):
        if not lines[line].strip():
            continue  # a blank line goes with the lines above it
        covered = any(first <= line <= end for first, end in owned)
        if covered != last:
            parts.append((at, line, j1, j1))
            at, last = line, covered
    return parts + [(at, i2, j1, j1)]


def change_diffs(plan: Plan, changes: tuple[Change, ...]) -> dict[str, str]:
    """Each change's unified diff, as the plan writes it: the lines of the written (formatted)
    files that differ, each run shown with the changes whose edits it touches. A run no change
    touches follows from them (an import left unused, formatting, a deleted module's file): it
    is shown with the first deletion whose name it removes, else the nearest change of its
    file, else the first deletion named in its path, else the first change. A file the plan
    does not write (a refused one) shows the change's edits as planned."""
    runs: dict[str, dict[str, list[tuple[int, int, int, int]]]] = {c.id: {} for c in changes}
    written = {c.path: c for c in plan.changes}
    deletions = [c for c in changes if c.removes]
    for path, file_change in written.items():
        before, after = file_change.before, file_change.after
        lines = before.split(b"\n")
        here = [c for c in changes if any(e.path == path for e in c.edits)]
        spans = {c.id: _edit_lines(before, c, path) for c in here}
        every = [span for found in spans.values() for span in found]
        for run in [part for whole in changed_lines(before, after) for part in _split_deletions(before, whole, every)]:
            i1, i2 = run[0], max(run[1] - 1, run[0])
            owners = [c.id for c in here if any(first <= i2 and i1 - 1 <= last for first, last in spans[c.id])]
            removed = b"\n".join(lines[run[0] : run[1]]).decode("utf-8", "replace")
            if not owners:
                owners = [
                    c.id for c in deletions if any(re.search(rf"\b{re.escape(n)}\b", removed) for n in c.removes)
                ][:1]
            if not owners and here:
                distance = {c.id: min(abs(first - i1) for first, _ in spans[c.id]) for c in here}
                owners = [min(distance, key=lambda key: distance[key])]
            if not owners and changes:
                owners = [next((c.id for c in deletions if any(n in path for n in c.removes)), changes[0].id)]
            for owner in owners:
                runs[owner].setdefault(path, []).append(run)
    diffs = {}
    for change in changes:
        out = []
        for path in dict.fromkeys([*(e.path for e in change.edits), *runs[change.id]]):
            if path in written:
                before = written[path].before
                shown = with_runs(before, written[path].after, runs[change.id].get(path, []))
            else:
                edits = [e for e in change.edits if e.path == path]
                if plan.basis is None:  # the changes come from `changes_of`, which needs the basis
                    raise ValueError("the plan has no basis to read the files it does not write from")
                before = plan.basis.start.read(path) or b""
                shown = splice(before, edits)
            out.append(render_text(unified_diff(path, before, shown)))
        diffs[change.id] = "".join(out)
    return diffs


def _describe(change: Change) -> str:
    if change.removes:
        return f"deletes {', '.join(change.removes)}"
    if change.adds:
        return f"adds {', '.join(change.adds)} in {change.path}"
    return f"in {change.item}" if change.item else change.path


class Walk:
    """One terminal review of a plan: the decisions so far and the keys read.

    Every change is accepted (shown and answered y or a), skipped, or not
    decided yet; none is both, so the counts add up to the plan's. Only an
    accepted change is written: the walk returns every other one as skipped.
    """

    def __init__(self, plan: Plan, colour: bool | None = None, getkey: Callable[[], str] = read_key) -> None:
        self.plan = plan
        self.colour = colour
        self.getkey = getkey
        self.changes = changes_of(plan)
        self.diffs = change_diffs(plan, self.changes)
        self.accepted: set[str] = set()
        self.skipped: set[str] = set()

    def echo(self, text: str = "", *, fg: str | None = None, bold: bool | None = None, dim: bool | None = None) -> None:
        styled = fg is not None or bold is not None or dim is not None
        click.echo(click.style(text, fg=fg, bold=bold, dim=dim) if styled else text, color=self.colour)

    def ask(self, prompt: str, keys: str) -> str:
        """Read one of `keys` (a key outside them asks again)."""
        while True:
            click.echo(prompt, nl=False, color=self.colour)
            key = self.getkey()
            click.echo(key if key.isprintable() else "")
            if key.lower() in keys:
                return key.lower()

    def run(self) -> set[str] | None:
        """Walk every change; the ids to skip (every change not accepted), or None to write nothing."""
        editor = os.environ.get("EDITOR") or os.environ.get("VISUAL")
        keys = "ynaq?" + ("e" if editor else "")
        prompt = (
            "Apply this change? [y]es / [n]o / [a]ll remaining / [q]uit" + (" / [e]dit" if editor else "") + " / [?] "
        )
        total = len(self.changes)
        if self.plan.blocking and not self.blocked_first():
            return None
        for number, change in enumerate(self.changes, start=1):
            if change.id in self.skipped:
                self.echo(f"[{number}/{total}] {change.id}: skipped (it needs a change you skipped)", dim=True)
                continue
            self.echo(f"[{number}/{total}] {change.id}  ({_describe(change)})", bold=True)
            diff = self.diffs[change.id]
            click.echo(coloured(diff) if self.colour is not False else diff, nl=False, color=self.colour)
            while True:
                key = self.ask(prompt, keys)
                if key == "?":
                    self.echo(HELP)
                elif key == "e":
                    self.show_in_editor(diff, editor)
                elif key == "q":
                    quit_answer = self.quit(number - 1)
                    if quit_answer != "b":
                        return self.not_accepted() if quit_answer == "y" else None
                    self.echo(f"[{number}/{total}] {change.id}  ({_describe(change)})", bold=True)
                else:
                    break
            if key == "y":
                self.accepted.add(change.id)
            elif key == "n":
                self.skip(change)
            elif key == "a":
                self.accepted |= {c.id for c in self.changes[number - 1 :] if c.id not in self.skipped}
                return self.not_accepted()
        return self.not_accepted()

    def blocked_first(self) -> bool:
        """Before the first change of a plan that is blocked as a whole: its blocking findings, and
        whether to walk it anyway (skipping the changes they come from may unblock it)."""
        blocking = self.plan.blocking
        self.echo(f"The whole plan is refused as it stands ({len(blocking)} blocking finding(s)):", fg="yellow")
        for finding in blocking[:_SHOWN_FINDINGS]:
            self.echo(f"  {finding.render()}")
        if len(blocking) > _SHOWN_FINDINGS:
            self.echo(f"  ... and {len(blocking) - _SHOWN_FINDINGS} more")
        self.echo(
            "What you accept is checked again before it is written, and refused while any is left "
            "(skipping the changes they come from may clear them)."
        )
        return self.ask("[r]eview the changes anyway / [q]uit, writing nothing ", "rq") == "r"

    def not_accepted(self) -> set[str]:
        """What the write leaves out: every change not accepted (the skipped ones, and any not decided)."""
        return {c.id for c in self.changes} - self.accepted

    def quit(self, at: int) -> str:
        """`q` at the change of index `at`: what the accepted changes alone would give is checked
        first; "y" to write them, "n" to write nothing, "b" to go back to the change."""
        skipped = self.not_accepted()
        if not self.accepted:
            return self.ask(
                f"No change is accepted: [n] quit, writing nothing (the other {len(skipped)} skipped) / "
                f"[b]ack to this change ",
                "nb",
            )
        subset = plan_subset(self.plan, skipped)
        accepted, left = len(self.accepted), len(skipped)
        if not subset.plan.blocking:
            return self.ask(
                f"Write the {accepted} accepted change(s) and skip the other {left}? [y]es / "
                f"[n]o, write nothing / [b]ack to this change ",
                "ynb",
            )
        self.echo(
            f"Writing the {accepted} accepted change(s) and skipping the other {left} would be refused "
            f"({len(subset.plan.blocking)} blocking finding(s)):",
            fg="yellow",
        )
        for finding in subset.plan.blocking[:_SHOWN_FINDINGS]:
            self.echo(f"  {finding.render()}")
        if len(subset.plan.blocking) > _SHOWN_FINDINGS:
            self.echo(f"  ... and {len(subset.plan.blocking) - _SHOWN_FINDINGS} more")
        undecided = [c.id for c in self.changes[at:] if c.id not in self.accepted | self.skipped]
        needed = list(
            dict.fromkeys(n for gone, needers in subset.needed_by.items() if gone in undecided for n in needers)
        )
        if needed:
            self.echo("Accepted changes that need one you have not accepted yet: " + ", ".join(needed), fg="yellow")
        return self.ask("[b]ack to this change / [n]o, write nothing ", "bn")

    @staticmethod
    def show_in_editor(diff: str, editor: str | None) -> None:
        """Open `diff` in `editor` (None: click's choice), the terminal back in line mode with echo while it runs."""
        fd = sys.stdin.fileno()
        walking = termios.tcgetattr(fd)
        line_mode = list(walking)
        line_mode[3] |= termios.ICANON | termios.ECHO
        termios.tcsetattr(fd, termios.TCSADRAIN, line_mode)
        try:
            click.edit(diff, editor=editor, extension=".diff", require_save=False)
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, walking)

    def skip(self, change: Change) -> None:
        """Skip `change`; when what is left needs it, say which accepted changes do and let the reviewer
        skip them too (asked again while those skips are needed in turn), keep it, or go on.

        Keeping it takes back the skips of the chain: the changes already
        accepted are accepted again, the others are undecided again (shown
        when the walk reaches them), never accepted unseen.
        """
        before, accepted = set(self.skipped), set(self.accepted)
        self.skipped.add(change.id)
        asked = [change.id]
        while True:
            subset = plan_subset(self.plan, self.skipped)
            if not subset.new_findings:
                return
            needers = list(
                dict.fromkeys(n for gone in asked for n in subset.needed_by.get(gone, ()) if n not in self.skipped)
            )
            what = asked[0] if len(asked) == 1 else f"{len(asked)} changes"
            self.echo(
                f"Skipping {what} leaves {len(subset.new_findings)} finding(s) the whole plan does not have:",
                fg="yellow",
            )
            for finding in subset.new_findings[:_SHOWN_FINDINGS]:
                self.echo(f"  {finding.render()}")
            if len(subset.new_findings) > _SHOWN_FINDINGS:
                self.echo(f"  ... and {len(subset.new_findings) - _SHOWN_FINDINGS} more")
            if not needers:
                key = self.ask("[k]eep this change / [c]ontinue (the write may be refused) ", "kc")
            else:
                self.echo(f"Accepted changes that need {'it' if len(asked) == 1 else 'them'}:", fg="yellow")
                for needer in needers:
                    self.echo(f"  {needer}")
                key = self.ask("[s]kip them too / [k]eep this change / [c]ontinue (the write may be refused) ", "skc")
            if key == "k":
                self.skipped = before
                self.accepted = accepted | {change.id}
                return
            if key == "c":
                return
            self.skipped.update(needers)
            self.accepted.difference_update(needers)
            asked = needers


def interactive_choice(colour: bool | None) -> Callable[[Plan], set[str] | None]:
    """The `choose` of `apply_selected` for --interactive: the terminal walk; Ctrl-C propagates."""

    def choose(plan: Plan) -> set[str] | None:
        with keys_as_typed():
            return Walk(plan, colour).run()

    return choose


def apply_chosen(
    root: Path,
    recipe: Recipe,
    *,
    interactive: bool,
    accept: tuple[str, ...],
    skip: tuple[str, ...],
    dry_run: bool,
    output_format: str,
    colour: bool | None,
    verbose: bool,
    stat: bool,
    settings: PlanSettings,
    options: Mapping[str, object] | None,
    verify: Callable[[Plan], Verification] | None = None,
) -> int:
    """`codemod apply` with --interactive or --accept/--skip: choose, check, write, report; the
    exit code (130 when the walk is interrupted: nothing written)."""
    if interactive:
        if accept or skip:
            raise UsageLine("--interactive asks about every change; --accept/--skip choose without asking: give one")
        if dry_run or output_format != "text" or stat:
            raise UsageLine(
                "--interactive writes what you accept and reports as text; it does not go with "
                "--dry-run, --stat or --format"
            )
        needs_terminal()
        choose = interactive_choice(colour)
    else:
        choose = selection(accept, skip)
    try:
        run, subset = apply_selected(root, recipe, choose, ApplyOptions(dry_run, settings, options, verify))
    except KeyboardInterrupt:
        click.echo("\ncodemod: interrupted; nothing written", err=True)
        return EXIT_INTERRUPTED
    plan = run.plan
    if plan is not None and any(f.code == USAGE_ERROR for f in plan.findings):
        raise UsageLine(next(f.message for f in plan.findings if f.code == USAGE_ERROR))
    if plan is None:
        if run.recovery:
            click.echo(f"codemod: {run.recovery}", err=True)
        click.echo(f"codemod: error: {run.error}", err=True)
        return EXIT_FINDINGS
    if subset is None and plan.basis is not None:
        click.echo("codemod: quit without writing; nothing written", err=True)
        return EXIT_QUIT
    if subset is not None:
        click.echo(
            f"codemod: {len(subset.accepted)} of {len(subset.accepted) + len(subset.skipped)} change(s) accepted",
            err=True,
        )
        click.echo(
            f"codemod: {len(subset.skipped)} change(s) skipped"
            + (f": {', '.join(subset.skipped)}" if subset.skipped else ""),
            err=True,
        )
        if subset.new_findings and plan.blocking:
            needs = sorted({n for needers in subset.needed_by.values() for n in needers})
            if needs:
                click.echo(f"codemod: accepted changes that need a skipped one: {', '.join(needs)}", err=True)
    report = ApplyReport(root, recipe.id, run, dry_run, verbose=verbose, stat=stat, colour=colour)
    output = reporter(output_format).render_apply(report)
    for chunk in output.stdout:
        click.echo(chunk, nl=False, color=report.colour)
    for line in output.stderr:
        click.echo(line, err=True)
    return report.exit_code


__all__ = ["EXIT_INTERRUPTED", "EXIT_QUIT", "Walk", "apply_chosen", "interactive_choice", "needs_terminal", "selection"]
