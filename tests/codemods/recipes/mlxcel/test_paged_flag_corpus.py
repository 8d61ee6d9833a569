"""Part (b) on the real mlxcel tree: report on measurements in the real script's format, then flip a copy.

The tree (../shared/corpora) has the older layout: `src/server/batch/scheduler.rs`
with the 4-parameter resolver and its tests in `scheduler_tests.rs`, which is
not rustfmt-clean before any edit, so edits are judged by the hunks they add.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from analysis.cli import main as paged_bench
from codemods.parse import RUST, parse
from codemods.cli.main import main as codemod
from codemods.languages.rust.items import leading_trivia, rust_items

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "analysis"))
from paged_bench_helpers import cells_from_ratios, write_run_folder
from write_trees import snapshot

DOCUMENT = "docs/benchmark_results/paged-vs-dense-synthetic-2026-11-30.md"
WRAPPERS = {"src/models/gemma3.rs": "Gemma3Wrapper", "src/models/llama4.rs": "Llama4Wrapper"}
TESTS = "src/server/batch/scheduler_tests.rs"
EXPECTED_CHANGES = {*WRAPPERS, TESTS, "docs/CONTINUOUS_BATCHING.md"}
LEVELS = (1, 4, 8)
DENSE_5PCT = [(1.05, 1.01), (1.06, 0.995), (1.04, 1.008), (1.05, 0.99), (1.055, 1.004)]
NOISE = [(1.002, 1.01), (0.995, 0.99), (1.004, 1.008), (0.998, 0.992), (1.001, 1.004)]

pytestmark = pytest.mark.skipif(shutil.which("rustfmt") is None, reason="rustfmt is not installed")


def _measurements(folder: Path) -> Path:
    """Five rounds per family and prompt length, written as the real script prints with --metrics."""
    aggregates = {}
    for family, ratios in (("gemma3", DENSE_5PCT), ("llama4", NOISE)):
        cells = {(prompt, conc): ratios for prompt in (512, 4096) for conc in LEVELS}
        aggregates.update(cells_from_ratios(family, cells))
    return write_run_folder(folder, aggregates, documented_only=True, paged_launches={"paged": 26, "dense": 0})


def _rustfmt_hunks(source: bytes) -> int:
    """How many hunks `rustfmt --check` would change (stdin, so no module is followed)."""
    result = subprocess.run(
        ["rustfmt", "--check", "--edition", "2024"], input=source, capture_output=True,
        env={**os.environ, "RUSTUP_TOOLCHAIN": "stable"},
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr.decode()
    return result.stdout.count(b"Diff in ")


def _without_method(source: bytes, wrapper: str, method: str) -> bytes:
    """The file with `method` of the trait impl for `wrapper` (docs included) cut out, and the
    wrapper's SUPPORTS_PAGED_DECODE_BACKEND constant (with its docs and the blank line after it)."""
    items = rust_items(source, parse(source, RUST))
    impl = next(i for i in items if i.kind == "impl" and i.name == wrapper and i.trait is not None)
    (found,) = [i for i in items if i.kind == "fn" and i.name == method and i.module_path[-1:] == (wrapper,)
                and impl.node.start_byte <= i.node.start_byte < impl.node.end_byte]  # fmt: skip
    method_start, _ = leading_trivia(source, found.node)
    cut = source[:method_start] + source[found.node.end_byte :]
    constant = [i for i in items if i.kind == "const" and i.name == "SUPPORTS_PAGED_DECODE_BACKEND"]
    if not constant:
        return cut
    (constant,) = constant
    start = source.rfind(b"\n", 0, leading_trivia(source, constant.node)[0]) + 1
    end = source.find(b"\n", constant.node.end_byte) + 1
    end += 1 if source[end : end + 1] == b"\n" else 0
    return source[:start] + source[end:method_start] + source[found.node.end_byte :]


def _item_text(source: bytes, kind: str, name: str) -> str:
    """The text of the item `name` of `kind`, with its attributes and doc comments."""
    (found,) = [i for i in rust_items(source, parse(source, RUST)) if i.kind == kind and i.name == name]
    return source[found.start : found.end].decode()


def _run_extracted_test(tmp_path: Path, pieces: list[str], name: str) -> subprocess.CompletedProcess:
    """Compile `pieces` (the tree's own items) as one test crate with rustc and run its test `name`."""
    folder = tmp_path / f"extracted-{len(list(tmp_path.glob('extracted-*')))}"
    folder.mkdir()
    (folder / "lib.rs").write_text("#![allow(dead_code)]\n\n" + "\n\n".join(pieces) + "\n")
    env = {**os.environ, "RUSTUP_TOOLCHAIN": "stable"}
    built = subprocess.run(["rustc", "--edition", "2021", "--test", "lib.rs", "-o", "tests"], cwd=folder,
                           capture_output=True, text=True, env=env)  # fmt: skip
    assert built.returncode == 0, built.stderr
    return subprocess.run([str(folder / "tests"), "--exact", name], capture_output=True, text=True, env=env)


def test_report_then_flip_a_copy_of_the_real_tree(tmp_path, corpus):
    tree = tmp_path / "mlxcel"
    shutil.copytree(corpus, tree, symlinks=True)
    run = _measurements(tmp_path / "run")

    reported = CliRunner().invoke(paged_bench, ["report", str(run), "--out", str(tree / DOCUMENT)])
    assert reported.exit_code == 0, reported.output
    assert "gemma3 (models/gemma3): supports_paged_decode_backend = false" in reported.output
    assert "llama4 (models/llama4): supports_paged_decode_backend = true" in reported.output
    assert "gemma3 p512 dense: c1 0, c4 0, c8 0" in reported.output
    text = (tree / DOCUMENT).read_text()
    assert (
        "## Decode paths and batch counters" in text and "| gemma3 | 512 | paged | 8 | 5 | 26 | paged kernels |" in text
    )
    decision = run / "decision.json"
    assert json.loads(decision.read_text())["results_document"] == DOCUMENT

    before = snapshot(tree)
    flip = ["apply", "--recipe", "paged-flag", "--decision", str(decision), str(tree)]
    applied = CliRunner().invoke(codemod, flip)
    assert applied.exit_code == 0, applied.output
    after = snapshot(tree)
    assert set(after) == set(before)
    assert {path for path in after if after[path] != before[path]} == EXPECTED_CHANGES

    for path, wrapper in WRAPPERS.items():
        assert _without_method(after[path], wrapper, "supports_paged_decode_backend") == _without_method(
            before[path], wrapper, "supports_paged_decode_backend"), path  # fmt: skip
    gemma3 = after["src/models/gemma3.rs"].decode()
    assert (
        "    fn supports_paged_decode_backend(&self) -> bool {\n        Self::SUPPORTS_PAGED_DECODE_BACKEND\n    }"
        in gemma3
    )
    assert "impl Gemma3Wrapper {\n    /// What `supports_paged_decode_backend` returns for Gemma 3" in gemma3
    assert DOCUMENT.encode() in after["src/models/llama4.rs"]
    # This tree has no engine-parity test: a note says so, and so do both texts; none claims an n/a row.
    assert (
        "src/server/batch/scheduler_real_batch_parity_tests.rs: not in this tree: no engine-parity test to "
        "move onto dense for Gemma 3; the texts say so (note)"
    ) in applied.output
    prose = " ".join(line.strip().removeprefix("/// ") for line in gemma3.splitlines())
    batching = " ".join(after["docs/CONTINUOUS_BATCHING.md"].decode().split())
    for text in (prose, batching):
        assert (
            "This tree has no engine-parity test (`src/server/batch/scheduler_real_batch_parity_tests.rs`), "
            "so no parity row was updated."
        ) in text
        assert "reports n/a" not in text

    generated = after[TESTS][len(before[TESTS]) :].decode()
    assert before[TESTS] == after[TESTS][: len(before[TESTS])]
    assert "fn gemma3_auto_and_paged_resolve_to_dense_at_parallel_8() {\n" in generated
    assert (
        "fn gemma3_wrapper_flag_resolves_to_dense_at_parallel_8() {\n    let supports_batching = true;\n"
        "    let supports_paged_decode_backend =\n"
        "        crate::models::gemma3::Gemma3Wrapper::SUPPORTS_PAGED_DECODE_BACKEND;\n"
    ) in generated
    # supports_batching: what Gemma3Wrapper::supports_batching returns; the flag: the decision.
    assert "    let supports_batching = true;\n    let supports_paged_decode_backend = false;\n" in generated
    assert (
        "            effective_decode_storage_backend(\n                requested,\n                8,\n"
        "                supports_batching,\n                supports_paged_decode_backend\n"
    ) in generated
    for path in (*WRAPPERS, TESTS):
        assert _rustfmt_hunks(after[path]) == _rustfmt_hunks(before[path]), path
    assert _rustfmt_hunks(before[TESTS]) > 0  # the tree's own formatting debt is left alone

    again = CliRunner().invoke(codemod, [*flip[:-1], "--dry-run", str(tree)])
    assert again.exit_code == 0 and again.stdout == ""
    assert snapshot(tree) == after

    # The generated test, run against the tree's own resolver and backend enum (the crate needs MLX to
    # build, so those three items are compiled alone): it passes with the decision's flag, and
    # fails when the flag is left true, so it asserts the family's flag and nothing else.
    if shutil.which("rustc") is None:
        pytest.skip("rustc is not installed: the generated test was not compiled against the tree's resolver")
    name = "gemma3_auto_and_paged_resolve_to_dense_at_parallel_8"
    pieces = [
        _item_text(after["src/server/config.rs"], "enum", "DecodeStorageBackend"),
        _item_text(after["src/server/batch/scheduler.rs"], "fn", "effective_decode_storage_backend"),
        _item_text(after[TESTS], "test", name),
    ]
    assert "let supports_paged_decode_backend = false;" in pieces[2]
    passed = _run_extracted_test(tmp_path, pieces, name)
    assert passed.returncode == 0 and f"test {name} ... ok" in passed.stdout, passed.stdout + passed.stderr
    left_true = pieces[:2] + [
        pieces[2].replace("let supports_paged_decode_backend = false;", "let supports_paged_decode_backend = true;")
    ]
    failed = _run_extracted_test(tmp_path, left_true, name)
    assert failed.returncode != 0 and f"test {name} ... FAILED" in failed.stdout, failed.stdout + failed.stderr
    assert "left: Paged" in failed.stdout and "right: Dense" in failed.stdout, failed.stdout

    # The second test reads the flag from the tree's own Gemma3Wrapper constant (the wrapper itself needs
    # MLX, so a stand-in struct carries the tree's constant at the module path the test names): it passes
    # as flipped and fails once the wrapper says true again.
    name = "gemma3_wrapper_flag_resolves_to_dense_at_parallel_8"
    constant = _item_text(after["src/models/gemma3.rs"], "const", "SUPPORTS_PAGED_DECODE_BACKEND")
    wrapper = (
        "pub mod models {\n    pub mod gemma3 {\n        pub struct Gemma3Wrapper;\n"
        f"        impl Gemma3Wrapper {{\n{constant}\n        }}\n    }}\n}}"
    )
    pieces = pieces[:2] + [wrapper, _item_text(after[TESTS], "test", name)]
    passed = _run_extracted_test(tmp_path, pieces, name)
    assert passed.returncode == 0 and f"test {name} ... ok" in passed.stdout, passed.stdout + passed.stderr
    wrapper_true = pieces[:2] + [wrapper.replace("bool = false;", "bool = true;"), pieces[3]]
    failed = _run_extracted_test(tmp_path, wrapper_true, name)
    assert failed.returncode != 0 and f"test {name} ... FAILED" in failed.stdout, failed.stdout + failed.stderr
