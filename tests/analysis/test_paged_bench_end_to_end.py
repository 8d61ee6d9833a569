"""paged-bench driving mlxcel's own bench script against fixtures/fake-serve: real processes, real HTTP.

The bench client is the real tree's ``scripts/bench_serving_concurrency.py``
(from ../shared/corpora, unpacked by the session's ``corpus`` fixture), run in
the tree as the default bench template does.
"""

import json
import signal
import shlex
import sys

from click.testing import CliRunner

from analysis.cli import main
from analysis import load_decision
from codemods.cli.main import main as codemod_main
from fixture_crate import cargo, copy_fixture, write_offline_cargo_config
from paged_bench_helpers import FAKE_SERVE, ROOT

PYTHON = shlex.quote(sys.executable)
SERVE = (
    f"{PYTHON} {FAKE_SERVE / 'fake_serve.py'} -m {{model}} --port {{port}} --metrics "
    "--parallel 8 --decode-storage-backend {backend}"
)
BENCH = (
    f"{PYTHON} scripts/bench_serving_concurrency.py --port {{port}} --concurrency 1,4,8 "
    "--prompt-tokens {prompt_tokens} --max-tokens 8"
)
SAMPLE = ROOT / "fixtures" / "bench-output" / "corpus-plain.txt"
# Prints a committed output of the real script: for tests about the runner, not the client.
REPLAY = f"{PYTHON} -c 'import sys; sys.stdout.write(open(sys.argv[1]).read())' {SAMPLE} {{port}} {{prompt_tokens}}"


def _run(out, *families, rounds=1, prompt_tokens="32", serve=SERVE, bench=BENCH, repo=ROOT):
    arguments = ["run", "--out", str(out), "--repo", str(repo), "--port", "0", "--rounds", str(rounds),
                 "--prompt-tokens", prompt_tokens, "--serve-cmd", serve, "--bench-cmd", bench,
                 "--startup-timeout", "120", "--stop-timeout", "10"]  # fmt: skip
    for family in families:
        arguments += ["--family", family]
    return CliRunner().invoke(main, arguments)


def _records(out):
    return [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]


def test_run_decide_report_end_to_end(tmp_path, corpus):
    out = tmp_path / "run"
    gemma = f"gemma3={FAKE_SERVE / 'models' / 'gemma3.json'}"
    llama = f"llama4={FAKE_SERVE / 'models' / 'llama4.json'}"
    result = _run(out, gemma, llama, rounds=3, prompt_tokens="32,64", repo=corpus)
    assert result.exit_code == 0, result.output
    assert "[36/36] llama4 p64 round 3 pos 3 dense: ok" in result.output

    records = _records(out)
    assert len(records) == 36
    for record in records:
        assert record["exit_code"] == 0 and record["status"] == "ok"
        assert record["port_freed"] is True
        assert record["server_backend"] == record["backend"]
        stdout = (out / record["stdout"]).read_text()
        assert "Concurrency:  [1, 4, 8]" in stdout and stdout.count(">>> concurrency=") == 3
        assert "decode storage backend:" in (out / record["server_log"]).read_text()
        assert set(record) >= {"family", "model", "prompt_tokens", "round", "position", "arm",
                               "command", "started_at", "exit_code", "stdout"}  # fmt: skip
    host = json.loads((out / "host.json").read_text())
    assert host["repo"] == str(corpus.resolve()) and host["command_line"][0] and host["tool_version"] == "0.1.0"
    assert "mlx_pin" in host and "gpu" in host and "cpu" in host

    decided = CliRunner().invoke(main, ["decide", str(out), "--json"])
    assert decided.exit_code == 0, decided.output
    decision = json.loads(decided.output)
    assert decision["results_document"] is None
    assert decision["families"]["gemma3"]["supports_paged_decode_backend"] is False
    assert decision["families"]["llama4"]["supports_paged_decode_backend"] is True
    assert len(decision["families"]["gemma3"]["cells"]) == 6

    repo = copy_fixture(tmp_path / "mlxcel")
    document = repo / "docs" / "benchmark_results" / "paged-vs-dense-fake-2026-11-30.md"
    reported = CliRunner().invoke(main, ["report", str(out), "--out", str(document)])
    assert reported.exit_code == 0, reported.output
    text = document.read_text()
    assert "| gemma3 |" in text and "`false`" in text and "### 64-token prompts" in text
    assert "![paired deltas against the null band](paged-vs-dense-fake-2026-11-30.png)" in text
    assert document.with_suffix(".png").read_bytes().startswith(b"\x89PNG")
    data = document.parent / "data" / document.stem
    for name in ("runs.jsonl", "host.json", "driver.sh", "decision.json"):
        assert (data / name).is_file(), name
    assert len(list((data / "stdout").iterdir())) == 36
    assert len(list((data / "server-logs").iterdir())) == 36
    assert "paged-bench run" in (data / "driver.sh").read_text()

    # The flag follows mechanically: the recipe applied to the fixture crate builds and passes.
    flag = ["apply", "--recipe", "paged-flag", "--decision", str(out / "decision.json"), str(repo)]
    applied = CliRunner().invoke(codemod_main, flag)
    assert applied.exit_code == 0, applied.output
    assert "docs/benchmark_results/paged-vs-dense-fake-2026-11-30.md" in (repo / "src/models/gemma3.rs").read_text()
    again = CliRunner().invoke(codemod_main, [*flag[:-1], "--dry-run", str(repo)])
    assert again.exit_code == 0 and again.stdout == ""
    write_offline_cargo_config(repo)
    tests = cargo(repo, "test", "--workspace")
    assert "gemma3_auto_and_paged_resolve_to_dense_at_parallel_8 ... ok" in tests.stdout
    serve = cargo(
        repo, "run", "-q", "--bin", "mlxcel", "--", "serve", "--parallel", "8", "-m", "models/mlx/gemma-3-1b-it-4bit"
    )
    assert "decode storage backend: dense" in serve.stderr
    written = load_decision(out / "decision.json")
    assert written.results_document == "docs/benchmark_results/paged-vs-dense-fake-2026-11-30.md"
    assert written.to_json()["families"] == decision["families"]


def test_resume_skips_finished_runs(tmp_path):
    out = tmp_path / "run"
    family = f"gemma3={FAKE_SERVE / 'models' / 'gemma3.json'}"
    assert _run(out, family, bench=REPLAY).exit_code == 0
    again = _run(out, family, bench=REPLAY)
    assert again.exit_code == 0
    assert again.output.count("already recorded ok, skipped") == 3
    assert len(_records(out)) == 3
    assert len(json.loads((out / "host.json").read_text())["invocations"]) == 2
    refused = CliRunner().invoke(main, ["run", "--out", str(out), "--family", family, "--no-resume"])
    assert refused.exit_code == 2 and "--no-resume" in refused.output


def test_resume_redoes_runs_recorded_with_another_model(tmp_path):
    out = tmp_path / "run"
    assert _run(out, f"gemma3={FAKE_SERVE / 'models' / 'gemma3.json'}", bench=REPLAY).exit_code == 0
    again = _run(out, f"gemma3={FAKE_SERVE / 'models' / 'llama4.json'}", bench=REPLAY)
    assert again.exit_code == 0
    assert "skipped" not in again.output
    assert [r["model"].rsplit("/", 1)[-1] for r in _records(out)] == ["gemma3.json"] * 3 + ["llama4.json"] * 3


def test_server_that_fails_to_start_is_recorded_and_reported(tmp_path):
    out = tmp_path / "run"
    result = _run(
        out,
        "gemma3=unused",
        serve=f"{PYTHON} -c 'import sys; sys.exit(3)' {{model}} {{port}} {{backend}}",
        bench=REPLAY,
    )
    assert result.exit_code == 1
    assert "0 of 3 runs ok" in result.output
    assert "server-failed: server exited with 3 before answering" in result.output
    assert [r["status"] for r in _records(out)] == ["server-failed"] * 3
    decided = CliRunner().invoke(main, ["decide", str(out)])
    assert decided.exit_code == 1
    assert "server-failed" in decided.output and "flag stays true" in decided.output

    # Issue 24, point 2: the report of a folder without data is written (exit 1), and the flag recipe refuses it.
    repo = copy_fixture(tmp_path / "mlxcel")
    document = repo / "docs" / "benchmark_results" / "paged-vs-dense-failed.md"
    reported = CliRunner().invoke(main, ["report", str(out), "--out", str(document)])
    assert reported.exit_code == 1 and document.is_file()
    before = (repo / "src/models/gemma3.rs").read_bytes()
    applied = CliRunner().invoke(codemod_main, ["apply", "--recipe", "paged-flag", "--decision",
                                                str(out / "decision.json"), str(repo)])  # fmt: skip
    assert applied.exit_code == 1, applied.output
    assert "the decision has no complete cell for gemma3 (unused)" in applied.output
    assert (repo / "src/models/gemma3.rs").read_bytes() == before


def test_a_server_that_cannot_be_started_later_is_that_runs_failure(tmp_path):
    """Checked before the first start, a program can still vanish: the run is a server failure, not interrupted."""
    from analysis._runner import RunnerSettings, run_one
    from analysis._schedule import PlannedRun

    settings = RunnerSettings("no-such-server-program {model} {port} {backend}", REPLAY, ROOT, tmp_path, 0)
    outcome = run_one(PlannedRun("gemma3", "m", 64, 1, 1, "paged"), settings)
    assert outcome.status == "server-failed"
    assert outcome.message == "cannot start the server: no-such-server-program: No such file or directory"
    assert _records(tmp_path)[0]["status"] == "server-failed"


def test_failed_requests_are_recorded_and_rerun_on_resume(tmp_path, corpus):
    model = tmp_path / "flaky.json"
    model.write_text(json.dumps({"decode_tok_s": {"paged": 2000, "dense": 2000}, "fail_every": 4}))
    out = tmp_path / "run"
    result = _run(out, f"gemma3={model}", repo=corpus)
    assert result.exit_code == 1
    records = _records(out)
    assert {r["status"] for r in records} == {"failed-requests"}
    assert all(r["exit_code"] == 0 and r["failed_requests"] > 0 for r in records)
    again = _run(out, f"gemma3={model}", repo=corpus)
    assert "skipped" not in again.output and len(_records(out)) == 6


def test_sigint_stops_the_server_and_records_the_run(tmp_path):
    out = tmp_path / "run"
    # The bench signals its parent, the runner, then waits to be stopped: the interrupt lands while
    # the runner waits for it, however loaded the machine.
    interrupt = (
        f"{PYTHON} -c 'import os, signal, time; os.kill(os.getppid(), signal.SIGINT); time.sleep(10)' "
        "{port} {prompt_tokens}"
    )
    # Python's own SIGINT handling, whatever a test run before this one left installed.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        result = _run(out, f"gemma3={FAKE_SERVE / 'models' / 'gemma3.json'}", bench=interrupt)
    finally:
        signal.signal(signal.SIGINT, previous)
    got = [(r["status"], r["message"]) for r in _records(out)] if (out / "runs.jsonl").exists() else None
    assert result.exit_code == 130, (result.output[-600:], got)
    assert "Resume with the same command" in result.output
    (record,) = _records(out)
    assert record["status"] == "interrupted"
    assert record["port_freed"] is True and record["server_exit_code"] is not None


def test_metrics_is_passed_only_to_a_script_that_takes_it(tmp_path, corpus):
    """The real tree's script predates --metrics: the default bench command runs it without, and says so."""
    out = tmp_path / "run"
    result = _run(out, f"gemma3={FAKE_SERVE / 'models' / 'gemma3.json'}", bench=BENCH + " --metrics", repo=corpus)
    assert result.exit_code == 0, result.output
    assert (
        "bench scripts/bench_serving_concurrency.py: has no --metrics (the version without per-level metrics "
        "lines): running it without --metrics"
    ) in result.output
    assert all("--metrics" not in r["command"] for r in _records(out))
    host = json.loads((out / "host.json").read_text())
    assert host["bench_script"]["dropped"] == ["--metrics"] and "--metrics" not in host["bench_template"]

    # A script that lists --metrics in its --help gets it.
    newer = tmp_path / "newer"
    (newer / "scripts").mkdir(parents=True)
    (newer / "scripts" / "bench_serving_concurrency.py").write_text(
        "import argparse, sys\n"
        "parser = argparse.ArgumentParser()\n"
        "for option in ('--port', '--concurrency', '--prompt-tokens', '--max-tokens'):\n"
        "    parser.add_argument(option)\n"
        "parser.add_argument('--metrics', action='store_true')\n"
        "parser.parse_args()\n"
        f"sys.stdout.write(open({str(SAMPLE)!r}).read())\n"
    )
    out = tmp_path / "run-newer"
    result = _run(out, f"gemma3={FAKE_SERVE / 'models' / 'gemma3.json'}", bench=BENCH + " --metrics", repo=newer)
    assert result.exit_code == 0, result.output
    assert "takes --metrics (the version with per-level metrics lines)" in result.output
    assert all(r["command"].endswith(" --metrics") for r in _records(out))


def test_an_option_the_script_does_not_take_is_refused_before_any_run(tmp_path, corpus):
    out = tmp_path / "run"
    result = _run(out, f"gemma3={FAKE_SERVE / 'models' / 'gemma3.json'}", bench=BENCH + " --frob", repo=corpus)
    assert result.exit_code == 2
    assert (
        "--bench-cmd passes --frob, which scripts/bench_serving_concurrency.py does not take "
        "(its options: --concurrency, --host, --max-tokens"
    ) in result.output
    assert not out.exists()


def test_the_same_bench_error_three_times_in_a_row_stops_the_run(tmp_path, corpus):
    """The real script fails the same way on every run: stop after three, with the error and the fix."""
    out = tmp_path / "run"
    bad = BENCH.replace("--concurrency 1,4,8", "--concurrency one")
    result = _run(out, f"gemma3={FAKE_SERVE / 'models' / 'gemma3.json'}", rounds=3, bench=bad, repo=corpus)
    assert result.exit_code == 1
    assert len(_records(out)) == 3
    assert (
        "stopped: 3 runs in a row failed the same way: bench-failed: bench exited with 1: ValueError" in result.output
    )
    assert "fix: see " in result.output and "check --bench-cmd" in result.output
    assert "6 run(s) not started; after the fix, run the same command to resume" in result.output


def test_different_failures_do_not_stop_the_run(tmp_path):
    out = tmp_path / "run"
    # Fails with the port in the message (a new port each run) and otherwise the same: that repeats.
    bench = f"{PYTHON} -c 'import sys; sys.exit(\"refused on \" + sys.argv[1])' {{port}} {{prompt_tokens}}"
    result = _run(out, f"gemma3={FAKE_SERVE / 'models' / 'gemma3.json'}", rounds=2, bench=bench)
    assert (
        "stopped: 3 runs in a row failed the same way: bench-failed: bench exited with 1: refused on PORT"
        in result.output
    )
    alternating = tmp_path / "alternating.py"
    alternating.write_text(
        "import pathlib, sys\n"
        "if '--help' in sys.argv:\n"
        "    sys.exit(print('usage: alternating.py COUNTER PORT TOKENS'))\n"
        "counter = pathlib.Path(sys.argv[1])\n"
        "n = int(counter.read_text()) if counter.exists() else 0\n"
        "counter.write_text(str(n + 1))\n"
        "sys.exit('odd' if n % 2 else 'even')\n"
    )
    out = tmp_path / "run-2"
    # Alternates between two errors: never the same three times in a row, so every run is tried.
    bench = f"{PYTHON} {alternating} {tmp_path / 'counter'} {{port}} {{prompt_tokens}}"
    result = _run(out, f"gemma3={FAKE_SERVE / 'models' / 'gemma3.json'}", rounds=2, bench=bench)
    assert result.exit_code == 1 and "stopped" not in result.output
    assert len(_records(out)) == 6


def test_a_missing_server_program_is_one_line_and_records_nothing(tmp_path, monkeypatch):
    """Point 1 of issue 24: the default `mlxcel serve` with no mlxcel on PATH."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "D"
    result = CliRunner().invoke(main, ["run", "--family", "gemma3=models/x", "--out", str(out), "--rounds", "1",
                                       "--prompt-tokens", "64"])  # fmt: skip
    assert result.exit_code == 2
    assert result.output == "paged-bench: error: cannot start the server: mlxcel not found on PATH; give --serve-cmd\n"
    assert not out.exists()
    again = CliRunner().invoke(main, ["run", "--family", "gemma3=models/x", "--out", str(out), "--rounds", "1",
                                      "--prompt-tokens", "64"])  # fmt: skip
    assert again.exit_code == 2 and not out.exists()


def test_the_readme_rehearsal_runs_as_written(tmp_path, corpus):
    """Issue 24, point 6: the README's one-command rehearsal against fixtures/fake-serve, run as a user types it
    (from the project root, the console script on PATH), with the real tree's script as its `../mlxcel`."""
    import os
    import re
    import subprocess

    readme = (ROOT / "README.md").read_text()
    assert "[analysis/README.md](analysis/README.md)" in readme
    (command,) = [block.strip() for block in re.findall(r"```\n(paged-bench run .*?)```", readme, re.DOTALL)
                  if "fake-serve" in block]  # fmt: skip
    out = tmp_path / "rehearsal"
    command = command.replace("--repo ../mlxcel", f"--repo {shlex.quote(str(corpus))}")
    command = command.replace("/tmp/paged-bench-rehearsal", shlex.quote(str(out)))
    env = {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "6 of 6 runs ok" in done.stderr
    decided = CliRunner().invoke(main, ["decide", str(out)])
    assert "gemma3 (" in decided.output and "supports_paged_decode_backend = false" in decided.output
