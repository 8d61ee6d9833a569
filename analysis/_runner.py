"""Run the schedule: one fresh server per run, the bench against it, everything recorded.

The run folder's layout, a run's key and its status are `_run_folder`'s; this module
starts and stops processes and appends what happened to runs.jsonl.

Resuming is the default: a run whose latest record in runs.jsonl has status
``ok`` (server answered, bench exited 0, its output parsed, no failed requests;
derived again from the record as `_run_folder` does) and the same model is
skipped; every other run is (re)done and appends a new record, the newest
record of a run superseding older ones. A server that does not answer, a bench
that exits non-zero or times out, output that does not parse and failed
requests are each recorded with their status and reported on stderr. When
`REPEATS_TO_STOP` runs in a row fail the same way (same status, same message
once the port is taken out) the schedule stops there: the cause is not the
run but the set-up, and repeating it would only restart servers for nothing.

On SIGINT (or SIGTERM, which the CLI maps to it) the current server and bench
are stopped, the run is recorded as ``interrupted`` and KeyboardInterrupt
propagates; running the same command again resumes.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import shlex
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, UTC
from pathlib import Path

import analysis._store as _store
from analysis._bench_output import BenchTable, parse_bench_file
from analysis._host import collect_host_info
from analysis._run_folder import (
    HOST_FILE,
    RUNS_FILE,
    STATUS_BENCH_FAILED,
    STATUS_INTERRUPTED,
    STATUS_OK,
    STATUS_SERVER_FAILED,
    STATUS_UNPARSED,
    finished_runs,
    status_of_bench,
)
from analysis._schedule import PlannedRun, render_command

_SERVER_BACKEND_LINE = re.compile(rb"decode storage backend:\s*(\w+)", re.IGNORECASE)


@dataclass(frozen=True)
class RunnerSettings:
    """How to start, probe and stop servers and where to record."""

    serve_template: str
    bench_template: str
    repo: Path
    out: Path
    port: int = 18080
    health_path: str = "/health"
    startup_timeout_s: float = 900.0
    poll_interval_s: float = 0.02
    bench_timeout_s: float = 3600.0
    stop_timeout_s: float = 30.0


@dataclass(frozen=True)
class RunOutcome:
    """What happened to one planned run in this invocation."""

    run: PlannedRun
    status: str
    skipped: bool
    message: str
    port: int | None = None

    @property
    def failure(self) -> str | None:
        """The failure as compared between runs (status and message, the port taken out), or None."""
        if self.skipped or self.status not in REPEATABLE_FAILURES:
            return None
        message = self.message if self.port is None else re.sub(rf"\b{self.port}\b", "PORT", self.message)
        return f"{self.status}: {message}"


REPEATS_TO_STOP = 3
REPEATABLE_FAILURES = (STATUS_SERVER_FAILED, STATUS_BENCH_FAILED, STATUS_UNPARSED)


@dataclass(frozen=True)
class ScheduleResult:
    """The outcome of every run done or skipped, and the failure that stopped the schedule, if one did."""

    outcomes: list[RunOutcome]
    stopped_by: RunOutcome | None = None
    not_done: int = 0


def record_host(settings: RunnerSettings, command_line: list[str], bench_script: dict | None = None) -> None:
    """Write DIR/host.json; on resume keep the first probe and append this invocation.

    ``bench_script`` is what the options check found (script, its options, what was dropped).
    """
    path = settings.out / HOST_FILE
    probe = collect_host_info(settings.repo, command_line)
    probe["serve_template"] = settings.serve_template
    probe["bench_template"] = settings.bench_template
    probe["bench_script"] = bench_script
    invocation = {
        "started_at": _now(),
        "hostname": probe["hostname"],
        "commit": probe["commit"],
        "command_line": command_line,
        "bench_template": settings.bench_template,
        "bench_script": bench_script,
    }
    previous = _store.read_json_object(path)
    document = previous if previous is not None else probe
    if not isinstance(document.get("invocations"), list):
        document["invocations"] = []
    document["invocations"].append(invocation)
    _store.write_json(path, document)


def run_schedule(
    schedule: tuple[PlannedRun, ...], settings: RunnerSettings, progress: Callable[[str], None]
) -> ScheduleResult:
    """Do every unfinished run of ``schedule`` in order, stopping at a failure that repeats."""
    finished = finished_runs(settings.out)
    done = {run.key for run in schedule if finished.get(run.key) == run.model}
    to_do = len(schedule) - len(done)
    outcomes = []
    seconds_spent = 0.0
    repeats, last_failure = 0, None
    for index, run in enumerate(schedule, start=1):
        label = f"[{index:>{len(str(len(schedule)))}}/{len(schedule)}] {_describe(run)}"
        if run.key in done:
            progress(f"{label}: already recorded ok, skipped")
            outcomes.append(RunOutcome(run, STATUS_OK, True, "skipped"))
            continue
        started = time.monotonic()
        outcome = run_one(run, settings)
        elapsed = time.monotonic() - started
        seconds_spent += elapsed
        ran = sum(1 for o in outcomes if not o.skipped) + 1
        remaining = (to_do - ran) * seconds_spent / ran
        progress(f"{label}: {outcome.status} {outcome.message} ({elapsed:.1f}s, about {remaining:.0f}s left)")
        outcomes.append(outcome)
        failure = outcome.failure
        repeats = 0 if failure is None else repeats + 1 if failure == last_failure else 1
        last_failure = failure
        if repeats >= REPEATS_TO_STOP:
            return ScheduleResult(outcomes, outcome, len(schedule) - index)
    return ScheduleResult(outcomes)


def run_one(run: PlannedRun, settings: RunnerSettings) -> RunOutcome:
    """Start a fresh server, bench it, stop it and append the run's record."""
    out = settings.out
    port = settings.port or pick_free_port()
    serve_command = render_command(settings.serve_template, model=run.model, port=port, backend=run.backend)
    bench_command = render_command(settings.bench_template, port=port, prompt_tokens=run.prompt_tokens)
    paths = run.key.output_paths()
    record = {
        **run.fields(),
        "backend": run.backend,
        "port": port,
        "serve_command": serve_command,
        "command": bench_command,
        "started_at": _now(),
        "exit_code": None,
        **{name: path.as_posix() for name, path in paths.items()},
    }
    status, message = STATUS_INTERRUPTED, "interrupted"
    try:
        status, message = _serve_and_bench(record, settings, paths, port)
    finally:
        record["status"] = status
        record["message"] = message
        record["finished_at"] = _now()
        record["server_backend"] = read_server_backend(out / paths["server_log"])
        for name, path in paths.items():
            if not (out / path).exists():
                record[name] = None
        _store.append_jsonl(out / RUNS_FILE, record)
    return RunOutcome(run, status, False, message, port)


def _serve_and_bench(record: dict, settings: RunnerSettings, paths: dict[str, Path], port: int) -> tuple[str, str]:
    out = settings.out
    if not wait_port_free(port, settings.stop_timeout_s, settings.poll_interval_s):
        _store.open_output(out / paths["server_log"]).close()
        return STATUS_SERVER_FAILED, f"port {port} is in use before the server starts"
    with _store.open_output(out / paths["server_log"]) as log:
        try:
            server = subprocess.Popen(
                shlex.split(record["serve_command"]),
                cwd=settings.repo,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as error:
            return STATUS_SERVER_FAILED, f"cannot start the server: {_os_error(error)}"
    try:
        failure = wait_until_answering(
            server, port, settings.health_path, settings.startup_timeout_s, settings.poll_interval_s
        )
        if failure:
            return STATUS_SERVER_FAILED, failure
        status, message = _bench(record, settings, paths)
    finally:
        record["server_exit_code"] = stop_process(server, settings.stop_timeout_s)
        record["port_freed"] = wait_port_free(port, settings.stop_timeout_s, settings.poll_interval_s)
    if not record["port_freed"]:
        message += f"; port {port} still in use after the server stopped"
    return status, message


def _bench(record: dict, settings: RunnerSettings, paths: dict[str, Path]) -> tuple[str, str]:
    out = settings.out
    with _store.open_output(out / paths["stdout"]) as stdout, _store.open_output(out / paths["stderr"]) as stderr:
        try:
            bench = subprocess.Popen(
                shlex.split(record["command"]),
                cwd=settings.repo,
                stdout=stdout,
                stderr=stderr,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as error:
            return STATUS_BENCH_FAILED, f"cannot run the bench: {_os_error(error)}"
        try:
            record["exit_code"] = bench.wait(timeout=settings.bench_timeout_s)
        except subprocess.TimeoutExpired:
            stop_process(bench, settings.stop_timeout_s)
            return STATUS_BENCH_FAILED, f"bench timed out after {settings.bench_timeout_s:g}s"
        finally:
            if bench.poll() is None:
                stop_process(bench, settings.stop_timeout_s)
    output = parse_bench_file(out / paths["stdout"], display=paths["stdout"].as_posix())
    derived = status_of_bench(record["exit_code"], output)
    if derived.status == STATUS_BENCH_FAILED:
        said = _last_line(out / paths["stderr"])
        return derived.status, derived.message + (f": {said}" if said else "")
    if isinstance(output, BenchTable):
        record["failed_requests"] = output.failed_requests
    return derived.status, derived.message


def wait_until_answering(
    server: subprocess.Popen, port: int, health_path: str, timeout_s: float, poll_s: float
) -> str | None:
    """None once the server answers HTTP on ``port``, else why it never did.

    Any HTTP status below 500 counts as answering (a server without the health
    route answers 404); 5xx means still loading.
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        code = server.poll()
        if code is not None:
            return f"server exited with {code} before answering"
        status = _http_status(port, health_path)
        if status is not None and status < 500:
            return None
        time.sleep(poll_s)
    return f"server did not answer within {timeout_s:g}s"


def _http_status(port: int, path: str) -> int | None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        connection.request("GET", path)
        return connection.getresponse().status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def stop_process(process: subprocess.Popen, timeout_s: float) -> int | None:
    """SIGTERM the process's group, SIGKILL it after ``timeout_s``; its exit code."""
    if process.poll() is not None:
        return process.returncode
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        return process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        return process.wait()


def port_is_free(port: int) -> bool:
    """True when nothing accepts connections on 127.0.0.1:``port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) != 0


def wait_port_free(port: int, timeout_s: float, poll_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not port_is_free(port):
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll_s)
    return True


def pick_free_port() -> int:
    """A port the kernel considers free right now (used when --port is 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def read_server_backend(log_path: Path) -> str | None:
    """The decode storage the server logged at startup, if it did."""
    try:
        match = _SERVER_BACKEND_LINE.search(log_path.read_bytes())
    except OSError:
        return None
    return match.group(1).decode().lower() if match else None


def _last_line(path: Path) -> str | None:
    """The last non-blank line of a bench's stderr (an argparse error, a traceback's last line)."""
    try:
        lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return next((line.strip() for line in reversed(lines) if line.strip()), None)


def _os_error(error: OSError) -> str:
    return f"{error.filename}: {error.strerror}" if error.filename and error.strerror else str(error)


def _describe(run: PlannedRun) -> str:
    return f"{run.family} p{run.prompt_tokens} round {run.round} pos {run.position} {run.arm}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
