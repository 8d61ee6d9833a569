"""Read a run folder into per-cell round triples and a list of problems.

The newest record of each (family, prompt length, round, arm) in runs.jsonl
counts. A run contributes a measurement per concurrency level only when its
bench exited 0, its stdout parses, the server logged the arm's backend (or
logged none), and that level had no failed request. Everything else becomes a
`Problem`: nothing is dropped silently. A round enters a cell only when all
three arms measured that level; a round that lacks one is reported too.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

from analysis import _store
from analysis._bench_output import BenchTable, parse_bench_file
from analysis._decision import FamilyDecision, RoundTriple, decide_cell, decide_family
from analysis._runner import RUNS_FILE, STATUS_FAILED_REQUESTS, STATUS_OK, STATUS_UNPARSED
from analysis._schedule import ARMS


@dataclass(frozen=True)
class Problem:
    """Something wrong with the data that the reader of the decision must see."""

    kind: str
    message: str
    family: str | None = None
    prompt_tokens: int | None = None
    round: int | None = None
    arm: str | None = None
    concurrency: int | None = None

    def describe(self) -> str:
        """One line: kind, where (as far as known) and message."""
        where = [
            self.family,
            None if self.prompt_tokens is None else f"p{self.prompt_tokens}",
            None if self.round is None else f"round {self.round}",
            self.arm,
            None if self.concurrency is None else f"c{self.concurrency}",
        ]
        located = " ".join(part for part in where if part)
        return f"{self.kind}: {located + ': ' if located else ''}{self.message}"

    def to_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(frozen=True)
class RunFolderDecision:
    """Every family's decision from one run folder, with the problems found."""

    run_dir: str
    rounds_planned: int
    families: tuple[FamilyDecision, ...]
    problems: tuple[Problem, ...]


def decide_run_folder(run_dir: Path) -> RunFolderDecision:
    """Collect the measurements under ``run_dir`` and decide every family."""
    records, unreadable = _store.read_jsonl(run_dir / RUNS_FILE)
    problems = [Problem("unreadable-record", message) for message in unreadable]
    latest: dict[tuple, dict] = {}
    models: dict[str, str] = {}
    for record in records:
        try:
            key = (record["family"], int(record["prompt_tokens"]), int(record["round"]), record["arm"])
        except (KeyError, TypeError, ValueError):
            problems.append(Problem("unreadable-record", f"record lacks identity fields: {record}"))
            continue
        latest[key] = record
        models[record["family"]] = str(record.get("model", ""))
    tables = _read_tables(run_dir, latest, problems)
    rounds_planned = max((key[2] for key in latest), default=0)
    problems.extend(_missing_runs(latest, rounds_planned))
    measured = _measurements(latest, tables, problems)
    families = []
    for family, model in models.items():
        cells = [
            decide_cell(family, prompt, conc, _triples(family, prompt, conc, by_round, problems))
            for (fam, prompt, conc), by_round in sorted(measured.items())
            if fam == family
        ]
        families.append(decide_family(family, model, cells))
    return RunFolderDecision(str(run_dir), rounds_planned, tuple(families), tuple(problems))


def _read_tables(
    run_dir: Path, latest: dict[tuple, dict], problems: list[Problem]
) -> dict[tuple, BenchTable]:
    tables = {}
    for key, record in latest.items():
        family, prompt, round_number, arm = key
        where = dict(family=family, prompt_tokens=prompt, round=round_number, arm=arm)
        status = record.get("status")
        if status not in (STATUS_OK, STATUS_FAILED_REQUESTS, STATUS_UNPARSED):
            problems.append(Problem(status or "unknown-status", _run_message(record), **where))
            continue
        table = parse_bench_file(run_dir / record.get("stdout", ""), display=record.get("stdout"))
        if not isinstance(table, BenchTable):
            kind = "truncated-output" if table.truncated else "malformed-output"
            problems.append(Problem(kind, str(table), **where))
            continue
        logged = record.get("server_backend")
        if logged is not None and logged != record.get("backend"):
            problems.append(
                Problem(
                    "backend-mismatch",
                    f"arm {arm} asked for {record.get('backend')} but the server logged "
                    f"{logged} decode storage; run left out",
                    **where,
                )
            )
            continue
        tables[key] = table
    return tables


def _measurements(
    latest: dict[tuple, dict], tables: dict[tuple, BenchTable], problems: list[Problem]
) -> dict[tuple[str, int, int], dict[int, dict[str, float]]]:
    """(family, prompt, conc) -> round -> arm -> aggregate tok/s, reporting gaps."""
    levels: dict[tuple[str, int], set[int]] = defaultdict(set)
    for (family, prompt, _, _), table in tables.items():
        levels[(family, prompt)].update(r.concurrency for r in table.rows)
    measured: dict[tuple[str, int, int], dict[int, dict[str, float]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    for (family, prompt, round_number, arm), table in tables.items():
        where = dict(family=family, prompt_tokens=prompt, round=round_number, arm=arm)
        for conc in sorted(levels[(family, prompt)]):
            by_round = measured[(family, prompt, conc)]
            row = table.row(conc)
            if row is None:
                problems.append(
                    Problem("truncated-output", f"{table.source}: no row for concurrency {conc}", concurrency=conc, **where)
                )
            elif row.fail or not row.ok or math.isnan(row.aggregate_tok_s) or row.aggregate_tok_s <= 0:
                problems.append(
                    Problem(
                        "failed-requests",
                        f"{table.source}: {row.fail} of {row.ok + row.fail} requests failed at "
                        f"concurrency {conc}; level left out",
                        concurrency=conc,
                        **where,
                    )
                )
            else:
                by_round[round_number][arm] = row.aggregate_tok_s
    for family, prompt in {(k[0], k[1]) for k in latest}:
        if not levels.get((family, prompt)):
            problems.append(
                Problem("no-data", "no run of this prompt length produced a usable table", family=family, prompt_tokens=prompt)
            )
    return measured


def _triples(
    family: str, prompt: int, conc: int, by_round: dict[int, dict[str, float]], problems: list[Problem]
) -> list[RoundTriple]:
    triples = []
    for round_number, arms in sorted(by_round.items()):
        lacking = [arm for arm in ARMS if arm not in arms]
        if lacking:
            problems.append(
                Problem(
                    "incomplete-round",
                    f"round {round_number} lacks {', '.join(lacking)} at concurrency {conc}; "
                    "round left out of this cell",
                    family=family,
                    prompt_tokens=prompt,
                    round=round_number,
                    concurrency=conc,
                )
            )
            continue
        triples.append(RoundTriple(round_number, arms["paged"], arms["dense"], arms["paged-null"]))
    return triples


def _missing_runs(latest: dict[tuple, dict], rounds_planned: int) -> list[Problem]:
    families_prompts = sorted({(k[0], k[1]) for k in latest})
    return [
        Problem("missing-run", "no record of this run in runs.jsonl", family=f, prompt_tokens=p, round=r, arm=a)
        for f, p in families_prompts
        for r in range(1, rounds_planned + 1)
        for a in ARMS
        if (f, p, r, a) not in latest
    ]


def _run_message(record: dict) -> str:
    return f"{record.get('message', '')} (server log {record.get('server_log')})"
