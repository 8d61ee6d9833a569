"""The finding codes: one catalogue (codemods/edit/codes.py), one docs table (docs/findings.md),
and no code spelt as a string literal anywhere else in the package."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from codemods.edit.codes import CATALOGUE, Code

HOUSE = Path(__file__).resolve().parents[2]
PACKAGE = HOUSE / "codemods"
CATALOGUE_MODULE = PACKAGE / "edit" / "codes.py"


def _package_modules() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if p != CATALOGUE_MODULE]


def _subscript_keys(tree: ast.AST) -> set[int]:
    """The ids of the constants used as `data["key"]`: keys of data read, not codes."""
    return {id(node.slice) for node in ast.walk(tree) if isinstance(node, ast.Subscript)}


def test_every_code_has_a_meaning_and_a_remedy() -> None:
    assert set(CATALOGUE) == set(Code)
    assert all(info.meaning and info.remedy for info in CATALOGUE.values())
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", code.value) for code in Code)


def test_no_module_spells_a_code_as_a_string() -> None:
    slugs = {code.value for code in Code}
    spelt = []
    for path in _package_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        keys = _subscript_keys(tree)
        spelt += [f"{path.relative_to(HOUSE)}:{node.lineno}: {node.value}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and node.value in slugs and id(node) not in keys]
    assert spelt == []


def test_every_finding_is_made_with_a_code_of_the_catalogue() -> None:
    """A `Finding(path, line, col, CODE, ...)` names its code by a name (`Code.X`, or a constant
    bound to one), never by a literal or an f-string."""
    literal = []
    for path in _package_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Finding" \
                    and not any(isinstance(a, ast.Starred) for a in node.args[:3]) and len(node.args) > 3:
                if isinstance(node.args[3], (ast.Constant, ast.JoinedStr)):
                    literal.append(f"{path.relative_to(HOUSE)}:{node.lineno}")
    assert literal == []


def test_the_docs_table_lists_the_catalogue() -> None:
    text = (HOUSE / "docs" / "findings.md").read_text(encoding="utf-8")
    documented = re.findall(r"^\| `([a-z-]+)` \| (.+?) \| (.+?) \|$", text, flags=re.M)
    assert [code for code, _, _ in documented] == [code.value for code in CATALOGUE]
    for (code, meaning, remedy), info in zip(documented, CATALOGUE.values()):
        assert meaning == info.meaning, code
        assert remedy.startswith(info.remedy), code
        if info.override:
            assert info.override.split(" ")[0] in remedy, code


def test_a_code_is_its_slug_in_every_output() -> None:
    from codemods.edit.values import Finding

    finding = Finding("src/a.rs", 1, 2, Code.DANGLING_REFERENCE, "frob: code still refers to it")
    assert finding.code == "dangling-reference"
    assert finding.as_json()["code"] == "dangling-reference"
    assert type(finding.as_json()["code"]) is str
