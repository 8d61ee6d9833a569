"""The run folder: its layout, what a runs.jsonl record documents, a run's key and status.

Layout of a run folder DIR (an output that was never produced, say the bench
stdout of a server that did not start, is recorded as null)::

    DIR/host.json                 machine, target commit, MLX pin, tool version, command lines
    DIR/runs.jsonl                one JSON object per attempted run, appended as each ends
    DIR/stdout/<run_id>.txt       raw bench stdout
    DIR/stderr/<run_id>.txt       raw bench stderr
    DIR/server-logs/<run_id>.log  server stdout and stderr
    DIR/decision.json             written by ``paged-bench report``

The documented fields of a run record are ``family``, ``model``,
``prompt_tokens``, ``round``, ``position``, ``arm``, ``command``,
``started_at``, ``exit_code`` and ``stdout`` (the bench's stdout file,
relative to the run folder).

A run is identified by its `RunKey`: family, prompt length, round and arm.
The newest record of a key supersedes older ones, for resuming and for
deciding alike; the model is a property of the family, and a run recorded
with another model than the one asked for now is not finished.

A ``status`` the runner adds to a record is a cache: `status_of_record`
derives it again from ``exit_code`` and the parsed stdout, so a folder
written by other means decides the same way. Only what the bench's exit code
and output cannot tell is taken from the record: that the server never
answered (``server-failed``) or the run was stopped (``interrupted``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import analysis._store as _store
from analysis._bench_output import BenchParseFailure, BenchTable, parse_bench_file

RUNS_FILE = "runs.jsonl"
HOST_FILE = "host.json"
DECISION_FILE = "decision.json"
OUTPUT_FOLDERS = ("stdout", "stderr", "server-logs")

ARMS = ("paged", "dense", "paged-null")
DOCUMENTED_FIELDS = ("family", "model", "prompt_tokens", "round", "position", "arm",
                     "command", "started_at", "exit_code", "stdout")  # fmt: skip

STATUS_OK = "ok"
STATUS_SERVER_FAILED = "server-failed"
STATUS_BENCH_FAILED = "bench-failed"
STATUS_UNPARSED = "unparsed"
STATUS_FAILED_REQUESTS = "failed-requests"
STATUS_INTERRUPTED = "interrupted"
RECORDED_ONLY = (STATUS_SERVER_FAILED, STATUS_INTERRUPTED)


@dataclass(frozen=True, order=True)
class RunKey:
    """Which run of the schedule a record belongs to."""

    family: str
    prompt_tokens: int
    round: int
    arm: str

    @classmethod
    def of_record(cls, record: dict) -> RunKey | None:
        """The key of a runs.jsonl record, or None when its key fields are missing or malformed."""
        family, arm = record.get("family"), record.get("arm")
        numbers = [record.get("prompt_tokens"), record.get("round")]
        if not isinstance(family, str) or not family or arm not in ARMS:
            return None
        if not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in numbers):
            return None
        return cls(family, numbers[0], numbers[1], arm)

    @property
    def run_id(self) -> str:
        """A file-name-safe identity, unique within one run folder."""
        return f"{self.family}-p{self.prompt_tokens}-r{self.round}-{self.arm}"

    def output_paths(self) -> dict[str, Path]:
        """The run's output files relative to the run folder, by the record field naming each."""
        return {
            "stdout": Path("stdout") / f"{self.run_id}.txt",
            "stderr": Path("stderr") / f"{self.run_id}.txt",
            "server_log": Path("server-logs") / f"{self.run_id}.log",
        }


@dataclass(frozen=True)
class RecordedRun:
    """The newest record of one run key and its line in runs.jsonl."""

    key: RunKey
    line: int
    record: dict


def read_runs(run_dir: Path) -> tuple[dict[RunKey, RecordedRun], list[str]]:
    """The newest record of each run key, in order of first appearance, and a message per unusable line."""
    records, unusable = _store.read_jsonl(run_dir / RUNS_FILE)
    latest: dict[RunKey, RecordedRun] = {}
    for line, record in records:
        key = RunKey.of_record(record)
        if key is None:
            unusable.append(
                f"{RUNS_FILE}:{line}: record lacks a family, an integer prompt_tokens and round, "
                f"or an arm in {', '.join(ARMS)}"
            )
            continue
        latest[key] = RecordedRun(key, line, record)
    return latest, unusable


def finished_runs(run_dir: Path) -> dict[RunKey, object]:
    """The model recorded for each run whose newest record has status ok.

    A planned run is finished when its key is here with its own model.
    """
    latest, _ = read_runs(run_dir)
    return {
        key: run.record.get("model")
        for key, run in latest.items()
        if status_of_record(run.record, run_dir).status == STATUS_OK
    }


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
