"""Proving a plan with the project's own check before it is written (`codemod apply --verify`).

The planned tree is built in a scratch copy outside ROOT (files hard-linked from ROOT, the
planned ones and the few a check may write copied), the check runs there on the tree as it is
(the baseline, cached by the tree's content) and as the plan leaves it, and every error the
second run has that the first did not is a blocking `build-error` finding. The user's tree is
never touched: the scratch copy goes when the check ends, Ctrl-C or failure alike. A clean run
is evidence too: a `dangling-reference` finding in a file the check compiled is contradicted
by it (see `verify_plan`).

The checks, detected when no command is given (`detected_checks`): Cargo (`cargo check
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
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterator, Mapping, Protocol, Sequence

from codemods.edit.codes import Code
from codemods.edit.values import NOTE, Finding, ItemTarget
from codemods.plan.linking import target_of
from codemods.plan.planner import Plan

# Folders never copied into the scratch tree: version control, journals, caches, build outputs.
_SKIPPED = frozenset({".git", ".hg", ".svn", ".codemod-journal", "__pycache__", ".mypy_cache", ".pytest_cache",
                      ".venv", "node_modules"})
# Files a check may rewrite in place: always real copies, never links to the user's file.
_COPIED = frozenset({"Cargo.lock"})
_HEARTBEAT_S = 15.0
_CACHE_VERSION = "1"


@dataclass(frozen=True)
class BuildError:
    """One error a check reported, at `path:line:col` (relative to ROOT; `line` 0 where the
    check gave no place), with the compiler's own code where it has one (`E0425`)."""

    path: str
    line: int
    col: int
    message: str
    code: str | None = None

    def key(self) -> tuple[str, str | None, str]:
        """What makes two errors the same across the baseline and the planned tree (not the line:
        the plan moves lines)."""
        return self.path, self.code, self.message


@dataclass(frozen=True)
class CheckRun:
    """One check run on the tree before (`baseline_*`) and after the plan.

    `new_errors` are the errors after the plan that the baseline does not have (by file, code
    and message, not line: the plan moves lines); `baseline_cached` says the baseline came from the
    cache; `covered` are the files (relative to ROOT) the check compiled after the plan, as far
    as it tells (Cargo's dep-info, the C++ units and their includes, the Python modules
    imported; empty for a command of your own)."""

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


@dataclass(frozen=True)
class _Outcome:
    exit_code: int
    errors: tuple[BuildError, ...]
    covered: tuple[str, ...] = ()
    tail: str = ""


class _Check(Protocol):
    @property
    def label(self) -> str: ...

    @property
    def kind(self) -> str: ...

    def key(self) -> str: ...

    def run(self, tree: Path, processes: "_Processes") -> _Outcome: ...


Progress = Callable[[str], None]


# --- running processes: killable on Ctrl-C, with a heartbeat -------------------------------------

class _Processes:
    """The processes a verification started, each in a session of its own so that Ctrl-C ends it
    and its children (by its group id, which is its own pid)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = dict(env)
        self._live: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()

    def run(self, argv: Sequence[str] | str, cwd: Path, stdin: bytes | None = None,
            env: Mapping[str, str] | None = None) -> tuple[int, str, str]:
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            try:
                process = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err, shell=isinstance(argv, str),
                                           stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                           env={**self.env, **(env or {})}, start_new_session=True)
            except OSError as error:
                return 127, "", f"{argv if isinstance(argv, str) else argv[0]}: {error.strerror or error}"
            with self._lock:
                self._live.add(process)
            try:
                process.communicate(stdin)
            finally:
                with self._lock:
                    self._live.discard(process)
            out.seek(0)
            err.seek(0)
            return (process.returncode, out.read().decode("utf-8", "replace"),
                    err.read().decode("utf-8", "replace"))

    def kill_all(self) -> None:
        with self._lock:
            live = list(self._live)
        for process in live:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                pass


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


# --- diagnostics ---------------------------------------------------------------------------------

# `path:line:col: error: message` (gcc, clang, mypy with column numbers; `fatal error` too).
_TEXT_ERROR = re.compile(r"^(?P<path>[^\s:][^:\n]*):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?:fatal )?error:\s*"
                         r"(?P<message>.*?)(?:\s+\[(?P<code>[\w-]+)\])?\s*$", re.M)
# pyright's text output: `  path:line:col - error: message`.
_PYRIGHT_ERROR = re.compile(r"^\s*(?P<path>\S.*?):(?P<line>\d+):(?P<col>\d+) - error: (?P<message>.*)$", re.M)
# rustc's human output: `error[E0425]: message` then ` --> path:line:col`.
_RUSTC_ERROR = re.compile(r"^error(?:\[(?P<code>E\d+)\])?: (?P<message>.*)\n\s*--> (?P<path>[^\n:]+):"
                          r"(?P<line>\d+):(?P<col>\d+)", re.M)


def _relative(path: str, tree: Path, cwd: Path) -> str:
    """`path` (as a check printed it: relative to `cwd`, or absolute) relative to the tree, POSIX;
    a path outside the tree as printed."""
    full = Path(path) if os.path.isabs(path) else cwd / path
    try:
        return Path(os.path.normpath(full)).relative_to(tree).as_posix()
    except ValueError:
        return path


def _text_errors(output: str, tree: Path, cwd: Path) -> list[BuildError]:
    """The errors of a check's text output, in the formats of gcc/clang/mypy, pyright and rustc."""
    found = []
    for pattern in (_TEXT_ERROR, _PYRIGHT_ERROR, _RUSTC_ERROR):
        for match in pattern.finditer(output):
            groups = match.groupdict()
            found.append(BuildError(_relative(groups["path"].strip(), tree, cwd), int(groups["line"]),
                                    int(groups.get("col") or 1), _unscratched(groups["message"].strip(), tree),
                                    groups.get("code")))
    return found


def _unscratched(message: str, tree: Path) -> str:
    """A message with the scratch tree's path taken out of it (paths read relative to ROOT)."""
    return message.replace(f"{tree}/", "").replace(str(tree), ".")


def _tail(*outputs: str, lines: int = 20) -> str:
    return "\n".join("\n".join(outputs).strip().splitlines()[-lines:])


def _failure(outcome_code: int, errors: list[BuildError], label: str, output: str) -> list[BuildError]:
    """`errors`, or where a failed check printed none this tool can read, one placeless error
    saying so (its last line), so that a check failing for another reason is never clean."""
    if outcome_code == 0 or errors:
        return errors
    last = next((line.strip() for line in reversed(output.strip().splitlines()) if line.strip()), "")
    return [BuildError("", 0, 0, f"`{label}` failed (exit {outcome_code})" + (f": {last}" if last else ""))]


# --- Cargo ----------------------------------------------------------------------------------------

_NETWORK_TROUBLE = ("failed to download", "Unable to update registry", "failed to get", "network", "offline")


def _cargo_messages(stdout: str, tree: Path) -> tuple[list[BuildError], set[str]]:
    """The errors of `cargo --message-format=json` output, and the tree's files the units it
    checked were compiled from (their dep-info files, beside the artifacts)."""
    errors: list[BuildError] = []
    covered: set[str] = set()
    for line in stdout.splitlines():
        if not line.startswith("{"):
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        reason = record.get("reason")
        if reason == "compiler-message":
            message = record.get("message") or {}
            text = str(message.get("message", ""))
            if message.get("level") not in ("error", "error: internal compiler error") or \
                    text.startswith("aborting due to"):
                continue
            spans = [s for s in message.get("spans", []) if s.get("is_primary")] or message.get("spans", [])
            code = (message.get("code") or {}).get("code")
            if spans:
                span = spans[0]
                errors.append(BuildError(_relative(str(span.get("file_name", "")), tree, tree),
                                         int(span.get("line_start", 0)), int(span.get("column_start", 0)),
                                         _unscratched(text, tree), code))
            else:
                errors.append(BuildError("", 0, 0, _unscratched(text, tree), code))
        elif reason == "compiler-artifact" and str(record.get("manifest_path", "")).startswith(str(tree)):
            for artifact in record.get("filenames", []):
                covered |= _dep_info_files(Path(artifact), tree)
    return errors, covered


def _dep_info_files(artifact: Path, tree: Path) -> set[str]:
    """The tree's files a unit's dep-info (`deps/NAME-HASH.d` beside `libNAME-HASH.rmeta`) lists."""
    if artifact.suffix not in (".rmeta", ".rlib"):
        return set()
    dep_info = artifact.with_name(artifact.stem.removeprefix("lib") + ".d")
    try:
        text = dep_info.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    files: set[str] = set()
    for line in text.splitlines():
        _, colon, dependencies = line.partition(": ")
        for word in re.split(r"(?<!\\) ", dependencies if colon else ""):
            word = word.replace("\\ ", " ").strip()
            if word and not word.endswith(":"):
                # rustc runs in the workspace root: its members' paths are relative to it
                files.add(_relative(word, tree, tree))
    return {path for path in files if not os.path.isabs(path)}


@dataclass(frozen=True)
class _CargoCheck:
    """A cargo command with JSON messages (`cargo check --workspace --all-targets` when detected)."""

    argv: tuple[str, ...]
    target_dir: Path
    kind: str = "cargo"

    @property
    def label(self) -> str:
        return shlex.join(self.argv)

    def key(self) -> str:
        return self.label

    def run(self, tree: Path, processes: _Processes) -> _Outcome:
        argv = list(self.argv)
        env = {"CARGO_TARGET_DIR": str(self.target_dir), "CARGO_TERM_COLOR": "never"}
        if _truthy(os.environ.get("CARGO_NET_OFFLINE")) and "--offline" not in argv:
            argv = _with_cargo_flag(argv, "--offline")
        code, stdout, stderr = processes.run(argv, tree, env=env)
        errors, covered = _cargo_messages(stdout, tree)
        if code != 0 and not errors and "--offline" not in argv and \
                any(word in stderr for word in _NETWORK_TROUBLE):
            # No registry reachable: what the machine has vendored or cached may be enough.
            argv = _with_cargo_flag(argv, "--offline")
            code, stdout, stderr = processes.run(argv, tree, env=env)
            errors, covered = _cargo_messages(stdout, tree)
        return _Outcome(code, tuple(_failure(code, errors, self.label, stderr)), tuple(sorted(covered)),
                        _tail(stderr))


def _truthy(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true", "yes", "on")


def _with_cargo_flag(argv: list[str], flag: str) -> list[str]:
    """`argv` (a cargo command) with `flag` added before any `--` (the arguments of the tool run)."""
    cut = argv.index("--") if "--" in argv else len(argv)
    return [*argv[:cut], flag, *argv[cut:]]


# --- C++ through compile_commands.json -----------------------------------------------------------

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^">\n]+)[">]', re.M)
_DEPENDENCY_FLAGS = ("-M", "-MM", "-MD", "-MMD", "-MG", "-MP")
_VALUED_DEPENDENCY_FLAGS = ("-MF", "-MT", "-MQ")


@dataclass(frozen=True)
class _Unit:
    """One entry of compile_commands.json: the file, the folder it compiles in, its arguments."""

    file: Path
    directory: Path
    arguments: tuple[str, ...]


def _compile_units(database: Path) -> list[_Unit]:
    try:
        entries = json.loads(database.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    units = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or "file" not in entry or "directory" not in entry:
            continue
        arguments = entry.get("arguments") or shlex.split(str(entry.get("command", "")))
        directory = Path(str(entry["directory"]))
        file = Path(str(entry["file"]))
        units.append(_Unit(file if file.is_absolute() else directory / file, directory, tuple(map(str, arguments))))
    return units


def _include_dirs(unit: _Unit) -> tuple[list[Path], list[Path]]:
    """The folders a unit's `#include "..."` (first list) and `#include <...>` (second) search,
    beyond the including file's own folder for the first."""
    quoted: list[Path] = []
    angled: list[Path] = []
    arguments = list(unit.arguments)
    for index, argument in enumerate(arguments):
        for flag, into in (("-iquote", quoted), ("-I", angled), ("-isystem", angled), ("-idirafter", angled)):
            if argument == flag and index + 1 < len(arguments):
                value = arguments[index + 1]
            elif argument.startswith(flag) and len(argument) > len(flag):
                value = argument[len(flag):]
            else:
                continue
            into.append(Path(value) if os.path.isabs(value) else unit.directory / value)
            break
    return quoted + angled, angled


def _reaches(unit: _Unit, root: Path, targets: set[Path], known: dict[Path, list[tuple[bool, str]]]) -> set[Path]:
    """The tree's files `unit` includes, directly or not (over-approximated: every `#include` line
    counts, whatever branch it is in), with the unit itself; stops early once it reaches one
    of `targets` (then the set holds it)."""
    quoted_dirs, angled_dirs = _include_dirs(unit)
    seen = {unit.file}
    queue = [unit.file]
    while queue:
        current = queue.pop()
        if current in targets:
            return seen
        if current not in known:
            try:
                text = current.read_bytes()
            except OSError:
                text = b""
            known[current] = [(quote == b'"', name.decode("utf-8", "replace")) for quote, name in _INCLUDE.findall(text)]
        for is_quoted, name in known[current]:
            for folder in ([current.parent, *quoted_dirs] if is_quoted else angled_dirs):
                candidate = Path(os.path.normpath(folder / name))
                if candidate in seen:
                    break
                if candidate in targets or candidate.is_file():
                    if str(candidate).startswith(f"{root}/"):  # a header outside the tree is not followed
                        seen.add(candidate)
                        queue.append(candidate)
                    break
    return seen


def _json_diagnostics_supported(compiler: str) -> bool:
    """Whether `compiler` takes `-fdiagnostics-format=json` (gcc 9 and later; not clang)."""
    if "clang" in Path(compiler).name:
        return False
    try:
        probe = subprocess.run([compiler, "-fdiagnostics-format=json", "-fsyntax-only", "-x", "c++", "-"],
                               input=b"", capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def _json_errors(stderr: str, tree: Path, cwd: Path) -> list[BuildError] | None:
    """gcc's JSON diagnostics (a JSON array per line), or None if the output is not that."""
    errors: list[BuildError] = []
    parsed_any = False
    for line in stderr.splitlines():
        if not line.startswith("["):
            continue
        try:
            diagnostics = json.loads(line)
        except ValueError:
            continue
        parsed_any = True
        for diagnostic in diagnostics:
            if diagnostic.get("kind") not in ("error", "fatal error"):
                continue
            caret = ((diagnostic.get("locations") or [{}])[0]).get("caret") or {}
            errors.append(BuildError(_relative(str(caret.get("file", "")), tree, cwd) if caret else "",
                                     int(caret.get("line", 0)), int(caret.get("column", 0)),
                                     _unscratched(str(diagnostic.get("message", "")), tree),
                                     diagnostic.get("option")))
    return errors if parsed_any else None


@dataclass(frozen=True)
class _CompileUnitsCheck:
    """`-fsyntax-only` over the translation units (of `database`) that include a changed file."""

    root: Path
    database: Path
    units: tuple[_Unit, ...]
    kind: str = "c++"

    @property
    def label(self) -> str:
        return (f"{len(self.units)} translation unit(s) of {self.database.relative_to(self.root).as_posix()}, "
                f"-fsyntax-only")

    def key(self) -> str:
        return json.dumps([[str(u.file), str(u.directory), list(u.arguments)] for u in self.units])

    def _argv(self, unit: _Unit, tree: Path, json_diagnostics: bool) -> list[str]:
        argv: list[str] = []
        skip_next = False
        for argument in unit.arguments:
            if skip_next:
                skip_next = False
                continue
            if argument in ("-o", *_VALUED_DEPENDENCY_FLAGS):
                skip_next = True
                continue
            if argument == "-c" or argument in _DEPENDENCY_FLAGS or argument.startswith("-o") and len(argument) > 2 \
                    or argument.startswith("-fdiagnostics-format"):
                continue
            argv.append(argument.replace(str(self.root), str(tree)))
        return [*argv, "-fsyntax-only", *(["-fdiagnostics-format=json"] if json_diagnostics else [])]

    def run(self, tree: Path, processes: _Processes) -> _Outcome:
        json_diagnostics = bool(self.units) and _json_diagnostics_supported(self.units[0].arguments[0])

        def one(unit: _Unit) -> tuple[int, list[BuildError], str]:
            cwd = Path(str(unit.directory).replace(str(self.root), str(tree)))
            code, stdout, stderr = processes.run(self._argv(unit, tree, json_diagnostics), cwd)
            errors = _json_errors(stderr, tree, cwd) if json_diagnostics else None
            if errors is None:
                errors = _text_errors(stderr, tree, cwd)
            return code, _failure(code, errors, unit.file.name, stderr + stdout), stderr

        with ThreadPoolExecutor(max_workers=max(1, min(8, os.cpu_count() or 1))) as pool:
            results = list(pool.map(one, self.units))
        known: dict[Path, list[tuple[bool, str]]] = {}
        covered = {p.relative_to(self.root).as_posix() for unit in self.units
                   for p in _reaches(unit, self.root, set(), known) if str(p).startswith(f"{self.root}/")}
        code = max((result[0] for result in results), default=0)
        return _Outcome(code, tuple(e for result in results for e in result[1]), tuple(sorted(covered)),
                        _tail(*(result[2] for result in results if result[0])))


# --- Python -------------------------------------------------------------------------------------

# Runs in the scratch tree: byte-compiles FILES, imports MODULES; prints the errors as JSON.
_PYTHON_PROBE = r"""
import json, sys, traceback, importlib
request = json.loads(sys.stdin.read())
root = request["root"]
sys.path[:0] = request["paths"]
errors = []
def place(error):
    if isinstance(error, SyntaxError) and error.filename and error.filename.startswith(root):
        return error.filename, error.lineno or 0, error.offset or 1
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename.startswith(root)]
    return (frames[-1].filename, frames[-1].lineno or 0, (frames[-1].colno or 0) + 1) if frames else ("", 0, 0)
for path in request["files"]:
    try:
        with open(path, "rb") as handle:
            compile(handle.read(), path, "exec", dont_inherit=True)
    except SyntaxError as error:
        errors.append([path, error.lineno or 0, error.offset or 1, f"SyntaxError: {error.msg}"])
for module in request["modules"]:
    try:
        importlib.import_module(module)
    except BaseException as error:
        where = place(error)
        errors.append([where[0], where[1], where[2], f"{type(error).__name__}: {error}"])
print(json.dumps(errors))
"""


def _module_of(path: Path, tree: Path) -> tuple[str, Path] | None:
    """The dotted module name of a .py file and the folder it imports from (the first folder up
    without `__init__.py`), or None if a part is not an identifier."""
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    while folder != tree and (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts), folder


@dataclass(frozen=True)
class _PythonCheck:
    """Byte-compile `files` and import `modules` (paths relative to ROOT) with this Python."""

    files: tuple[str, ...]
    modules: tuple[str, ...]
    kind: str = "python"

    @property
    def label(self) -> str:
        return (f"python: byte-compile {len(self.files)} file(s), import {len(self.modules)} module(s)")

    def key(self) -> str:
        return json.dumps([self.files, self.modules])

    def run(self, tree: Path, processes: _Processes) -> _Outcome:
        modules = [m for path in self.modules if (m := _module_of(tree / path, tree)) is not None]
        request = {"root": str(tree), "files": [str(tree / p) for p in self.files if (tree / p).is_file()],
                   "modules": list(dict.fromkeys(name for name, _ in modules)),
                   "paths": list(dict.fromkeys(str(folder) for _, folder in modules))}
        code, stdout, stderr = processes.run([sys.executable, "-I", "-B", "-c", _PYTHON_PROBE], tree,
                                             stdin=json.dumps(request).encode())
        try:
            raw = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else None
        except ValueError:
            raw = None
        if raw is None:
            return _Outcome(code or 1, tuple(_failure(code or 1, [], self.label, stderr)), (), _tail(stderr))
        errors = [BuildError(_relative(path, tree, tree) if path else "", line, col, _unscratched(message, tree))
                  for path, line, col, message in raw]
        # An import runs a module's top level only: no evidence about the names its functions use.
        return _Outcome(1 if errors else 0, tuple(errors), (), _tail(stderr))


@dataclass(frozen=True)
class _CommandCheck:
    """A command given by the user (`--verify CMD`, a recipe's `verify`), run by the shell in the
    tree; its errors are read from its output (gcc/clang, rustc, mypy, pyright formats). A
    `cargo` command is run with JSON messages (`--message-format=json` added)."""

    command: str
    target_dir: Path
    kind: str = "command"

    @property
    def label(self) -> str:
        return self.command

    def key(self) -> str:
        return self.command

    def run(self, tree: Path, processes: _Processes) -> _Outcome:
        code, stdout, stderr = processes.run(self.command, tree, env={"CARGO_TARGET_DIR": str(self.target_dir)})
        errors = _text_errors(stdout + "\n" + stderr, tree, tree)
        return _Outcome(code, tuple(_failure(code, errors, self.command, stderr + stdout)), (), _tail(stdout, stderr))


def _cargo_command(command: str) -> tuple[str, ...] | None:
    """A user's `cargo check/build/clippy/test ...` with JSON messages, or None for any other command."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    if len(argv) < 2 or argv[0] != "cargo" or argv[1] not in ("check", "build", "clippy", "test", "bench", "doc") \
            or any(a.startswith("--message-format") for a in argv):
        return None
    return tuple(_with_cargo_flag(argv, "--message-format=json"))


# --- detection ----------------------------------------------------------------------------------

def _mypy_configured(root: Path) -> bool:
    pyproject = root / "pyproject.toml"
    if pyproject.is_file() and re.search(r"(?m)^\[tool\.mypy\]", pyproject.read_text(encoding="utf-8", errors="replace")):
        return True
    setup = root / "setup.cfg"
    return (root / "mypy.ini").is_file() or (root / ".mypy.ini").is_file() or \
        setup.is_file() and "[mypy]" in setup.read_text(encoding="utf-8", errors="replace")


def _pyright_configured(root: Path) -> bool:
    pyproject = root / "pyproject.toml"
    return (root / "pyrightconfig.json").is_file() or pyproject.is_file() and \
        bool(re.search(r"(?m)^\[tool\.pyright\]", pyproject.read_text(encoding="utf-8", errors="replace")))


LOOKED_FOR = ("Cargo.toml in ROOT", "compile_commands.json in ROOT or ROOT/build", "Python files the plan changes")


def detected_checks(plan: Plan, python_files: Sequence[str], cache: Path) -> list[_Check]:
    """The checks the tree calls for (`LOOKED_FOR`), for the files the plan changes; `python_files`
    are the tree's .py files (relative paths)."""
    root = plan.root
    changed = [c.path for c in plan.changes]
    checks: list[_Check] = []
    if (root / "Cargo.toml").is_file():
        checks.append(_CargoCheck(("cargo", "check", "--workspace", "--all-targets", "--keep-going",
                                   "--message-format=json"),
                                  cache / "target"))
    database = next((p for p in (root / "compile_commands.json", root / "build" / "compile_commands.json")
                     if p.is_file()), None)
    if database is not None:
        targets = {Path(os.path.normpath(root / path)) for path in changed}
        known: dict[Path, list[tuple[bool, str]]] = {}
        units = tuple(u for u in _compile_units(database)
                      if u.file.is_file() and targets & _reaches(u, root, targets, known)
                      and not any(c.path == _inside(u.file, root) and c.deleted for c in plan.changes))
        checks.append(_CompileUnitsCheck(root, database, units))
    changed_python = [p for p in changed if p.endswith(".py")]
    if changed_python:
        kept = [c.path for c in plan.changes if c.path.endswith(".py") and not c.deleted]
        names = {re.split(r"::|\.", name)[-1] for name in plan.removed_names}
        naming = [p for p in python_files if p not in kept and _names_any(root / p, names)]
        checks.append(_PythonCheck(tuple(kept), tuple(dict.fromkeys([*kept, *naming]))))
        if _mypy_configured(root):
            packages = sorted({p.split("/")[0] if "/" in p else p for p in changed_python})
            checks.append(_CommandCheck(shlex.join([sys.executable, "-m", "mypy", "--no-error-summary",
                                                    "--show-column-numbers", "--no-pretty", "--hide-error-context",
                                                    "--cache-dir", str(cache / "mypy"), *packages]),
                                        cache / "target", kind="mypy"))
        if _pyright_configured(root) and shutil.which("pyright"):
            checks.append(_CommandCheck("pyright", cache / "target", kind="pyright"))
    return checks


def _inside(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return ""


def _names_any(path: Path, names: set[str]) -> bool:
    from codemods.words import whole_word_hits

    try:
        return bool(names) and bool(whole_word_hits(path.read_bytes(), names))
    except OSError:
        return False


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


def _link_tree(root: Path, scratch: Path, seen: _Seen) -> _Scratch:
    """Fill `scratch` with ROOT's files: hard links, real copies for the files `seen` has (a build
    saw other content there once) and `_COPIED` ones, symlinks as symlinks."""
    summary = hashlib.sha256()
    made = _Scratch(scratch)
    cargo_tree = (root / "Cargo.toml").is_file()
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        relative = here.relative_to(root)
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED and not (cargo_tree and relative == Path(".")
                                                                      and d == "target"))
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
        copies[change.path] = _copy_as_seen(change.after, destination, hashlib.sha256(change.after).hexdigest(),
                                            seen, change.path)
    return copies


@contextmanager
def _cache_lock(cache: Path) -> Iterator[None]:
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _load_seen(cache: Path) -> _Seen:
    try:
        return {path: (str(digest), int(mtime)) for path, (digest, mtime)
                in json.loads((cache / "seen.json").read_text(encoding="utf-8")).items()}
    except (OSError, ValueError, TypeError):
        return {}


def _save_seen(cache: Path, seen: _Seen) -> None:
    """Recorded before a build starts: a build stopped part way saw this or older content (and
    older content has an older mtime than a new copy)."""
    (cache / "seen.json").write_text(json.dumps(seen), encoding="utf-8")


def _baseline_key(check: _Check, tree_digest: str) -> str:
    return hashlib.sha256(f"{_CACHE_VERSION}\n{check.kind}\n{check.key()}\n{tree_digest}".encode()).hexdigest()


def _load_baseline(cache: Path, key: str) -> _Outcome | None:
    try:
        data = json.loads((cache / "baseline" / f"{key}.json").read_text(encoding="utf-8"))
        return _Outcome(int(data["exit_code"]), tuple(BuildError(**e) for e in data["errors"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store_baseline(cache: Path, key: str, outcome: _Outcome) -> None:
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
    return Finding(error.path, error.line, error.col, Code.BUILD_ERROR,
                   f"{who} error{code}{planned}: {error.message} (new: the tree as it is has no such error)",
                   symbol=symbol, target=target)


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
            findings[index] = replace(finding, severity=NOTE,
                                      message=f"{finding.message}; the build compiles without it (for the "
                                              f"configurations built)")
    for check in checks:
        findings += [_error_finding(error, check, plan) for error in check.new_errors]
    return findings, tuple(contradicted)


def verify_plan(plan: Plan, commands: Sequence[str] = (), *, trust_build: bool = False,
                progress: Progress | None = None, cache: Path | None = None) -> Verification:
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
    processes = _Processes(os.environ)
    runs: list[CheckRun] = []
    with _cache_lock(cache):
        scratch_path = cache / "tree"
        shutil.rmtree(scratch_path, ignore_errors=True)
        try:
            seen = _load_seen(cache)
            scratch = _link_tree(root, scratch_path, seen)
            if commands:
                checks: list[_Check] = [_CargoCheck(argv, cache / "target") if (argv := _cargo_command(command))
                                        else _CommandCheck(command, cache / "target") for command in commands]
            else:
                checks = detected_checks(plan, scratch.python_files, cache)
            if not checks:
                problem = (f"--verify found no check to run for {root}: looked for {', '.join(LOOKED_FOR)}; "
                           f"give one with --verify=CMD or the recipe's `verify`")
                finding = Finding("", 0, 0, Code.USAGE_ERROR, problem)
                return Verification(replace(plan, findings=(*plan.findings, finding)), problem=problem,
                                    seconds=time.monotonic() - started)
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
                say(f"verify: {check.label}: exit {outcome.exit_code} in {seconds:.1f} s, "
                    f"{len(new)} new error(s)")
                runs.append(CheckRun(check.label, check.kind, outcome.exit_code, baseline.exit_code, outcome.errors,
                                     baseline.errors, new, seconds, baseline_seconds, was_cached, outcome.covered,
                                     outcome.tail))
        except BaseException:
            processes.kill_all()
            raise
        finally:
            shutil.rmtree(scratch_path, ignore_errors=True)
    findings, contradicted = _weighed(plan, runs, trust_build)
    elapsed = time.monotonic() - started
    new_count = sum(len(r.new_errors) for r in runs)
    say(f"verify: {len(runs)} check(s) in {elapsed:.1f} s: " +
        (f"{new_count} new error(s)" if new_count else "no new error") +
        (f", {len(contradicted)} dangling reference(s) the build contradicts" if contradicted else ""))
    return Verification(replace(plan, findings=tuple(findings)), tuple(runs), contradicted, seconds=elapsed)


__all__ = ["BuildError", "CheckRun", "LOOKED_FOR", "Verification", "cache_dir", "detected_checks", "verify_plan"]
