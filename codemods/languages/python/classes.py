"""The tree's Python classes, read across modules: where a class is defined (by its dotted path,
a tail of its module's path then its name), the names its body defines, and its bases resolved
through its module's imports; so that `obj.name` on an instance of a class can be followed to
the class that provides `name` (the class itself or, depth first, a base: the order in which
Python's method resolution finds the first definition for single inheritance), and a deleted
method's class can be shown to have no base in the tree defining its name.

What is not in the tree (a base from an installed package, one computed at run time) is
UNKNOWN: the name may come from there, so a use through it stays possible.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass


UNKNOWN = ("<unknown>",)  # what provides a name, where a base is not in the tree


def module_parts(path: str) -> tuple[str, ...]:
    """The dotted module path of the file at `path` (relative to the root): `a/b/c.py` is
    `a.b.c`, `a/b/__init__.py` is `a.b`."""
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    if parts and parts[-1].endswith(".py"):
        parts[-1] = parts[-1][:-3]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return tuple(parts)


def from_module(package: tuple[str, ...], node: ast.ImportFrom) -> tuple[str, ...]:
    """The dotted module a `from ... import` names, from the importing file's `package` (its
    dotted path; a module's package is its folder): `from .b import x` in package `a` is `a.b`."""
    module = tuple(node.module.split(".")) if node.module else ()
    if not node.level:
        return module
    up = package[: len(package) - (node.level - 1)] if node.level - 1 <= len(package) else ()
    return (*up, *module)


@dataclass(frozen=True)
class _Class:
    module: tuple[str, ...]  # the module's dotted path from the tree's root
    names: frozenset[str]  # what its body defines (functions, classes, assignments)
    bases: tuple[tuple[str, ...] | None, ...]  # dotted paths as its module binds them; None: not a path


class PythonClasses:
    """Classes of the tree's Python files (`files()`: relative paths; `read(path)`: their bytes),
    parsed on first use, one module at a time."""

    def __init__(self, files: Callable[[], list[str]], read: Callable[[str], bytes | None]) -> None:
        self._files = files
        self._read = read
        self._by_tail: dict[tuple[str, ...], str | None] | None = None
        self._modules: dict[str, dict[tuple[str, ...], _Class] | None] = {}
        self._bound: dict[str, dict[str, tuple[str, ...]]] = {}

    def _module_file(self, module: tuple[str, ...]) -> str | None:
        """The file of the module a dotted path names (a tail of its path from the root), None
        where no file or more than one is that module."""
        if self._by_tail is None:
            by_tail: dict[tuple[str, ...], str | None] = {}
            for path in self._files():
                parts = module_parts(path)
                for start in range(len(parts)):
                    tail = parts[start:]
                    by_tail[tail] = None if tail in by_tail and by_tail[tail] != path else path
            self._by_tail = by_tail
        return self._by_tail.get(module)

    def _classes_of(self, path: str) -> dict[tuple[str, ...], _Class] | None:
        if path not in self._modules:
            self._modules[path], self._bound[path] = _read_classes(path, self._read(path))
        return self._modules[path]

    def imported(self, module: tuple[str, ...], name: str) -> tuple[str, ...] | None:
        """What the module `module` (a dotted path) binds `name` to at its top level: an import's
        target (`from .compat import nested` in a package's `__init__.py`: `pkg.compat.nested`),
        or the module's own definition (`pkg.nested`); None where the tree has no such module or
        no plain binding of the name (a star import, an import and a definition both)."""
        path = self._module_file(module)
        if path is None:
            return None
        self._classes_of(path)
        return self._bound.get(path, {}).get(name)

    def find(self, dotted: tuple[str, ...]) -> _Class | None:
        """The class a dotted path names, None where the tree does not define it (or not once)."""
        for split in range(len(dotted) - 1, 0, -1):
            path = self._module_file(dotted[:split])
            if path is not None:
                classes = self._classes_of(path)
                return None if classes is None else classes.get(dotted[split:])
        return None

    def provider(self, dotted: tuple[str, ...], name: str, depth: int = 0) -> tuple[str, ...] | None:
        """The dotted path of the class that provides `name` to instances of the class `dotted`:
        itself where its body defines it, else the first base that does (depth first); None
        where neither it nor a base in the tree does and every base is in the tree; UNKNOWN
        where a base is not (or the class is not found)."""
        found = self.find(dotted)
        if found is None or depth > 16:
            return UNKNOWN
        if name in found.names:
            return dotted
        for base in found.bases:
            if base is None:
                return UNKNOWN
            if base in (("object",), ("builtins", "object")):
                continue
            provided = self.provider(base, name, depth + 1)
            if provided is not None:
                return provided
        return None

    def bases_provide(self, dotted: tuple[str, ...], name: str) -> bool:
        """Whether a base of the class `dotted` may provide `name` (one in the tree does, or one
        is not in the tree); False only where every base is in the tree and none defines it."""
        found = self.find(dotted)
        if found is None:
            return True
        for base in found.bases:
            if base is None:
                return True
            if base in (("object",), ("builtins", "object")):
                continue
            if self.provider(base, name) is not None:
                return True
        return False


def _read_classes(
    path: str, source: bytes | None
) -> tuple[dict[tuple[str, ...], _Class] | None, dict[str, tuple[str, ...]]]:
    """The classes a module defines (nested ones by their dotted names; None where it does not
    parse), and the names its top-level imports bind, with what they name."""
    if source is None:
        return None, {}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None, {}
    module = module_parts(path)
    package = module if path.endswith("__init__.py") else module[:-1]
    bound: dict[str, tuple[str, ...]] = {}  # module-level names: what they name
    imported_only: set[str] = set()  # names only imports bind
    own: set[str] = set()  # names the module's own definitions bind
    for node in tree.body:
        for statement in _top_statements(node):
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    if alias.asname:
                        bound[alias.asname] = tuple(alias.name.split("."))
                    else:
                        first = alias.name.split(".")[0]
                        bound[first] = (first,)
                    imported_only.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(statement, ast.ImportFrom):
                base = from_module(package, statement)
                for alias in statement.names:
                    if alias.name != "*":
                        bound[alias.asname or alias.name] = (*base, alias.name)
                        imported_only.add(alias.asname or alias.name)
            elif isinstance(statement, ast.ClassDef):
                bound[statement.name] = (*module, statement.name)
                imported_only.discard(statement.name)
                own.add(statement.name)
            elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign)):
                defined = (
                    [statement.name]
                    if not isinstance(statement, ast.Assign)
                    else [n.id for t in statement.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
                )
                imported_only.difference_update(defined)
                own.update(defined)
    classes: dict[tuple[str, ...], _Class] = {}
    stack: list[tuple[tuple[str, ...], ast.ClassDef]] = [
        ((s.name,), s) for n in tree.body for s in _top_statements(n) if isinstance(s, ast.ClassDef)
    ]
    while stack:
        qualified, node = stack.pop()
        names: set[str] = set()
        for statement in node.body:
            for inner in _top_statements(statement):
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(inner.name)
                    if isinstance(inner, ast.ClassDef):
                        stack.append(((*qualified, inner.name), inner))
                elif isinstance(inner, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target]
                    names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
                elif isinstance(inner, (ast.Import, ast.ImportFrom)):
                    names.update((a.asname or a.name).split(".")[0] for a in inner.names)
        bases = tuple(_dotted(b, bound) for b in node.bases)
        classes[qualified] = _Class(module, frozenset(names), bases)
    # A name both imported and defined (a fallback definition under `except ImportError`) is
    # left out: which binds it is not known here.
    ever_imported = {n for n in bound if bound[n] != (*module, n)}
    through = {name: bound[name] for name in imported_only if name in bound and name not in own}
    return classes, {**through, **{name: (*module, name) for name in own if name not in ever_imported}}


def _top_statements(node: ast.stmt) -> list[ast.stmt]:
    """A statement and, for an `if`/`try` at that level (a guarded import or definition), the
    statements of its branches."""
    if isinstance(node, ast.If):
        return [node, *(s for b in (*node.body, *node.orelse) for s in _top_statements(b))]
    if isinstance(node, ast.Try):
        branches = [*node.body, *node.orelse, *node.finalbody, *(s for h in node.handlers for s in h.body)]
        return [node, *(s for b in branches for s in _top_statements(b))]
    return [node]


def _dotted(expression: ast.expr, bound: dict[str, tuple[str, ...]]) -> tuple[str, ...] | None:
    """The dotted path a base class expression names through its module's bindings (`Base`,
    `mod.Base`; a subscript `Generic[T]` by what it subscripts); None where it is no such path
    or its first name is not bound at module level (a builtin: `object` is kept)."""
    if isinstance(expression, ast.Subscript):
        return _dotted(expression.value, bound)
    parts: list[str] = []
    while isinstance(expression, ast.Attribute):
        parts.append(expression.attr)
        expression = expression.value
    if not isinstance(expression, ast.Name):
        return None
    if expression.id in bound:
        return (*bound[expression.id], *reversed(parts))
    return ("object",) if expression.id == "object" and not parts else None
