"""Python's operations for the language registry (core/registry.py): deleting functions and
classes (libcst), identifiers (tokenize) and syntax errors (ast) of .py files."""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Callable, Sequence
from pathlib import Path

from codemods.core.registry import PYTHON, LanguageOperations, PlanState
from codemods.edit.values import Edit, Finding, ItemTarget
from codemods.languages.resolution import DeletedName, DeletedRecord, Reference
from codemods.languages.scope import Scope
from codemods.languages.python.items import PythonTarget, delete_python_items
from codemods.languages.python.resolve import DeletedPythonItem, definition_facts, python_references


def parse_errors(source: bytes, tree: None) -> list[tuple[int, int]]:
    """Where `ast` stops: the start of the line of the first syntax error."""
    try:
        ast.parse(source)
    except (SyntaxError, ValueError) as error:
        lines = source.split(b"\n")
        line = max(1, (getattr(error, "lineno", 1) or 1))
        offset = sum(len(x) + 1 for x in lines[: line - 1])
        return [(offset, offset)]
    return []


def identifiers(source: bytes, tree: None, hits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The hits that are NAME tokens (all of them when the file does not tokenize)."""
    line_starts = [0]
    for index, byte in enumerate(source):
        if byte == 0x0A:
            line_starts.append(index + 1)
    names: dict[int, str] = {}
    try:
        for token in tokenize.tokenize(io.BytesIO(source).readline):
            if token.type == tokenize.NAME:
                line_bytes = source[line_starts[token.start[0] - 1] :]
                prefix = line_bytes.decode("utf-8", "replace")[: token.start[1]].encode("utf-8")
                names[line_starts[token.start[0] - 1] + len(prefix)] = token.string
    except (tokenize.TokenError, SyntaxError, IndexError):
        return hits
    return [(s, e, n) for s, e, n in hits if names.get(s) == n]


def delete_items(path: str, source: bytes, targets: Sequence[ItemTarget], origin: str,
                 absent: Callable[[], bool] | None, deleted: DeletedRecord) -> tuple[list[Edit], list[Finding]]:
    edits, names, findings = delete_python_items(path, source, [PythonTarget(t.kind, t.name) for t in targets],
                                                 origin, absent)
    kinds = {t.name: t.kind for t in targets}
    deleted.add(PYTHON, [DeletedPythonItem(name.rsplit(".", 1)[-1], path, name, kinds.get(name, ""), inherited, fixture)
                         for name, (inherited, fixture) in zip(names, definition_facts(source, names))])
    return edits, findings


def item_scopes(source: bytes, tree: None, name: str) -> list[Scope]:
    """Rules are not scoped to Python items: none."""
    return []


def references(path: str, text: bytes, deleted: DeletedRecord, shared: PlanState) -> tuple[list[Reference], list[str]]:
    """Uses in a Python file that resolve, or may resolve, to a deleted Python item (resolve.py);
    in a file `ast` does not parse, and for deleted names known by spelling alone, the deleted names
    are matched by spelling."""
    items = [i for i in deleted.of(PYTHON) if isinstance(i, DeletedPythonItem)]
    spelled = [i.name for i in deleted.of(PYTHON) if isinstance(i, DeletedName)]
    found = python_references(path, text, items) if items else []
    if found is None:
        return [], [*spelled, *(i.name for i in items)]
    return found, spelled


def format_item(text: str, indent: str, root: Path, path: str) -> None:
    """No formatter is registered for this language: generated text is inserted as written."""
    return None


OPERATIONS = LanguageOperations(
    parse_errors=parse_errors,
    identifiers=identifiers,
    delete_items=delete_items,
    item_scopes=item_scopes,
    references=references,
    format_item=format_item,
)
