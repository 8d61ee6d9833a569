"""Imperfect run folders: each problem is reported, none crashes, the rest still decides."""

import json

import pytest

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
    folder = write_run_folder(tmp_path, _aggregates(), stdout_override={key: text[: text.index("\n   8 ") + 8]})
    decision = decide_run_folder(folder)
    truncated = [p for p in decision.problems if p.kind == "truncated-output"]
    assert len(truncated) == 1
    assert truncated[0].message.startswith("runs.jsonl:1: stdout/gemma3-p512-r1-paged.txt:")
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


def test_documented_fields_alone_decide_as_the_runner_records_do(tmp_path):
    from analysis._run_folder import DOCUMENTED_FIELDS

    full = decide_run_folder(write_run_folder(tmp_path / "full", _aggregates()))
    folder = write_run_folder(tmp_path / "documented", _aggregates(), documented_only=True)
    first = (folder / "runs.jsonl").read_text().splitlines()[0]
    assert set(json.loads(first)) == set(DOCUMENTED_FIELDS)
    documented = decide_run_folder(folder)
    assert documented.problems == ()
    assert [f.supports_paged_decode_backend for f in documented.families] == [False]
    assert documented.families == full.families


def test_status_is_derived_from_exit_code_and_output_when_absent(tmp_path):
    overrides = {("gemma3", 512, 1, "dense"): {"exit_code": 1}, ("gemma3", 512, 2, "dense"): {"exit_code": None}}
    folder = write_run_folder(tmp_path, _aggregates(), records_override=overrides, documented_only=True,
                              fails={("gemma3", 512, 3, "paged"): {8: 1}})  # fmt: skip
    decision = decide_run_folder(folder)
    messages = {p.kind: p.message for p in decision.problems}
    assert messages["bench-failed"].startswith("runs.jsonl:")
    assert {p.message.split(": ", 1)[1] for p in decision.problems if p.kind == "bench-failed"} == {
        "bench exited with 1",
        "no exit_code recorded: the bench did not finish",
    }
    assert messages["failed-requests"].startswith("runs.jsonl:") and "stdout/gemma3-p512-r3-paged.txt" in messages[
        "failed-requests"]  # fmt: skip
    assert "None" not in " ".join(p.message for p in decision.problems)


def test_every_problem_about_a_run_names_its_line_in_runs_jsonl(tmp_path):
    aggregates = _aggregates()
    del aggregates[("gemma3", 512, 2, "dense")]
    overrides = {("gemma3", 512, 1, "dense"): {"status": "server-failed", "exit_code": None,
                                               "message": "server exited with 3", "server_log": "server-logs/x.log"},
                 ("gemma3", 512, 3, "paged"): {"server_backend": "dense"}}  # fmt: skip
    folder = write_run_folder(tmp_path, aggregates, records_override=overrides,
                              stdout_override={("gemma3", 512, 1, "paged"): "no table\n"})  # fmt: skip
    with (folder / "runs.jsonl").open("a") as stream:
        stream.write('{"family": "gemma3", "arm": "sideways", "prompt_tokens": 512, "round": 1}\n')
    decision = decide_run_folder(folder)
    per_run = [p for p in decision.problems if p.kind not in ("missing-run", "no-data", "incomplete-round")]
    assert {p.kind for p in per_run} == {"server-failed", "backend-mismatch", "malformed-output", "unreadable-record"}
    assert all(p.message.startswith("runs.jsonl:") for p in per_run), [p.message for p in per_run]
    assert "(server log server-logs/x.log)" in next(p.message for p in per_run if p.kind == "server-failed")
    assert any(p.kind == "missing-run" and "runs.jsonl" in p.message for p in decision.problems)
    assert all("runs.jsonl:" in p.message for p in decision.problems if p.kind == "incomplete-round")


def test_a_dense_arm_that_launched_paged_kernels_is_left_out(tmp_path):
    folder = write_run_folder(tmp_path, _aggregates(), documented_only=True, paged_launches={"paged": 0, "dense": 26})
    decision = decide_run_folder(folder)
    mismatches = [p for p in decision.problems if p.kind == "backend-mismatch"]
    assert len(mismatches) == 3 and all(p.arm == "dense" for p in mismatches)
    assert "launched 26 paged-attention kernels at concurrency 1" in mismatches[0].message
    assert decision.families[0].supports_paged_decode_backend is True


@pytest.mark.parametrize("value", ["v0.29.1", 7, 1.5, True, None, [], ["a", 1], {"pin": 3}, {}, "", [[1]]])
def test_host_json_values_of_any_type_never_crash_the_report(tmp_path, value):
    from click.testing import CliRunner

    from analysis.cli import main

    folder = write_run_folder(tmp_path / "run", _aggregates(), documented_only=True)
    host = {key: value for key in ("mlx_pin", "gpu", "cpu", "hostname", "commit", "dirty", "repo",
                                   "serve_template", "bench_template", "tool_version", "command_line",
                                   "invocations")}  # fmt: skip
    (folder / "host.json").write_text(json.dumps(host))
    document = tmp_path / "repo" / "docs" / "benchmark_results" / "r.md"
    result = CliRunner().invoke(main, ["report", str(folder), "--out", str(document)])
    assert result.exit_code == 0, result.output
    assert "MLX pin: " in document.read_text()
    (folder / "host.json").write_text(json.dumps(value))
    assert CliRunner().invoke(main, ["report", str(folder), "--out", str(document)]).exit_code == 0
