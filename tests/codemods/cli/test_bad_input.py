"""Bad input to `codemod apply`: one readable line, the contract's exit code, never a traceback.

Usage errors (ROOT, the recipe, the recipe's inputs) exit 2 with exactly one
line on stderr; targets that cannot be edited (unparseable at the place to
edit, binary, unreadable) are refused findings, exit 1, nothing written.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from codemod_helpers import run_codemod
from write_trees import BEFORE, RECIPE_TOML, snapshot, write_recipe


def _apply(*args: str):
    return run_codemod("apply", *args)


def _usage_error(*args: str) -> str:
    """The one stderr line of a usage error (exit 2), without its `codemod: error: ` prefix."""
    result = _apply(*args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("codemod: error: ")
    return lines[0].removeprefix("codemod: error: ")


# ---------------------------------------------------------------- ROOT


def test_missing_root(tmp_path: Path) -> None:
    assert _usage_error(str(tmp_path / "nowhere")) == f"ROOT {tmp_path / 'nowhere'} does not exist"


def test_root_that_is_a_file(tree: Path) -> None:
    assert _usage_error(str(tree / "src/a.rs")) == f"ROOT {tree / 'src/a.rs'} is not a directory"


def test_unreadable_root(tree: Path, monkeypatch) -> None:
    if os.geteuid() == 0:  # root reads any folder: make listing this one fail as it would for a user
        real_scandir = os.scandir

        def scandir(path="."):
            if Path(path) == tree:
                raise PermissionError(13, "Permission denied", str(path))
            return real_scandir(path)

        monkeypatch.setattr(os, "scandir", scandir)
        assert _usage_error(str(tree)) == f"cannot read ROOT {tree}: Permission denied"
    else:
        os.chmod(tree, 0)
        try:
            assert _usage_error(str(tree)) == f"cannot read ROOT {tree}: Permission denied"
        finally:
            os.chmod(tree, 0o755)


def test_missing_root_argument_and_unknown_flag() -> None:
    assert _usage_error() == "Missing argument 'ROOT'"
    assert _usage_error("--recipe", "paged-compat-removal", "--frob", ".") == "No such option: --frob"
    assert _usage_error("-x", ".") == "No such option: -x"


def test_usage_error_with_json_is_also_a_json_document(tmp_path: Path) -> None:
    result = _apply("--json", str(tmp_path / "nowhere"))
    assert result.exit_code == 2
    assert json.loads(result.stdout) == {"error": f"ROOT {tmp_path / 'nowhere'} does not exist", "exit_code": 2}


# ---------------------------------------------------------------- the recipe


def test_unknown_recipe(tree: Path) -> None:
    assert _usage_error("--recipe", "no-such-recipe", str(tree)) == (
        "unknown recipe 'no-such-recipe' (bundled: paged-compat-removal, paged-flag, perturb-pooled-output; or give a .py or .toml file)"
    )


def test_recipe_file_not_found(tree: Path, tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    assert _usage_error("--recipe", str(missing), str(tree)) == f"{missing}: recipe file not found"


RECIPE_FILES = {
    "syntax.toml": ('id = "x"\ndelete = [\n', "not valid TOML: "),
    "no_id.toml": ('summary = "no id"\n', "recipe does not match the schema: missing key 'id'"),
    "bad_kind.toml": (
        'id = "x"\n[[delete]]\npath = "src/a.rs"\nlanguage = "rust"\nkind = "function"\nname = "f"\n',
        "delete entry 'f': unknown rust kind 'function' (one of: fn, test, struct, enum, type, "
        "trait, const, static, type_alias, impl, trait_method, mod, bridge_fn, bridge_type, macro, "
        "variant, field, use, attribute, macro_call, match_arm, file)",
    ),
    "bad_language.toml": (
        'id = "x"\n[[delete]]\npath = "a.go"\nlanguage = "go"\nkind = "fn"\nname = "f"\n',
        "recipe does not match the schema: recipe x: unknown language 'go' for f",
    ),
    "escapes.toml": (
        'id = "x"\n[[delete]]\npath = "../../etc/a.rs"\nlanguage = "rust"\nkind = "fn"\nname = "f"\n',
        "delete entry 'f': path '../../etc/a.rs' must be relative to ROOT, with / separators and no ..",
    ),
    "bad_field.toml": (
        'id = "x"\n[[delete]]\npath = "a.rs"\nlanguage = "rust"\nkind = "fn"\nname = "f"\nwhy = 1\n',
        "[[delete]] entry 1: unknown key 'why' (valid: path, language, kind, name, branch)",
    ),
    "misspelt_table.toml": (
        'id = "x"\n[[deletions]]\npath = "a.rs"\nlanguage = "rust"\nkind = "fn"\nname = "f"\n',
        "unknown key [[deletions]] (did you mean 'delete'?)",
    ),
    "misspelt_key.toml": (
        'id = "x"\n[[reword]]\npath = "a.rs"\nfnd = "a"\nreplace = "b"\n',
        "[[reword]] entry 1: unknown key 'fnd' (did you mean 'find'?)",
    ),
    "reword_without_replace.toml": (
        'extends = "paged-compat-removal"\n[[reword]]\npath = "src/a.rs"\nsymbols = ["gone_a"]\n',
        "[[reword]] entry 1: missing key 'replace' (replace = \"\" deletes the text)",
    ),
    "bad_pattern.toml": (
        'id = "x"\ndead_symbol_pattern = "frob_(compat"\n',
        "dead_symbol_pattern 'frob_(compat' is not a valid pattern: missing ), unterminated subpattern at position 5",
    ),
    "scope_string.toml": (
        'id = "x"\ncheck_scope = "src"\n',
        "recipe does not match the schema: check_scope must be a list",
    ),
    "binary.toml": (b"\xff\xfe\x00", "not valid TOML: 'utf-8' codec can't decode byte 0xff in position 0"),
    "raises.py": ("raise RuntimeError('boom')\n", "recipe failed to load: RuntimeError: boom"),
    "exits.py": ("import sys\nsys.exit(3)\n", "recipe failed to load: SystemExit: 3"),
    "no_recipe.py": ("X = 1\n", "defines no RECIPE of type codemods.Recipe"),
}


@pytest.mark.parametrize("name", sorted(RECIPE_FILES))
def test_recipe_file_that_does_not_load(tree: Path, tmp_path: Path, name: str) -> None:
    content, expected = RECIPE_FILES[name]
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    message = _usage_error("--recipe", str(path), str(tree))
    assert message.startswith(f"{path}: ")
    assert expected in message
    assert snapshot(tree) == BEFORE


# ---------------------------------------------------------------- recipe inputs (--decision)


@pytest.fixture
def flag_tree(tree: Path) -> Path:
    """The small tree with a file the paged-flag recipe edits, so that ROOT is accepted."""
    (tree / "src/models").mkdir()
    (tree / "src/models/gemma3.rs").write_text("")
    return tree


def test_decision_file_missing(tree: Path, tmp_path: Path) -> None:
    missing = tmp_path / "decision.json"
    assert _usage_error("--recipe", "paged-flag", "--decision", str(missing), str(tree)) == (
        f"decision file {missing} not found"
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"not": "a decision"}', "missing key 'schema'"),
        (b"{", "not JSON: "),
        (b"\xff\xfe\x00\x01", "not JSON: 'utf-8' codec can't decode"),
    ],
    ids=["wrong-schema", "not-json", "binary"],
)
def test_decision_file_that_does_not_match_its_schema(
    flag_tree: Path, tmp_path: Path, content: bytes, expected: str
) -> None:
    decision = tmp_path / "decision.json"
    decision.write_bytes(content)
    message = _usage_error("--recipe", "paged-flag", "--decision", str(decision), str(flag_tree))
    assert message.startswith(f"decision file does not match its schema: {decision}: ")
    assert expected in message


def test_paged_flag_without_decision(flag_tree: Path) -> None:
    assert _usage_error("--recipe", "paged-flag", str(flag_tree)) == (
        "the paged-flag recipe needs --decision DIR/decision.json (from `paged-bench report`)"
    )


def test_a_recipe_step_signals_bad_input_with_recipe_input_error(tree: Path, tmp_path: Path) -> None:
    recipe = tmp_path / "needs_option.py"
    recipe.write_text(
        "from codemods import Recipe, RecipeInputError\n"
        "def step(workspace):\n"
        '    raise RecipeInputError(f"--decision is required, got {workspace.options}")\n'
        "RECIPE = Recipe(id='needs-option', summary='', steps=(step,))\n"
    )
    assert _usage_error("--recipe", str(recipe), str(tree)) == "--decision is required, got {}"
    assert _usage_error("--recipe", str(recipe), "--dry-run", str(tree)) == "--decision is required, got {}"
    assert snapshot(tree) == BEFORE


# ---------------------------------------------------------------- targets that cannot be edited (exit 1)


def _refused(tree: Path, tmp_path: Path) -> list[str]:
    result = _apply("--recipe", str(write_recipe(tmp_path)), str(tree))
    assert result.exit_code == 1, result.output
    assert "nothing written" in result.stderr
    return result.stderr.splitlines()


def test_target_that_does_not_parse_where_it_is_edited(tree: Path, tmp_path: Path) -> None:
    (tree / "src/a.rs").write_bytes(b"/// Gone.\nfn gone_a() {\n    let x = ;\n}\n\nfn keep_a() {}\n")
    before = snapshot(tree)
    lines = _refused(tree, tmp_path)
    assert lines[0] == (
        "src/a.rs:3:11: the file does not parse where the recipe edits it (parse error here); not edited"
    )
    assert snapshot(tree) == before


def test_target_that_does_not_parse_elsewhere_is_still_edited(tree: Path, tmp_path: Path) -> None:
    (tree / "src/a.rs").write_bytes(b"fn gone_a() {}\n\nfn keep_a() {\n    let x = ;\n}\n")
    result = _apply("--recipe", str(write_recipe(tmp_path)), str(tree))
    assert result.exit_code == 0, result.output
    assert (tree / "src/a.rs").read_bytes() == b"fn keep_a() {\n    let x = ;\n}\n"


def test_binary_target(tree: Path, tmp_path: Path) -> None:
    (tree / "src/a.rs").write_bytes(b"fn gone_a() {}\n\x00\x01\x02\xff binary\n")
    before = snapshot(tree)
    assert _refused(tree, tmp_path)[0] == "src/a.rs:2:1: binary file (NUL byte here); not edited"
    assert snapshot(tree) == before


def test_targets_already_absent_are_a_note_not_an_error(tree: Path, tmp_path: Path) -> None:
    for path in BEFORE:
        (tree / path).write_bytes(b"")
    result = _apply("--recipe", str(write_recipe(tmp_path)), str(tree))
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "codemod: 3 target(s) of the recipe already absent (--verbose lists them)",
        "codemod: three-files: changed 0 file(s); 0 finding(s), 0 blocking; 3 note(s)",
    ]
    assert all(data == b"" for data in snapshot(tree).values())


def test_a_misspelt_target_blocks_the_plan_with_a_suggestion(tree: Path, tmp_path: Path) -> None:
    recipe = tmp_path / "misspelt.toml"
    recipe.write_text(RECIPE_TOML.replace('name = "gone_b"', 'name = "gnoe_b"'))
    result = _apply("--recipe", str(recipe), str(tree))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == "src/b.rs:4:1: no item gnoe_b of kind fn in src/b.rs; did you mean gone_b?"
    assert snapshot(tree) == BEFORE


def test_a_missing_target_blocks_while_the_file_still_names_dead_symbols(tree: Path, tmp_path: Path) -> None:
    (tree / "src/b.rs").write_bytes(b"fn keep_b() {\n    gone_a();\n}\n")
    result = _apply("--dry-run", "--allow-dangling", "--recipe", str(write_recipe(tmp_path)), str(tree))
    assert result.exit_code == 1
    assert "src/b.rs:1:1: no item gone_b of kind fn in src/b.rs" in result.stderr.splitlines()


def test_undecodable_python_target(tree: Path, tmp_path: Path) -> None:
    (tree / "tool.py").write_bytes(b"def gone():\n    return '\xff'\n\ndef keep():\n    pass\n")
    recipe = tmp_path / "python.toml"
    recipe.write_text(
        'id = "py"\n[[delete]]\npath = "tool.py"\nlanguage = "python"\nkind = "function"\nname = "gone"\n'
    )
    result = _apply("--recipe", str(recipe), str(tree))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0].startswith(
        "tool.py: cannot parse as Python: 'utf-8' codec can't decode byte 0xff"
    )


def test_unreadable_target(tree: Path, tmp_path: Path, monkeypatch) -> None:
    import codemods.config.recipe as recipe

    target = tree / "src/b.rs"
    real_read = recipe.read_regular_file

    def read(path):
        if Path(path) == target:
            raise PermissionError(13, "Permission denied", str(path))
        return real_read(path)

    monkeypatch.setattr(recipe, "read_regular_file", read)
    lines = _refused(tree, tmp_path)
    assert "src/b.rs: cannot be read (Permission denied); the recipe needs it" in lines
    assert [line for line in lines if line.startswith("src/b.rs")] == [
        "src/b.rs: cannot be read (Permission denied); the recipe needs it"
    ]
    monkeypatch.undo()
    assert snapshot(tree) == BEFORE


def test_recipe_parameters_are_loaded_before_planning_and_steps_read_them_typed(tree: Path) -> None:
    from codemods import plan_recipe
    from codemods import Parameter, Recipe, RecipeInputError, StepResult

    seen = []

    def limit(value: object) -> int:
        if not str(value).isdigit():
            raise RecipeInputError(f"--limit must be a whole number, not {value!r}")
        return int(str(value))

    def step(workspace) -> StepResult:
        seen.append(workspace.options["limit"])
        return StepResult()

    recipe = Recipe(
        id="typed",
        summary="",
        steps=(step,),
        check_scope=("src",),
        parameters=(Parameter("limit", missing="recipe typed needs --limit N", load=limit),),
    )
    assert recipe.parameter_names == ("limit",)
    for options, message in (
        ({}, "recipe typed needs --limit N"),
        ({"limit": "x"}, "--limit must be a whole number, not 'x'"),
    ):
        plan = plan_recipe(tree, recipe, options=options)
        assert [(f.code, f.message) for f in plan.findings] == [("usage-error", message)]
    assert not seen
    plan_recipe(tree, recipe, options={"limit": "3"})
    assert seen == [3]

    def writes_an_option(workspace) -> StepResult:
        workspace.options["x"] = 1
        return StepResult()

    plan = plan_recipe(tree, Recipe(id="r", summary="", steps=(writes_an_option,), check_scope=("src",)))
    [failed] = plan.findings
    assert (plan.changes, failed.code, failed.blocking) == ((), "step-failed", True)
    assert failed.message.startswith("step writes_an_option raised TypeError: ")


def test_the_dry_run_diff_of_a_file_with_invalid_utf8_applies_with_git(tree: Path, tmp_path: Path) -> None:
    """The printed diff carries the file's own bytes (never U+FFFD), so `git apply` takes it."""
    source = b"// caf\xe9 \xff\n\n/// Gone.\nfn gone_a() {}\n// \xfe\n\nfn keep_a() {}\n"
    (tree / "src/a.rs").write_bytes(source)
    result = _apply("--dry-run", "--recipe", str(write_recipe(tmp_path)), str(tree))
    assert result.exit_code == 0, result.output
    assert b"\xff\n" in result.stdout_bytes and b"\xfe\n" in result.stdout_bytes
    assert "\ufffd" not in result.stdout_bytes.decode("utf-8", "surrogateescape")
    patch = tmp_path / "plan.diff"
    patch.write_bytes(result.stdout_bytes)
    applied = subprocess.run(["git", "apply", "-p1", str(patch)], cwd=tree, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr
    assert (tree / "src/a.rs").read_bytes() == b"// caf\xe9 \xff\n\n// \xfe\n\nfn keep_a() {}\n"


# ---------------------------------------------------------------- internal errors


@pytest.mark.parametrize("as_json", [False, True])
def test_an_internal_error_is_one_line_naming_the_file_exit_3(tree: Path, monkeypatch, as_json: bool) -> None:
    import codemods.config.recipe as recipes

    real_read = recipes.read_regular_file

    def read(location):
        if Path(location).name == "a.rs":
            raise RecursionError("maximum recursion depth exceeded")
        return real_read(location)

    monkeypatch.setattr(recipes, "read_regular_file", read)
    recipe = write_recipe(tree.parent)
    result = _apply("--dry-run", "--recipe", str(recipe), *(["--json"] if as_json else []), str(tree))
    assert result.exit_code == 3, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("codemod: error: internal error while reading src/a.rs: RecursionError: ")
    assert "please report it" in lines[0]
    if as_json:
        assert json.loads(result.stdout)["exit_code"] == 3
