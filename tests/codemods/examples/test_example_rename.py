"""The rule-only recipe under examples/rename_function/ renames a Rust function and its uses:
one TOML file, no Python, run as a user would run it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codemods import load_recipe, plan_recipe
from codemods.parse import RUST, error_nodes, parse

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "rename_function"
RECIPE = EXAMPLE / "rename_block_count.toml"


def _copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(EXAMPLE / "tree", tmp_path / "tree"))


def test_the_recipe_is_one_rule_and_no_python() -> None:
    recipe = load_recipe(str(RECIPE))
    assert not recipe.steps and not recipe.deletions and len(recipe.rewrites) == 1
    assert [p.name for p in EXAMPLE.rglob("*.py")] == []


def test_the_plan_renames_the_definition_and_every_use() -> None:
    plan = plan_recipe(EXAMPLE / "tree", load_recipe(str(RECIPE)))
    assert not plan.blocking
    assert sorted(c.path for c in plan.changes) == ["src/kv/mod.rs", "src/lib.rs"]
    for change in plan.changes:
        assert b"blocks_needed" not in change.after
        assert not error_nodes(parse(change.after, RUST))
    after = {c.path: c.after.decode() for c in plan.changes}
    assert "pub fn pages_for_tokens(tokens: usize, page_size: usize)" in after["src/kv/mod.rs"]
    assert "pub use kv::pages_for_tokens;" in after["src/lib.rs"]
    assert "crate::kv::pages_for_tokens(16, 16)" in after["src/lib.rs"]


def test_apply_writes_a_tree_with_no_old_name_that_still_compiles(tmp_path: Path) -> None:
    tree = _copy(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "codemods", "apply", "--recipe", str(RECIPE), str(tree)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "changed 2 file(s); 0 finding(s), 0 blocking" in result.stderr
    rg = shutil.which("rg")
    if rg is not None:
        found = subprocess.run([rg, "-n", "blocks_needed", str(tree)], capture_output=True, text=True)
        assert found.returncode == 1, found.stdout
    assert "blocks_needed" not in "".join(p.read_text() for p in tree.rglob("*.rs"))
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("cargo not installed: the renamed tree was parsed, not compiled")
    env = {
        **os.environ,
        "RUSTUP_TOOLCHAIN": os.environ.get("RUSTUP_TOOLCHAIN", "stable"),
        "CARGO_TARGET_DIR": str(tmp_path / "target"),
    }
    checked = subprocess.run(
        [cargo, "check", "--offline", "--all-targets", "-q"], cwd=tree, capture_output=True, text=True, env=env
    )
    assert checked.returncode == 0, checked.stderr


def _recipe(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "recipe.toml"
    path.write_text('id = "r"\n\n[[rewrite]]\n' + body, encoding="utf-8")
    return path


def test_a_glob_path_covers_its_matching_files_only(tmp_path: Path) -> None:
    recipe = load_recipe(
        str(_recipe(tmp_path, 'path = "src/kv/*.rs"\npattern = "blocks_needed"\nreplace = "pages_for_tokens"\n'))
    )
    plan = plan_recipe(EXAMPLE / "tree", recipe)
    assert [c.path for c in plan.changes] == ["src/kv/mod.rs"]


def test_a_folder_path_needs_a_language(tmp_path: Path) -> None:
    from codemods import RecipeError

    with pytest.raises(RecipeError, match="give its language"):
        load_recipe(str(_recipe(tmp_path, 'path = "src"\npattern = "a"\nreplace = "b"\n')))
    with pytest.raises(RecipeError, match="patterns work on rust, cpp, python files only"):
        load_recipe(str(_recipe(tmp_path, 'path = "src"\nlanguage = "toml"\npattern = "a"\nreplace = "b"\n')))


def test_a_folder_rule_that_matches_nothing_is_one_blocking_finding(tmp_path: Path) -> None:
    recipe = load_recipe(
        str(_recipe(tmp_path, 'path = "src"\nlanguage = "rust"\npattern = "no_such_fn"\nreplace = "other"\n'))
    )
    plan = plan_recipe(EXAMPLE / "tree", recipe)
    assert [(f.path, f.code, f.severity) for f in plan.findings] == [("src", "rewrite-not-found", "error")]
    assert not plan_recipe(EXAMPLE / "tree", recipe, allow_unmatched=True).blocking
    optional = load_recipe(
        str(
            _recipe(
                tmp_path,
                'path = "src"\nlanguage = "rust"\npattern = "no_such_fn"\nreplace = "other"\noptional = true\n',
            )
        )
    )
    assert [f.severity for f in plan_recipe(EXAMPLE / "tree", optional).findings] == ["note"]


def test_where_keeps_only_matches_whose_capture_is_listed(tmp_path: Path) -> None:
    recipe = load_recipe(
        str(
            _recipe(
                tmp_path,
                'path = "src"\nlanguage = "rust"\npattern = "$F($$$A)"\n'
                'replace = "pages_for_tokens($$$A)"\n'
                'where = { F = ["kv :: blocks_needed"] }\n',
            )
        )
    )
    plan = plan_recipe(EXAMPLE / "tree", recipe)
    (change,) = plan.changes
    assert change.path == "src/lib.rs"
    assert "map(|&n| pages_for_tokens(n, page_size))" in change.after.decode()
    assert change.after.count(b"blocks_needed") == change.before.count(b"blocks_needed") - 1


def test_where_must_name_a_captured_metavariable(tmp_path: Path) -> None:
    from codemods import RecipeError

    with pytest.raises(RecipeError, match="where names G, which the pattern does not capture"):
        load_recipe(
            str(_recipe(tmp_path, 'path = "src/lib.rs"\npattern = "$F()"\nreplace = "g()"\nwhere = { G = ["f"] }\n'))
        )
    with pytest.raises(RecipeError, match=r"where\.F must be a non-empty list"):
        load_recipe(
            str(_recipe(tmp_path, 'path = "src/lib.rs"\npattern = "$F()"\nreplace = "g()"\nwhere = { F = "f" }\n'))
        )


def test_a_plan_says_when_it_searched_without_ripgrep(monkeypatch) -> None:
    import codemods.search.files as files

    recipe = load_recipe(str(RECIPE))
    assert "searched-without-rg" not in {f.code for f in plan_recipe(EXAMPLE / "tree", recipe).findings}
    monkeypatch.setattr(files.shutil, "which", lambda name: None)
    plan = plan_recipe(EXAMPLE / "tree", recipe)
    notes = [f for f in plan.findings if f.code == "searched-without-rg"]
    assert len(notes) == 1 and notes[0].severity == "note" and ".gitignore" in notes[0].message
    assert len(plan.changes) == 2 and not plan.blocking
