"""The dangling-reference check: code that still refers to an item a plan deletes.

Only files that mention a deleted name (one rg search) are read. In Rust
files a mention counts only if it resolves to a deleted item
(codemods/languages/rust/resolve/): `definite` findings block the plan, `possible`
ones (a method call on a receiver of unknown type, a use inside a macro whose
arguments are not known to be expressions) are listed and block only with
`strict`. Rust items are never named from C++ or Python, and C++ functions
from Rust only by the `extern "C++"` declarations of a cxx bridge.
C++ uses are resolved within their file (codemods/languages/cpp/resolve.py), Python
uses by scope and module (codemods/languages/python/resolve.py). Names a recipe
step reports removed without deleting an item are matched by spelling in code. What each language resolves is its registered
operations' `references` (see core/registry.py).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, Sequence

from codemods.edit.codes import Code
from codemods.edit.splice import FileChange, map_offset
from codemods.edit.values import BLOCKING, NOTE, Edit, Finding, line_col, line_cols
from codemods.plan.reword import PROSE_SUFFIXES
from codemods.search.files import FoundFiles, files_with_words, start_files_matching
from codemods.core.registry import PlanState, language_for
from codemods.config.recipe import Workspace
from codemods.languages.resolution import DEFINITE, DeletedItem, Reference
from codemods.search.mentions import COMMENT, STRING, classify_spans
from codemods.words import word_in

DANGLING = Code.DANGLING_REFERENCE

# A file this big is not parsed to resolve names (a syntax tree takes tens of times the file's
# size): its uses are the code identifiers spelling a deleted name, found by the lexical scan
# (comments and strings left out), which keeps memory within a few times the file's size.
RESOLVE_LIMIT = 8 * 1024 * 1024


@dataclass(frozen=True)
class PlannedFile:
    """One file as read (`before`) and as the plan leaves it (`text`), with the edits between them."""

    before: bytes
    text: bytes
    edits: tuple[Edit, ...]

    def line_col(self, offset: int) -> tuple[int, int]:
        """The line and column, in the file as read, of `offset` in `text`."""
        return line_col(self.before, map_offset(list(self.edits), offset))

    def line_cols(self, offsets: list[int]) -> dict[int, tuple[int, int]]:
        """`line_col` of each of `offsets` (in `text`), by offset, the file's newlines counted once."""
        if not self.edits:
            return line_cols(self.before, offsets)
        edits = list(self.edits)
        read = {offset: map_offset(edits, offset) for offset in offsets}
        found = line_cols(self.before, read.values())
        return {offset: found[back] for offset, back in read.items()}


def planned_file(workspace: Workspace, changes: Mapping[str, FileChange], path: str) -> PlannedFile | None:
    """`path` as read and as `changes` leave it; None when it cannot be read."""
    before = workspace.read(path)
    if before is None:
        return None
    change = changes.get(path)
    return PlannedFile(before, before, ()) if change is None else PlannedFile(before, change.after, change.edits)


@dataclass
class DeletedNames:
    """What a plan deletes: each language's deleted items (as its plug-in records them; every item
    has a `name`), and names a step made unavailable without deleting an item (matched by spelling)."""

    items: dict[str, list[DeletedItem]] = field(default_factory=dict)
    spelled: list[str] = field(default_factory=list)

    def of(self, language: str) -> list[DeletedItem]:
        """The deleted items of `language`."""
        return self.items.get(language, [])

    def add(self, language: str, items: Iterable[DeletedItem]) -> None:
        self.items.setdefault(language, []).extend(items)

    def foreign(self, language: str) -> list[DeletedItem]:
        """The deleted items of every language but `language` that code of other languages can
        link to (an item says so with `linkable`; items without it can)."""
        return [
            i for name, items in self.items.items() if name != language for i in items if getattr(i, "linkable", True)
        ]

    def merge(self, other: "DeletedNames") -> None:
        for language, items in other.items.items():
            self.add(language, items)
        self.spelled += [n for n in other.spelled if n not in self.spelled]

    def all_names(self) -> list[str]:
        return list(dict.fromkeys([*(i.name for items in self.items.values() for i in items), *self.spelled]))

    def search_words(self) -> list[str]:
        """The words whose files the reference check reads: every name, except that an item
        used without being named (a C++ operator) gives its own `search_words`."""
        return list(
            dict.fromkeys(
                [
                    *(w for items in self.items.values() for i in items for w in getattr(i, "search_words", (i.name,))),
                    *self.spelled,
                ]
            )
        )


@dataclass(frozen=True)
class AfterPlan:
    """The tree as the plan leaves it, for the checks that read it: the snapshot, the changes
    that pass the gate (by path; their edits map offsets back to the file as read), and the
    files whose edits the gate refused."""

    workspace: Workspace
    changes: Mapping[str, FileChange]
    refused: set[str]


def dangling_references(
    after: AfterPlan,
    deleted: DeletedNames,
    spelled: Callable[[str, bytes, set[str]], list[tuple[int, int, str]]],
    strict: bool = False,
    referring: Sequence[FoundFiles] | None = None,
    shared: PlanState | None = None,
) -> list[Finding]:
    """Findings for every surviving use of a deleted item, anywhere in the tree, as it will be
    after `after.changes`.

    `spelled(path, text, names)` gives (start, end, name) of code identifiers
    spelling `names` (the match used for Python names and for names a recipe
    step reports removed without deleting an item). Files whose edits were
    refused are left out: their items were not deleted, and the refusal is
    reported already. `referring`, when given, are rg searches for the files
    naming the deleted names, started earlier (the plan starts them before it
    parses and validates, so that they run meanwhile). `shared`, when given, is the
    languages' state for the plan (see languages/registry.py), kept from the import
    stage, so that a use is resolved once per plan.
    """
    workspace, changes, refused = after.workspace, after.changes, after.refused
    names = deleted.all_names()
    if not names:
        return []
    shared = shared if shared is not None else PlanState(workspace.root, workspace.read)
    findings: list[Finding] = []
    found = (
        {path for search in referring for path in search.result()}
        if referring is not None
        else files_with_words(workspace.root, deleted.search_words())
    )
    candidates = set(found) | set(changes)
    unknown: list[tuple[int, Reference]] = []  # possible only for want of the receiver's type
    resolved: dict[str, set[int]] = {}  # the starts of every use found, by path
    for path in sorted(candidates - refused):
        planned = planned_file(workspace, changes, path)
        if planned is None:
            continue
        text, locate = planned.text, planned.line_col
        language = language_for(path)
        if len(text) > RESOLVE_LIMIT:
            findings += [
                Finding(
                    path,
                    *locate(start),
                    DANGLING,
                    f"{name}: code still names an item the recipe deletes",
                    symbol=name,
                    certainty=DEFINITE,
                    reference_kind="name",
                    resolution=f"same spelling in code (a file over {RESOLVE_LIMIT >> 20} MiB is not "
                    f"parsed to resolve names)",
                )
                for start, name in _code_words(path, text, set(names))
            ]
            continue
        spelled_names = set(deleted.spelled)
        if language is not None:
            references = language.operations.references(path, text, deleted, shared)
            places = planned.line_cols([r.start for r in references.uses]) if references.uses else {}
            for reference in references.uses:
                if reference.receiver_unknown and reference.certainty != DEFINITE:
                    unknown.append((len(findings), reference))
                findings.append(_reference_finding(path, reference, *places[reference.start], strict))
                resolved.setdefault(path, set()).add(reference.start)
            spelled_names |= set(references.by_spelling)
        if not spelled_names:
            continue
        for start, _end, name in spelled(path, text, spelled_names):
            resolved.setdefault(path, set()).add(start)
            line, col = locate(start)
            findings.append(
                Finding(
                    path,
                    line,
                    col,
                    DANGLING,
                    f"{name}: code still refers to an item the recipe deletes",
                    symbol=name,
                    certainty=DEFINITE,
                    reference_kind="name",
                    resolution="same spelling (names of this language are not resolved)",
                )
            )
    if unknown:
        spelled_elsewhere = _spelled_elsewhere({r.name for _, r in unknown}, sorted(candidates), after, resolved)
        for index, reference in unknown:
            if reference.name not in spelled_elsewhere:
                findings[index] = replace(
                    findings[index],
                    message=f"{reference.name}: code still refers to an item the recipe deletes",
                    severity=BLOCKING,
                    certainty=DEFINITE,
                    resolution=f"{reference.resolution}; no other code in the tree spells "
                    f"`{reference.name}`, so no other declaration can give it",
                )
    return _one_per_place(findings)


def _spelled_elsewhere(
    names: set[str], paths: Sequence[str], after: AfterPlan, resolved: Mapping[str, set[int]]
) -> set[str]:
    """The `names` that some code of the tree, as the plan leaves it, spells other than at a use
    the check found (`resolved`: the starts of those, by path): a declaration, a local, another
    type's member. A file whose edits were refused counts as it is; a file of no language
    counts by its words unless it is prose."""
    found: set[str] = set()
    pattern = r"\b(?:" + "|".join(re.escape(n) for n in sorted(names)) + r")\b"
    other = start_files_matching(after.workspace.root, pattern, ()).result()  # files of no language too
    paths = sorted(set(paths) | {p for p in other if language_for(p) is None})
    for path in paths:
        if found >= names:
            break
        planned = planned_file(after.workspace, after.changes, path)
        if planned is None:
            continue
        text = planned.before if path in after.refused else planned.text
        wanted = {n for n in names - found if n.encode() in text}
        if not wanted:
            continue
        if language_for(path) is None:
            if PurePosixPath(path).suffix.lower() not in PROSE_SUFFIXES:
                found |= {n for n in wanted if word_in(text, [n])}
            continue
        uses = resolved.get(path, set()) if path not in after.refused else set()
        found |= {name for start, name in _code_words(path, text, wanted) if start not in uses}
    return found


def _code_words(path: str, text: bytes, names: set[str]) -> list[tuple[int, str]]:
    """(start, name) of each whole-word occurrence of `names` in `text` that the lexical scan puts
    in code (or cannot place)."""
    word = re.compile(
        rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in sorted(names, key=len, reverse=True)) + rb")\b"
    )
    hits = [(m.start(), m.end()) for m in word.finditer(text)]
    kinds = classify_spans(path, text, hits)
    return [
        (start, text[start:end].decode()) for (start, end), kind in zip(hits, kinds) if kind not in (COMMENT, STRING)
    ]


def _reference_finding(path: str, reference: Reference, line: int, col: int, strict: bool) -> Finding:
    name = reference.name
    if reference.certainty == DEFINITE:
        return Finding(
            path,
            line,
            col,
            DANGLING,
            f"{name}: code still refers to an item the recipe deletes",
            symbol=name,
            certainty=DEFINITE,
            reference_kind=reference.kind,
            resolution=reference.resolution,
        )
    return Finding(
        path,
        line,
        col,
        DANGLING,
        f"{name}: may still refer to an item the recipe deletes ({reference.resolution})",
        severity=BLOCKING if strict else NOTE,
        symbol=name,
        certainty=reference.certainty,
        reference_kind=reference.kind,
        resolution=reference.resolution,
    )


def _one_per_place(findings: list[Finding]) -> list[Finding]:
    """One finding per (path, line, col, name): a definite one wins over a possible one."""
    chosen: dict[tuple[str, int, int, str | None], Finding] = {}
    for finding in findings:
        key = (finding.path, finding.line, finding.col, finding.symbol)
        if key not in chosen or chosen[key].certainty != DEFINITE and finding.certainty == DEFINITE:
            chosen[key] = finding
    return list(chosen.values())
