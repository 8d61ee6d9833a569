"""Read a run folder into per-cell round triples and a list of problems.

Only the documented fields of runs.jsonl are needed (see `_run_folder`); what
the runner adds beyond them (``status``, ``server_backend``, ``message``,
``server_log``) is used where present. The newest record of each run key
(family, prompt length, round, arm) counts. A run contributes a measurement per
concurrency level only when its bench exited 0, its stdout parses, it ran on
its arm's decode storage, and that level had no failed request. Whether it ran
on its arm's storage is read from the server log's startup line where the
runner recorded it, and from the bench's decode-path counters (``--metrics``):
a dense arm whose levels launched paged-attention kernels decoded on paged
storage. (A paged arm may launch none: families with model-owned KV do not
read the pool, so zero launches there is reported, not held against the run.)
Everything else becomes a `Problem` whose message starts with the run's
``runs.jsonl:LINE``: nothing is dropped silently. A round enters a cell only
when all three arms measured that level; a round that lacks one is reported too.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from analysis._bench_output import BenchParseFailure, BenchTable, LevelReport
from analysis._decision import RULE_TEXT, RoundTriple, decide_cell, decide_family
from analysis._run_folder import (
    ARMS,
    RUNS_FILE,
    STATUS_FAILED_REQUESTS,
    STATUS_OK,
    STATUS_UNPARSED,
    RecordedRun,
    RunKey,
    read_runs,
    status_of_record,
)
from analysis._schedule import BACKEND_OF_ARM
from interchange.decision import DecisionDocument, FamilyDecision, Problem


@dataclass(frozen=True)
class LevelObservation:
    """What one accepted run's bench printed under one concurrency level."""

    family: str
    prompt_tokens: int
    round: int
    arm: str
    report: LevelReport


@dataclass(frozen=True)
class RunFolderDecision:
    """Every family's decision from one run folder, with the problems found."""

    run_dir: str
    rounds_planned: int
    families: tuple[FamilyDecision, ...]
    problems: tuple[Problem, ...]
    observations: tuple[LevelObservation, ...] = ()

    def document(self, results_document: str | None = None) -> DecisionDocument:
        """The decision.json content: ``results_document`` as `paged-bench report` records it, or None."""
        return DecisionDocument(
            self.run_dir, self.rounds_planned, RULE_TEXT, results_document, self.families, self.problems
        )


def decision_to_json(decision: RunFolderDecision, results_document: str | None = None) -> dict:
    """The decision.json document for a run folder's decision."""
    return decision.document(results_document).to_json()


def decide_run_folder(run_dir: Path) -> RunFolderDecision:
    """Collect the measurements under ``run_dir`` and decide every family."""
    latest, unusable = read_runs(run_dir)
    problems = [Problem("unreadable-record", message) for message in unusable]
    models = {key.family: "" for key in latest}
    for run in sorted(latest.values(), key=lambda run: run.line):
        models[run.key.family] = str(run.record.get("model") or "")
    observations: list[LevelObservation] = []
    tables = _read_tables(run_dir, latest, problems, observations)
    rounds_planned = max((key.round for key in latest), default=0)
    problems.extend(_missing_runs(latest, rounds_planned))
    measured = _measurements(latest, tables, problems)
    families = []
    for family, model in models.items():
        cells = [
            decide_cell(family, prompt, conc, _triples(family, prompt, conc, by_round, latest, problems))
            for (fam, prompt, conc), by_round in sorted(measured.items())
            if fam == family
        ]
        families.append(decide_family(family, model, cells))
    return RunFolderDecision(str(run_dir), rounds_planned, tuple(families), tuple(problems), tuple(observations))


def _located(key: RunKey) -> dict:
    """A run key as the keyword arguments that locate a `Problem`."""
    return dict(family=key.family, prompt_tokens=key.prompt_tokens, round=key.round, arm=key.arm)


def _read_tables(
    run_dir: Path, latest: dict[RunKey, RecordedRun], problems: list[Problem], observations: list[LevelObservation]
) -> dict[RunKey, BenchTable]:
    tables = {}
    for key, run in latest.items():
        where = _located(key)
        ref = f"{RUNS_FILE}:{run.line}"
        status = status_of_record(run.record, run_dir)
        if status.status == STATUS_UNPARSED and isinstance(status.output, BenchParseFailure):
            kind = "truncated-output" if status.output.truncated else "malformed-output"
            problems.append(Problem(kind, f"{ref}: {status.output}", **where))
            continue
        if status.status not in (STATUS_OK, STATUS_FAILED_REQUESTS):
            log = run.record.get("server_log")
            detail = f" (server log {log})" if isinstance(log, str) and log else ""
            problems.append(Problem(status.status, f"{ref}: {status.message}{detail}", **where))
            continue
        table = status.output
        mismatch = _backend_mismatch(run.record, key.arm, table)
        if mismatch:
            problems.append(Problem("backend-mismatch", f"{ref}: {mismatch}; run left out", **where))
            continue
        tables[key] = table
        observations += [
            LevelObservation(key.family, key.prompt_tokens, key.round, key.arm, report)
            for _, report in sorted(table.levels.items())
        ]
    return tables


def _backend_mismatch(record: dict, arm: str, table: BenchTable) -> str | None:
    """Why the run did not decode on its arm's storage, or None."""
    wanted = BACKEND_OF_ARM[arm]
    logged = record.get("server_backend")
    if isinstance(logged, str) and logged != wanted:
        return f"arm {arm} asked for {wanted} but the server logged {logged} decode storage"
    if wanted == "dense":
        for conc, report in sorted(table.levels.items()):
            if report.paged_launches:
                return (
                    f"{table.source}: arm {arm} launched {report.paged_launches:.0f} paged-attention "
                    f"kernels at concurrency {conc}, so the server decoded on paged storage"
                )
    return None


def _measurements(
    latest: dict[RunKey, RecordedRun], tables: dict[RunKey, BenchTable], problems: list[Problem]
) -> dict[tuple[str, int, int], dict[int, dict[str, float]]]:
    """(family, prompt, conc) -> round -> arm -> aggregate tok/s, reporting gaps."""
    levels: dict[tuple[str, int], set[int]] = defaultdict(set)
    for key, table in tables.items():
        levels[(key.family, key.prompt_tokens)].update(r.concurrency for r in table.rows)
    measured: dict[tuple[str, int, int], dict[int, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for key, table in tables.items():
        where = _located(key)
        ref = f"{RUNS_FILE}:{latest[key].line}: {table.source}"
        for conc in sorted(levels[(key.family, key.prompt_tokens)]):
            by_round = measured[(key.family, key.prompt_tokens, conc)]
            row = table.row(conc)
            if row is None:
                problems.append(
                    Problem("truncated-output", f"{ref}: no row for concurrency {conc}", concurrency=conc, **where)
                )
            elif row.fail or not row.ok or math.isnan(row.aggregate_tok_s) or row.aggregate_tok_s <= 0:
                problems.append(
                    Problem(
                        "failed-requests",
                        f"{ref}: {row.fail} of {row.ok + row.fail} requests failed at "
                        f"concurrency {conc}; level left out",
                        concurrency=conc,
                        **where,
                    )
                )
            else:
                by_round[key.round][key.arm] = row.aggregate_tok_s
    for family, prompt in {(key.family, key.prompt_tokens) for key in latest}:
        if not levels.get((family, prompt)):
            problems.append(
                Problem("no-data", "no run of this prompt length produced a usable table (see the problems of its runs)",
                        family=family, prompt_tokens=prompt)
            )  # fmt: skip
    return measured


def _triples(
    family: str,
    prompt: int,
    conc: int,
    by_round: dict[int, dict[str, float]],
    latest: dict[RunKey, RecordedRun],
    problems: list[Problem],
) -> list[RoundTriple]:
    triples = []
    for round_number, arms in sorted(by_round.items()):
        lacking = [arm for arm in ARMS if arm not in arms]
        if lacking:
            have = ", ".join(
                f"{RUNS_FILE}:{latest[RunKey(family, prompt, round_number, arm)].line} {arm}"
                for arm in ARMS
                if arm in arms
            )
            problems.append(
                Problem(
                    "incomplete-round",
                    f"round {round_number} lacks {', '.join(lacking)} at concurrency {conc} "
                    f"(measured: {have}); round left out of this cell",
                    family=family,
                    prompt_tokens=prompt,
                    round=round_number,
                    concurrency=conc,
                )
            )
            continue
        triples.append(RoundTriple(round_number, arms["paged"], arms["dense"], arms["paged-null"]))
    return triples


def _missing_runs(latest: dict[RunKey, RecordedRun], rounds_planned: int) -> list[Problem]:
    families_prompts = sorted({(key.family, key.prompt_tokens) for key in latest})
    expected = (
        RunKey(family, prompt, round_number, arm)
        for family, prompt in families_prompts
        for round_number in range(1, rounds_planned + 1)
        for arm in ARMS
    )
    return [
        Problem("missing-run", f"{RUNS_FILE} has no record of this run", **_located(key))
        for key in expected
        if key not in latest
    ]


@dataclass(frozen=True)
class LevelSummary:
    """Medians over rounds of what one arm's runs printed at one level (None: not printed)."""

    family: str
    prompt_tokens: int
    arm: str
    concurrency: int
    runs: int
    paged_launches: float | None
    decode_steps: float | None
    occupancy: float | None
    decode_step_ms: float | None
    request_errors: int

    @property
    def decode_path(self) -> str:
        """Which storage the decode-path counters show: paged, no paged launch, or unknown."""
        if self.paged_launches is None:
            return "unknown (no --metrics)"
        return "paged kernels" if self.paged_launches > 0 else "no paged launch"


def summarise_levels(observations: tuple[LevelObservation, ...]) -> list[LevelSummary]:
    """One summary per (family, prompt length, arm, level), in that order."""
    groups: dict[tuple[str, int, str, int], list[LevelReport]] = defaultdict(list)
    for seen in observations:
        groups[(seen.family, seen.prompt_tokens, seen.arm, seen.report.concurrency)].append(seen.report)
    summaries = []
    for (family, prompt, arm, conc), reports in sorted(groups.items(), key=lambda item: (
            item[0][0], item[0][1], ARMS.index(item[0][2]), item[0][3])):  # fmt: skip
        summaries.append(LevelSummary(
            family, prompt, arm, conc, len(reports),
            _median([r.paged_launches for r in reports]),
            _median([(r.batch_counters or {}).get("decode_steps") for r in reports]),
            _median([(r.batch_steps or {}).get("occupancy") for r in reports]),
            _median([(r.batch_steps or {}).get("decode_step_ms") for r in reports]),
            sum(len(r.request_errors) for r in reports),
        ))  # fmt: skip
    return summaries


def _median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None
