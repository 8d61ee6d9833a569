"""The checks `--verify` runs on a tree, and the errors they report (see verify.py).

A check runs in a folder (the scratch copy of ROOT) and returns an `Outcome`: its exit code,
its errors as `BuildError`s (path relative to the folder, line, column, message, the
compiler's code), and the files it compiled, where it tells. `detected_checks` finds those the
tree calls for: Cargo, C++ through `compile_commands.json`, Python; a command of the user's is
a `CommandCheck` (a `cargo` one a `CargoCheck`, with JSON messages).
"""

from __future__ import annotations

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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Protocol, Sequence

from codemods.plan.planner import Plan
from codemods.words import whole_word_hits


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
class Outcome:
    exit_code: int
    errors: tuple[BuildError, ...]
    covered: tuple[str, ...] = ()
    tail: str = ""


class Check(Protocol):
    @property
    def label(self) -> str: ...

    @property
    def kind(self) -> str: ...

    def key(self) -> str: ...

    def run(self, tree: Path, processes: "Processes") -> Outcome: ...


# --- running processes: killable on Ctrl-C -------------------------------------


@dataclass(frozen=True)
class Ran:
    """What one process gave (`Processes.run`): its exit status and what it printed."""

    code: int
    stdout: str
    stderr: str


class Processes:
    """The processes a verification started, each in a session of its own so that Ctrl-C ends it
    and its children (by its group id, which is its own pid)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = dict(env)
        self._live: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()

    def run(
        self, argv: Sequence[str] | str, cwd: Path, stdin: bytes | None = None, env: Mapping[str, str] | None = None
    ) -> Ran:
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            try:
                process = subprocess.Popen(
                    argv,
                    cwd=cwd,
                    stdout=out,
                    stderr=err,
                    shell=isinstance(argv, str),
                    stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                    env={**self.env, **(env or {})},
                    start_new_session=True,
                )
            except OSError as error:
                return Ran(127, "", f"{argv if isinstance(argv, str) else argv[0]}: {error.strerror or error}")
            with self._lock:
                self._live.add(process)
            try:
                process.communicate(stdin)
            finally:
                with self._lock:
                    self._live.discard(process)
            out.seek(0)
            err.seek(0)
            return Ran(process.returncode, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"))

    def kill_all(self) -> None:
        with self._lock:
            live = list(self._live)
        for process in live:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                pass


# --- diagnostics ---------------------------------------------------------------------------------

# `path:line:col: error: message` (gcc, clang, mypy with column numbers; `fatal error` too).
_TEXT_ERROR = re.compile(
    r"^(?P<path>[^\s:][^:\n]*):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?:fatal )?error:\s*"
    r"(?P<message>.*?)(?:\s+\[(?P<code>[\w-]+)\])?\s*$",
    re.M,
)
# pyright's text output: `  path:line:col - error: message`.
_PYRIGHT_ERROR = re.compile(r"^\s*(?P<path>\S.*?):(?P<line>\d+):(?P<col>\d+) - error: (?P<message>.*)$", re.M)
# rustc's human output: `error[E0425]: message` then ` --> path:line:col`.
_RUSTC_ERROR = re.compile(
    r"^error(?:\[(?P<code>E\d+)\])?: (?P<message>.*)\n\s*--> (?P<path>[^\n:]+):"
    r"(?P<line>\d+):(?P<col>\d+)",
    re.M,
)


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
            found.append(
                BuildError(
                    _relative(groups["path"].strip(), tree, cwd),
                    int(groups["line"]),
                    int(groups.get("col") or 1),
                    _unscratched(groups["message"].strip(), tree),
                    groups.get("code"),
                )
            )
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
            if message.get("level") not in ("error", "error: internal compiler error") or text.startswith(
                "aborting due to"
            ):
                continue
            spans = [s for s in message.get("spans", []) if s.get("is_primary")] or message.get("spans", [])
            code = (message.get("code") or {}).get("code")
            if spans:
                span = spans[0]
                errors.append(
                    BuildError(
                        _relative(str(span.get("file_name", "")), tree, tree),
                        int(span.get("line_start", 0)),
                        int(span.get("column_start", 0)),
                        _unscratched(text, tree),
                        code,
                    )
                )
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
class CargoCheck:
    """A cargo command with JSON messages (`cargo check --workspace --all-targets` when detected)."""

    argv: tuple[str, ...]
    target_dir: Path
    kind: str = "cargo"

    @property
    def label(self) -> str:
        return shlex.join(self.argv)

    def key(self) -> str:
        return self.label

    def run(self, tree: Path, processes: Processes) -> Outcome:
        argv = list(self.argv)
        env = {"CARGO_TARGET_DIR": str(self.target_dir), "CARGO_TERM_COLOR": "never"}
        if _truthy(os.environ.get("CARGO_NET_OFFLINE")) and "--offline" not in argv:
            argv = _with_cargo_flag(argv, "--offline")
        ran = processes.run(argv, tree, env=env)
        errors, covered = _cargo_messages(ran.stdout, tree)
        if (
            ran.code != 0
            and not errors
            and "--offline" not in argv
            and any(word in ran.stderr for word in _NETWORK_TROUBLE)
        ):
            # No registry reachable: what the machine has vendored or cached may be enough.
            argv = _with_cargo_flag(argv, "--offline")
            ran = processes.run(argv, tree, env=env)
            errors, covered = _cargo_messages(ran.stdout, tree)
        return Outcome(
            ran.code,
            tuple(_failure(ran.code, errors, self.label, ran.stderr)),
            tuple(sorted(covered)),
            _tail(ran.stderr),
        )


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


@dataclass(frozen=True)
class _UnitOutcome:
    """One unit's syntax check: the compiler's exit status, the errors, and its stderr."""

    code: int
    errors: list[BuildError]
    stderr: str


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


def _include_dirs(unit: _Unit) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The folders a unit's `#include "..."` (first) and `#include <...>` (second) search, beyond
    the including file's own folder for the first."""
    quoted: list[str] = []
    angled: list[str] = []
    arguments = list(unit.arguments)
    for index, argument in enumerate(arguments):
        for flag, into in (("-iquote", quoted), ("-I", angled), ("-isystem", angled), ("-idirafter", angled)):
            if argument == flag and index + 1 < len(arguments):
                value = arguments[index + 1]
            elif argument.startswith(flag) and len(argument) > len(flag):
                value = argument[len(flag) :]
            else:
                continue
            into.append(os.path.normpath(value if os.path.isabs(value) else os.path.join(unit.directory, value)))
            break
    return tuple(quoted + angled), tuple(angled)


class _IncludeGraph:
    """The tree's `#include` edges, each file's resolved as a unit's flags resolve it (units mostly
    share their flags, so the edges are shared too). Over-approximated: every `#include` line
    counts, whatever `#if` branch it is in; a header outside the tree is not followed."""

    def __init__(self, root: Path) -> None:
        self._inside = f"{root}/"
        self._names: dict[str, list[tuple[bool, str]]] = {}
        self._edges: dict[tuple[str, tuple[str, ...], tuple[str, ...]], list[str]] = {}
        self._exists: dict[str, bool] = {}

    def _is_file(self, path: str) -> bool:
        if path not in self._exists:
            self._exists[path] = os.path.isfile(path)
        return self._exists[path]

    def _included(self, path: str, quoted: tuple[str, ...], angled: tuple[str, ...]) -> list[str]:
        key = (path, quoted, angled)
        if key not in self._edges:
            if path not in self._names:
                try:
                    with open(path, "rb") as handle:
                        text = handle.read()
                except OSError:
                    text = b""
                self._names[path] = [
                    (quote == b'"', name.decode("utf-8", "replace")) for quote, name in _INCLUDE.findall(text)
                ]
            found = []
            for is_quoted, name in self._names[path]:
                for folder in (os.path.dirname(path), *quoted) if is_quoted else angled:
                    candidate = os.path.normpath(os.path.join(folder, name))
                    if self._is_file(candidate):
                        if candidate.startswith(self._inside):
                            found.append(candidate)
                        break
            self._edges[key] = found
        return self._edges[key]

    def reaches(self, unit: _Unit, targets: set[str]) -> set[str]:
        """The tree's files `unit` includes, directly or not, with the unit itself; it stops early
        once it reaches one of `targets` (then the set holds it)."""
        quoted, angled = _include_dirs(unit)
        start = os.path.normpath(unit.file)
        seen = {start}
        queue = [start]
        while queue:
            current = queue.pop()
            if current in targets:
                return seen
            for child in self._included(current, quoted, angled):
                if child not in seen:
                    seen.add(child)
                    queue.append(child)
        return seen


def _json_diagnostics_supported(compiler: str) -> bool:
    """Whether `compiler` takes `-fdiagnostics-format=json` (gcc 9 and later; not clang)."""
    if "clang" in Path(compiler).name:
        return False
    try:
        probe = subprocess.run(
            [compiler, "-fdiagnostics-format=json", "-fsyntax-only", "-x", "c++", "-"],
            input=b"",
            capture_output=True,
            timeout=30,
            check=False,
        )
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
            errors.append(
                BuildError(
                    _relative(str(caret.get("file", "")), tree, cwd) if caret else "",
                    int(caret.get("line", 0)),
                    int(caret.get("column", 0)),
                    _unscratched(str(diagnostic.get("message", "")), tree),
                    diagnostic.get("option"),
                )
            )
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
        return (
            f"{len(self.units)} translation unit(s) of {self.database.relative_to(self.root).as_posix()}, -fsyntax-only"
        )

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
            if (
                argument == "-c"
                or argument in _DEPENDENCY_FLAGS
                or argument.startswith("-o")
                and len(argument) > 2
                or argument.startswith("-fdiagnostics-format")
            ):
                continue
            argv.append(argument.replace(str(self.root), str(tree)))
        return [*argv, "-fsyntax-only", *(["-fdiagnostics-format=json"] if json_diagnostics else [])]

    def run(self, tree: Path, processes: Processes) -> Outcome:
        json_diagnostics = bool(self.units) and _json_diagnostics_supported(self.units[0].arguments[0])

        def one(unit: _Unit) -> _UnitOutcome:
            cwd = Path(str(unit.directory).replace(str(self.root), str(tree)))
            ran = processes.run(self._argv(unit, tree, json_diagnostics), cwd)
            errors = _json_errors(ran.stderr, tree, cwd) if json_diagnostics else None
            if errors is None:
                errors = _text_errors(ran.stderr, tree, cwd)
            failures = _failure(ran.code, errors, unit.file.name, ran.stderr + ran.stdout)
            return _UnitOutcome(ran.code, failures, ran.stderr)

        with ThreadPoolExecutor(max_workers=max(1, min(8, os.cpu_count() or 1))) as pool:
            results = list(pool.map(one, self.units))
        graph = _IncludeGraph(self.root)
        covered = {
            Path(p).relative_to(self.root).as_posix()
            for unit in self.units
            for p in graph.reaches(unit, set())
            if p.startswith(f"{self.root}/")
        }
        code = max((result.code for result in results), default=0)
        return Outcome(
            code,
            tuple(e for result in results for e in result.errors),
            tuple(sorted(covered)),
            _tail(*(result.stderr for result in results if result.code)),
        )


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
        return f"python: byte-compile {len(self.files)} file(s), import {len(self.modules)} module(s)"

    def key(self) -> str:
        return json.dumps([self.files, self.modules])

    def run(self, tree: Path, processes: Processes) -> Outcome:
        modules = [m for path in self.modules if (m := _module_of(tree / path, tree)) is not None]
        request = {
            "root": str(tree),
            "files": [str(tree / p) for p in self.files if (tree / p).is_file()],
            "modules": list(dict.fromkeys(name for name, _ in modules)),
            "paths": list(dict.fromkeys(str(folder) for _, folder in modules)),
        }
        ran = processes.run([sys.executable, "-I", "-B", "-c", _PYTHON_PROBE], tree, stdin=json.dumps(request).encode())
        code, stdout, stderr = ran.code, ran.stdout, ran.stderr
        try:
            raw = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else None
        except ValueError:
            raw = None
        if raw is None:
            return Outcome(code or 1, tuple(_failure(code or 1, [], self.label, stderr)), (), _tail(stderr))
        errors = [
            BuildError(_relative(path, tree, tree) if path else "", line, col, _unscratched(message, tree))
            for path, line, col, message in raw
        ]
        # An import runs a module's top level only: no evidence about the names its functions use.
        return Outcome(1 if errors else 0, tuple(errors), (), _tail(stderr))


@dataclass(frozen=True)
class CommandCheck:
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

    def run(self, tree: Path, processes: Processes) -> Outcome:
        ran = processes.run(self.command, tree, env={"CARGO_TARGET_DIR": str(self.target_dir)})
        errors = _text_errors(ran.stdout + "\n" + ran.stderr, tree, tree)
        return Outcome(
            ran.code,
            tuple(_failure(ran.code, errors, self.command, ran.stderr + ran.stdout)),
            (),
            _tail(ran.stdout, ran.stderr),
        )


def cargo_command(command: str) -> tuple[str, ...] | None:
    """A user's `cargo check/build/clippy/test ...` with JSON messages, or None for any other command."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    if (
        len(argv) < 2
        or argv[0] != "cargo"
        or argv[1] not in ("check", "build", "clippy", "test", "bench", "doc")
        or any(a.startswith("--message-format") for a in argv)
    ):
        return None
    return tuple(_with_cargo_flag(argv, "--message-format=json"))


# --- detection ----------------------------------------------------------------------------------


def _mypy_configured(root: Path) -> bool:
    pyproject = root / "pyproject.toml"
    if pyproject.is_file() and re.search(
        r"(?m)^\[tool\.mypy\]", pyproject.read_text(encoding="utf-8", errors="replace")
    ):
        return True
    setup = root / "setup.cfg"
    return (
        (root / "mypy.ini").is_file()
        or (root / ".mypy.ini").is_file()
        or setup.is_file()
        and "[mypy]" in setup.read_text(encoding="utf-8", errors="replace")
    )


def _pyright_configured(root: Path) -> bool:
    pyproject = root / "pyproject.toml"
    return (
        (root / "pyrightconfig.json").is_file()
        or pyproject.is_file()
        and bool(re.search(r"(?m)^\[tool\.pyright\]", pyproject.read_text(encoding="utf-8", errors="replace")))
    )


LOOKED_FOR = ("Cargo.toml in ROOT", "compile_commands.json in ROOT or ROOT/build", "Python files the plan changes")


def detected_checks(plan: Plan, python_files: Sequence[str], cache: Path) -> list[Check]:
    """The checks the tree calls for (`LOOKED_FOR`), for the files the plan changes; `python_files`
    are the tree's .py files (relative paths)."""
    root = plan.root
    changed = [c.path for c in plan.changes]
    checks: list[Check] = []
    if (root / "Cargo.toml").is_file():
        checks.append(
            CargoCheck(
                ("cargo", "check", "--workspace", "--all-targets", "--keep-going", "--message-format=json"),
                cache / "target",
            )
        )
    database = next(
        (p for p in (root / "compile_commands.json", root / "build" / "compile_commands.json") if p.is_file()), None
    )
    if database is not None:
        targets = {os.path.normpath(root / path) for path in changed}
        graph = _IncludeGraph(root)
        units = tuple(
            u
            for u in _compile_units(database)
            if u.file.is_file()
            and targets & graph.reaches(u, targets)
            and not any(c.path == _inside(u.file, root) and c.deleted for c in plan.changes)
        )
        checks.append(_CompileUnitsCheck(root, database, units))
    changed_python = [p for p in changed if p.endswith(".py")]
    if changed_python:
        kept = [c.path for c in plan.changes if c.path.endswith(".py") and not c.deleted]
        names = {re.split(r"::|\.", name)[-1] for name in plan.removed_names}
        naming = [p for p in python_files if p not in kept and _names_any(root / p, names)]
        checks.append(_PythonCheck(tuple(kept), tuple(dict.fromkeys([*kept, *naming]))))
        if _mypy_configured(root):
            packages = sorted({p.split("/")[0] if "/" in p else p for p in changed_python})
            checks.append(
                CommandCheck(
                    shlex.join(
                        [
                            sys.executable,
                            "-m",
                            "mypy",
                            "--no-error-summary",
                            "--show-column-numbers",
                            "--no-pretty",
                            "--hide-error-context",
                            "--cache-dir",
                            str(cache / "mypy"),
                            *packages,
                        ]
                    ),
                    cache / "target",
                    kind="mypy",
                )
            )
        if _pyright_configured(root) and shutil.which("pyright"):
            checks.append(CommandCheck("pyright", cache / "target", kind="pyright"))
    return checks


def _inside(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return ""


def _names_any(path: Path, names: set[str]) -> bool:
    try:
        return bool(names) and bool(whole_word_hits(path.read_bytes(), names))
    except OSError:
        return False


__all__ = [
    "BuildError",
    "CargoCheck",
    "Check",
    "CommandCheck",
    "LOOKED_FOR",
    "Outcome",
    "Processes",
    "cargo_command",
    "detected_checks",
]
