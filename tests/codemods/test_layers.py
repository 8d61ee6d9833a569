"""Which codemods modules may import which: the planner never imports the writer, and the
recipes recognise code by structure, never by regular expressions over its text."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "codemods"


def _imported_modules(path: Path) -> set[str]:
    """Every module `path` imports (relative imports resolved against the codemods package)."""
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def test_the_planner_does_not_import_the_writer() -> None:
    for name in ("_plan.py", "_references.py", "pattern.py"):
        assert "codemods._apply" not in _imported_modules(PACKAGE / name), name


def test_no_recipe_module_uses_regular_expressions() -> None:
    for path in sorted((PACKAGE / "recipes").glob("*.py")):
        assert "re" not in _imported_modules(path), path.name
