"""A run's status, derived from what runs.jsonl documents.

The documented fields of a run record are ``family``, ``model``,
``prompt_tokens``, ``round``, ``position``, ``arm``, ``command``,
``started_at``, ``exit_code`` and ``stdout`` (the bench's stdout file,
relative to the run folder). A ``status`` the runner adds is a cache: this
module derives it again from ``exit_code`` and the parsed stdout, so a folder
written by other means decides the same way. Only what the bench's exit code
and output cannot tell is taken from the record: that the server never
answered (``server-failed``) or the run was stopped (``interrupted``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from analysis._bench_output import BenchParseFailure, BenchTable, parse_bench_file

DOCUMENTED_FIELDS = ("family", "model", "prompt_tokens", "round", "position", "arm",
                     "command", "started_at", "exit_code", "stdout")  # fmt: skip

STATUS_OK = "ok"
STATUS_SERVER_FAILED = "server-failed"
STATUS_BENCH_FAILED = "bench-failed"
STATUS_UNPARSED = "unparsed"
STATUS_FAILED_REQUESTS = "failed-requests"
STATUS_INTERRUPTED = "interrupted"
RECORDED_ONLY = (STATUS_SERVER_FAILED, STATUS_INTERRUPTED)


@dataclass(frozen=True)
class RunStatus:
    """A run's status, why, and its parsed output when it has one."""

    status: str
    message: str
    output: BenchTable | BenchParseFailure | None = None


def status_of_bench(exit_code: object, output: BenchTable | BenchParseFailure | None) -> RunStatus:
    """The status a bench exit code and its parsed stdout give."""
    if not isinstance(exit_code, int) or isinstance(exit_code, bool):
        return RunStatus(STATUS_BENCH_FAILED, "no exit_code recorded: the bench did not finish", output)
    if exit_code != 0:
        return RunStatus(STATUS_BENCH_FAILED, f"bench exited with {exit_code}", output)
    if output is None:
        return RunStatus(STATUS_UNPARSED, "no stdout file recorded", output)
    if isinstance(output, BenchParseFailure):
        return RunStatus(STATUS_UNPARSED, str(output), output)
    top = output.rows[-1]
    summary = f"c{top.concurrency} aggregate {top.aggregate_tok_s:.1f} tok/s"
    if output.failed_requests:
        return RunStatus(STATUS_FAILED_REQUESTS, f"{output.failed_requests} failed requests; {summary}", output)
    return RunStatus(STATUS_OK, summary, output)


def status_of_record(record: dict, run_dir: Path) -> RunStatus:
    """The status of one runs.jsonl record, read against the folder it lives in."""
    recorded = record.get("status")
    if recorded in RECORDED_ONLY:
        return RunStatus(recorded, str(record.get("message") or recorded))
    stdout = record.get("stdout")
    output = None
    if isinstance(stdout, str) and stdout:
        output = parse_bench_file(run_dir / stdout, display=stdout)
    derived = status_of_bench(record.get("exit_code"), output)
    if derived.status == STATUS_BENCH_FAILED and record.get("message"):
        return RunStatus(derived.status, f"{derived.message} ({record['message']})", output)
    return derived
