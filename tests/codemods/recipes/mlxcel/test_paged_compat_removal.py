"""The seed's removal (a) on the mlxcel-mini fixture: what the issues' done-when ask.

The plan-level tests need no cargo; the gate tests build the applied crate.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from codemods.parse import RUST, error_count, language_of, parse
from codemods.plan.planner import DANGLING, UNREWORDED, plan_recipe
from codemods.cli.main import main
from codemods import load_recipe
from codemods.recipes.mlxcel.paged_compat_removal import FFI_TESTS_RS, POOLED_TESTS
from codemods.languages.rust.statements import find_function
from codemod_helpers import readme_rewording_example
from fixture_crate import FIXTURE, cargo, copy_fixture, write_offline_cargo_config

RECIPE = load_recipe("paged-compat-removal")
DEAD_SYMBOL_PATTERN = RECIPE.dead_symbol_pattern
EMPTY_BATCH_TEST = "paged_decode_fallbacks_reject_an_empty_batch"


def _tree_digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "target" not in p.parts
    }


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path / "mlxcel-mini")


def test_dry_run_prints_the_diff_and_writes_nothing(tree: Path) -> None:
    before = _tree_digest(tree)
    result = CliRunner().invoke(main, ["apply", "--dry-run", str(tree)])
    assert result.exit_code == 0, result.output
    assert "--- a/src/lib/mlxcel-core/src/layers.rs" in result.stdout
    assert "-pub fn paged_decode_attention_dense_fallback(" in result.stdout
    assert _tree_digest(tree) == before


def test_dry_run_of_the_committed_fixture_changes_nothing() -> None:
    before = _tree_digest(FIXTURE)
    result = CliRunner().invoke(main, ["apply", "--dry-run", str(FIXTURE)])
    assert result.exit_code == 0, result.output
    assert _tree_digest(FIXTURE) == before


def _function_lines(source: bytes, name: str) -> range:
    node = find_function(parse(source, RUST).root_node, name)
    assert node is not None, name
    return range(node.start_point.row + 1, node.end_point.row + 2)


def test_deletion_alone_reports_exactly_the_pooled_and_empty_batch_references(tree: Path) -> None:
    deletion_only = dataclasses.replace(RECIPE, steps=(), rewordings=())
    plan = plan_recipe(tree, deletion_only, allow_dangling=True, allow_unreworded=True)
    dangling = [f for f in plan.findings if f.code == DANGLING]
    assert dangling
    ffi_tests = (tree / FFI_TESTS_RS).read_bytes()
    allowed = [_function_lines(ffi_tests, name) for name in (*POOLED_TESTS, EMPTY_BATCH_TEST)]
    for finding in dangling:
        assert finding.path == FFI_TESTS_RS, finding.render()
        assert any(finding.line in lines for lines in allowed), finding.render()
    for lines in allowed:
        assert any(f.line in lines for f in dangling), f"no reference reported in lines {lines}"
    assert not [f for f in plan.findings if f.blocking and f.code not in (DANGLING, UNREWORDED)]

    # Every byte outside the deleted ranges is unchanged; touched files re-parse.
    for change in plan.changes:
        matcher = difflib.SequenceMatcher(None, change.before, change.after, autojunk=False)
        assert {tag for tag, *_ in matcher.get_opcodes()} == {"equal", "delete"}, change.path
        if language_of(change.path) == RUST:
            assert error_count(parse(change.after, RUST)) == 0
            formatted = subprocess.run(
                ["rustfmt", "--edition", "2024", "--emit", "stdout"], input=change.after, capture_output=True
            )
            assert formatted.stdout == change.after, f"{change.path} is not rustfmt-clean"


def test_removal_is_blocked_without_the_rewrites_and_writes_nothing(tree: Path) -> None:
    before = _tree_digest(tree)
    deletion_only = dataclasses.replace(RECIPE, steps=(), rewordings=())
    plan = plan_recipe(tree, deletion_only)
    assert {f.code for f in plan.blocking} == {DANGLING, UNREWORDED}
    assert _tree_digest(tree) == before


def test_an_unreworded_mention_blocks_and_is_located(tree: Path) -> None:
    attend = tree / "src/lib/mlxcel-core/src/cache/attend.rs"
    attend.write_bytes(attend.read_bytes() + b"\n// See paged_decode_attention_rotating_compat for history.\n")
    result = CliRunner().invoke(main, ["apply", str(tree)])
    assert result.exit_code == 1
    line = attend.read_bytes().count(b"\n")
    assert (
        f"src/lib/mlxcel-core/src/cache/attend.rs:{line}:8: unreworded mention of "
        "paged_decode_attention_rotating_compat [comment]"
    ) in result.stderr
    allowed = CliRunner().invoke(main, ["apply", "--allow-unreworded", str(tree)])
    assert allowed.exit_code == 0, allowed.output


def test_a_reference_in_a_model_blocks_the_plan(tree: Path) -> None:
    """An older tree where a model still calls a compat route: the removal must say so."""
    gemma = tree / "src/models/gemma3.rs"
    gemma.write_bytes(
        gemma.read_bytes()
        + (
            b"\npub fn legacy_decode(q: &mlxcel_core::ffi::MlxArray) {\n"
            b"    let _ = mlxcel_core::layers::paged_decode_attention_dense_compat(q, &[], &[], &[], 1.0);\n}\n"
        )
    )
    result = CliRunner().invoke(main, ["apply", "--dry-run", str(tree)])
    assert result.exit_code == 1
    assert "src/models/gemma3.rs:" in result.stderr
    assert "paged_decode_attention_dense_compat: code still refers to an item the recipe deletes" in result.stderr


def test_apply_then_again_changes_nothing(tree: Path) -> None:
    first = CliRunner().invoke(main, ["apply", str(tree)])
    assert first.exit_code == 0, first.output
    after = _tree_digest(tree)
    second = CliRunner().invoke(main, ["apply", "--json", str(tree)])
    assert second.exit_code == 0
    assert '"changes": []' in second.stdout
    assert _tree_digest(tree) == after
    check = CliRunner().invoke(main, ["check", str(tree)])
    assert check.exit_code == 0, check.output


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")
def test_acceptance_grep_prints_nothing_after_apply(tree: Path) -> None:
    docs_before = _tree_digest(tree / "docs")
    assert CliRunner().invoke(main, ["apply", str(tree)]).exit_code == 0
    found = subprocess.run(["rg", "-n", DEAD_SYMBOL_PATTERN, "src/"], cwd=tree, capture_output=True, text=True)
    assert found.returncode == 1 and found.stdout == ""
    assert _tree_digest(tree / "docs") == docs_before


GATE = (
    ("build", "--workspace", "--all-targets"),
    ("clippy", "--workspace", "--all-targets", "--", "-D", "warnings"),
    ("fmt", "--all", "--", "--check"),
)


@pytest.mark.cargo
@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_applied_fixture_passes_the_gate_and_keeps_the_pooled_tests_power(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path / "applied")
    write_offline_cargo_config(root)
    result = CliRunner().invoke(main, ["apply", str(root)])
    assert result.exit_code == 0, result.output
    for args in GATE:
        cargo(root, *args)
    tests = cargo(root, "test", "--workspace")
    assert "paged_decode_pooled_fallback_rejects_an_empty_batch ... ok" in tests.stdout
    for name in POOLED_TESTS:
        assert f"{name} ... ok" in tests.stdout

    perturbed = CliRunner().invoke(
        main, ["apply", "--recipe", "perturb-pooled-output", "--param", "factor=1.01", str(root)]
    )
    assert perturbed.exit_code == 0, perturbed.output
    failing = cargo(root, "test", "--workspace", "--", "--test-threads=2", check=False)
    failed = sorted(
        line.split()[1].split("::")[-1]
        for line in failing.stdout.splitlines()
        if line.startswith("test ") and line.endswith("FAILED")
    )
    assert failed == sorted(POOLED_TESTS)


def test_local_rewording_rules_extend_the_bundled_recipe(tree: Path, tmp_path: Path) -> None:
    """A tree with prose the bundled rules do not know: refused with the location, then
    applied once the user adds a rule in a recipe file that extends the bundled one."""
    cache = tree / "src/lib/mlxcel-core/src/cache.rs"
    cache.write_bytes(
        cache.read_bytes().replace(
            b"/// Per-batch attention metadata as the scheduler hands it to the layers.\n",
            b"/// Per-batch attention metadata as the scheduler hands it to the layers. It\n"
            b"/// becomes [`PagedDecodeMetadata`] for the dense routes.\n",
        )
    )
    refused = CliRunner().invoke(main, ["apply", str(tree)])
    assert refused.exit_code == 1
    line = cache.read_bytes().split(b"\n").index(b"/// becomes [`PagedDecodeMetadata`] for the dense routes.") + 1
    assert (
        f"src/lib/mlxcel-core/src/cache.rs:{line}:15: unreworded mention of PagedDecodeMetadata [comment]"
        in refused.stderr
    )

    local = tmp_path / "local.toml"
    local.write_text(
        'extends = "paged-compat-removal"\n\n[[reword]]\n'
        'path = "src/lib/mlxcel-core/src/cache.rs"\n'
        'item = "AttentionMetadata"\n'
        'symbols = ["PagedDecodeMetadata"]\n'
        'replace = "The pooled route reads it directly."\n'
    )
    applied = CliRunner().invoke(main, ["apply", "--recipe", str(local), str(tree)])
    assert applied.exit_code == 0, applied.output
    assert CliRunner().invoke(main, ["check", str(tree)]).exit_code == 0
    assert (
        b"/// Per-batch attention metadata as the scheduler hands it to the layers. The\n"
        b"/// pooled route reads it directly.\n"
    ) in cache.read_bytes()


def test_the_readme_rewording_example_replaces_the_bundled_rule_on_the_same_text(tree: Path, tmp_path: Path) -> None:
    local = tmp_path / "local.toml"
    local.write_text(readme_rewording_example())
    result = CliRunner().invoke(main, ["apply", "--dry-run", "--recipe", str(local), str(tree)])
    assert result.exit_code == 0, result.output
    added = " ".join(line[5:] for line in result.stdout.splitlines() if line.startswith("+///"))
    assert "The current state, described without the symbol names." in added
    assert "overlap" not in result.stderr
    layout = "layout 'as #2230 describes it' recognised"
    assert [line for line in result.stderr.splitlines() if "(note)" in line] == [
        line for line in result.stderr.splitlines() if line.startswith(layout)
    ]


def test_two_rules_of_one_recipe_on_the_same_text_are_one_blocking_line(tree: Path, tmp_path: Path) -> None:
    local = tmp_path / "local.toml"
    rule = (
        '[[reword]]\npath = "src/lib/mlxcel-core/src/layers.rs"\nitem = "paged_decode_attention_pooled"\n'
        'symbols = ["paged_decode_attention_dense_compat"]\nreplace = "{}"\n\n'
    )
    local.write_text('extends = "paged-compat-removal"\n\n' + rule.format("One.") + rule.format("Two."))
    result = CliRunner().invoke(main, ["apply", "--dry-run", "--recipe", str(local), str(tree)])
    assert result.exit_code == 1
    blocking = [
        line for line in result.stderr.splitlines() if not line.startswith("codemod:") and not line.endswith("(note)")
    ]
    assert len(blocking) == 1, blocking
    assert re.fullmatch(
        r"src/lib/mlxcel-core/src/layers\.rs:\d+:1: local\.toml \[\[reword\]\] 1 \(item = "
        r"'paged_decode_attention_pooled', symbols = \['paged_decode_attention_dense_compat'\]\) and "
        r"local\.toml \[\[reword\]\] 2 \(.*\) reword the same text; keep one of them",
        blocking[0],
    )


def test_the_fixture_is_recognised_as_the_2230_layout_and_gets_no_other_note(tree: Path) -> None:
    result = CliRunner().invoke(main, ["apply", "--dry-run", str(tree)])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "layout 'as #2230 describes it' recognised (cache/attend.rs split out of cache.rs; no model calls the "
        "routes): its 4 rewording rule(s) apply (note)",
        "codemod: paged-compat-removal: would change 7 file(s); 0 finding(s), 0 blocking; 1 note(s)",
    ]
    sarif = CliRunner().invoke(main, ["apply", "--dry-run", "--format", "sarif", str(tree)])
    [note] = json.loads(sarif.stdout)["runs"][0]["results"]
    assert note["ruleId"] == "layout" and "locations" not in note


def test_the_fixture_helper_keeps_the_file_qualified_names_and_shadows_no_parameter(tree: Path) -> None:
    """Issue 23, point 15, on a file that writes `ffi::` and has no dtype module: the helper
    qualifies its bridge calls and reads the float32 tag off an array, under names of its own."""
    result = CliRunner().invoke(main, ["apply", str(tree)])
    assert result.exit_code == 0, result.output
    tests = (tree / FFI_TESTS_RS).read_text()
    helper = tests.split("fn dense_reference_decode_attention(", 1)[1].split("\n}\n", 1)[0]
    assert "let float32 = ffi::array_dtype(&scale_array);" in helper and "dtype::FLOAT32" not in helper
    for parameter in ("q", "keys", "values", "scale"):
        assert not re.search(rf"let (mut )?{parameter} =", helper), parameter
