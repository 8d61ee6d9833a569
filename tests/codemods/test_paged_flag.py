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
        "prompt_tokens": prompt_tokens, "concurrency": concurrency, "rounds": [1, 2, 3],
        "paired_deltas": [delta] * 3, "null_deltas": [spread, -spread, spread],
        "median_paired_delta": delta, "null_spread": spread, "verdict": verdict,
        "median_paged_tok_s": 100.0, "median_dense_tok_s": 100.0 * (1 + delta),
        "mean_paired_delta": delta, "ci95": [delta - 0.01, delta + 0.01],
        "rounds_favouring_dense": 3 if delta > 0 else 0, "rounds_to_resolve": 2,
        "statistics_verdict": "unresolved", "inconclusive": False, "notes": [],
    }


def write_decision(folder: Path, gemma3: bool, llama4: bool) -> Path:
    def family(model: str, flag: bool) -> dict:
        cells = [_cell(512, 4, 0.05, 0.01, "dense-faster")] if not flag else [_cell(512, 4, 0.001, 0.01, "within-noise")]
        reason = ("dense clears the null spread upward in p512/c4; paged is faster beyond it in no cell"
                  if not flag else "no cell clears the null spread")
        return {"model": model, "supports_paged_decode_backend": flag, "reason": reason,
                "statistics_flag": flag, "notes": [], "cells": cells}

    document = {
        "schema": "paged-bench-decision/1", "run_dir": "bench/out/test", "rounds_planned": 3, "rule": "seed (b)",
        "results_document": DOCUMENT,
        "families": {"gemma3": family("models/mlx/gemma-3-1b-it-4bit", gemma3),
                     "llama4": family("models/mlx/llama-4-scout-17b-16e-instruct-4bit", llama4)},
        "problems": [],
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "decision.json"
    path.write_text(json.dumps(document, indent=2))
    return path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path / "mlxcel-mini")


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
    assert "fn supports_paged_decode_backend(&self) -> bool {\n        false\n    }" in wrapper_impl
    assert DOCUMENT in wrapper_impl and "resolves to dense" in wrapper_impl and "n/a" in wrapper_impl
    assert gemma3.split("impl ModelWrapper for Gemma3VisionWrapper")[1] == vision_before
    llama4 = (tree / "src/models/llama4.rs").read_text()
    assert "-> bool {\n        true\n    }" in llama4 and DOCUMENT in llama4
    scheduler = (tree / "src/server/batch/scheduler/mod.rs").read_text()
    assert "fn gemma3_auto_and_paged_resolve_to_dense_at_parallel_8()" in scheduler
    assert "llama4_auto" not in scheduler
    batching = (tree / "docs/CONTINUOUS_BATCHING.md").read_text()
    assert "| Gemma 3 | false |" in batching and "| Llama 4 | true |" in batching
    assert {p.name: p.read_bytes() for p in (tree / "docs" / "adr").iterdir()} == adr

    again = _apply(tree, decision, "--dry-run")
    assert again.exit_code == 0
    assert again.stdout == ""


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
    assert ("effective_decode_storage_backend(\n                    requested,\n                    8,\n"
            "                    supports_batching,\n                    supports_paged_decode_backend\n") in test


def test_a_wrapper_value_it_cannot_read_is_refused(tree: Path, tmp_path: Path) -> None:
    gemma3 = tree / "src/models/gemma3.rs"
    gemma3.write_text(gemma3.read_text().replace(
        "    fn supports_batching(&self) -> bool {\n        true\n    }",
        "    fn supports_batching(&self) -> bool {\n        !self.model_path.is_empty()\n    }", 1))
    assert ("cannot determine what Gemma3Wrapper::supports_batching returns (parameter `supports_batching`)"
            in _refusal(tree, tmp_path))


def test_a_resolver_argument_that_is_not_a_model_method_is_refused(tree: Path, tmp_path: Path) -> None:
    main = tree / "src/main.rs"
    main.write_text(main.read_text().replace("        wrapper.supports_batching(),\n", "        args.parallel > 1,\n"))
    assert ("cannot supply parameter `supports_batching: bool` (its call sites pass no model method)"
            in _refusal(tree, tmp_path))


def test_a_resolver_the_flag_does_not_reach_is_refused(tree: Path, tmp_path: Path) -> None:
    main = tree / "src/main.rs"
    main.write_text(main.read_text().replace("wrapper.supports_paged_decode_backend(),", "wrapper.supports_batching(),"))
    assert "no argument of effective_decode_storage_backend comes from supports_paged_decode_backend()" in _refusal(
        tree, tmp_path)  # fmt: skip


def test_a_method_body_that_is_not_a_literal_is_refused(tree: Path, tmp_path: Path) -> None:
    llama4 = tree / "src/models/llama4.rs"
    source = llama4.read_text()
    assert "    fn supports_paged_decode_backend(&self) -> bool {\n        true\n    }" in source
    llama4.write_text(source.replace(
        "    fn supports_paged_decode_backend(&self) -> bool {\n        true\n    }",
        "    fn supports_paged_decode_backend(&self) -> bool {\n        self.model_path.contains(\"4bit\")\n    }"))
    result = _apply(tree, write_decision(tmp_path / "run", gemma3=True, llama4=False))
    assert result.exit_code == 1
    assert "Llama4Wrapper::supports_paged_decode_backend body is not a single true/false" in result.output


@pytest.mark.cargo
@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_flipped_fixture_builds_passes_and_logs_dense(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path / "flipped")
    write_offline_cargo_config(root)
    assert _apply(root, write_decision(tmp_path / "run", gemma3=False, llama4=True)).exit_code == 0
    cargo(root, "fmt", "--all", "--", "--check")
    cargo(root, "clippy", "--workspace", "--all-targets", "--", "-D", "warnings")
    tests = cargo(root, "test", "--workspace")
    assert "gemma3_auto_and_paged_resolve_to_dense_at_parallel_8 ... ok" in tests.stdout
    serve = cargo(root, "run", "-q", "--bin", "mlxcel", "--", "serve", "--parallel", "8",
                  "-m", "models/mlx/gemma-3-1b-it-4bit")
    assert "decode storage backend: dense (requested auto, parallel 8" in serve.stderr

    # The flag decides the generated test: left true, the same test fails.
    scheduler = root / "src/server/batch/scheduler/mod.rs"
    generated = scheduler.read_text()
    assert generated.count("let supports_paged_decode_backend = false;") == 1
    scheduler.write_text(generated.replace("let supports_paged_decode_backend = false;",
                                           "let supports_paged_decode_backend = true;"))
    left_true = cargo(root, "test", "-p", "mlxcel", "--lib", "gemma3_auto_and_paged", check=False)
    assert left_true.returncode != 0
    assert "gemma3_auto_and_paged_resolve_to_dense_at_parallel_8 ... FAILED" in left_true.stdout
    assert " left: Paged\n right: Dense" in left_true.stdout
