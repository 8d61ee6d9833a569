"""The dead-symbol check: every mention of a recipe's pattern, with its kind.

Used as a pre-commit hook, so it has to be fast: ripgrep (when installed)
finds the files and lines, and only files with a match are parsed to classify
each mention as code, comment or string. Its set of path:line equals what
`rg -n PATTERN` prints for the same files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ._files import files_matching
from .mentions import Mention, compile_pattern, mentions_in_source
from .recipes._model import Recipe


@dataclass(frozen=True)
class CheckResult:
    """Mentions found, how many files had a match, and files that could not be read."""

    mentions: tuple[Mention, ...]
    files_with_matches: int
    unreadable: tuple[str, ...] = ()

    @property
    def clean(self) -> bool:
        return not self.mentions


def _check(base: Path, paths: list[str], recipe: Recipe, shown: dict[str, str] | None = None) -> CheckResult:
    pattern = compile_pattern(recipe.dead_symbol_pattern or "")
    mentions: list[Mention] = []
    unreadable: list[str] = []
    with_matches = 0
    for path in paths:
        try:
            source = (base / path).read_bytes()
        except OSError:
            unreadable.append(path)
            continue
        display = shown.get(path, path) if shown else path
        found = mentions_in_source(display, source, pattern)
        if found:
            with_matches += 1
            mentions.extend(found)
    return CheckResult(tuple(mentions), with_matches, tuple(unreadable))


def check_tree(root: Path, recipe: Recipe) -> CheckResult:
    """Mentions within the recipe's scope under `root`, paths relative to `root`."""
    if not recipe.dead_symbol_pattern:
        return CheckResult((), 0)
    paths = files_matching(root, recipe.dead_symbol_pattern, recipe.check_scope)
    return _check(root, paths, recipe)


def check_files(files: list[Path], recipe: Recipe) -> CheckResult:
    """Mentions in the given files (whatever their folder), paths as given."""
    if not recipe.dead_symbol_pattern:
        return CheckResult((), 0)
    return _check(Path("."), [str(f) for f in files], recipe)
