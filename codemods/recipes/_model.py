"""What a recipe is: data (items to delete, prose to reword, a dead-symbol pattern)
plus small steps that return edits and findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .._edit import Edit, Finding

LANGUAGES = ("rust", "cpp", "python")


class RecipeInputError(Exception):
    """Input a recipe needs is missing or malformed (e.g. a decision file): a usage error, exit 2."""


@dataclass(frozen=True)
class ItemTarget:
    """Delete the item of `kind` named `name` (qualified with `::` or `.`) in the file at `path`.

    `crate::a::name` (Rust) and `ns::name` (C++) name exactly one item; a bare
    Rust name matches the end of qualified names (see README, "As a library").
    """

    path: str
    language: str
    kind: str
    name: str


@dataclass(frozen=True)
class Rewording:
    """In the file at `path`, replace the exact text `find` with `replace` (prose only)."""

    path: str
    find: str
    replace: str


@dataclass
class Workspace:
    """The tree a recipe runs on, as steps see it: cached reads and the edits planned so far."""

    root: Path
    options: dict = field(default_factory=dict)
    _cache: dict[str, bytes | None] = field(default_factory=dict)
    edits: dict[str, list[Edit]] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)

    def read(self, path: str) -> bytes | None:
        """The bytes of a file relative to the root, or None if it does not exist or cannot be
        read (then `unreadable` holds why, and the plan reports it)."""
        if path not in self._cache:
            target = self.root / path
            try:
                self._cache[path] = target.read_bytes() if target.is_file() else None
            except OSError as error:
                self.unreadable[path] = error.strerror or str(error)
                self._cache[path] = None
        return self._cache[path]

    def planned(self, path: str) -> list[Edit]:
        return self.edits.get(path, [])


@dataclass(frozen=True)
class StepResult:
    edits: tuple[Edit, ...] = ()
    findings: tuple[Finding, ...] = ()
    names_removed: tuple[str, ...] = ()


Step = Callable[[Workspace], StepResult]


@dataclass(frozen=True)
class Recipe:
    """A named cleanup.

    `deletions` run first, then `steps` in order (each sees the edits planned
    before it), then `rewordings`. `dead_symbol_pattern` (rg syntax) is what
    `codemod check` searches for within `check_scope`; `protected` paths are
    never edited.
    """

    id: str
    summary: str
    deletions: tuple[ItemTarget, ...] = ()
    steps: tuple[Step, ...] = ()
    rewordings: tuple[Rewording, ...] = ()
    dead_symbol_pattern: str | None = None
    check_scope: tuple[str, ...] = ("src",)
    protected: tuple[str, ...] = ("docs",)

    def __post_init__(self) -> None:
        for target in self.deletions:
            if target.language not in LANGUAGES:
                raise ValueError(f"recipe {self.id}: unknown language {target.language!r} for {target.name}")
