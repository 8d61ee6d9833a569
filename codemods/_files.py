"""Finding the files of a tree that mention some words, fast.

ripgrep does the scan when it is installed (it is parallel and honours
.gitignore); otherwise a walk that skips hidden folders and build outputs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from ._parse import language_of

SKIPPED_DIRS = {"target", "node_modules", "__pycache__", "build"}
SOURCE_GLOBS = ("*.rs", "*.cpp", "*.cc", "*.cxx", "*.c", "*.h", "*.hh", "*.hpp", "*.hxx", "*.cu", "*.cuh", "*.mm", "*.metal", "*.py")


def _walk_sources(root: Path) -> list[str]:
    found = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        for name in sorted(files):
            if language_of(name) is not None and not name.startswith("."):
                found.append(os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/"))
    return found


def files_with_words(root: Path, words: list[str]) -> list[str]:
    """Source files under `root` (relative POSIX paths) containing any of `words` as a whole word."""
    if not words:
        return []
    rg = shutil.which("rg")
    if rg is not None:
        args = [rg, "--files-with-matches", "--fixed-strings", "--word-regexp", "--no-messages"]
        for glob in SOURCE_GLOBS:
            args += ["--glob", glob]
        for directory in SKIPPED_DIRS:
            args += ["--glob", f"!{directory}/"]
        for word in words:
            args += ["-e", word]
        args += ["--", "."]
        result = subprocess.run(args, cwd=root, capture_output=True)
        if result.returncode in (0, 1):
            paths = result.stdout.decode("utf-8", "surrogateescape").splitlines()
            return sorted(p[2:] if p.startswith("./") else p for p in paths)
    pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(w.encode()) for w in words) + rb")\b")
    hits = []
    for path in _walk_sources(root):
        try:
            if pattern.search((root / path).read_bytes()):
                hits.append(path)
        except OSError:
            continue
    return hits


def files_matching(root: Path, pattern: str, scope: tuple[str, ...]) -> list[str]:
    """Files under the `scope` folders of `root` with a match of the regex `pattern` (rg semantics)."""
    dirs = [d for d in scope if (root / d).exists()]
    if not dirs:
        return []
    rg = shutil.which("rg")
    if rg is not None:
        args = [rg, "--files-with-matches", "--no-messages", "-e", pattern, "--", *dirs]
        result = subprocess.run(args, cwd=root, capture_output=True)
        if result.returncode in (0, 1):
            return sorted(result.stdout.decode("utf-8", "surrogateescape").splitlines())
    compiled = re.compile(pattern.encode("utf-8"))
    hits = []
    for directory in dirs:
        base = root / directory
        candidates = [directory] if base.is_file() else [f"{directory}/{p}" for p in _walk_all(base)]
        for path in candidates:
            try:
                if compiled.search((root / path).read_bytes()):
                    hits.append(path)
            except OSError:
                continue
    return sorted(hits)


def _walk_all(base: Path) -> list[str]:
    found = []
    for directory, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith("."):
                found.append(os.path.relpath(os.path.join(directory, name), base).replace(os.sep, "/"))
    return found
