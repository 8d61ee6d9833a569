"""`[[rewrite]]` with `language = "text"`: literal whole lines in files no grammar reads (a
manifest, a lock file, a build script), and `codemod infer` writing such rules."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codemods import CodemodError, infer_recipe, load_recipe, plan_recipe

MANIFEST = """\
[package]
name = "loom"
version = "0.2.0"

[dependencies]
spindle = "0.3"
treadle = { version = "1.1", features = ["warp"] }
"""


def _tree(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def _recipe(tmp_path: Path, text: str):
    path = tmp_path / "recipe.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_recipe(str(path))


def test_a_text_rewrite_replaces_whole_lines_verbatim(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t", {"Cargo.toml": MANIFEST})
    recipe = _recipe(
        tmp_path,
        r"""
        id = "drop-spindle"
        [[rewrite]]
        path = "Cargo.toml"
        language = "text"
        pattern = "spindle = \"0.3\"\n"
        replace = ""
    """,
    )
    plan = plan_recipe(root, recipe)
    assert plan.blocking == []
    assert plan.changes[0].after.decode() == MANIFEST.replace('spindle = "0.3"\n', "")


def test_a_text_pattern_inside_a_line_is_no_match_and_blocks(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t", {"Cargo.toml": MANIFEST})
    recipe = _recipe(
        tmp_path,
        """
        id = "half-line"
        [[rewrite]]
        path = "Cargo.toml"
        language = "text"
        pattern = '"0.3"'
        replace = '"0.4"'
    """,
    )
    plan = plan_recipe(root, recipe)
    assert [f.code for f in plan.blocking] == ["rewrite-not-found"] and plan.changes == ()


def test_a_text_rewrite_takes_no_item(tmp_path: Path) -> None:
    with pytest.raises(CodemodError, match="whole lines, no item"):
        _recipe(
            tmp_path,
            """
            id = "bad"
            [[rewrite]]
            path = "Cargo.toml"
            language = "text"
            item = "dependencies"
            pattern = 'spindle = "0.3"'
            replace = ""
        """,
        )


def test_infer_says_a_manifest_and_a_build_script_change_as_text_rewrites(tmp_path: Path) -> None:
    build = "set(LOOM_SOURCES\n    src/bobbin.cpp\n    src/heddle.cpp\n    src/reed.cpp\n)\n"
    before = _tree(
        tmp_path / "before", {"Cargo.toml": MANIFEST, "CMakeLists.txt": build, "src/lib.rs": "pub fn weave() {}\n"}
    )
    after = _tree(
        tmp_path / "after",
        {
            "Cargo.toml": MANIFEST.replace('spindle = "0.3"\n', ""),
            "CMakeLists.txt": build.replace("    src/heddle.cpp\n", ""),
            "src/lib.rs": "pub fn weave() {}\n",
        },
    )
    inferred = infer_recipe(before, after)
    assert inferred.unexpressed == ()
    assert inferred.toml.count('language = "text"') == 2
    recipe_file = tmp_path / "inferred.toml"
    recipe_file.write_text(inferred.toml, encoding="utf-8")
    plan = plan_recipe(before, load_recipe(str(recipe_file)))
    assert plan.blocking == []
    assert {c.path: c.after for c in plan.changes} == {
        "Cargo.toml": (after / "Cargo.toml").read_bytes(),
        "CMakeLists.txt": (after / "CMakeLists.txt").read_bytes(),
    }


def test_a_prose_change_no_rewording_places_is_said_as_text(tmp_path: Path) -> None:
    changes = (
        "Version 2.0\n-----------\n\n-   Drop the old shuttle API.\n\n"
        "    -   ``wind_bobbin`` is gone; use ``Spool.wind``.\n"
        "    -   ``Loom.thread`` needs a ``Heddle`` now.\n\n\nVersion 1.9\n-----------\n\n-   First loom.\n"
    )
    grown = changes.replace("a ``Heddle`` now.\n", "a ``Heddle`` now.\n    -   ``beat_weft`` is renamed to ``beat``.\n")
    before = _tree(tmp_path / "before", {"CHANGES.rst": changes, "loom.py": "def beat_weft():\n    pass\n"})
    after = _tree(tmp_path / "after", {"CHANGES.rst": grown, "loom.py": "def beat():\n    pass\n"})
    inferred = infer_recipe(before, after)
    recipe_file = tmp_path / "inferred.toml"
    recipe_file.write_text(inferred.toml, encoding="utf-8")
    plan = plan_recipe(before, load_recipe(str(recipe_file)))
    assert not any(n.startswith("CHANGES.rst") for n in inferred.unexpressed), inferred.toml
    assert {c.path: c.after for c in plan.changes}["CHANGES.rst"] == grown.encode()


def test_a_preprocessor_line_no_pattern_finds_is_said_as_text_and_items_still_deleted(tmp_path: Path) -> None:
    source = '#include "bobbin.h"\n#include "spool.h"\n\nint wind(int turns);\n\nint unwind(int turns);\n'
    before = _tree(tmp_path / "before", {"reel.h": source})
    after = _tree(tmp_path / "after", {"reel.h": '#include "bobbin.h"\n\nint wind(int turns);\n'})
    inferred = infer_recipe(before, after)
    assert inferred.unexpressed == ()
    assert 'kind = "declaration"' in inferred.toml and 'name = "unwind"' in inferred.toml
    assert 'language = "text"' in inferred.toml and "unwind" not in inferred.toml.split('language = "text"', 1)[1]
    recipe_file = tmp_path / "inferred.toml"
    recipe_file.write_text(inferred.toml, encoding="utf-8")
    plan = plan_recipe(before, load_recipe(str(recipe_file)))
    assert plan.blocking == [] and plan.changes[0].after == (after / "reel.h").read_bytes()


def test_a_paragraph_added_to_prose_is_said_as_text(tmp_path: Path) -> None:
    notes = "# Loom\n\nThe shuttle carries the weft across.\nThe reed beats it into place.\n\nSee the manual.\n"
    grown = notes.replace("across.\n", "across the warp.\n\nA new paragraph about bobbins.\n\n")
    before = _tree(tmp_path / "before", {"notes.md": notes, "loom.py": "def beat():\n    pass\n"})
    after = _tree(tmp_path / "after", {"notes.md": grown, "loom.py": "def beat():\n    return 1\n"})
    inferred = infer_recipe(before, after)
    assert inferred.unexpressed == () and 'path = "notes.md"\nlanguage = "text"' in inferred.toml
    recipe_file = tmp_path / "inferred.toml"
    recipe_file.write_text(inferred.toml, encoding="utf-8")
    plan = plan_recipe(before, load_recipe(str(recipe_file)))
    assert {c.path: c.after for c in plan.changes}["notes.md"] == grown.encode()


def test_two_statements_made_one_are_said_as_text_where_structural_rules_break_the_syntax(tmp_path: Path) -> None:
    chime = (
        "class Chime:\n    def __init__(self, tones):\n        self.name = 'c'\n        if tones:\n"
        "            self._tones = Tones(tones)\n            self._tones.attach(self)\n\n"
        "    @property\n    def tones(self):\n        return self._tones\n\n    def ring(self):\n        return 1\n"
    )
    merged = chime.replace(
        "            self._tones = Tones(tones)\n            self._tones.attach(self)\n",
        "            Tones(tones).attach(self)\n",
    ).replace("    @property\n    def tones(self):\n        return self._tones\n\n", "")
    before = _tree(tmp_path / "before", {"chime.py": chime})
    after = _tree(tmp_path / "after", {"chime.py": merged})
    inferred = infer_recipe(before, after)
    assert inferred.unexpressed == (), inferred.toml
    recipe_file = tmp_path / "inferred.toml"
    recipe_file.write_text(inferred.toml, encoding="utf-8")
    plan = plan_recipe(before, load_recipe(str(recipe_file)))
    assert plan.blocking == [] and plan.changes[0].after == merged.encode()
