"""A failing `codemod check` (the pre-commit hook) says which recipe removed the symbol (its id
and summary) and why it must stay gone, in every format; the text lines' `path:line:col: SYMBOL
[kind]` stay as they were (issue 37, point 13)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from codemod_helpers import run_codemod

pytestmark = pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")

RECIPE = """\
id = "kettle-spout-removal"
summary = "Remove the kettle's spout helpers: pouring goes through Jug"
dead_symbol_pattern = "pour_spout"
"""
WHY = (
    "These symbols were removed by recipe kettle-spout-removal (\"Remove the kettle's spout helpers: pouring goes "
    'through Jug") and must stay gone: code that names the symbol refers to an item that no longer exists; a '
    "comment that names the symbol describes code that no longer exists. To fix: delete or reword the mention; "
    "if the symbol is meant to come back, change the recipe's dead_symbol_pattern."
)


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "brew.rs").write_text("// Uses pour_spout.\nfn brew() {\n    pour_spout();\n}\n")
    (tmp_path / "kettle.toml").write_text(RECIPE)
    (tmp_path / ".codemod.toml").write_text('recipe = "kettle.toml"\n')
    return tmp_path


def _check(root: Path, *options: str):
    result = run_codemod("check", *options, str(root))
    assert result.exit_code == 1
    return result


def test_text_keeps_one_line_per_mention_and_explains_once(tmp_path: Path) -> None:
    result = _check(_tree(tmp_path))
    assert result.stdout.splitlines() == ["src/brew.rs:1:9: pour_spout [comment]", "src/brew.rs:3:5: pour_spout [code]"]
    assert result.stderr.splitlines() == ["codemod check: 2 mention(s) of removed symbols in 1 file(s)", f"  {WHY}"]


def test_json_names_the_summary_and_why(tmp_path: Path) -> None:
    document = json.loads(_check(_tree(tmp_path), "--json").stdout)
    assert (document["recipe"], document["summary"], document["why"]) == (
        "kettle-spout-removal",
        "Remove the kettle's spout helpers: pouring goes through Jug",
        WHY,
    )
    assert [(m["kind"], m["why"]) for m in document["mentions"]] == [
        ("comment", "a comment that names the symbol describes code that no longer exists"),
        ("code", "code that names the symbol refers to an item that no longer exists"),
    ]


def test_github_and_sarif_say_the_recipe_and_why_per_mention(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    annotations = _check(root, "--format", "github").stdout.splitlines()
    assert annotations[1] == (
        "::error file=src/brew.rs,line=3,col=5,title=removed symbol::pour_spout [code]: a removed symbol is named "
        "again. It was removed by recipe kettle-spout-removal (\"Remove the kettle's spout helpers: pouring goes "
        'through Jug"); code that names the symbol refers to an item that no longer exists. To fix: delete or '
        "reword the mention; if the symbol is meant to come back, change the recipe's dead_symbol_pattern."
    )
    run = json.loads(_check(root, "--format", "sarif").stdout)["runs"][0]
    assert run["properties"]["summary"] == "Remove the kettle's spout helpers: pouring goes through Jug"
    assert (
        "removed by recipe kettle-spout-removal (\"Remove the kettle's spout helpers"
        in run["tool"]["driver"]["rules"][0]["fullDescription"]["text"]
    )
    assert run["results"][0]["message"]["text"] == (
        "pour_spout [comment]: a removed symbol is named again. It was removed by recipe kettle-spout-removal "
        '("Remove the kettle\'s spout helpers: pouring goes through Jug"); a comment that names the symbol '
        "describes code that no longer exists."
    )
