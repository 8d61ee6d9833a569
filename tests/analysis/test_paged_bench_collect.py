"""Imperfect run folders: each problem is reported, none crashes, the rest still decides."""

from analysis._collect import decide_run_folder
from paged_bench_helpers import bench_stdout, cells_from_ratios, write_run_folder

DENSE_5PCT = [(1.05, 1.01), (1.06, 0.995), (1.04, 1.008)]


def _aggregates():
    return cells_from_ratios("gemma3", {(512, 1): DENSE_5PCT, (512, 8): DENSE_5PCT})


def _kinds(decision):
    return sorted({p.kind for p in decision.problems})


def test_missing_round_is_reported_and_left_out(tmp_path):
    aggregates = _aggregates()
    del aggregates[("gemma3", 512, 2, "dense")]
    decision = decide_run_folder(write_run_folder(tmp_path, aggregates))
    assert "missing-run" in _kinds(decision)
    missing = [p for p in decision.problems if p.kind == "missing-run"]
    assert [(p.round, p.arm) for p in missing] == [(2, "dense")]
    (family,) = decision.families
    assert all(c.rounds == (1, 3) for c in family.cells)
    assert all(c.inconclusive for c in family.cells)  # only 2 complete rounds


def test_failed_requests_are_reported_and_that_level_left_out(tmp_path):
    key = ("gemma3", 512, 3, "paged-null")
    folder = write_run_folder(tmp_path, _aggregates(), fails={key: {8: 2}})
    decision = decide_run_folder(folder)
    failed = [p for p in decision.problems if p.kind == "failed-requests"]
    assert len(failed) == 1 and failed[0].concurrency == 8 and "2 of 8 requests failed" in failed[0].message
    cells = {c.concurrency: c for c in decision.families[0].cells}
    assert cells[1].rounds == (1, 2, 3)
    assert cells[8].rounds == (1, 2)
    assert any(p.kind == "incomplete-round" and p.concurrency == 8 for p in decision.problems)


def test_truncated_output_is_reported_naming_the_file(tmp_path):
    key = ("gemma3", 512, 1, "paged")
    text = bench_stdout({1: 1000.0, 8: 1000.0})
    folder = write_run_folder(tmp_path, _aggregates(), stdout_override={key: text[: text.index("\n8 ") + 5]})
    decision = decide_run_folder(folder)
    truncated = [p for p in decision.problems if p.kind == "truncated-output"]
    assert len(truncated) == 1
    assert "stdout/gemma3-p512-r1-paged.txt" in truncated[0].message
    assert decision.families[0].cells[0].rounds == (2, 3)


def test_table_missing_a_level_is_reported(tmp_path):
    key = ("gemma3", 512, 2, "dense")
    folder = write_run_folder(tmp_path, _aggregates(), stdout_override={key: bench_stdout({1: 1050.0})})
    decision = decide_run_folder(folder)
    assert any(p.kind == "truncated-output" and p.concurrency == 8 for p in decision.problems)


def test_server_failure_and_backend_mismatch_are_reported(tmp_path):
    overrides = {
        ("gemma3", 512, 1, "dense"): {"status": "server-failed", "exit_code": None, "message": "server exited with 3"},
        ("gemma3", 512, 2, "paged"): {"server_backend": "dense"},
    }
    decision = decide_run_folder(write_run_folder(tmp_path, _aggregates(), records_override=overrides))
    assert {"server-failed", "backend-mismatch"} <= set(_kinds(decision))
    assert decision.families[0].cells[0].rounds == (3,)


def test_unreadable_record_line_is_reported(tmp_path):
    folder = write_run_folder(tmp_path, _aggregates())
    with (folder / "runs.jsonl").open("a") as stream:
        stream.write('{"family": "gemma3", "mod')
    decision = decide_run_folder(folder)
    assert "unreadable-record" in _kinds(decision)
    assert decision.families[0].supports_paged_decode_backend is False


def test_decide_and_report_cli_on_a_synthetic_folder(tmp_path):
    from click.testing import CliRunner

    from analysis.cli import main

    folder = write_run_folder(tmp_path / "run", _aggregates())
    runner = CliRunner()
    text = runner.invoke(main, ["decide", str(folder)])
    assert text.exit_code == 0, text.output
    assert "gemma3 (models/gemma3): supports_paged_decode_backend = false" in text.output
    assert "p512 c8: median d +5.00%, null spread 1.00%, dense-faster" in text.output

    document = tmp_path / "repo" / "docs" / "benchmark_results" / "r.md"
    for arguments in (
        ["decide", str(tmp_path)],
        ["report", str(folder), "--out", str(document.with_suffix(".txt"))],
        ["report", str(folder), "--out", str(document), "--repo", str(folder)],
    ):
        assert runner.invoke(main, arguments).exit_code == 2, arguments
    assert not document.exists()
    written = runner.invoke(main, ["report", str(folder), "--out", str(document)])
    assert written.exit_code == 0, written.output
    assert "| 8 | 3 | 1000.0 | 1050.0 | +5.00% | 1.00% | dense-faster |" in document.read_text()
