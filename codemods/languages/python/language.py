"""Python's operations for the language registry (core/registry.py): deleting functions and
classes (libcst), identifiers (tokenize) and syntax errors (ast) of .py files."""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from codemods.core.registry import PYTHON, Deletions, LanguageOperations, PlanState, References
from codemods.edit.values import Finding, ItemTarget
from codemods.languages.resolution import DEFINITE, DeletedFile, DeletedName, DeletedRecord, Reference, deleted_file
from codemods.languages.scope import Scope
from codemods.languages.python.items import PythonTarget, delete_python_items
from codemods.languages.python.scopes import python_item_scopes
from codemods.languages.python.classes import PythonClasses
from codemods.languages.python.resolve import DeletedPythonItem, definition_facts, python_references
from codemods.search.files import SKIPPED_DIRS, walk_all


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


def delete_items(
    path: str,
    source: bytes,
    targets: Sequence[ItemTarget],
    origin: str,
    absent: Callable[[], bool] | None,
    deleted: DeletedRecord,
) -> Deletions:
    taken = delete_python_items(path, source, [PythonTarget(t.kind, t.name) for t in targets], origin, absent)
    edits, names, findings = taken.taken, taken.gone, taken.findings
    kinds = {t.name: t.kind for t in targets}
    deleted.add(
        PYTHON,
        [
            DeletedPythonItem(name.rsplit(".", 1)[-1], path, name, kinds.get(name, ""), inherited, fixture)
            for name, (inherited, fixture) in zip(names, definition_facts(source, names))
        ],
    )
    return Deletions(tuple(edits), tuple(findings))


def item_scopes(source: bytes, tree: Any, name: str) -> list[Scope]:
    """The functions and classes a rule scoped to `name` (`Klass.method`) applies to."""
    return python_item_scopes(source, tree, name)


def file_deleted(path: str, source: bytes, deleted: DeletedRecord) -> list[Finding]:
    """A recipe deletes the whole module `path`: code reaches its items only by importing it, so
    what is recorded is the module, for the imports that still name it."""
    deleted.add(PYTHON, [deleted_file(path)])
    return []


def _module_names(path: str) -> list[tuple[str, ...]]:
    """The dotted names the module at `path` may be imported by: its path from the root, and
    from each folder below (a `src/` layout, a tests folder on `sys.path`), a package's
    `__init__.py` by its folder."""
    parts = path.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return [tuple(parts[i:]) for i in range(len(parts))] if parts else []


def _imports(source: bytes) -> list[tuple[int, int, tuple[str, ...], int, bool]]:
    """(line, col, dotted name, level, whether a `from` statement's own module) of each module an
    `import` or `from` statement names: `import a.b` names a.b; `from a import b` names a and
    a.b (b may be a module)."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            found += [(node.lineno, node.col_offset, tuple(a.name.split(".")), 0, False) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = tuple(node.module.split(".")) if node.module else ()
            if base:
                found.append((node.lineno, node.col_offset, base, node.level, True))
            found += [
                (node.lineno, node.col_offset, (*base, a.name), node.level, False) for a in node.names if a.name != "*"
            ]
    return found


def _import_references(
    path: str, text: bytes, files: list[DeletedFile], exists: Callable[[str], bool]
) -> list[Reference]:
    """The imports of `text` (the module `path`) that name one of the deleted modules `files`:
    a relative import by the folders, an absolute one by the module's dotted path from the root
    or from a folder below it. A package's `__init__.py` is named by `import pkg` and by
    `from pkg import x` where x is no module of its folder (the folder stays a namespace
    package: its modules are still imported through it)."""
    starts = [0]
    for text_line in text.split(b"\n"):
        starts.append(starts[-1] + len(text_line) + 1)
    folder = path.split("/")[:-1]
    found = []
    for line, col, name, level, from_base in _imports(text):
        for file in files:
            package = file.path.endswith("__init__.py")
            if package and from_base:
                continue
            if package and not from_base and len(name) > 1:
                # `from pkg import x` or `import pkg.x`: x a module of the kept folder is no use.
                folder_of = file.path.rsplit("/", 1)[0] + "/" if "/" in file.path else ""
                if exists(f"{folder_of}{name[-1]}.py") or exists(f"{folder_of}{name[-1]}/__init__.py"):
                    continue
            if level:
                base = folder[: len(folder) - (level - 1)] if level - 1 <= len(folder) else None
                module = tuple(file.path.removesuffix(".py").split("/"))
                hit = base is not None and (
                    module in ((*base, *name), (*base, *name, "__init__"))
                    or package
                    and (not from_base and module == (*base, *name[:-1], "__init__"))
                )
            else:
                hit = (
                    name in _module_names(file.path)
                    or package
                    and not from_base
                    and (name[:-1] in _module_names(file.path))
                )
            if hit:
                start = starts[line - 1] + col
                found.append(
                    Reference(
                        path,
                        start,
                        start + len("import"),
                        ".".join(name),
                        DEFINITE,
                        "import",
                        f"imports {file.path}, a module the recipe deletes",
                    )
                )
                break
    return found


def references(path: str, text: bytes, deleted: DeletedRecord, shared: PlanState) -> References:
    """Uses in a Python file that resolve, or may resolve, to a deleted Python item (resolve.py),
    and the imports that name a deleted module; in a file `ast` does not parse, and for deleted
    names known by spelling alone, the deleted names are matched by spelling."""
    files = [i for i in deleted.of(PYTHON) if isinstance(i, DeletedFile)]
    modules = (
        _import_references(path, text, files, lambda p: shared.read(p) is not None)
        if files and path.endswith(".py")
        else []
    )
    items = [i for i in deleted.of(PYTHON) if isinstance(i, DeletedPythonItem)]
    spelled = [i.name for i in deleted.of(PYTHON) if isinstance(i, DeletedName)]
    classes = shared.memo("python-classes", lambda: PythonClasses(lambda: _python_files(shared.root), shared.read))
    found = python_references(path, text, items, classes) if items else []
    if found is None:
        return References(tuple(modules), (*spelled, *(i.name for i in items)))
    return References((*modules, *found), tuple(spelled))


def _python_files(root: Path) -> list[str]:
    """The tree's Python files (relative POSIX paths), as the searches walk it."""
    return [p for p in walk_all(root, SKIPPED_DIRS) if p.endswith(".py")]


def format_item(text: str, indent: str, root: Path, path: str) -> None:
    """No formatter is registered for this language: generated text is inserted as written."""
    return None


class PythonOperations(LanguageOperations):
    """Python's `LanguageOperations`: the functions of this module."""

    parse_errors = staticmethod(parse_errors)
    identifiers = staticmethod(identifiers)
    delete_items = staticmethod(delete_items)
    item_scopes = staticmethod(item_scopes)
    references = staticmethod(references)
    format_item = staticmethod(format_item)
    file_deleted = staticmethod(file_deleted)


OPERATIONS = PythonOperations()
