"""The generic tool has no default recipe: `apply` and `check` take --recipe, or the recipe the
tree names (.codemod.toml, pyproject.toml [tool.codemod]); a recipe declares its own options."""

from __future__ import annotations

from pathlib import Path

from codemod_helpers import run_codemod
from write_trees import RECIPE_TOML, make_tree, write_recipe

NO_RECIPE = "codemod: error: no recipe given: pass --recipe ID|PATH"


def test_a_tree_that_names_no_recipe_is_a_usage_error_saying_how_to_name_one(tree: Path) -> None:
    for command in (("apply", "--dry-run", str(tree)), ("check", str(tree))):
        result = run_codemod(*command)
        assert result.exit_code == 2
        assert result.stderr.startswith(NO_RECIPE), result.stderr
        assert ".codemod.toml" in result.stderr and "[tool.codemod]" in result.stderr


def test_the_recipe_named_by_codemod_toml_runs_a_path_relative_to_it(tree: Path) -> None:
    (tree / "tools").mkdir()
    write_recipe(tree / "tools")
    (tree / ".codemod.toml").write_text('recipe = "tools/three_files.toml"\n')
    result = run_codemod("apply", str(tree))
    assert result.exit_code == 0, result.stderr
    assert "fn gone_a" not in (tree / "src/a.rs").read_text()


def test_the_recipe_file_in_the_tree_is_no_mention_of_what_it_removes(tree: Path) -> None:
    # The whole tree is the default scope, and the recipe file names every symbol it removes.
    (tree / "recipe.toml").write_text(RECIPE_TOML)
    (tree / ".codemod.toml").write_text('recipe = "recipe.toml"\n')
    checked = run_codemod("check", str(tree))
    assert checked.exit_code == 1 and "src/a.rs:2:4: gone_a [code]" in checked.stdout
    assert "recipe.toml" not in checked.stdout
    named = run_codemod("check", "--recipe", str(tree / "recipe.toml"), str(tree / "recipe.toml"))
    assert named.exit_code == 0, named.stdout
    applied = run_codemod("apply", str(tree))
    assert applied.exit_code == 0, applied.stderr
    assert run_codemod("check", str(tree)).exit_code == 0


def test_pyproject_names_it_for_check_from_a_subfolder_too(tree: Path, monkeypatch) -> None:
    (tree / "recipe.toml").write_text(RECIPE_TOML)
    (tree / "pyproject.toml").write_text('[project]\nname = "t"\n\n[tool.codemod]\nrecipe = "recipe.toml"\n')
    found = run_codemod("check", str(tree))
    assert found.exit_code == 1 and "src/a.rs:2:4: gone_a [code]" in found.stdout
    monkeypatch.chdir(tree / "src")
    in_files = run_codemod("check", "a.rs")
    assert in_files.exit_code == 1 and "a.rs:2:4: gone_a [code]" in in_files.stdout


def test_a_codemod_toml_without_a_recipe_is_a_usage_error(tree: Path) -> None:
    (tree / ".codemod.toml").write_text("recipe = 3\n")
    result = run_codemod("apply", "--dry-run", str(tree))
    assert result.exit_code == 2 and "recipe must be a recipe id or a file path, not 3" in result.stderr


FLAGGED = """\
from codemods import Parameter, Recipe, RecipeInputError, StepResult


def budget_step(workspace):
    raise RecipeInputError(f"budget is {workspace.options['budget']!r}")


RECIPE = Recipe(id="flagged", summary="", steps=(budget_step,), expects=("src/a.rs",),
                parameters=(Parameter("budget", flag="--budget", default="1"),
                            Parameter("limits", flag="--limits", file=True)))
"""


def test_a_recipe_declares_its_own_options(tree: Path, tmp_path: Path) -> None:
    recipe = tmp_path / "flagged.py"
    recipe.write_text(FLAGGED)
    given = run_codemod("apply", "--dry-run", "--recipe", str(recipe), "--budget", "7", str(tree))
    assert given.exit_code == 2 and given.stderr == "codemod: error: budget is '7'\n"
    after_root = run_codemod("apply", "--dry-run", "--recipe", str(recipe), str(tree), "--budget=8")
    assert after_root.stderr == "codemod: error: budget is '8'\n"
    missing = run_codemod("apply", "--dry-run", "--recipe", str(recipe), "--limits", "nowhere.json", str(tree))
    assert missing.stderr == "codemod: error: limits file nowhere.json not found\n"
    unknown = run_codemod("apply", "--dry-run", "--recipe", str(recipe), "--frob", "1", str(tree))
    assert unknown.exit_code == 2
    assert unknown.stderr == "codemod: error: No such option: --frob; recipe flagged declares --budget, --limits\n"
    before_root = run_codemod("apply", "--dry-run", "--recipe", str(recipe), "--frob", str(tree))
    assert before_root.stderr == "codemod: error: No such option: --frob; recipe flagged declares --budget, --limits\n"
    no_value = run_codemod("apply", "--dry-run", "--recipe", str(recipe), "--budget", str(tree))
    assert no_value.stderr == "codemod: error: --budget needs a value (--budget VALUE)\n"


def test_check_in_scope_keeps_the_files_of_the_recipes_scope(tmp_path: Path, monkeypatch) -> None:
    root = make_tree(tmp_path / "tree", {"src/a.rs": b"fn gone_a() {}\n", "docs/a.rs": b"// gone_a\n"})
    (root / "recipe.toml").write_text(RECIPE_TOML + 'check_scope = ["src"]\n')
    (root / ".codemod.toml").write_text('recipe = "recipe.toml"\n')
    monkeypatch.chdir(root)
    every = run_codemod("check", "src/a.rs", "docs/a.rs")
    assert "docs/a.rs:1:4: gone_a [comment]" in every.stdout
    scoped = run_codemod("check", "--in-scope", "src/a.rs", "docs/a.rs")
    assert scoped.exit_code == 1 and "docs/a.rs" not in scoped.stdout and "src/a.rs:1:4: gone_a" in scoped.stdout
    outside = run_codemod("check", "--in-scope", "docs/a.rs")
    assert outside.exit_code == 0, outside.stdout
