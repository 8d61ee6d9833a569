"""Finding files and matches in a tree, fast.

ripgrep does the scan when it is installed (it is parallel and honours
.gitignore); otherwise a walk that skips hidden folders and build outputs.
`grep_matches` is `rg -n PATTERN TARGET...` as data: its set of (path, line)
is, by construction, the set of lines `rg -n` prints, because ripgrep itself
selects the files, detects binary files and splits lines.
"""

from __future__ import annotations

import dataclasses

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol

from codemods.core.registry import language_of, source_globs
from codemods.search.mentions import compile_pattern, matches_by_line
from codemods.words import word_in

SKIPPED_DIRS = {"target", "node_modules", "__pycache__", "build"}

# What rg prints instead of match lines for a binary file (no NUL after the path).
_BINARY_MARKERS = (b": binary file matches (", b": WARNING: stopped searching binary file after match (")


@dataclass(frozen=True)
class LineMatch:
    """One match as rg prints it with --only-matching: path as given, 1-based line and byte column."""

    path: str
    line: int
    col: int
    text: bytes


@dataclass(frozen=True)
class GrepResult:
    """All matches of one search, plus what rg said about binary files and what it could not read.

    `binary` holds rg's own messages ("PATH: binary file matches (...)"): for a
    file given explicitly, rg prints that instead of the lines; in a tree it
    stops at the first NUL byte and says so after the lines before it.
    `errors` holds rg's error lines (unreadable files, a bad pattern).
    """

    matches: tuple[LineMatch, ...]
    binary: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    bad_pattern: bool = False


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _parse_rg_output(out: bytes) -> tuple[list[LineMatch], list[str]]:
    """Records of `rg --null -n --column -o`: PATH NUL LINE ':' COL ':' TEXT newline; other lines are binary notes."""
    matches: list[LineMatch] = []
    binary: list[str] = []
    position = 0
    size = len(out)
    while position < size:
        newline = out.find(b"\n", position)
        if newline < 0:
            newline = size
        nul = out.find(b"\0", position, newline)
        if nul < 0:
            message = out[position:newline]
            if any(marker in message for marker in _BINARY_MARKERS):
                binary.append(_decode(message))
            position = newline + 1
            continue
        path = _decode(out[position:nul])
        line_end = out.index(b":", nul + 1)
        col_end = out.index(b":", line_end + 1)
        matches.append(
            LineMatch(path, int(out[nul + 1 : line_end]), int(out[line_end + 1 : col_end]), out[col_end + 1 : newline])
        )
        position = newline + 1
    return matches, binary


def _rg_search(rg: str, cwd: Path, pattern: str, targets: list[str]) -> GrepResult:
    # --no-config: a personal ripgreprc (--hidden, --max-columns, ...) must not change what a hook finds.
    args = [
        rg,
        "--no-config",
        "--line-number",
        "--column",
        "--only-matching",
        "--with-filename",
        "--no-heading",
        "--null",
        "--color",
        "never",
        "--regexp",
        pattern,
        "--",
        *targets,
    ]
    result = subprocess.run(args, cwd=cwd, capture_output=True)
    matches, binary = _parse_rg_output(result.stdout)
    errors = [_decode(line) for line in result.stderr.splitlines() if line.strip()]
    bad_pattern = result.returncode == 2 and not matches and any("regex" in e for e in errors)
    return GrepResult(tuple(matches), tuple(binary), tuple(errors), bad_pattern)


def _python_search(cwd: Path, pattern: str, targets: list[str], explicit: bool) -> GrepResult:
    """Without rg, an approximation: Python `re` line by line, hidden entries skipped in folders.

    .gitignore is not read, and a file with a NUL byte is skipped in folders
    (rg searches it up to the NUL) and reported as binary when named.
    """
    try:
        compiled = compile_pattern(pattern)
    except re.error as error:
        return GrepResult((), (), (f"regex parse error: {error}",), True)
    paths: list[str] = []
    for target in targets:
        if (cwd / target).is_dir():
            base = target.rstrip("/")
            paths += [f"{base}/{p}" for p in walk_all(cwd / target)]
        else:
            paths.append(target)
    matches: list[LineMatch] = []
    binary: list[str] = []
    errors: list[str] = []
    for path in paths:
        try:
            source = (cwd / path).read_bytes()
        except OSError as error:
            errors.append(f"{path}: {error.strerror}")
            continue
        found = matches_by_line(source, compiled)
        if b"\0" in source:
            if found:
                binary.append(f"{path}: binary file matches")
            if not explicit or found:
                continue
        matches += [LineMatch(path, line, col, source[s:e]) for s, e, line, col in found]
    return GrepResult(tuple(matches), tuple(binary), tuple(errors))


def grep_matches(cwd: Path, pattern: str, targets: list[str], *, explicit: bool) -> GrepResult:
    """Every match of the regex `pattern` in `targets` (folders or files, relative to `cwd`).

    With rg installed this is `rg -n PATTERN TARGET...` run in `cwd`: rg's
    file selection (hidden files and .gitignore'd files skipped inside folders,
    files named explicitly always searched), its binary-file handling and its
    line splitting (on "\\n" only). `explicit` says the targets are files the
    user named (it only matters for the fallback without rg).
    """
    rg = shutil.which("rg")
    found = _rg_search(rg, cwd, pattern, targets) if rg is not None else _python_search(cwd, pattern, targets, explicit)
    if targets == ["."]:
        # The whole of cwd: paths as `rg -n PATTERN` with no path prints them, without "./".
        found = dataclasses.replace(
            found,
            matches=tuple(
                dataclasses.replace(m, path=m.path[2:]) if m.path.startswith("./") else m for m in found.matches
            ),
        )
    return found


class FoundFiles(Protocol):
    """Files a search found (a `FileSearch`, or searches settled together): `result()` waits."""

    def result(self) -> list[str]: ...


class FileSearch:
    """A search for files started in the background: `result()` waits for it.

    ripgrep runs while the caller goes on (a plan parses and validates in the
    meantime); without rg, the fallback runs in `result()`. Use it as a
    context manager, so that rg is reaped whatever happens.
    """

    def __init__(self, process: subprocess.Popen[bytes] | None, fallback: Callable[[], list[str]]) -> None:
        self._process = process
        self._fallback = fallback

    def __enter__(self) -> FileSearch:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Stop rg if nobody waited for it (the caller raised), and reap it."""
        if self._process is not None:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait()
            if self._process.stdout is not None:
                self._process.stdout.close()

    def result(self) -> list[str]:
        """Sorted relative POSIX paths of the files found."""
        if self._process is not None:
            out, _ = self._process.communicate()
            if self._process.returncode in (0, 1):
                paths = out.decode("utf-8", "surrogateescape").splitlines()
                return sorted(p[2:] if p.startswith("./") else p for p in paths)
        return self._fallback()


def _start_rg(root: Path, args: list[str]) -> subprocess.Popen[bytes] | None:
    rg = shutil.which("rg")
    if rg is None:
        return None
    return subprocess.Popen(
        [rg, "--no-config", "--files-with-matches", "--no-messages", *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def start_files_with_words(root: Path, words: list[str]) -> FileSearch:
    """Start looking for source files under `root` (relative POSIX paths) containing any of
    `words` as a whole word."""
    if not words:
        return FileSearch(None, list)
    args = ["--fixed-strings", "--word-regexp"]

    for glob in source_globs():
        args += ["--glob", glob]
    for directory in SKIPPED_DIRS:
        args += ["--glob", f"!{directory}/"]
    for word in words:
        args += ["-e", word]
    return FileSearch(_start_rg(root, [*args, "--", "."]), lambda: _walk_for_words(root, words))


def files_with_words(root: Path, words: list[str]) -> list[str]:
    """Source files under `root` (relative POSIX paths) containing any of `words` as a whole word."""
    with start_files_with_words(root, words) as search:
        return search.result()


def _walk_for_words(root: Path, words: list[str]) -> list[str]:
    hits = []
    for path in walk_all(root, SKIPPED_DIRS):
        if language_of(path) is None:
            continue
        try:
            if word_in((root / path).read_bytes(), words):  # rg's -w: no word character either side
                hits.append(path)
        except OSError:
            continue
    return hits


def scope_targets(root: Path, scope: tuple[str, ...]) -> list[str]:
    """The folders and files of `scope` (relative to `root`) that exist; an empty scope is all of `root`."""
    return [d for d in scope if (root / d).exists()] if scope else ["."]


def in_scope(path: str, scope: tuple[str, ...]) -> bool:
    """Whether `path` (relative POSIX) lies in `scope` (an empty scope holds everything)."""
    return not scope or any(path == s or path.startswith(s.rstrip("/") + "/") for s in scope)


def start_files_matching(root: Path, pattern: str, scope: tuple[str, ...]) -> FileSearch:
    """Start looking for files under the `scope` folders of `root` (all of it for an empty scope) with
    a match of the regex `pattern` (rg semantics)."""
    dirs = scope_targets(root, scope)
    if not dirs:
        return FileSearch(None, list)

    def fallback() -> list[str]:
        found = _python_search(root, pattern, dirs, explicit=False)
        return sorted({m.path[2:] if m.path.startswith("./") else m.path for m in found.matches})

    return FileSearch(_start_rg(root, ["-e", pattern, "--", *dirs]), fallback)


def walk_all(base: Path, skipped_dirs: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Files under `base` (relative POSIX paths, sorted), hidden entries and `skipped_dirs` left out."""
    found = []
    for directory, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in skipped_dirs)
        for name in sorted(files):
            if not name.startswith("."):
                found.append(os.path.relpath(os.path.join(directory, name), base).replace(os.sep, "/"))
    return found


def search_pattern_problem(pattern: str) -> str | None:
    """Why `pattern` is not a valid search pattern (rg syntax, as `codemod check` uses it); None if it is."""
    try:
        compile_pattern(pattern)
    except re.error as error:
        return str(error)
    return None


def rg_installed() -> bool:
    """Whether searches run ripgrep (which honours .gitignore) rather than the walk (which does not)."""
    return shutil.which("rg") is not None
