"""The documentation: tables generated from the code are what the code says (docs/kinds.md), every
kind a language deletes is described in the pages that explain kinds, the README stays short and
reaches every page it moved to, and its first recipe does what the README says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from codemods.core.registry import LANGUAGES

HOUSE = Path(__file__).resolve().parents[1]
DOCS = HOUSE / "docs"
README = HOUSE / "README.md"


def test_the_generated_kinds_table_matches_the_code() -> None:
    done = subprocess.run(
        [sys.executable, str(HOUSE / "scripts" / "docs_tables.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_every_kind_is_described_in_the_recipe_reference_and_the_resolution_page() -> None:
    recipes = (DOCS / "recipes.md").read_text(encoding="utf-8")
    kind_section = recipes.split("### `kind`", 1)[1].split("\n### ", 1)[0]
    resolution = (DOCS / "resolution.md").read_text(encoding="utf-8")
    for language in LANGUAGES.values():
        for kind in language.item_kinds:
            assert f"`{kind}`" in kind_section, (language.name, kind)
            if language.name == "rust":
                assert f"`{kind}`" in resolution, kind


def test_the_readme_is_short_and_links_every_moved_page() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    linked = set(re.findall(r"\]\((docs/[^)#]+\.md)", text))
    for page in ("cli", "library", "resolution", "architecture", "recipes", "findings", "kinds", "mlxcel"):
        assert f"docs/{page}.md" in linked, page
    for target in re.findall(r"\]\(([^)#:]+)", text):
        assert (HOUSE / target).exists(), target


def test_the_docs_pages_link_to_pages_that_exist() -> None:
    for page in DOCS.glob("*.md"):
        for target in re.findall(r"\]\(([\w./-]+\.md)(?:#[\w-]*)?\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).exists(), (page.name, target)


def test_the_readme_first_recipe_runs_as_shown(tmp_path: Path) -> None:
    import shutil

    text = README.read_text(encoding="utf-8")
    tree = Path(shutil.copytree(HOUSE / "examples" / "first_recipe" / "tree", tmp_path / "tree"))
    recipe = HOUSE / "examples" / "first_recipe" / "drop_count_jars_slowly.toml"
    assert "examples/first_recipe/drop_count_jars_slowly.toml" in text
    codemod = [sys.executable, "-m", "codemods"]
    dry = subprocess.run(
        [*codemod, "apply", "--dry-run", "--recipe", str(recipe), str(tree)], capture_output=True, text=True
    )
    assert dry.returncode == 0, dry.stderr
    assert "-pub fn count_jars_slowly(shelf: &[u32]) -> usize {" in dry.stdout
    assert "+pub use shelf::count_jars;" in dry.stdout
    before = subprocess.run([*codemod, "check", "--recipe", str(recipe), str(tree)], capture_output=True, text=True)
    assert before.returncode == 1 and "src/shelf.rs:11:8: count_jars_slowly [code]" in before.stdout
    done = subprocess.run([*codemod, "apply", "--recipe", str(recipe), str(tree)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    after = subprocess.run([*codemod, "check", "--recipe", str(recipe), str(tree)], capture_output=True, text=True)
    assert after.returncode == 0, after.stdout
