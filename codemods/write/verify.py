"""Proving a plan with the project's own check before it is written (`codemod apply --verify`).

The planned tree is built in a scratch copy outside ROOT (files hard-linked from ROOT, the
planned ones and the few a check may write copied), the check runs there on the tree as it is
(the baseline, cached by the tree's content) and as the plan leaves it, and every error the
second run has that the first did not is a blocking `build-error` finding. The user's tree is
never touched: the scratch copy goes when the check ends, Ctrl-C or failure alike. A clean run
is evidence too: a `dangling-reference` finding in a file the check compiled is contradicted
by it (see `verify_plan`).

The checks (checks.py), detected when no command is given (`detected_checks`): Cargo (`cargo check
--workspace --all-targets`, into a target directory kept in the cache, so a second run is
incremental), C++ through `compile_commands.json` (each translation unit that includes a
changed file, `-fsyntax-only`), Python (byte-compile the changed files, import the changed
modules and those naming a removed name; mypy or pyright where the project configures one).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterator, Sequence

from codemods.edit.codes import Code
from codemods.edit.values import NOTE, Finding, ItemTarget
from codemods.plan.linking import target_of
from codemods.plan.planner import Plan
from codemods.write.checks import (
    LOOKED_FOR,
    BuildError,
    CargoCheck,
    Check,
    CommandCheck,
    Outcome,
    Processes,
    cargo_command,
    detected_checks,
)

# Folders never copied into the scratch tree: version control, journals, caches, build outputs.
_SKIPPED = frozenset(
    {".git", ".hg", ".svn", ".codemod-journal", "__pycache__", ".mypy_cache", ".pytest_cache", ".venv", "node_modules"}
)
# Files a check may rewrite in place: always real copies, never links to the user's file.
_COPIED = frozenset({"Cargo.lock"})
_HEARTBEAT_S = 15.0
_CACHE_VERSION = "1"


@dataclass(frozen=True)
class CheckRun:
    """One check run on the tree before (`baseline_*`) and after the plan.

    `new_errors` are the errors after the plan that the baseline does not have (by file, code
    and message, not line: the plan moves lines); `baseline_cached` says the baseline came from the
    cache; `covered` are the files (relative to ROOT) the check compiled after the plan, as far
    as it tells (Cargo's dep-info, the C++ units and the headers they include; none for Python
    and for a command of your own)."""

    command: str
    kind: str
    exit_code: int
    baseline_exit_code: int
    errors: tuple[BuildError, ...]
    baseline_errors: tuple[BuildError, ...]
    new_errors: tuple[BuildError, ...]
    seconds: float
    baseline_seconds: float
    baseline_cached: bool = False
    covered: tuple[str, ...] = ()
    output_tail: str = ""

    @property
    def clean(self) -> bool:
        """The check passed on the planned tree (exit 0, no error)."""
        return self.exit_code == 0 and not self.errors


@dataclass(frozen=True)
class Verification:
    """What `verify_plan` found.

    `plan` is the plan given with the verification's findings added: a blocking `build-error`
    per new error, and under `trust_build` the blocking dangling references the build
    contradicts turned into notes. `checks` are the checks run (none when `skipped` says why
    not); `contradicted` are the `dangling-reference` findings in files a clean build compiled;
    `problem` is set (and the plan carries it as a `usage-error` finding) when no check was
    found; `seconds` is the time the verification took in all.
    """

    plan: Plan
    checks: tuple[CheckRun, ...] = ()
    contradicted: tuple[Finding, ...] = ()
    problem: str | None = None
    skipped: str | None = None
    seconds: float = 0.0

    @property
    def new_errors(self) -> tuple[BuildError, ...]:
        return tuple(error for check in self.checks for error in check.new_errors)

    @property
    def clean(self) -> bool:
        """Every check ran and passed on the planned tree: the build is evidence."""
        return bool(self.checks) and all(check.clean for check in self.checks)

    def to_dict(self) -> dict[str, object]:
        """The `verify` part of `codemod apply --json`: the time, whether the build is clean,
        why it was skipped, how many findings it contradicts, and each check run."""
        return {
            "seconds": round(self.seconds, 3),
            "clean": self.clean,
            "skipped": self.skipped,
            "contradicted": len(self.contradicted),
            "checks": [
                {
                    "command": c.command,
                    "kind": c.kind,
                    "exit_code": c.exit_code,
                    "baseline_exit_code": c.baseline_exit_code,
                    "new_errors": len(c.new_errors),
                    "seconds": round(c.seconds, 3),
                    "baseline_seconds": round(c.baseline_seconds, 3),
                    "baseline_cached": c.baseline_cached,
                }
                for c in self.checks
            ],
        }


Progress = Callable[[str], None]


@contextmanager
def _heartbeat(say: Progress, what: str) -> Iterator[None]:
    """Tell `say` every few seconds that `what` is still running, and for how long."""
    started = time.monotonic()
    done = threading.Event()

    def beat() -> None:
        while not done.wait(_HEARTBEAT_S):
            say(f"{what}: running, {time.monotonic() - started:.0f} s so far")

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


# --- the scratch tree ---------------------------------------------------------------------------


def cache_dir(root: Path) -> Path:
    """Where the verification of `root` keeps its target directory and baselines: the folder
    `CODEMOD_VERIFY_CACHE` names, else `$XDG_CACHE_HOME/codemod/verify/<hash of ROOT's path>`
    (`~/.cache` by default). Outside ROOT, so that no build tool takes the scratch tree for a
    part of the user's workspace."""
    given = os.environ.get("CODEMOD_VERIFY_CACHE")
    if given:
        return Path(given)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "codemod" / "verify" / hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:16]


# What the cache's build last saw of each file the scratch tree held as a copy: path -> (sha256 of
# the content, mtime in ns). Incremental builds (cargo) judge a file by its mtime, so a copy is
# given the mtime recorded for its content when the build last saw that content, and a new
# mtime (now) otherwise: the build never takes other content for what it built.
_Seen = dict[str, tuple[str, int]]


@dataclass
class _Scratch:
    """The scratch tree: a digest of every file's content (the baseline's cache key), the tree's
    .py files, and what it holds as copies (`_Seen`)."""

    path: Path
    digest: str = ""
    python_files: list[str] = field(default_factory=list)
    copies: _Seen = field(default_factory=dict)


def _copy_as_seen(source: Path | bytes, destination: Path, digest: str, seen: _Seen, rel: str) -> tuple[str, int]:
    """Write a copy (of the file `source`, or of these bytes) with the mtime `seen` records for this
    content, else with a new one; what the build will see of it."""
    if isinstance(source, bytes):
        destination.write_bytes(source)
    else:
        shutil.copyfile(source, destination)
    known = seen.get(rel)
    if known is not None and known[0] == digest:
        os.utime(destination, ns=(known[1], known[1]))
        return known
    return digest, destination.stat().st_mtime_ns


def _may_write_sources(command: str) -> bool:
    """Whether a check command of the user's may rewrite source files in place: any command but
    a cargo check/build/clippy/test without `--fix`."""
    return cargo_command(command) is None or "--fix" in command.split()


def _link_tree(root: Path, scratch: Path, seen: _Seen, copy_all: bool = False) -> _Scratch:
    """Fill `scratch` with ROOT's files: hard links, real copies for the files `seen` has (a build
    saw other content there once) and `_COPIED` ones, symlinks as symlinks. With `copy_all`
    (a command of the user's runs there: it may rewrite sources in place, as `cargo fmt` or
    `clang-format -i` do), every file is a real copy (keeping its modification time)."""
    summary = hashlib.sha256()
    made = _Scratch(scratch)
    cargo_tree = (root / "Cargo.toml").is_file()
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        relative = here.relative_to(root)
        dirs[:] = sorted(
            d for d in dirs if d not in _SKIPPED and not (cargo_tree and relative == Path(".") and d == "target")
        )
        (scratch / relative).mkdir(parents=True, exist_ok=True)
        for name in sorted(files + [d for d in dirs if (here / d).is_symlink()]):
            source, destination = here / name, scratch / relative / name
            rel = (relative / name).as_posix()
            if source.is_symlink():
                target = os.readlink(source)
                os.symlink(target, destination)
                summary.update(f"{rel} -> {target}\n".encode())
                continue
            if rel.endswith(".py"):
                made.python_files.append(rel)
            with source.open("rb") as handle:
                digest = hashlib.file_digest(handle, "sha256").hexdigest()
            summary.update(f"{rel} {digest}\n".encode())
            if rel in seen or name in _COPIED:
                made.copies[rel] = _copy_as_seen(source, destination, digest, seen, rel)
                continue
            if copy_all:
                shutil.copy2(source, destination)
                continue
            try:
                os.link(source, destination)
            except OSError:
                shutil.copy2(source, destination)
        dirs[:] = [d for d in dirs if not (here / d).is_symlink()]
    made.digest = summary.hexdigest()
    return made


def _write_planned(scratch: _Scratch, plan: Plan, seen: _Seen) -> _Seen:
    """Put the plan's changes into the scratch tree (each changed file a new file: the link to the
    user's file is removed first, never written through; a deleted file gone); what the build
    will see of the copies then."""
    copies = dict(scratch.copies)
    for change in plan.changes:
        destination = scratch.path / change.path
        if destination.is_symlink() or destination.exists():
            destination.unlink()
        if change.deleted:
            copies[change.path] = ("", 0)
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        copies[change.path] = _copy_as_seen(
            change.after, destination, hashlib.sha256(change.after).hexdigest(), seen, change.path
        )
    return copies


@contextmanager
def _cache_lock(cache: Path) -> Iterator[None]:
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _load_seen(cache: Path) -> _Seen:
    try:
        return {
            path: (str(digest), int(mtime))
            for path, (digest, mtime) in json.loads((cache / "seen.json").read_text(encoding="utf-8")).items()
        }
    except (OSError, ValueError, TypeError):
        return {}


def _save_seen(cache: Path, seen: _Seen) -> None:
    """Recorded before a build starts: a build stopped part way saw this or older content (and
    older content has an older mtime than a new copy)."""
    (cache / "seen.json").write_text(json.dumps(seen), encoding="utf-8")


def _baseline_key(check: Check, tree_digest: str) -> str:
    return hashlib.sha256(f"{_CACHE_VERSION}\n{check.kind}\n{check.key()}\n{tree_digest}".encode()).hexdigest()


def _load_baseline(cache: Path, key: str) -> Outcome | None:
    try:
        data = json.loads((cache / "baseline" / f"{key}.json").read_text(encoding="utf-8"))
        return Outcome(int(data["exit_code"]), tuple(BuildError(**e) for e in data["errors"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store_baseline(cache: Path, key: str, outcome: Outcome) -> None:
    folder = cache / "baseline"
    folder.mkdir(parents=True, exist_ok=True)
    document = {"exit_code": outcome.exit_code, "errors": [e.__dict__ for e in outcome.errors]}
    (folder / f"{key}.json").write_text(json.dumps(document), encoding="utf-8")


# --- the verification ---------------------------------------------------------------------------


def _new_errors(before: Sequence[BuildError], after: Sequence[BuildError]) -> tuple[BuildError, ...]:
    """The errors of `after` whose place-free key no error of `before` has. Not counted: how many
    units a build compiles a file in before it stops at a failure varies from run to run."""
    known = {e.key() for e in before}
    return tuple(dict.fromkeys(e for e in after if e.key() not in known))


_QUOTED = re.compile(r"`([^`]+)`|‘([^’]+)’|'([^']+)'|\"([^\"]+)\"")


def _error_finding(error: BuildError, check: CheckRun, plan: Plan) -> Finding:
    """A new error as a blocking `build-error` finding, linked to the target whose deletion removed
    a name the message quotes (the compiler's quotes: `x`, ‘x’, 'x')."""
    removed = {re.split(r"::|\.", name)[-1] for name in plan.removed_names}
    symbol = None
    for match in _QUOTED.finditer(error.message):
        quoted = next(group for group in match.groups() if group is not None)
        for word in reversed(re.findall(r"[A-Za-z_]\w*", quoted)):
            if word in removed:
                symbol = word
                break
        if symbol:
            break
    target: ItemTarget | None = None
    if symbol is not None and plan.basis is not None:
        deleted = [item for stage in plan.basis.stages for items in stage.deleted.values() for item in items]
        target = target_of(symbol, plan.basis.recipe.deletions, deleted)
    code = f"[{error.code}]" if error.code else ""
    who = f"`{check.command}`" if check.kind == "command" else check.kind
    planned = " in the planned text" if any(c.path == error.path for c in plan.changes) and error.line else ""
    return Finding(
        error.path,
        error.line,
        error.col,
        Code.BUILD_ERROR,
        f"{who} error{code}{planned}: {error.message} (new: the tree as it is has no such error)",
        symbol=symbol,
        target=target,
    )


def _worth_building(plan: Plan, trust_build: bool) -> str | None:
    """Why building the plan would prove nothing (None: build it)."""
    if not plan.changes:
        return "the plan changes no file"
    blocking = [f for f in plan.blocking if not (trust_build and f.code == Code.DANGLING_REFERENCE)]
    if blocking:
        return f"the plan is refused anyway ({len(blocking)} blocking finding(s))"
    return None


def _weighed(plan: Plan, checks: Sequence[CheckRun], trust_build: bool) -> tuple[list[Finding], tuple[Finding, ...]]:
    """The plan's findings with what the build shows: new errors added; where every check is clean,
    the dangling references in a file it compiled are contradicted (each says so; under
    `trust_build`, a blocking one becomes a note)."""
    findings = list(plan.findings)
    clean = bool(checks) and all(c.clean for c in checks)
    covered = {path for c in checks for path in c.covered}
    contradicted = []
    if clean:
        for index, finding in enumerate(findings):
            if finding.code != Code.DANGLING_REFERENCE or finding.path not in covered:
                continue
            contradicted.append(finding)
            if finding.blocking and not trust_build:
                continue
            findings[index] = replace(
                finding,
                severity=NOTE,
                message=f"{finding.message}; the build compiles without it (for the configurations built)",
            )
    for check in checks:
        findings += [_error_finding(error, check, plan) for error in check.new_errors]
    return findings, tuple(contradicted)


def verify_plan(
    plan: Plan,
    commands: Sequence[str] = (),
    *,
    trust_build: bool = False,
    progress: Callable[[str], None] | None = None,
    cache: Path | None = None,
) -> Verification:
    """Build `plan`'s result with the project's own check and compare it with the tree as it is.

    `commands` are shell commands run in the scratch tree (a `cargo` one with JSON messages);
    none: the recipe's `verify` commands, else the checks the tree calls for (Cargo.toml in
    ROOT: `cargo check --workspace --all-targets`; compile_commands.json in ROOT or build/: the
    translation units that include a changed file, `-fsyntax-only`; changed Python files:
    byte-compiled and imported with the modules naming a removed name, and mypy/pyright where
    configured). None found: the result's `problem`, and its plan a `usage-error` finding.

    Each check runs on a scratch copy of ROOT (outside it, in `cache`, default `cache_dir(ROOT)`;
    the copy is removed before this returns, also on Ctrl-C) first as it is (the baseline, cached
    by the tree's content and the check), then as the plan leaves it; each error only the second
    run has is a blocking `build-error` finding of the returned plan. When every check passes,
    the `dangling-reference` findings in files a check compiled are `contradicted` (a note says
    so); with `trust_build`, blocking ones become notes: true only of the configurations built.
    A plan refused for other reasons, or changing nothing, is not built (`skipped`). `progress`
    hears which check runs and for how long. Never writes ROOT.
    """
    started = time.monotonic()
    say = progress or (lambda _message: None)
    root = Path(plan.root)
    cache = Path(cache).resolve() if cache is not None else cache_dir(root)
    recipe_commands = plan.basis.recipe.verify if plan.basis is not None else ()
    commands = tuple(commands) or tuple(recipe_commands)
    skipped = _worth_building(plan, trust_build)
    if skipped is not None:
        say(f"verify: skipped: {skipped}")
        return Verification(plan, skipped=skipped, seconds=time.monotonic() - started)
    processes = Processes(os.environ)
    runs: list[CheckRun] = []
    with _cache_lock(cache):
        scratch_path = cache / "tree"
        shutil.rmtree(scratch_path, ignore_errors=True)
        try:
            seen = _load_seen(cache)
            scratch = _link_tree(root, scratch_path, seen, copy_all=any(map(_may_write_sources, commands)))
            if commands:
                checks: list[Check] = [
                    CargoCheck(argv, cache / "target")
                    if (argv := cargo_command(command))
                    else CommandCheck(command, cache / "target")
                    for command in commands
                ]
            else:
                checks = detected_checks(plan, scratch.python_files, cache)
            if not checks:
                problem = (
                    f"--verify found no check to run for {root}: looked for {', '.join(LOOKED_FOR)}; "
                    f"give one with --verify=CMD or the recipe's `verify`"
                )
                finding = Finding("", 0, 0, Code.USAGE_ERROR, problem)
                return Verification(
                    replace(plan, findings=(*plan.findings, finding)),
                    problem=problem,
                    seconds=time.monotonic() - started,
                )
            baselines = []
            if any(_load_baseline(cache, _baseline_key(check, scratch.digest)) is None for check in checks):
                seen = scratch.copies
                _save_seen(cache, seen)
            for check in checks:
                key = _baseline_key(check, scratch.digest)
                cached = _load_baseline(cache, key)
                if cached is None:
                    say(f"verify: {check.label} (the tree as it is)")
                    began = time.monotonic()
                    with _heartbeat(say, f"verify: {check.label}"):
                        cached = check.run(scratch_path, processes)
                    _store_baseline(cache, key, cached)
                    baselines.append((cached, time.monotonic() - began, False))
                else:
                    baselines.append((cached, 0.0, True))
            _save_seen(cache, _write_planned(scratch, plan, seen))
            for check, (baseline, baseline_seconds, was_cached) in zip(checks, baselines):
                say(f"verify: {check.label} (the planned tree)")
                began = time.monotonic()
                with _heartbeat(say, f"verify: {check.label}"):
                    outcome = check.run(scratch_path, processes)
                seconds = time.monotonic() - began
                new = _new_errors(baseline.errors, outcome.errors)
                say(f"verify: {check.label}: exit {outcome.exit_code} in {seconds:.1f} s, {len(new)} new error(s)")
                runs.append(
                    CheckRun(
                        check.label,
                        check.kind,
                        outcome.exit_code,
                        baseline.exit_code,
                        outcome.errors,
                        baseline.errors,
                        new,
                        seconds,
                        baseline_seconds,
                        was_cached,
                        outcome.covered,
                        outcome.tail,
                    )
                )
        except BaseException:
            processes.kill_all()
            raise
        finally:
            shutil.rmtree(scratch_path, ignore_errors=True)
    findings, contradicted = _weighed(plan, runs, trust_build)
    elapsed = time.monotonic() - started
    new_count = sum(len(r.new_errors) for r in runs)
    say(
        f"verify: {len(runs)} check(s) in {elapsed:.1f} s: "
        + (f"{new_count} new error(s)" if new_count else "no new error")
        + (f", {len(contradicted)} dangling reference(s) the build contradicts" if contradicted else "")
    )
    return Verification(replace(plan, findings=tuple(findings)), tuple(runs), contradicted, seconds=elapsed)


__all__ = ["CheckRun", "Verification", "cache_dir", "verify_plan"]
