"""What a recipe is: data (items to delete, prose to reword, a dead-symbol pattern)
plus small steps that return edits and findings.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence, cast

from codemods.edit.errors import RecipeError, RecipeInputError
from codemods.edit.values import Edit, Finding, ItemTarget
from codemods.core.registry import LANGUAGES, language_of
from codemods.search.files import SKIPPED_DIRS, walk_all


@dataclass(frozen=True)
class Rewording:
    """Reword prose in the comments of the file at `path`.

    The comment block is the one attached to, inside or right above the item
    named `item` (a `::`-qualified name), or any block of the file when
    `item` is None. What is replaced is either the first sentence that names
    every one of `symbols` (with `sentences - 1` sentences after it), or the prose `find`
    (comment markers and line breaks do not matter). The paragraph is filled
    again to the block's width. With `block` (and an empty `replace`) the whole
    comment block that holds the match goes, its lines included (commented-out
    code). With `strings`, `find` is replaced by `replace` in the file's (or the
    item's) string literals instead, every occurrence, as written.
    A rule that finds nothing blocks the plan unless it is `optional`
    (a rule for trees whose prose may differ) or its replacement is there already.
    """

    path: str
    find: str = ""
    replace: str = ""
    item: str | None = None
    symbols: tuple[str, ...] = ()
    sentences: int = 1
    # Which rule this is, for messages: `SOURCE [[reword]] N`, SOURCE the recipe (or file) that
    # declares it. Not a key of a recipe file: the loader sets it.
    rule: str = field(default="", compare=False)
    block: bool = False
    optional: bool = False
    strings: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.symbols, list):
            object.__setattr__(self, "symbols", tuple(self.symbols))

    @property
    def source(self) -> str:
        """The recipe or file that declares the rule ("" for one built in Python without a label)."""
        return self.rule.rpartition(" [[reword]]")[0]

    def label(self) -> str:
        """The rule as a message names it: where it is declared and its keys."""
        keys = f"symbols = {list(self.symbols)}" if self.symbols else f"find = {self.find[:60]!r}"
        item = f"item = {self.item!r}, " if self.item else ""
        return f"{self.rule or '[[reword]]'} ({item}{keys})"

    def describe(self) -> str:
        where = f" in the comments of {self.item}" if self.item else ""
        what = f"the sentence naming {' and '.join(self.symbols)}" if self.symbols else repr(self.find[:60])
        return f"{what}{where}"


@dataclass(frozen=True)
class Insertion:
    """Insert `text` (whole lines, such as a comment) on its own lines before or after
    (`position`) the item named `item` (with its docs and attributes) or every match of the
    structural `pattern`, at its indentation. A rule that finds no place blocks the plan
    unless it is `optional`; one whose text is there already is a finished run's note."""

    path: str
    text: str
    item: str | None = None
    pattern: str | None = None
    position: str = "before"
    language: str | None = None
    optional: bool = False


GLOB_CHARACTERS = frozenset("*?[")


def is_glob(path: str) -> bool:
    return any(c in GLOB_CHARACTERS for c in path)


# The rewrite language of literal text: files no grammar reads, edited line by line.
TEXT = "text"


@dataclass(frozen=True)
class PatternRewrite:
    """In the files `path` names, inside the item named `item` (the whole file when None), replace
    each match of the structural pattern `pattern` with `replace`, its `$X` / `$$$XS` filled in
    with what they matched.

    `path` is one file, a folder (every file of `language` under it), or a glob
    (`src/**/*.rs`; its files of `language`). `language` (Rust or C++) defaults
    to the language of `path`'s suffix; a folder needs it. `language = "text"`
    (TEXT) makes `pattern` literal text, for any file (a manifest, a lock file, a
    build script): whole lines found verbatim, each replaced by `replace`. `where` maps a
    metavariable of the pattern to the texts it may match (a dict is accepted
    and kept as sorted pairs); a match whose capture is none of them is left.
    """

    path: str
    pattern: str
    replace: str
    item: str | None = None
    language: str | None = None
    where: tuple[tuple[str, tuple[str, ...]], ...] = ()
    optional: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.where, dict):
            object.__setattr__(
                self,
                "where",
                tuple(
                    sorted(
                        (name, tuple(texts) if isinstance(texts, list) else texts) for name, texts in self.where.items()
                    )
                ),
            )

    def describe(self) -> str:
        where = f" in {self.item}" if self.item else ""
        return f"{self.pattern!r}{where}"

    def file_language(self) -> str | None:
        """The language the rule's pattern is written in: `language`, else the suffix's."""
        return self.language if self.language is not None else language_of(self.path)

    def anchor(self) -> str:
        """The folder of `path` before its first glob character (what ROOT must hold); "" when
        the glob starts at ROOT."""
        if not is_glob(self.path):
            return self.path
        head = self.path[: min(self.path.index(c) for c in GLOB_CHARACTERS if c in self.path)]
        return head.rsplit("/", 1)[0] if "/" in head else ""


@dataclass(frozen=True)
class Parameter:
    """An option a recipe takes (`codemod apply --param NAME=VALUE`, `--param-file NAME=PATH`).

    `missing` is what the plan says when the option is not given and it has no
    `default` (None: it may be left out). `load` turns the value given (a
    string from the command line, a path for `--param-file`) into what the
    steps read (a number, a validated document), raising RecipeInputError when
    it is malformed; both happen before planning starts. `help` is shown by
    `codemod recipes`. `flag` is an option of `codemod apply` the recipe
    declares for it (`--budget`: `--budget VALUE` is `--param budget=VALUE`);
    with `file`, its value is a path that must exist (`--param-file`).
    """

    name: str
    missing: str | None = None
    load: Callable[[object], object] | None = None
    default: object = None
    help: str = ""
    flag: str | None = None
    file: bool = False


# What `Path.is_file()` answers False for rather than raising: no such file, a file where a folder
# was named, a loop of links.
_NOT_A_FILE = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})


def read_regular_file(location: str) -> bytes | None:
    """The bytes of the regular file at `location` (links followed), None where there is none (as
    `Path.is_file()` says); OSError where it exists but cannot be read. One open and one
    `fstat` rather than a `stat`, an open and a `fstat`: a plan reads a workspace's files by the
    thousand (a third less time here on 1,724 files). Opened without blocking, so that a FIFO
    is answered None rather than waited on."""
    try:
        # (Not named `path`: an internal error names the file its caller reads, relative to the root.)
        handle = os.open(location, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        if error.errno in _NOT_A_FILE:
            return None
        raise
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode):
            return None
        # Up to its end, however short a read is (a file over 2 GiB) or however it grew since.
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(handle, max(status.st_size + 1 - total, 1 << 16)):
            chunks.append(chunk)
            total += len(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(handle)


class TreeReads:
    """The bytes of the files a plan reads, each read from disk once: every stage of one plan
    sees the same bytes of a file, however often it asks (the plan's snapshot of the tree)."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._bytes: dict[str, bytes | None] = {}
        self._unreadable: dict[str, str] = {}

    def read(self, path: str) -> bytes | None:
        if path not in self._bytes:
            try:
                self._bytes[path] = read_regular_file(os.path.join(self._root, path))
            except OSError as error:
                self._unreadable[path] = error.strerror or str(error)
                self._bytes[path] = None
        return self._bytes[path]

    def unreadable(self) -> Mapping[str, str]:
        return MappingProxyType(dict(self._unreadable))


@dataclass(frozen=True)
class Workspace:
    """The tree a recipe runs on, as a step sees it: the snapshot's reads, the recipe's
    parameters, and the edits the stages before it planned. Immutable: a step returns its edits
    in a StepResult and the planner hands the next stage a new Workspace (`with_edits`).

    `options` are the recipe's parameters as its `Parameter.load`s made them.
    """

    root: Path
    options: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    edits: Mapping[str, tuple[Edit, ...]] = field(default_factory=lambda: MappingProxyType({}))
    reads: TreeReads | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.reads is None:
            object.__setattr__(self, "reads", TreeReads(self.root))
        if not isinstance(self.options, MappingProxyType):
            object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        if not isinstance(self.edits, MappingProxyType):
            object.__setattr__(self, "edits", MappingProxyType({p: tuple(e) for p, e in self.edits.items()}))

    def read(self, path: str) -> bytes | None:
        """The bytes of a file relative to the root, or None if it does not exist or cannot be
        read (then `unreadable` holds why, and the plan reports it)."""
        return cast(TreeReads, self.reads).read(path)

    @property
    def unreadable(self) -> Mapping[str, str]:
        """The files a stage asked for that exist but could not be read, with why."""
        return cast(TreeReads, self.reads).unreadable()

    def planned(self, path: str) -> tuple[Edit, ...]:
        """The edits the stages before this one planned in `path`."""
        return self.edits.get(path, ())

    def with_edits(self, edits: Sequence[Edit]) -> "Workspace":
        """This workspace with `edits` planned after the ones it holds (same snapshot, same options)."""
        if not edits:
            return self
        merged = {p: list(e) for p, e in self.edits.items()}
        for edit in edits:
            merged.setdefault(edit.path, []).append(edit)
        return replace(self, edits=MappingProxyType({p: tuple(e) for p, e in merged.items()}))

    def files(self, path: str, language: str) -> list[str]:
        """The files (relative POSIX paths, sorted) that a rule's `path` names: itself if it is
        a file, else the files of `language` under the folder or matching the glob (hidden
        entries and build outputs left out, as `codemod check` leaves them)."""
        if is_glob(path):
            candidates = sorted(p.relative_to(self.root).as_posix() for p in self.root.glob(path) if p.is_file())
            candidates = [
                p
                for p in candidates
                if not any(part.startswith(".") or part in SKIPPED_DIRS for part in p.split("/")[:-1])
            ]
        elif (self.root / path).is_dir():
            folder = posixpath.normpath(path.rstrip("/"))
            prefix = "" if folder == "." else f"{folder}/"
            candidates = [f"{prefix}{p}" for p in walk_all(self.root / path, SKIPPED_DIRS)]
        else:
            return [path]
        return [p for p in candidates if language_of(p) == language or language == TEXT]


@dataclass(frozen=True)
class StepResult:
    """What a stage returns: its edits, its findings, the names it made unavailable without deleting
    an item (the dangling-reference check looks for uses of them by spelling), and the items it
    deleted, by language (as each language's plug-in records them; the check resolves uses of them)."""

    edits: tuple[Edit, ...] = ()
    findings: tuple[Finding, ...] = ()
    removed_names: tuple[str, ...] = ()
    deleted: Mapping[str, tuple[Any, ...]] = field(default_factory=lambda: MappingProxyType({}))


Step = Callable[[Workspace], StepResult]

# What a recipe's `unused_imports` may say: an import the plan leaves used by nothing is removed
# (the default), or kept as it stands (a change that leaves that cleanup to a later one).
UNUSED_IMPORTS = ("remove", "keep")

# Chooses, from a tree, which of a recipe's rewording rules apply to it (rules written for
# another version of the tree do not), with the findings that say what it recognised.
RewordingSelector = Callable[[Workspace, tuple[Rewording, ...]], tuple[tuple[Rewording, ...], tuple[Finding, ...]]]


@dataclass(frozen=True)
class Recipe:
    """A named cleanup.

    `deletions` run first, then `steps` in order (each sees the edits planned
    before it), then the structural `rewrites`, then `rewordings`, then `insertions`. `dead_symbol_pattern` (rg syntax) is what
    `codemod check` searches for within `check_scope` (empty, the default: the
    whole tree, as for a recipe file); `protected` paths are never edited (none by default). `parameters` declares the options the recipe's steps read
    (a bare name is an optional option taken as given); `expects` lists paths its
    steps read, beyond its deletions and rewordings, so that a ROOT holding
    none of them is refused before planning. `select_rewordings`, when set, picks the
    rewording rules that fit the tree being planned (see `RewordingSelector`). `sources` are the
    files the recipe was read from (absolute paths; `load_recipe` sets them): a recipe file kept in
    the tree names what it removes, so the dead-symbol check leaves it out. `verify` are the shell
    commands `codemod apply --verify` (and `verify_plan`) run on the planned tree when given none
    (docs/verify.md); empty: the check the tree calls for is detected. `unused_imports` says what
    the import stage does with an import the plan leaves used by nothing: "remove" it (the
    default) or "keep" it; an import naming a deleted item goes either way (`UNUSED_IMPORTS`).

    Raises RecipeError for data of the wrong type (a deletion that is not an `ItemTarget`, a
    step that is not callable, ...) or a target of an unregistered language; what only a tree
    can tell (an unknown kind, a bad pattern) is the plan's `usage-error` finding.
    """

    id: str
    summary: str
    deletions: tuple[ItemTarget, ...] = ()
    steps: tuple[Step, ...] = ()
    rewrites: tuple[PatternRewrite, ...] = ()
    rewordings: tuple[Rewording, ...] = ()
    insertions: tuple[Insertion, ...] = ()
    dead_symbol_pattern: str | None = None
    check_scope: tuple[str, ...] = ()
    protected: tuple[str, ...] = ()
    parameters: tuple[Parameter, ...] = ()
    expects: tuple[str, ...] = ()
    select_rewordings: "RewordingSelector | None" = None
    namespace_macros: tuple[tuple[str, str], ...] = ()
    sources: tuple[str, ...] = ()
    verify: tuple[str, ...] = ()
    unused_imports: str = "remove"

    def footprint(self) -> tuple[str, ...]:
        """Every path under ROOT the recipe looks at: a ROOT holding none of them is the wrong folder."""
        paths = (
            [t.path for t in self.deletions]
            + [a for r in self.rewrites if (a := r.anchor())]
            + [r.path for r in self.rewordings]
            + [i.path for i in self.insertions]
        )
        return tuple(dict.fromkeys([*paths, *self.expects, *self.check_scope]))

    @property
    def keeps_unused_imports(self) -> bool:
        """Whether the import stage keeps the imports the plan leaves unused (`unused_imports = "keep"`)."""
        return self.unused_imports == "keep"

    @property
    def parameter_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    def load_options(self, options: Mapping[str, object]) -> Mapping[str, object]:
        """`options` as the steps read them: each loaded by its parameter (read-only).

        Raises RecipeInputError for a required option not given or a value its
        parameter refuses (options the recipe does not take are refused before,
        by the planner's usage check).
        """
        loaded = {}
        for parameter in self.parameters:
            if parameter.name not in options:
                if parameter.default is None:
                    if parameter.missing is not None:
                        raise RecipeInputError(parameter.missing)
                    continue
                value = parameter.default
            else:
                value = options[parameter.name]
            loaded[parameter.name] = parameter.load(value) if parameter.load is not None else value
        return MappingProxyType(loaded)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "parameters", tuple(Parameter(p) if isinstance(p, str) else p for p in self.parameters)
        )
        for key, kind in (
            ("deletions", ItemTarget),
            ("rewrites", PatternRewrite),
            ("rewordings", Rewording),
            ("insertions", Insertion),
            ("parameters", Parameter),
        ):
            wrong = [item for item in getattr(self, key) if not isinstance(item, kind)]
            if wrong:
                raise RecipeError(f"recipe {self.id}: {key} must be {kind.__name__} values, not {wrong[0]!r}")
        if any(not callable(step) for step in self.steps):
            raise RecipeError(
                f"recipe {self.id}: steps must be callables (Workspace -> StepResult), "
                f"not {next(s for s in self.steps if not callable(s))!r}"
            )
        if isinstance(self.namespace_macros, Mapping):
            object.__setattr__(self, "namespace_macros", tuple(sorted(self.namespace_macros.items())))
        if any(t.namespace_macros != self.namespace_macros for t in self.deletions):
            object.__setattr__(
                self, "deletions", tuple(replace(t, namespace_macros=self.namespace_macros) for t in self.deletions)
            )
        if isinstance(self.verify, (list, str)):
            object.__setattr__(self, "verify", (self.verify,) if isinstance(self.verify, str) else tuple(self.verify))
        if any(not isinstance(command, str) or not command.strip() for command in self.verify):
            raise RecipeError(f"recipe {self.id}: verify must be a list of shell commands (strings)")
        if self.unused_imports not in UNUSED_IMPORTS:
            raise RecipeError(
                f"recipe {self.id}: unused_imports must be one of {', '.join(map(repr, UNUSED_IMPORTS))}, "
                f"not {self.unused_imports!r}"
            )
        for target in self.deletions:
            if target.language not in LANGUAGES:
                raise RecipeError(f"recipe {self.id}: unknown language {target.language!r} for {target.name}")
