"""Python functions and classes deleted by qualified name, with libcst.

libcst keeps the comments above a statement in its `leading_lines`, so a
removed definition takes its comments and decorators with it. The result is
one whole-file edit, which the applier treats like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .._edit import Edit, Finding, missing_target


@dataclass(frozen=True)
class PythonTarget:
    """A request to delete a "function" or "class" named by its dotted path (e.g. `Cls.method`)."""

    kind: str
    name: str


def delete_python_items(
    path: str, source: bytes, targets: list[PythonTarget], origin: str = "delete",
    already_absent: Callable[[], bool] | None = None,
) -> tuple[list[Edit], list[str], list[Finding]]:
    """One whole-file edit deleting the targets; the names deleted; findings for the rest.

    A target not found is a note when `already_absent()` says the file is
    already clean, and blocking otherwise (see `missing_target`).
    """
    import libcst as cst

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        return [], [], [
            Finding(path, error.raw_line, error.raw_column + 1, "parse-error",
                    f"cannot parse as Python: {error.message}; nothing deleted")
        ]
    except UnicodeDecodeError as error:
        return [], [], [Finding(path, 0, 0, "parse-error", f"cannot parse as Python: {error}; nothing deleted")]
    wanted = {t.name: t for t in targets}
    removed: list[str] = []
    seen: dict[str, str] = {}  # qualified name -> kind, of every definition visited

    class _Remover(cst.CSTTransformer):
        def __init__(self) -> None:
            super().__init__()
            self.scope: list[str] = []

        def _enter(self, node: cst.FunctionDef | cst.ClassDef) -> bool:
            self.scope.append(node.name.value)
            return True

        def _leave(self, original, updated, kind: str):
            qualified = ".".join(self.scope)
            self.scope.pop()
            seen[qualified] = kind
            target = wanted.get(qualified)
            if target is not None and target.kind == kind:
                removed.append(qualified)
                return cst.RemovalSentinel.REMOVE
            return updated

        def visit_FunctionDef(self, node):
            return self._enter(node)

        def leave_FunctionDef(self, original, updated):
            return self._leave(original, updated, "function")

        def visit_ClassDef(self, node):
            return self._enter(node)

        def leave_ClassDef(self, original, updated):
            return self._leave(original, updated, "class")

    try:
        result = module.visit(_Remover()).code.encode(module.encoding)
    except Exception as error:  # libcst refuses e.g. a body left empty
        return [], [], [Finding(path, 0, 0, "cannot-delete", f"libcst could not delete: {error}")]
    findings = [
        missing_target(path, t.kind, t.name, [n for n, k in seen.items() if k == t.kind], already_absent)
        for t in targets
        if t.name not in removed
    ]
    edits = [Edit(path, 0, len(source), result, f"{origin}:python")] if result != source else []
    return edits, [n.rsplit(".", 1)[-1] for n in removed], findings
