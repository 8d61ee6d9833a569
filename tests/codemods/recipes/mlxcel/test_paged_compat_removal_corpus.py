"""The seed's removal (a) on the real mlxcel tree and on variants of it.

The corpus (../shared/corpora) is from before mlxcel's #2210: models still
call the routes, so a plain apply must refuse and list exactly those model
lines, and `--allow-dangling` must do everything else. The same must hold
with the target files formatted differently and with the oracle runs'
locals spelled differently; on a tree whose models no longer call the routes
(after #2210), a plain apply succeeds and nothing is left to grep.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from codemod_helpers import readme_rewording_example
from codemods.parse import CPP, RUST, error_count, language_of, parse
from codemods.plan.planner import DANGLING, UNREWORDED, plan_recipe
from codemods.cli.main import main
from codemods.languages.cpp.items import cpp_items
from codemods.pattern import Pattern
from codemods import load_recipe
from codemods.recipes.mlxcel.paged_compat_removal import FFI_TESTS_RS, POOLED_TESTS
from codemods.languages.rust.items import rust_items
from codemods.languages.rust.statements import find_function

# The real tree names no recipe of its own: the tests name it.
RECIPE_FLAGS = ("--recipe", "paged-compat-removal")

RECIPE = load_recipe("paged-compat-removal")
DEAD_SYMBOL_PATTERN = RECIPE.dead_symbol_pattern
HELPER = "dense_reference_decode_attention"
TRIMMED_TEST = "paged_decode_pooled_fallback_rejects_an_empty_batch"
MODEL_FILES = {f"src/models/{name}.rs" for name in ("gemma3", "llama3", "qwen3", "model_owned")}
TARGET_RUST_FILES = sorted({t.path for t in RECIPE.deletions if t.language == "rust"})
HELPER_CALL = Pattern(f"{HELPER}($$$)", RUST)
FALLBACK_CALL = Pattern("$_::paged_decode_attention_dense_fallback($$$)", RUST)

# The corpus pins a toolchain that may not be installed; rustfmt's output does not depend on it.
STABLE = {**os.environ, "RUSTUP_TOOLCHAIN": "stable"}

pytestmark = pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep (rg) is not installed")


def rg_lines(root: Path) -> list[str]:
    """What the seed's acceptance check prints: `rg -n PATTERN src/`, sorted."""
    result = subprocess.run(["rg", "-n", DEAD_SYMBOL_PATTERN, "src/"], cwd=root, capture_output=True, text=True)
    assert result.returncode in (0, 1), result.stderr
    return sorted(result.stdout.splitlines())


def digest(root: Path, under: str) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((root / under).rglob("*"))
        if p.is_file()
    }


def rustfmt_hunks(path: Path) -> int | None:
    """How many hunks `rustfmt --check` reports for one file (None without rustfmt)."""
    if shutil.which("rustfmt") is None:
        return None
    result = subprocess.run(
        ["rustfmt", "--edition", "2024", "--check", str(path)],
        capture_output=True,
        text=True,
        cwd=path.parent,
        env=STABLE,
    )
    return result.stdout.count("Diff in ")


@dataclass(frozen=True)
class Outcome:
    """A tree before and after the removal: the plain run, the run with --allow-dangling."""

    before: Path
    after: Path
    rg_before: list[str]
    plain: object
    allowed: object


def run_removal(source: Path, work: Path) -> Outcome:
    """Copy `source` twice, run a plain apply and an `--allow-dangling` apply on the second copy."""
    before = work / "before"
    after = work / "after"
    shutil.copytree(source, before, symlinks=True)
    shutil.copytree(source, after, symlinks=True)
    plain = CliRunner().invoke(main, ["apply", *RECIPE_FLAGS, str(after)])
    allowed = CliRunner().invoke(main, ["apply", *RECIPE_FLAGS, "--allow-dangling", str(after)])
    return Outcome(before, after, rg_lines(before), plain, allowed)


def model_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if line.split(":", 1)[0] in MODEL_FILES]


def refused_locations(output: str) -> list[str]:
    """`path:line` of each blocking finding a refused apply printed."""
    found = []
    for line in output.splitlines():
        if line.startswith("codemod:") or "(note)" in line:
            continue
        match = re.match(r"^([^:]+):(\d+):\d+: ", line)
        assert match, f"unexpected output line: {line}"
        found.append(f"{match.group(1)}:{match.group(2)}")
    return sorted(set(found))


def check_outcome(outcome: Outcome, migrated: bool = False) -> None:
    """Everything point 5 of the issue asks of one tree."""
    expected = model_lines(outcome.rg_before)
    assert migrated == (not expected)
    if migrated:
        assert outcome.plain.exit_code == 0, outcome.plain.output
    else:
        assert outcome.plain.exit_code == 1
        assert refused_locations(outcome.plain.stderr) == sorted({":".join(x.split(":")[:2]) for x in expected})
        assert "nothing written" in outcome.plain.stderr
    assert outcome.allowed.exit_code == 0, outcome.allowed.output
    assert rg_lines(outcome.after) == expected
    check_targets_gone(outcome.after)
    check_pooled_tests(outcome.after)
    check_touched_files(outcome)
    assert digest(outcome.before, "docs") == digest(outcome.after, "docs")
    again = plan_recipe(outcome.after, RECIPE, allow_dangling=True)
    assert not again.changes and not again.blocking


def check_targets_gone(root: Path) -> None:
    for target in RECIPE.deletions:
        source = (root / target.path).read_bytes()
        short = target.name.split("::")[-1]
        if target.language == "rust":
            names = {i.name for i in rust_items(source) if i.kind != "impl"}
        else:
            names = {i.name for i in cpp_items(source)}
        assert short not in names, f"{target.path}: {short} survived"


def check_pooled_tests(root: Path) -> None:
    source = (root / FFI_TESTS_RS).read_bytes()
    tree = parse(source, RUST)
    assert find_function(tree.root_node, HELPER) is not None
    assert find_function(tree.root_node, TRIMMED_TEST) is not None
    for name in POOLED_TESTS:
        function = find_function(tree.root_node, name)
        assert function is not None, name
        assert HELPER_CALL.find(source, function) is not None, f"{name} does not call the helper"
        assert FALLBACK_CALL.find(source, function) is None, f"{name} still calls the fallback"


def check_touched_files(outcome: Outcome) -> None:
    changed = [
        p.relative_to(outcome.after).as_posix()
        for p in outcome.after.rglob("*")
        if p.is_file() and p.read_bytes() != (outcome.before / p.relative_to(outcome.after)).read_bytes()
    ]
    assert changed
    unformatted = []
    for path in changed:
        language = language_of(path)
        if language not in (RUST, CPP):
            continue
        before = (outcome.before / path).read_bytes()
        after = (outcome.after / path).read_bytes()
        assert error_count(parse(after, language)) <= error_count(parse(before, language)), path
        if language == RUST:
            hunks_before, hunks_after = rustfmt_hunks(outcome.before / path), rustfmt_hunks(outcome.after / path)
            if hunks_before is None:
                unformatted.append(path)
            else:
                assert hunks_after <= hunks_before, f"{path}: rustfmt hunks {hunks_before} -> {hunks_after}"
    if unformatted:
        pytest.skip(
            f"rustfmt is not installed: the rest held, but the rustfmt hunks of {unformatted} were not compared"
        )


@pytest.fixture(scope="module")
def real(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    return run_removal(corpus, tmp_path_factory.mktemp("real"))


def test_the_real_tree(real: Outcome) -> None:
    assert len(model_lines(real.rg_before)) == 19
    check_outcome(real)


def test_the_real_tree_has_no_unreworded_mention_and_names_the_extra_deleted_test(real: Outcome) -> None:
    plan = plan_recipe(real.before, RECIPE, allow_dangling=True)
    assert not [f for f in plan.findings if f.code == UNREWORDED]
    assert {f.path for f in plan.findings if f.code == DANGLING} == MODEL_FILES
    orphaned = [f.message for f in plan.findings if f.code == "orphaned-test"]
    assert orphaned == [
        "deleted test tests::paged_decode_metadata_rejects_invalid_block_size: "
        "it exercises only removed items (PagedDecodeMetadata)"
    ]


def test_the_real_tree_reformatted(corpus: Path, tmp_path: Path) -> None:
    if shutil.which("rustfmt") is None:
        pytest.skip("rustfmt is not installed")
    variant = tmp_path / "variant"
    shutil.copytree(corpus, variant, symlinks=True)
    for path in TARGET_RUST_FILES:
        subprocess.run(
            ["rustfmt", "--edition", "2024", "--config", "max_width=72", str(variant / path)],
            check=False,
            capture_output=True,
            cwd=tmp_path,
            env=STABLE,
        )
    assert (variant / FFI_TESTS_RS).read_bytes() != (corpus / FFI_TESTS_RS).read_bytes()
    check_outcome(run_removal(variant, tmp_path))


def rename_locals(source: bytes, functions: tuple[str, ...], renames: dict[str, str]) -> bytes:
    """`source` with the identifiers of `renames` respelled inside the named functions."""
    tree = parse(source, RUST)
    spans = []
    for name in functions:
        stack = [find_function(tree.root_node, name)]
        while stack:
            node = stack.pop()
            after_dot = node.prev_sibling is not None and node.prev_sibling.type == "."
            if node.type == "identifier" and node.text.decode() in renames and not after_dot:
                spans.append((node.start_byte, node.end_byte, renames[node.text.decode()].encode()))
            stack.extend(node.children)
    for start, end, text in sorted(spans, reverse=True):
        source = source[:start] + text + source[end:]
    return source


def test_the_real_tree_with_locals_spelled_differently(corpus: Path, tmp_path: Path) -> None:
    variant = tmp_path / "variant"
    shutil.copytree(corpus, variant, symlinks=True)
    tests = variant / FFI_TESTS_RS
    tests.write_bytes(
        rename_locals(
            tests.read_bytes(),
            POOLED_TESTS,
            {
                "cache_keys": "key_pointers",
                "cache_values": "value_pointers",
                "metadata": "identity",
                "dense_out": "oracle",
                "dk": "keys_so_far",
                "dv": "values_so_far",
                "visible_len": "n_visible",
                "dense_ks": "reference_keys",
                "dense_vs": "reference_values",
                "lens": "lengths",
            },
        )
    )
    outcome = run_removal(variant, tmp_path)
    check_outcome(outcome)
    after = (outcome.after / FFI_TESTS_RS).read_text()
    assert (
        f"let oracle = {HELPER}(&q, keys_so_far.as_ref().unwrap(), values_so_far.as_ref().unwrap(), scale);"
        in " ".join(after.split()).replace("( ", "(").replace(", )", ")")
    )


def test_the_real_tree_after_the_models_migrated(corpus: Path, tmp_path: Path) -> None:
    """After #2210 no model names the routes: a plain apply succeeds and rg prints nothing."""
    variant = tmp_path / "variant"
    shutil.copytree(corpus, variant, symlinks=True)
    removed = sorted({t.name.split("::")[-1] for t in RECIPE.deletions}, key=len, reverse=True)
    for path in MODEL_FILES:
        text = (variant / path).read_text()
        for name in removed:
            text = text.replace(name, f"Migrated{name.title().replace('_', '')}")
        (variant / path).write_text(text)
    outcome = run_removal(variant, tmp_path)
    check_outcome(outcome, migrated=True)
    assert rg_lines(outcome.after) == []


def test_the_real_tree_with_crlf_target_files_stays_crlf(corpus: Path, tmp_path: Path) -> None:
    """Every line the removal inserts (helper calls, reworded doc lines) takes the file's CRLF."""
    variant = tmp_path / "variant"
    shutil.copytree(corpus, variant, symlinks=True)
    targets = sorted({t.path for t in RECIPE.deletions})
    for path in targets:
        (variant / path).write_bytes((variant / path).read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    result = CliRunner().invoke(main, ["apply", *RECIPE_FLAGS, "--allow-dangling", str(variant)])
    assert result.exit_code == 0, result.output
    for path in targets:
        after = (variant / path).read_bytes()
        assert not re.findall(rb"(?<!\r)\n", after), path


def test_the_readme_rewording_example_on_the_real_tree(real: Outcome, tmp_path: Path) -> None:
    """The README's extending recipe replaces the bundled rule on the same sentence: the plan
    blocks on the 19 model lines only, and says once which layout it recognised."""
    local = tmp_path / "local.toml"
    local.write_text(readme_rewording_example())
    result = CliRunner().invoke(main, ["apply", "--dry-run", "--recipe", str(local), str(real.before)])
    assert result.exit_code == 1
    assert refused_locations(result.stderr) == sorted({":".join(x.split(":")[:2]) for x in model_lines(real.rg_before)})
    added = " ".join(line[5:] for line in result.stdout.splitlines() if line.startswith("+///"))
    assert "The current state, described without the symbol names." in added
    notes = [line for line in result.stderr.splitlines() if line.endswith("(note)")]
    assert notes == [
        "src/lib/mlxcel-core/src/cache.rs:8776:5: deleted test tests::paged_decode_metadata_rejects_invalid_block_size: "
        "it exercises only removed items (PagedDecodeMetadata) (note)",
        "layout '2026-07, before #2210' recognised (no cache/attend.rs; models still call the routes): its 11 "
        "rewording rule(s) apply (note)",
    ]
    allowed = CliRunner().invoke(
        main, ["apply", "--dry-run", "--allow-dangling", "--recipe", str(local), str(real.before)]
    )
    assert allowed.exit_code == 0, allowed.stderr


def test_check_names_the_identifier_that_holds_a_match_at_its_start(real: Outcome) -> None:
    result = CliRunner().invoke(main, ["check", *RECIPE_FLAGS, str(real.before)])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert "src/models/gemma3.rs:33:37: RotatingPagedDecodeMetadata [code]" in lines
    assert not [line for line in lines if line.startswith("src/models/gemma3.rs:33:45:")]
    assert sorted({":".join(line.split(":")[:2]) for line in lines}) == sorted(
        {":".join(line.split(":")[:2]) for line in real.rg_before}
    )


def test_without_rustfmt_the_helper_calls_are_what_rustfmt_writes(real: Outcome, monkeypatch) -> None:
    import codemods.languages.rust.format as format_module

    with_rustfmt = plan_recipe(real.before, RECIPE, allow_dangling=True)
    monkeypatch.setattr(format_module.shutil, "which", lambda name: None)
    without = plan_recipe(real.before, RECIPE, allow_dangling=True)
    assert "formatted-without-rustfmt" in {f.code for f in without.findings}
    assert {c.path: c.after for c in without.changes} == {c.path: c.after for c in with_rustfmt.changes}


def test_the_helper_follows_the_file_conventions_and_the_reword_keeps_unrelated_detail(real: Outcome) -> None:
    """Issue 23, point 15: the real ffi_tests.rs calls bridge functions unqualified (`use super::*`)
    and names `dtype::FLOAT32`; the helper does the same and shadows none of its parameters."""
    tests = (real.after / FFI_TESTS_RS).read_text()
    helper = tests.split(f"fn {HELPER}(", 1)[1].split("\n}\n", 1)[0]
    assert "ffi::" not in helper and "array_dtype" not in helper
    assert "astype(q, dtype::FLOAT32)" in helper
    for parameter in ("q", "keys", "values", "scale"):
        assert not re.search(rf"let (mut )?{parameter} =", helper), parameter
    layers = " ".join((real.after / "src/lib/mlxcel-core/src/layers.rs").read_text().split())
    assert (
        "pool intercept (gather + standard SDPA, `src/models/llama3.rs` /// `is_paged_backed()`), never this function."
    ) in layers
