"""The paged-flag recipe on the mlxcel-mini fixture, driven by a decision file."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from codemods.cli.main import main
from fixture_crate import cargo, copy_fixture, write_offline_cargo_config

DOCUMENT = "docs/benchmark_results/paged-vs-dense-test-2026-11-30.md"


def _cell(prompt_tokens: int, concurrency: int, delta: float, spread: float, verdict: str) -> dict:
    return {
        "prompt_tokens": prompt_tokens,
        "concurrency": concurrency,
        "rounds": [1, 2, 3],
        "paired_deltas": [delta] * 3,
        "null_deltas": [spread, -spread, spread],
        "median_paired_delta": delta,
        "null_spread": spread,
        "verdict": verdict,
        "median_paged_tok_s": 100.0,
        "median_dense_tok_s": 100.0 * (1 + delta),
        "mean_paired_delta": delta,
        "ci95": [delta - 0.01, delta + 0.01],
        "rounds_favouring_dense": 3 if delta > 0 else 0,
        "rounds_to_resolve": 2,
        "statistics_verdict": "unresolved",
        "inconclusive": False,
        "notes": [],
    }


def write_decision(folder: Path, gemma3: bool, llama4: bool) -> Path:
    def family(model: str, flag: bool) -> dict:
        cells = (
            [_cell(512, 4, 0.05, 0.01, "dense-faster")] if not flag else [_cell(512, 4, 0.001, 0.01, "within-noise")]
        )
        reason = (
            "dense clears the null spread upward in p512/c4; paged is faster beyond it in no cell"
            if not flag
            else "no cell clears the null spread"
        )
        return {
            "model": model,
            "supports_paged_decode_backend": flag,
            "reason": reason,
            "statistics_flag": flag,
            "notes": [],
            "cells": cells,
        }

    document = {
        "schema": "paged-bench-decision/1",
        "run_dir": "bench/out/test",
        "rounds_planned": 3,
        "rule": "seed (b)",
        "results_document": DOCUMENT,
        "families": {
            "gemma3": family("models/mlx/gemma-3-1b-it-4bit", gemma3),
            "llama4": family("models/mlx/llama-4-scout-17b-16e-instruct-4bit", llama4),
        },
        "problems": [],
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "decision.json"
    path.write_text(json.dumps(document, indent=2))
    return path


def with_document(root: Path) -> Path:
    """The fixture tree holding the results document the decisions of these tests cite."""
    document = root / DOCUMENT
    document.parent.mkdir(parents=True, exist_ok=True)
    document.write_text("# Paged vs dense decode storage (test)\n")
    return root


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return with_document(copy_fixture(tmp_path / "mlxcel-mini"))


def _apply(tree: Path, decision: Path, *extra: str):
    return CliRunner().invoke(main, ["apply", "--recipe", "paged-flag", "--decision", str(decision), *extra, str(tree)])


def test_flip_changes_only_the_family_impl_and_is_idempotent(tree: Path, tmp_path: Path) -> None:
    decision = write_decision(tmp_path / "run", gemma3=False, llama4=True)
    adr = {p.name: p.read_bytes() for p in (tree / "docs" / "adr").iterdir()}
    vision_before = (tree / "src/models/gemma3.rs").read_text().split("impl ModelWrapper for Gemma3VisionWrapper")[1]
    result = _apply(tree, decision)
    assert result.exit_code == 0, result.output
    gemma3 = (tree / "src/models/gemma3.rs").read_text()
    wrapper_impl = gemma3.split("impl ModelWrapper for Gemma3Wrapper")[1].split("\n}\n")[0]
    assert (
        "fn supports_paged_decode_backend(&self) -> bool {\n        Self::SUPPORTS_PAGED_DECODE_BACKEND\n    }"
        in wrapper_impl
    )
    assert "    pub(crate) const SUPPORTS_PAGED_DECODE_BACKEND: bool = false;\n" in gemma3.split(
        "impl ModelWrapper for Gemma3Wrapper")[0]  # fmt: skip
    assert DOCUMENT in wrapper_impl and "resolves to dense" in wrapper_impl
    assert (
        "The\n    /// engine-parity test `gemma3_real_batch_parity_on_both_backends` runs gemma-3-1b-it-4bit on\n"
        "    /// the dense backend only."
    ) in wrapper_impl
    assert gemma3.split("impl ModelWrapper for Gemma3VisionWrapper")[1] == vision_before
    llama4 = (tree / "src/models/llama4.rs").read_text()
    assert "-> bool {\n        true\n    }" in llama4 and DOCUMENT in llama4
    scheduler = (tree / "src/server/batch/scheduler/mod.rs").read_text()
    assert "fn gemma3_auto_and_paged_resolve_to_dense_at_parallel_8()" in scheduler
    assert (
        "fn gemma3_wrapper_flag_resolves_to_dense_at_parallel_8() {\n        let supports_batching = true;\n"
        "        let supports_paged_decode_backend =\n"
        "            crate::models::gemma3::Gemma3Wrapper::SUPPORTS_PAGED_DECODE_BACKEND;\n"
    ) in scheduler
    assert "llama4_auto" not in scheduler and "llama4_wrapper" not in scheduler
    assert "SUPPORTS_PAGED_DECODE_BACKEND" not in (tree / "src/models/llama4.rs").read_text()
    batching = (tree / "docs/CONTINUOUS_BATCHING.md").read_text()
    assert "| Gemma 3 | false |" in batching and "| Llama 4 | true |" in batching
    assert "The engine-parity test `gemma3_real_batch_parity_on_both_backends` runs gemma-3-1b-it-4bit" in batching
    assert "n/a" not in batching
    assert {p.name: p.read_bytes() for p in (tree / "docs" / "adr").iterdir()} == adr

    again = _apply(tree, decision, "--dry-run")
    assert again.exit_code == 0
    assert again.stdout == ""


def test_without_the_parity_test_the_texts_and_a_note_say_so(tree: Path, tmp_path: Path) -> None:
    """Issue 24, point 3: write only what the plan did."""
    (tree / "src/server/batch/scheduler_real_batch_parity_tests.rs").unlink()
    batch = tree / "src/server/batch/mod.rs"
    batch.write_text(batch.read_text().replace("#[cfg(test)]\nmod scheduler_real_batch_parity_tests;\n", ""))
    result = _apply(tree, write_decision(tmp_path / "run", gemma3=False, llama4=True))
    assert result.exit_code == 0, result.output
    assert (
        "src/server/batch/scheduler_real_batch_parity_tests.rs: not in this tree: no engine-parity test to move "
        "onto dense for Gemma 3; the texts say so (note)"
    ) in result.output
    said = "This tree has no engine-parity test (`src/server/batch/scheduler_real_batch_parity_tests.rs`)"
    gemma3 = " ".join(
        line.strip().removeprefix("/// ") for line in (tree / "src/models/gemma3.rs").read_text().splitlines()
    )
    batching = (tree / "docs/CONTINUOUS_BATCHING.md").read_text()
    for text in (gemma3, batching):
        assert said in text and "no parity row was updated" in text and "n/a" not in text
    assert not (tree / "src/server/batch/scheduler_real_batch_parity_tests.rs").exists()


def test_a_parity_file_without_the_family_says_none_was_updated(tree: Path, tmp_path: Path) -> None:
    parity = tree / "src/server/batch/scheduler_real_batch_parity_tests.rs"
    parity.write_text(parity.read_text().replace("gemma-3-1b-it-4bit", "qwen3-0.6b-4bit"))
    result = _apply(tree, write_decision(tmp_path / "run", gemma3=False, llama4=True))
    assert result.exit_code == 0, result.output
    assert "no test in src/server/batch/scheduler_real_batch_parity_tests.rs runs gemma-3-1b-it-4bit" in result.output
    assert "runs gemma-3-1b-it-4bit, so none was updated." in (tree / "docs/CONTINUOUS_BATCHING.md").read_text()


def _no_data(decision: Path, family: str) -> None:
    document = json.loads(decision.read_text())
    entry = document["families"][family]
    entry.update(supports_paged_decode_backend=True, statistics_flag=True,
                 notes=["no cell has a complete round: the flag stays true for lack of data"],
                 reason="dense clears the null spread upward in no cell; paged is faster beyond it in no cell; "
                        "so the flag stays true")  # fmt: skip
    entry["cells"] = [{**_cell(512, 4, 0.0, 0.0, "no-data"), "rounds": [], "paired_deltas": [], "null_deltas": [],
                       "median_paired_delta": None, "null_spread": None, "ci95": None}]  # fmt: skip
    decision.write_text(json.dumps(document))


def test_a_family_without_data_is_refused_and_gets_no_comment(tree: Path, tmp_path: Path) -> None:
    """Issue 24, point 2: a decision with no complete cell flips nothing and cites nothing."""
    decision = write_decision(tmp_path / "run", gemma3=False, llama4=True)
    _no_data(decision, "gemma3")
    before = {p: (tree / p).read_bytes() for p in ("src/models/gemma3.rs", "src/models/llama4.rs")}
    result = _apply(tree, decision)
    assert result.exit_code == 1
    assert (
        "src/models/gemma3.rs: the decision has no complete cell for gemma3 (models/mlx/gemma-3-1b-it-4bit): "
        "no cell has a complete round: the flag stays true for lack of data; "
        "Gemma3Wrapper::supports_paged_decode_backend is left as it is"
    ) in result.output
    assert "plan refused" in result.output
    assert {p: (tree / p).read_bytes() for p in before} == before
    dry = _apply(tree, decision, "--dry-run")
    assert "Decided by measurement: paged decode storage for Gemma 3" not in dry.stdout
    assert "Decided by measurement: paged decode storage for Llama 4" in dry.stdout


def test_a_results_document_the_tree_does_not_hold_is_refused(tmp_path: Path) -> None:
    tree = copy_fixture(tmp_path / "mlxcel-mini")
    before = (tree / "src/models/gemma3.rs").read_bytes()
    result = _apply(tree, write_decision(tmp_path / "run", gemma3=False, llama4=True))
    assert result.exit_code == 1
    assert (
        f"{DOCUMENT}: the decision cites {DOCUMENT}, which this tree does not hold: write the report into the "
        "tree (`paged-bench report bench/out/test --out ROOT/"
    ) in result.output
    assert (tree / "src/models/gemma3.rs").read_bytes() == before


def test_keeping_paged_after_a_dense_decision_refuses_the_stale_tests(tree: Path, tmp_path: Path) -> None:
    assert _apply(tree, write_decision(tmp_path / "run", gemma3=False, llama4=True)).exit_code == 0
    back = _apply(tree, write_decision(tmp_path / "run-2", gemma3=True, llama4=True))
    assert back.exit_code == 1
    assert (
        "gemma3_wrapper_flag_resolves_to_dense_at_parallel_8 asserts Gemma 3 resolves to dense, which this "
        "decision undoes"
    ) in back.output


def test_a_wrapper_without_an_inherent_impl_gets_one_for_the_constant(tree: Path, tmp_path: Path) -> None:
    llama4 = tree / "src/models/llama4.rs"
    source = llama4.read_text()
    start = source.index("impl Llama4Wrapper {")
    end = source.index("\n}\n", start) + 3
    llama4.write_text(source[:start] + source[end:].lstrip("\n"))
    result = _apply(tree, write_decision(tmp_path / "run", gemma3=True, llama4=False))
    assert result.exit_code == 0, result.output
    text = llama4.read_text()
    assert "impl Llama4Wrapper {\n    /// What `supports_paged_decode_backend` returns for Llama 4" in text
    assert "    pub(crate) const SUPPORTS_PAGED_DECODE_BACKEND: bool = false;\n}\n\n" in text
    assert _apply(tree, write_decision(tmp_path / "run", gemma3=True, llama4=False), "--dry-run").stdout == ""


def test_the_recipe_knows_the_families_paged_bench_measures() -> None:
    from codemods.recipes.mlxcel.flag_sites import FAMILIES
    from interchange.decision import KNOWN_FAMILIES

    assert tuple(FAMILIES) == KNOWN_FAMILIES


def test_missing_decision_is_a_usage_error(tree: Path) -> None:
    result = CliRunner().invoke(main, ["apply", "--recipe", "paged-flag", str(tree)])
    assert result.exit_code == 2
    assert "needs --decision" in result.output


def test_decision_not_matching_the_schema_is_a_usage_error(tree: Path, tmp_path: Path) -> None:
    decision = write_decision(tmp_path / "run", gemma3=False, llama4=True)
    document = json.loads(decision.read_text())
    del document["families"]["gemma3"]["cells"][0]["null_spread"]
    decision.write_text(json.dumps(document))
    result = _apply(tree, decision)
    assert result.exit_code == 2
    assert "does not match its schema" in result.output and "null_spread" in result.output


def _refusal(tree: Path, tmp_path: Path) -> str:
    before = (tree / "src/models/gemma3.rs").read_bytes()
    result = _apply(tree, write_decision(tmp_path / "run", gemma3=False, llama4=True))
    assert result.exit_code == 1
    assert (tree / "src/models/gemma3.rs").read_bytes() == before
    return result.output


def test_reading_the_decision_loads_neither_analysis_nor_its_runner(tmp_path: Path) -> None:
    decision = write_decision(tmp_path / "run", gemma3=False, llama4=True)
    script = (
        "import sys\n"
        "from codemods.recipes.mlxcel import paged_flag\n"
        f"document = paged_flag.load_decision({str(decision)!r})\n"
        "print(type(document).__name__, [f.supports_paged_decode_backend for f in document.families])\n"
        "print(sorted(m for m in ('http.client', 'socket', 'analysis') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["DecisionDocument [False, True]", "[]"]


def test_every_resolver_argument_is_derived_from_the_tree(tree: Path, tmp_path: Path) -> None:
    assert _apply(tree, write_decision(tmp_path / "run", gemma3=False, llama4=True)).exit_code == 0
    test = (tree / "src/server/batch/scheduler/mod.rs").read_text().split("fn gemma3_auto_and_paged")[1]
    # supports_batching is what Gemma3Wrapper::supports_batching returns; the flag is the decided value.
    assert "let supports_batching = true;\n        let supports_paged_decode_backend = false;" in test
    assert (
        "effective_decode_storage_backend(\n                    requested,\n                    8,\n"
        "                    supports_batching,\n                    supports_paged_decode_backend\n"
    ) in test


def test_a_wrapper_value_it_cannot_read_is_refused(tree: Path, tmp_path: Path) -> None:
    gemma3 = tree / "src/models/gemma3.rs"
    gemma3.write_text(
        gemma3.read_text().replace(
            "    fn supports_batching(&self) -> bool {\n        true\n    }",
            "    fn supports_batching(&self) -> bool {\n        !self.model_path.is_empty()\n    }",
            1,
        )
    )
    assert "cannot determine what Gemma3Wrapper::supports_batching returns (parameter `supports_batching`)" in _refusal(
        tree, tmp_path
    )


def test_a_resolver_argument_that_is_not_a_model_method_is_refused(tree: Path, tmp_path: Path) -> None:
    main = tree / "src/main.rs"
    main.write_text(main.read_text().replace("        wrapper.supports_batching(),\n", "        args.parallel > 1,\n"))
    assert "cannot supply parameter `supports_batching: bool` (its call sites pass no model method)" in _refusal(
        tree, tmp_path
    )


def test_a_resolver_the_flag_does_not_reach_is_refused(tree: Path, tmp_path: Path) -> None:
    main = tree / "src/main.rs"
    main.write_text(
        main.read_text().replace("wrapper.supports_paged_decode_backend(),", "wrapper.supports_batching(),")
    )
    assert "no argument of effective_decode_storage_backend comes from supports_paged_decode_backend()" in _refusal(
        tree, tmp_path)  # fmt: skip


def test_a_method_body_that_is_not_a_literal_is_refused(tree: Path, tmp_path: Path) -> None:
    llama4 = tree / "src/models/llama4.rs"
    source = llama4.read_text()
    assert "    fn supports_paged_decode_backend(&self) -> bool {\n        true\n    }" in source
    llama4.write_text(
        source.replace(
            "    fn supports_paged_decode_backend(&self) -> bool {\n        true\n    }",
            '    fn supports_paged_decode_backend(&self) -> bool {\n        self.model_path.contains("4bit")\n    }',
        )
    )
    result = _apply(tree, write_decision(tmp_path / "run", gemma3=True, llama4=False))
    assert result.exit_code == 1
    assert "Llama4Wrapper::supports_paged_decode_backend body is not a single true/false" in result.output


@pytest.mark.cargo
@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_flipped_fixture_builds_passes_and_logs_dense(tmp_path: Path) -> None:
    root = with_document(copy_fixture(tmp_path / "flipped"))
    write_offline_cargo_config(root)
    assert _apply(root, write_decision(tmp_path / "run", gemma3=False, llama4=True)).exit_code == 0
    cargo(root, "fmt", "--all", "--", "--check")
    cargo(root, "clippy", "--workspace", "--all-targets", "--", "-D", "warnings")
    tests = cargo(root, "test", "--workspace")
    assert "gemma3_auto_and_paged_resolve_to_dense_at_parallel_8 ... ok" in tests.stdout
    serve = cargo(
        root, "run", "-q", "--bin", "mlxcel", "--", "serve", "--parallel", "8", "-m", "models/mlx/gemma-3-1b-it-4bit"
    )
    assert "decode storage backend: dense (requested auto, parallel 8" in serve.stderr

    # The flag decides the generated test: left true, the same test fails.
    scheduler = root / "src/server/batch/scheduler/mod.rs"
    generated = scheduler.read_text()
    assert generated.count("let supports_paged_decode_backend = false;") == 1
    scheduler.write_text(
        generated.replace("let supports_paged_decode_backend = false;", "let supports_paged_decode_backend = true;")
    )
    left_true = cargo(root, "test", "-p", "mlxcel", "--lib", "gemma3_auto_and_paged", check=False)
    assert left_true.returncode != 0
    assert "gemma3_auto_and_paged_resolve_to_dense_at_parallel_8 ... FAILED" in left_true.stdout
    assert " left: Paged\n right: Dense" in left_true.stdout

    # The wrapper's own answer decides the second test: setting the wrapper back to paged fails it.
    scheduler.write_text(generated)
    gemma3 = root / "src/models/gemma3.rs"
    flipped = gemma3.read_text()
    assert flipped.count("const SUPPORTS_PAGED_DECODE_BACKEND: bool = false;") == 1
    gemma3.write_text(
        flipped.replace(
            "const SUPPORTS_PAGED_DECODE_BACKEND: bool = false;", "const SUPPORTS_PAGED_DECODE_BACKEND: bool = true;"
        )
    )
    wrapper_true = cargo(root, "test", "-p", "mlxcel", "--lib", "gemma3_", check=False)
    assert wrapper_true.returncode != 0
    assert "gemma3_wrapper_flag_resolves_to_dense_at_parallel_8 ... FAILED" in wrapper_true.stdout
    assert "gemma3_auto_and_paged_resolve_to_dense_at_parallel_8 ... ok" in wrapper_true.stdout


def test_decision_may_be_the_run_folder_and_an_unknown_family_is_a_note_of_the_decision(
    tree: Path, tmp_path: Path
) -> None:
    """Issue 23, point 10: `--decision RUN_DIR` reads RUN_DIR/decision.json; a family the recipe
    does not know is a note about the decision, attributed to no file of the tree."""
    decision = write_decision(tmp_path / "run", gemma3=False, llama4=True)
    document = json.loads(decision.read_text())
    document["families"]["mistral"] = document["families"]["llama4"]
    decision.write_text(json.dumps(document))
    result = _apply(tree, decision.parent, "--dry-run")
    assert result.exit_code == 0, result.output
    assert (
        "the decision names family 'mistral', which this recipe does not know (known: gemma3, llama4) (note)"
        in result.stderr.splitlines()
    )
    assert "CONTINUOUS_BATCHING.md: the decision" not in result.stderr
    empty = tmp_path / "empty-run"
    empty.mkdir()
    refused = _apply(tree, empty, "--dry-run")
    assert refused.exit_code == 2
    assert refused.stderr.splitlines() == [
        f"codemod: error: decision: {empty} is a folder without decision.json; "
        f"give the run folder `paged-bench report` wrote, or its decision.json"
    ]
