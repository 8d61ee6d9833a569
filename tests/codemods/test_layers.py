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
    for path in [*sorted((PACKAGE / "plan").glob("*.py")), PACKAGE / "pattern.py"]:
        assert not any(m.startswith("codemods.write") for m in _imported_modules(path)), path.name


def test_no_recipe_module_uses_regular_expressions() -> None:
    for path in sorted((PACKAGE / "recipes").rglob("*.py")):
        assert "re" not in _imported_modules(path), path.name


def test_the_language_registry_is_the_one_place_languages_are_described() -> None:
    from codemods.core.registry import FILE_KIND, LANGUAGES, language_for, language_of, parsed_languages
    from codemods.languages.rust.items import DELETABLE_KINDS
    from codemods.languages.rust.members import MEMBER_KINDS

    assert list(LANGUAGES) == ["rust", "cpp", "python"]
    assert parsed_languages() == ("rust", "cpp", "python")
    assert set(LANGUAGES["rust"].item_kinds) == set(DELETABLE_KINDS) | set(MEMBER_KINDS) | {FILE_KIND}
    assert [language_of(p) for p in ("a/b.rs", "k.CU", "x.metal", "t.py", "README.md")] == [
        "rust",
        "cpp",
        "cpp",
        "python",
        None,
    ]
    for language in LANGUAGES.values():
        operations = language.operations
        for name in ("parse_errors", "identifiers", "delete_items", "item_scopes", "references", "format_item"):
            assert callable(getattr(operations, name)), (language.name, name)
    assert language_for("src/lib.rs") is LANGUAGES["rust"]
    for name in parsed_languages():
        kinds = LANGUAGES[name]
        assert kinds.identifier_kinds and kinds.comment_kinds and kinds.string_kinds, name
        assert not kinds.comment_kinds & kinds.string_kinds, name
    assert [LANGUAGES[n].formatter for n in LANGUAGES] == ["rustfmt", "clang-format", None]
    assert all(callable(language.lexer) for language in LANGUAGES.values())
    assert LANGUAGES["cpp"].operations.format_item("int f();", "", Path("."), "a.cpp") is None


def test_the_mention_kinds_come_from_the_registry() -> None:
    """A file the lexical scan cannot delimit is classified from its parse, with the registry's kinds."""
    from codemods.search.mentions import _tree_sitter_kinds

    source = b'// dead_fn\nfn f() { let s = "dead_fn"; dead_fn(); }\n'
    spans = [(i, i + 7) for i in range(len(source)) if source.startswith(b"dead_fn", i)]
    assert _tree_sitter_kinds(source, "rust", spans) == ["comment", "string", "code"]


def test_the_workspace_a_step_sees_is_immutable() -> None:
    import dataclasses

    import pytest

    from codemods.edit.values import Edit
    from codemods import Workspace

    first = Workspace(root=Path("."))
    second = first.with_edits([Edit("a.rs", 0, 1, b"", "x")])
    assert first.planned("a.rs") == () and len(second.planned("a.rs")) == 1
    assert second.reads is first.reads, "one snapshot of the tree for the whole plan"
    with pytest.raises(dataclasses.FrozenInstanceError):
        second.edits = {}
    with pytest.raises(TypeError):
        second.edits["b.rs"] = ()
    with pytest.raises(TypeError):
        second.options["decision"] = "x"


def test_the_journal_keeps_no_process_wide_state() -> None:
    """Who holds the tree lock travels as a value (HeldLock), not in a module-level table."""
    import codemods.write.journal as journal

    mutable = [
        name
        for name, value in vars(journal).items()
        if not name.startswith("__") and isinstance(value, (dict, list, set))
    ]
    assert mutable == []


def test_no_language_ladder_is_left_in_the_planner_or_the_recipe_loader() -> None:
    for name in (
        "plan/planner.py",
        "plan/stages.py",
        "plan/references.py",
        "config/loader.py",
        "parse.py",
        "pattern.py",
        "search/mentions.py",
    ):
        text = (PACKAGE / name).read_text(encoding="utf-8")
        for ladder in ("== RUST", "== CPP", "== PYTHON", '== "rust"', '== "cpp"', "in (RUST, CPP)"):
            assert ladder not in text, (name, ladder)
