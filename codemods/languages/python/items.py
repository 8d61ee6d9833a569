"""Python functions and classes deleted by qualified name, with libcst.

libcst keeps the comments above a statement in its `leading_lines`, so a
removed definition takes its comments and decorators with it. Each removal
becomes one byte-range edit (the bytes libcst's output differs in, around the
definition), so a deletion and a rewording elsewhere in the same file do not
overlap. Targets nested in one another give one edit over both.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from codemods.edit.codes import Code
from codemods.edit.item_spans import ItemDeletions
from codemods.edit.values import Edit, Finding, line_col, missing_target

if TYPE_CHECKING:
    import libcst as cst


@dataclass(frozen=True)
class PythonTarget:
    """A request to delete a "function", "class" or "variable" (a module's or a class's `NAME = ...`,
    `NAME: T = ...` standing alone on its line) named by its dotted path (e.g. `Cls.method`)."""

    kind: str
    name: str


def delete_python_items(
    path: str,
    source: bytes,
    targets: list[PythonTarget],
    origin: str = "delete",
    already_absent: Callable[[], bool] | None = None,
) -> ItemDeletions[Edit, str]:
    """Edits deleting the targets (one per definition); the qualified names deleted; findings for the rest.

    A target not found is a note when `already_absent()` says the file is
    already clean, and blocking otherwise (see `missing_target`).
    """
    import libcst as cst  # lazy: libcst, a parser, only where Python is deleted

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        return ItemDeletions(
            [],
            [],
            [
                Finding(
                    path,
                    error.raw_line,
                    error.raw_column + 1,
                    Code.PARSE_ERROR,
                    f"cannot parse as Python: {error.message}; nothing deleted",
                )
            ],
        )
    except UnicodeDecodeError as error:
        return ItemDeletions(
            [], [], [Finding(path, 0, 0, Code.PARSE_ERROR, f"cannot parse as Python: {error}; nothing deleted")]
        )
    from libcst.metadata import (
        ByteSpanPositionProvider,
        MetadataWrapper,
    )  # lazy: libcst, a parser, only where Python is deleted

    wrapper = MetadataWrapper(module)
    wanted = {t.name: t for t in targets}
    seen: dict[str, str] = {}  # qualified name -> kind, of every definition visited
    places: dict[str, tuple[int, int]] = {}  # qualified name -> (line, col) of its name
    spans: dict[str, tuple[int, int]] = {}  # removed qualified name -> byte span of its definition

    class _Remover(cst.CSTTransformer):
        METADATA_DEPENDENCIES = (ByteSpanPositionProvider,)

        def __init__(self, only: set[str]) -> None:
            super().__init__()
            self.only = only
            self.scope: list[str] = []
            self.removed: set[int] = set()  # ids of the original statements removed

        def _enter(self, node: cst.FunctionDef | cst.ClassDef) -> bool:
            self.scope.append(node.name.value)
            qualified = ".".join(self.scope)
            if qualified not in places:
                places[qualified] = line_col(source, self.get_metadata(ByteSpanPositionProvider, node.name).start)
            return True

        def _leave(
            self, original: cst.FunctionDef | cst.ClassDef, updated: cst.FunctionDef | cst.ClassDef, kind: str
        ) -> cst.BaseStatement | cst.RemovalSentinel:
            qualified = ".".join(self.scope)
            self.scope.pop()
            seen[qualified] = kind
            target = wanted.get(qualified)
            if qualified in self.only and target is not None and target.kind == kind:
                span = self.get_metadata(ByteSpanPositionProvider, original)
                spans[qualified] = (span.start, span.start + span.length)
                self.removed.add(id(original))
                return cst.RemovalSentinel.REMOVE
            return updated

        def _first_kept(
            self, original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement]
        ) -> tuple[cst.BaseStatement, ...] | None:
            """A body whose first statement went: the one now first starts without the blank
            lines that separated it from the removed one (its comments stay); None when unchanged."""
            if not original or id(original[0]) not in self.removed or not updated:
                return None
            first = updated[0]
            if not isinstance(first, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                return None
            lines = list(first.leading_lines)
            while lines and lines[0].comment is None:
                lines.pop(0)
            return (first.with_changes(leading_lines=tuple(lines)), *updated[1:])

        def _blanks_kept(
            self, original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement]
        ) -> tuple[cst.BaseStatement, ...] | None:
            """A statement line removed from between two kept statements leaves the blank lines
            that stood above it (and its comments) where the next one has none of its own: `x = 1`
            going from between an import and a class keeps them apart. None when unchanged."""
            out = list(updated)
            carried: list[cst.EmptyLine] = []
            at = 0
            changed = False
            for index, statement in enumerate(original):
                if id(statement) in self.removed:
                    if index and isinstance(statement, cst.SimpleStatementLine) and not carried:
                        carried = list(itertools.takewhile(lambda line: line.comment is None, statement.leading_lines))
                    continue
                if at >= len(out):
                    break
                kept = out[at]
                if (
                    carried
                    and isinstance(kept, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
                    and not (kept.leading_lines and kept.leading_lines[0].comment is None)
                ):
                    out[at] = kept.with_changes(leading_lines=(*carried, *kept.leading_lines))
                    changed = True
                carried = []
                at += 1
            return tuple(out) if changed else None

        def _settled(
            self, original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement]
        ) -> tuple[cst.BaseStatement, ...] | None:
            body = self._first_kept(original, updated)
            spaced = self._blanks_kept(original, body if body is not None else updated)
            return spaced if spaced is not None else body

        def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
            body = self._settled(original_node.body, updated_node.body)
            return updated_node if body is None else updated_node.with_changes(body=body)

        def leave_IndentedBlock(
            self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
        ) -> cst.BaseSuite:
            body = self._settled(original_node.body, updated_node.body)
            return updated_node if body is None else updated_node.with_changes(body=body)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return self._enter(node)

        def leave_FunctionDef(
            self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
        ) -> cst.BaseStatement | cst.RemovalSentinel:
            return self._leave(original_node, updated_node, "function")

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return self._enter(node)

        def leave_SimpleStatementLine(
            self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
        ) -> cst.BaseStatement | cst.RemovalSentinel:
            name = assigned_name(original_node)
            if name is None:
                return updated_node
            qualified = ".".join([*self.scope, name.value])
            if qualified not in places:
                places[qualified] = line_col(source, self.get_metadata(ByteSpanPositionProvider, name).start)
            assignments[qualified] = assignments.get(qualified, 0) + 1
            seen[qualified] = "variable"
            target = wanted.get(qualified)
            if (
                qualified in self.only
                and target is not None
                and target.kind == "variable"
                and counted.get(qualified, 1) == 1
            ):
                span = self.get_metadata(ByteSpanPositionProvider, original_node)
                spans[qualified] = (span.start, span.start + span.length)
                self.removed.add(id(original_node))
                return cst.RemovalSentinel.REMOVE
            return updated_node

        def leave_ClassDef(
            self, original_node: cst.ClassDef, updated_node: cst.ClassDef
        ) -> cst.BaseStatement | cst.RemovalSentinel:
            return self._leave(original_node, updated_node, "class")

    def without(names: set[str]) -> bytes:
        return wrapper.visit(_Remover(names)).code.encode(module.encoding)

    assignments: dict[str, int] = {}  # qualified name -> how many statements assign it
    counted: dict[str, int] = {}
    if any(t.kind == "variable" for t in targets):
        without(set())  # a first walk counts the assignments: a name assigned twice is not one item
        counted = dict(assignments)
    try:
        result = without(set(wanted))
        removed = list(spans)
        # One origin per deleted item, as for the other languages (`RECIPE:function:Cls.method`).
        origins = {name: f"{origin}:{wanted[name].kind}:{name}" for name in removed}
        # One item removed: the whole result is its own (libcst walks a large file for seconds).
        edits = [
            _changed_range(path, source, result if len(removed) == 1 else without({name}), spans[name], origins[name])
            for name in removed
        ]
    except Exception as error:  # libcst refuses e.g. a body left empty
        return ItemDeletions([], [], [Finding(path, 0, 0, Code.CANNOT_DELETE, f"libcst could not delete: {error}")])
    ordered = sorted(edits, key=lambda e: e.start)
    if any(second.start < first.end for first, second in zip(ordered, ordered[1:])):
        edits = [
            _changed_range(
                path,
                source,
                result,
                (min(e.start for e in edits), max(e.end for e in edits)),
                "+".join(origins[name] for name in removed),
            )
        ]
    findings = [
        Finding(
            path,
            *places[t.name],
            Code.AMBIGUOUS,
            f"{t.name} is assigned by {counted[t.name]} statements; not deleted",
            symbol=t.name,
        )
        if t.kind == "variable" and counted.get(t.name, 0) > 1
        else missing_target(path, t.kind, t.name, [n for n, k in seen.items() if k == t.kind], already_absent, places)
        for t in targets
        if t.name not in removed
    ]
    return ItemDeletions(edits, removed, findings)


def assigned_name(statement: cst.BaseStatement) -> cst.Name | None:
    """The name a statement line binds when it is one assignment of one plain name (`NAME = ...`,
    `NAME: T = ...`, `NAME: T`); None for anything else (`a = b = 1`, `a, b = ...`, `a.b = 1`)."""
    import libcst as cst  # lazy: libcst, a parser, only where Python is deleted

    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
        return small.target
    return None


def _changed_range(path: str, source: bytes, result: bytes, span: tuple[int, int], origin: str) -> Edit:
    """The edit that turns `source` into `result`, covering at least `span` (the definition removed):
    the bytes between their common prefix and suffix, neither reaching into `span`."""
    limit = min(span[0], len(result))
    prefix = 0
    while prefix < limit and source[prefix] == result[prefix]:
        prefix += 1
    limit = min(len(source) - span[1], len(result) - prefix)
    suffix = 0
    while suffix < limit and source[-1 - suffix] == result[-1 - suffix]:
        suffix += 1
    return Edit(path, prefix, len(source) - suffix, result[prefix : len(result) - suffix], origin)
