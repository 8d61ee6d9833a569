"""Tests that exercise removed code: trimmed to what survives, or deleted.

A test that checks several routes in turn keeps the statements that do not
touch a removed name, directly or through a binding made from one; its
braced `use` list loses the names that no longer exist or are no longer
used; and it takes a new name that says what it still tests.

A test of which nothing would survive (every statement uses a removed name,
or only builds a binding that such statements read) tests only removed items
and goes with them; the plan lists each one it deletes that way.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from codemods.edit.codes import Code
from codemods.edit.values import Edit, Finding, line_col
from codemods.parse import RUST, node_text, parse
from codemods.edit.item_spans import Deletion, deletion_edits, whole_lines
from codemods.languages.rust.items import rust_items
from codemods.languages.rust.statements import (
    find_function,
    let_binding,
    names_used,
    statement_deletion,
    statements,
    uses_any,
)
from codemods.config.recipe import StepResult, Workspace


@dataclass(frozen=True)
class SplitBody:
    """A test body's statements (`split_statements`): its `use` declarations, those kept and those dropped."""

    uses: list[tree_sitter.Node]
    kept: list[tree_sitter.Node]
    dropped: list[tree_sitter.Node]


def split_statements(body: tree_sitter.Node, removed: set[str]) -> SplitBody:
    """The use declarations, statements kept and statements dropped of a test body.

    A statement is dropped when it names a removed item or a binding made by a
    dropped statement.
    """
    dead: set[str] = set()
    uses: list[tree_sitter.Node] = []
    kept: list[tree_sitter.Node] = []
    dropped: list[tree_sitter.Node] = []
    for statement in statements(body):
        if statement.type == "use_declaration":
            uses.append(statement)
        elif names_used(statement) & (removed | dead):
            dropped.append(statement)
            binding = let_binding(statement)
            if binding:
                dead.add(binding)
        else:
            kept.append(statement)
    return SplitBody(uses, kept, dropped)


def only_feeds_dropped(kept: list[tree_sitter.Node], dropped: list[tree_sitter.Node]) -> bool:
    """Whether every kept statement is a `let` read only by dropped statements (set-up for them)."""
    read_by_dropped = set().union(*(names_used(s) for s in dropped)) if dropped else set()
    for statement in kept:
        binding = let_binding(statement)
        if binding is None or binding not in read_by_dropped:
            return False
        if any(binding in names_used(other) for other in kept if other is not statement):
            return False
    return True


@dataclass(frozen=True)
class TrimTest:
    """Trim test `name` in `path` to its statements free of `removed_names`, and rename it."""

    path: str
    name: str
    new_name: str
    removed_names: tuple[str, ...]

    def __call__(self, workspace: Workspace) -> StepResult:
        source = workspace.read(self.path)
        if source is None:
            return StepResult()
        tree = parse(source, RUST)
        function = find_function(tree.root_node, self.name)
        if function is None:
            severity = "note"
            message = f"test {self.name} not found"
            if find_function(tree.root_node, self.new_name) is not None:
                message += f" ({self.new_name} exists: already trimmed)"
            return StepResult(findings=(Finding(self.path, 0, 0, Code.NOT_FOUND, message, severity=severity),))
        body, name_node = function.child_by_field_name("body"), function.child_by_field_name("name")
        if body is None or name_node is None:
            line, col = line_col(source, function.start_byte)
            return StepResult(
                findings=(Finding(self.path, line, col, Code.SHAPE_MISMATCH, f"{self.name}: no body to trim"),)
            )
        removed = set(self.removed_names)
        split = split_statements(body, removed)
        uses, kept, dropped = split.uses, split.kept, split.dropped
        if not kept:
            line, col = line_col(source, function.start_byte)
            return StepResult(
                findings=(
                    Finding(
                        self.path,
                        line,
                        col,
                        Code.NOTHING_SURVIVES,
                        f"{self.name}: every statement uses a removed name; not trimmed",
                    ),
                )
            )
        still_used = set().union(*(names_used(s) for s in kept))
        edits: list[Edit] = []
        deletions = [statement_deletion(source, s, f"trim:{self.name}") for s in dropped]
        for use in uses:
            edit = self._trim_use(source, use, removed, still_used, deletions)
            if edit is not None:
                edits.append(edit)
        edits += deletion_edits(self.path, source, deletions)
        edits.append(
            Edit(
                self.path, name_node.start_byte, name_node.end_byte, self.new_name.encode(), f"trim:{self.name}:rename"
            )
        )
        return StepResult(edits=tuple(edits))

    def _trim_use(
        self, source: bytes, use: tree_sitter.Node, removed: set[str], still_used: set[str], deletions: list[Deletion]
    ) -> Edit | None:
        """Edit for a `use path::{A, B};` that keeps only names still defined and used."""
        argument = use.child_by_field_name("argument")
        if argument is None or argument.type != "scoped_use_list":
            return None
        use_list = argument.child_by_field_name("list")
        prefix = argument.child_by_field_name("path")
        if use_list is None or prefix is None:
            return None
        names = [node_text(c) for c in use_list.named_children]
        keep = [n for n in names if n not in removed and (n in still_used or n == "self")]
        if keep == names:
            return None
        if not keep:
            deletions.append(statement_deletion(source, use, f"trim:{self.name}:use"))
            return None
        inner = keep[0] if len(keep) == 1 else "{" + ", ".join(keep) + "}"
        start, end = use.start_byte, use.end_byte
        return Edit(self.path, start, end, f"use {node_text(prefix)}::{inner};".encode(), f"trim:{self.name}:use")


@dataclass(frozen=True)
class DeleteOrphanedTests:
    """Delete the tests in `paths` that exercise only `removed_names` (reported as notes).

    Tests that other steps already edit (rewritten or trimmed) or that the
    recipe deletes are left to them.
    """

    paths: tuple[str, ...]
    removed_names: tuple[str, ...]

    def __call__(self, workspace: Workspace) -> StepResult:
        edits: list[Edit] = []
        findings: list[Finding] = []
        removed = set(self.removed_names)
        for path in self.paths:
            source = workspace.read(path)
            if source is None:
                continue
            planned = workspace.planned(path)
            deletions = []
            for item in rust_items(source, parse(source, RUST)):
                body = item.node.child_by_field_name("body")
                if item.kind != "test" or body is None or not uses_any(source, body, removed):
                    continue
                if any(e.start < item.end and item.start < e.end for e in planned):
                    continue
                split = split_statements(body, removed)
                if split.kept and not only_feeds_dropped(split.kept, split.dropped):
                    continue
                start, end = whole_lines(source, item.start, item.end, (b"//",))
                deletions.append(Deletion(start, end, f"orphaned-test:{item.qualified_name}"))
                line, col = line_col(source, item.node.start_byte)
                names = ", ".join(sorted(names_used(body) & removed))
                findings.append(
                    Finding(
                        path,
                        line,
                        col,
                        Code.ORPHANED_TEST,
                        f"deleted test {item.qualified_name}: it exercises only removed items ({names})",
                        severity="note",
                    )
                )
            edits += deletion_edits(path, source, deletions)
        return StepResult(edits=tuple(edits), findings=tuple(findings))
