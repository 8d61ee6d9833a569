"""Before the first server starts: every program a run needs is there, and the bench takes its options.

`check_programs` looks up the server program, the bench program and, when the
bench is a Python script, the script itself, the way the runner will start
them (a bare name on PATH, a path with a slash relative to ``--repo``), and
raises `PreflightError` with one line naming what is missing and which option
fixes it. Nothing is started and nothing is written.

`read_bench_options` runs the bench script with ``--help`` (in ``--repo``) and
collects the ``--options`` it lists. `adapt_bench_template` then drops
``--metrics`` from the bench template when the script does not list it (mlxcel
trees from before the script learnt ``--metrics``), and refuses any other
option the script does not list. When the options cannot be read (no script
named, ``--help`` fails) the template is used as given.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from analysis._schedule import render_command

# The bench option whose absence only means an older script: its lines are extra detail.
OPTIONAL_BENCH_OPTIONS = ("--metrics",)
HELP_TIMEOUT_S = 60.0
_PYTHON = re.compile(r"^python[0-9.]*$")
_OPTION = re.compile(r"(?<![\w-])(--[A-Za-z][\w-]*)")


class PreflightError(Exception):
    """A program or option a run needs is missing; the message is one line."""


@dataclass(frozen=True)
class BenchScript:
    """The bench script a template runs and the options its ``--help`` lists (None: not read)."""

    argv: tuple[str, ...]
    script: str | None
    options: frozenset[str] | None
    why_unread: str | None = None

    def describe(self) -> str:
        """One line for stderr: which script, and which version of it was found."""
        name = self.script or self.argv[0]
        if self.options is None:
            return f"bench {name}: could not read its options ({self.why_unread}); running the bench command as given"
        if "--metrics" in self.options:
            return f"bench {name}: takes --metrics (the version with per-level metrics lines)"
        return f"bench {name}: has no --metrics (the version without per-level metrics lines)"


def _program_problem(program: str, repo: Path) -> str | None:
    """Why `program` cannot be started from `repo`, or None when it can."""
    if "/" in program:
        path = Path(program) if Path(program).is_absolute() else repo / program
        if not path.is_file():
            return f"{program} not found in {repo}" if not Path(program).is_absolute() else f"{program} not found"
        if not os.access(path, os.X_OK):
            return f"{program} is not executable"
        return None
    if shutil.which(program) is None:
        return f"{program} not found on PATH"
    return None


def _script_of(argv: list[str]) -> str | None:
    """The script a Python command line runs (`python3 [-u] path/to/x.py ...`), or None."""
    if not argv or not _PYTHON.match(Path(argv[0]).name):
        return None
    for argument in argv[1:]:
        if argument in ("-c", "-m"):
            return None
        if not argument.startswith("-"):
            return argument
    return None


def _split(option: str, template: str, **values: object) -> list[str]:
    try:
        argv = shlex.split(render_command(template, **values))
    except ValueError as error:
        raise PreflightError(f"{option} {template!r}: cannot split it into arguments ({error})") from None
    if not argv:
        raise PreflightError(f"{option} is empty")
    return argv


def check_programs(serve_template: str, bench_template: str, repo: Path) -> None:
    """Raise PreflightError when the server, the bench program or the bench script is missing."""
    serve = _split("--serve-cmd", serve_template, model="MODEL", port=1, backend="paged")
    problem = _program_problem(serve[0], repo) or _script_problem(serve, repo)
    if problem:
        raise PreflightError(f"cannot start the server: {problem}; give --serve-cmd")
    bench = _split("--bench-cmd", bench_template, port=1, prompt_tokens=1)
    problem = _program_problem(bench[0], repo)
    if problem:
        raise PreflightError(f"cannot run the bench: {problem}; give --bench-cmd")
    problem = _script_problem(bench, repo)
    if problem:
        raise PreflightError(f"cannot run the bench: {problem}; give --repo (the mlxcel checkout) or --bench-cmd")


def _script_problem(argv: list[str], repo: Path) -> str | None:
    """Why the Python script of a command line cannot be run from `repo`, or None."""
    script = _script_of(argv)
    if script is None:
        return None
    path = Path(script) if Path(script).is_absolute() else repo / script
    return None if path.is_file() else f"{script} not found in {repo}"


def read_bench_options(bench_template: str, repo: Path) -> BenchScript:
    """Run the bench script with --help and collect the options it lists."""
    argv = _split("--bench-cmd", bench_template, port=1, prompt_tokens=1)
    script = _script_of(argv)
    if script is None:
        return BenchScript(tuple(argv), None, None, "the bench command names no Python script")
    probe = argv[: argv.index(script) + 1] + ["--help"]
    try:
        done = subprocess.run(probe, cwd=repo, capture_output=True, text=True, errors="replace",
                              stdin=subprocess.DEVNULL, timeout=HELP_TIMEOUT_S)  # fmt: skip
    except subprocess.TimeoutExpired:
        return BenchScript(tuple(argv), script, None, f"`--help` did not finish within {HELP_TIMEOUT_S:g}s")
    except OSError as error:
        return BenchScript(tuple(argv), script, None, f"`--help` could not start: {error.strerror or error}")
    options = frozenset(_OPTION.findall(done.stdout))
    if done.returncode != 0 or not options:
        return BenchScript(tuple(argv), script, None, f"`{shlex.join(probe)}` exited with {done.returncode}")
    return BenchScript(tuple(argv), script, options)


def adapt_bench_template(bench_template: str, found: BenchScript) -> tuple[str, tuple[str, ...]]:
    """The template to run and the optional options dropped from it; PreflightError for others unknown."""
    if found.options is None:
        return bench_template, ()
    tokens = shlex.split(bench_template)
    after_script = tokens[tokens.index(found.script) + 1 :] if found.script in tokens else tokens[1:]
    given = [token.split("=", 1)[0] for token in after_script if token.startswith("--")]
    unknown = [option for option in dict.fromkeys(given) if option not in found.options]
    refused = [option for option in unknown if option not in OPTIONAL_BENCH_OPTIONS]
    if refused:
        listed = ", ".join(sorted(found.options - {"--help"}))
        raise PreflightError(
            f"--bench-cmd passes {', '.join(refused)}, which {found.script} does not take "
            f"(its options: {listed}); change --bench-cmd"
        )
    dropped = tuple(unknown)
    if not dropped:
        return bench_template, ()
    for option in dropped:  # flags without a value: cut them out of the text, keeping its quoting
        bench_template = re.sub(rf"\s+{re.escape(option)}(?=\s|$)", "", bench_template)
    return bench_template, dropped
