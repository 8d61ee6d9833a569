"""Edits and findings: the two values every operation returns, and the item target a finding
about a `[[delete]]` target names (a value shared by the recipe, the languages and the reports)."""

from __future__ import annotations

import array
import bisect
import difflib
import itertools
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from codemods.edit.codes import Code
from codemods.edit.errors import EditError


@dataclass(frozen=True, order=True)
class Edit:
    """Replace bytes [start, end) of `path` (relative to the root, POSIX) with `replacement`.

    `origin` says which recipe operation produced it (`RECIPE:rewrite`, `delete:fn:NAME`, ...),
    so that a conflict can name both sides. An edit with `delete_file` spans the whole file and
    deletes it (in the same all-or-nothing write as the other changes).
    """

    path: str
    start: int
    end: int
    replacement: bytes = b""
    origin: str = field(default="", compare=False)
    delete_file: bool = field(default=False, compare=False)  # the whole file goes (a module with its file)

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise EditError(f"bad edit range [{self.start}, {self.end}) in {self.path}")


@dataclass(frozen=True)
class ItemTarget:
    """Delete the item of `kind` named `name` (qualified with `::` or `.`) in the file at `path`.

    `crate::a::name` (Rust) and `ns::name` (C++) name exactly one item; a bare
    Rust name matches the end of qualified names (see README, "As a library").
    `branch` chooses among the preprocessor branches that each hold the item
    (C++: the branch's condition, "" outside any, "*" for all).
    `namespace_macros` is the recipe's (see `Recipe`), filled in by it.
    Kind `file`, without a name, is the whole file at `path`.
    """

    path: str
    language: str
    kind: str
    name: str = ""  # none for kind `file`: the whole file
    branch: str | None = None
    namespace_macros: tuple[tuple[str, str], ...] = ()


# Finding severities. A blocking finding stops `apply` from writing anything.
BLOCKING = "error"
NOTE = "note"


@dataclass(frozen=True)
class Finding:
    """Something the user must know about a plan, located at path:line:col (1-based).

    `target` is the `[[delete]]` target it is about, where it has one; `candidates` are the
    names a missing target may have meant (the "did you mean" of the message), as a target
    spells them. A dangling reference also says how sure the check is (`certainty`:
    definite or possible), what kind of use it is (`reference_kind`: call, import,
    serde default, ...) and how the name resolved (`resolution`).
    """

    path: str
    line: int
    col: int
    code: str
    message: str
    severity: str = BLOCKING
    symbol: str | None = None
    certainty: str | None = None
    reference_kind: str | None = None  # what the use is: call, import, ... (JSON "kind")
    resolution: str | None = None
    target: ItemTarget | None = None  # the `[[delete]]` target the finding is about, where it has one
    candidates: tuple[str, ...] = ()  # no-such-item: the closest names of the file, as a target spells them

    @property
    def blocking(self) -> bool:
        return self.severity == BLOCKING

    def render(self) -> str:
        where = f"{self.path}:{self.line}:{self.col}" if self.line else self.path
        return f"{where}: {self.message}" if where else self.message

    def as_json(self) -> dict[str, object]:
        document: dict[str, object] = {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "code": str(self.code),
            "severity": self.severity,
            "symbol": self.symbol,
            "message": self.message,
        }
        if self.certainty is not None:
            document.update(certainty=self.certainty, kind=self.reference_kind, resolution=self.resolution)
        if self.target is not None:
            document["target"] = {
                "path": self.target.path,
                "language": self.target.language,
                "kind": self.target.kind,
                "name": self.target.name,
            }
        if self.candidates:
            document["candidates"] = list(self.candidates)
        return document


def line_col(source: bytes, offset: int) -> tuple[int, int]:
    """1-based line and 1-based byte column of `offset` in `source`."""
    line_start = source.rfind(b"\n", 0, offset) + 1
    starts = _line_starts(source)
    if starts is not None:
        return bisect.bisect_right(starts, line_start), offset - line_start + 1
    return source.count(b"\n", 0, offset) + 1, offset - line_start + 1


def line_cols(source: bytes, offsets: Iterable[int]) -> dict[int, tuple[int, int]]:
    """`line_col` of each of `offsets` in `source`, by offset: the newlines counted once, from
    one offset to the next in order (a file's references, asked together, cost one pass over
    the file up to the last of them, not one count from its start each)."""
    found: dict[int, tuple[int, int]] = {}
    line, counted = 1, 0
    for offset in sorted(set(offsets)):
        line += source.count(b"\n", counted, offset)
        counted = offset
        found[offset] = line, offset - (source.rfind(b"\n", 0, offset) + 1) + 1
    return found


# Sources asked for many lines (a plan's findings and notes in one file): their line starts, kept
# for the few sources asked last; the others are counted each time (cheaper for one or two).
_ASKED: dict[int, tuple[bytes, int]] = {}
_STARTS: dict[int, tuple[bytes, "array.array[int]"]] = {}
_INDEXED_AFTER = 32  # building the index costs about 16 counts over half the source
_INDEX_LIMIT = 8 * 1024 * 1024


def _line_starts(source: bytes) -> "array.array[int] | None":
    key = id(source)
    kept = _STARTS.get(key)
    if kept is not None and kept[0] is source:
        return kept[1]
    if len(source) > _INDEX_LIMIT:
        return None
    asked = _ASKED.get(key)
    count = asked[1] + 1 if asked is not None and asked[0] is source else 1
    if len(_ASKED) >= 64:
        del _ASKED[next(iter(_ASKED))]
    _ASKED[key] = (source, count)
    if count < _INDEXED_AFTER:
        return None
    starts = array.array("q", [0])
    starts.extend(itertools.accumulate(map((1).__add__, map(len, source.split(b"\n")[:-1]))))
    if len(_STARTS) >= 16:
        del _STARTS[next(iter(_STARTS))]
    _STARTS[key] = (source, starts)  # holding the source keeps its id from being reused
    return starts


def shape_mismatch(path: str, source: bytes, kind: str, name: str, other_kind: str, other_start: int) -> Finding:
    """A target whose name is found only as another kind of item: blocking, nothing deleted."""
    line, col = line_col(source, other_start)
    return Finding(
        path,
        line,
        col,
        Code.SHAPE_MISMATCH,
        f"{name}: expected a {kind}, found a {other_kind}; not deleted",
        symbol=name,
    )


def closest_names(name: str, candidates: Iterable[str], count: int = 3, cutoff: float = 0.6) -> list[str]:
    """The candidates spelt most like `name` (at most `count`, each at least `cutoff` alike), judged
    by the last part of the name first (a shared `crate::` or module prefix says nothing), then
    by the whole name. The one "did you mean" of the package: targets, recipe keys."""

    def similarity(a: str, b: str) -> float:
        return difflib.SequenceMatcher(None, a, b).ratio()

    def last(qualified: str) -> str:
        return re.split(r"::|\.", qualified)[-1]

    scored = [(similarity(last(name), last(c)), similarity(name, c), c) for c in dict.fromkeys(candidates)]
    return [c for score, _, c in sorted(scored, reverse=True) if score >= cutoff][:count]


def missing_target(
    path: str,
    kind: str,
    name: str,
    candidates: list[str],
    already_absent: Callable[[], bool] | None,
    places: Mapping[str, tuple[int, int]] | None = None,
) -> Finding:
    """A target with no item of that name and kind in its file.

    It is "already absent", a note (so that re-running a recipe changes
    nothing), when `already_absent()` says so: the recipe's dead-symbol
    pattern shows no mention left in the file. Otherwise (no pattern, or
    mentions left) it is blocking and names the closest of `candidates`,
    since the name is most likely misspelt; it lies at that candidate's
    (line, col) in `places`, where given (else the plan places it: see
    plan/stages.py).
    """
    if already_absent is not None and already_absent():
        return Finding(
            path,
            0,
            0,
            Code.NOT_FOUND,
            f"{kind} {name} already absent (no code in the file names the recipe's dead symbols)",
            severity=NOTE,
            symbol=name,
        )
    closest = closest_names(name, candidates)
    hint = f"; did you mean {' or '.join(closest)}?" if closest else ""
    line, col = (places or {}).get(closest[0], (0, 0)) if closest else (0, 0)
    return Finding(
        path,
        line,
        col,
        Code.NO_SUCH_ITEM,
        f"no item {name} of kind {kind} in {path}{hint}",
        symbol=name,
        candidates=tuple(closest),
    )
