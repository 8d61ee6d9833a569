"""Parse what mlxcel's ``scripts/bench_serving_concurrency.py`` prints on stdout.

Two versions are in use: the one without ``--metrics`` (mlxcel trees of mid
2026) and the current one, which adds ``--metrics`` (scraping ``/metrics``
around each level) and ``--shared-prefix-tokens``. Both print, in order::

    Server:       http://127.0.0.1:18080
    Model:        gemma-3-1b-it-4bit
    Prompt:       ~512 tokens (2786 chars)
    Max tokens:   128
    Concurrency:  [1, 4, 8]

    >>> concurrency=1 ...
        request error: HTTP 500: ...                  (one line per failed request)
        decode paths: paged_decode_launches_total{path="fused_v2"}=+3328  ...=+0
        NOTE: no cascade launch in this level. ...
        batch counters: decode_steps=+128  decode_tokens=+128  mixed_steps=+0  prefill_chunks=+1  tokens_predicted_seconds=+1.020
        batch steps: occupancy=1.00  decode_step_ms=7.97  (predicted_seconds/steps=7.97 ms)

    conc   ok  fail  ttft_ms(mean)  ttft_ms(p95)  decode_tok_s(mean)  aggregate_tok_s
    ---------------------------------------------------------------------------------
       1    1     0           41.2          41.2                82.1             81.4

- The banner is ``Key: value`` lines; ``Concurrency: [..]`` lists the levels
  the run was asked for (the current version may add ``Shared prefix:``).
- Each level opens with ``>>> concurrency=N ...``. Under it, indented: one
  ``request error:`` line per failed request, and with ``--metrics`` (current
  version only) the ``decode paths:``, ``NOTE:``, ``batch counters:`` and
  ``batch steps:`` lines. ``decode paths`` and ``batch counters`` items are
  ``name=delta`` (the name may carry a Prometheus label such as
  ``{path="fused_v2"}``); ``batch steps`` values are numbers or ``n/a``. A
  server without ``/metrics`` gives ``decode paths: /metrics unavailable, ...``
  and ``batch steps: /metrics unavailable, ...`` instead. Other lines under a
  level are kept as notes.
- The summary table: the header is the line whose whitespace-separated fields
  are the seven column names, then a line of dashes, then one row per level in
  increasing order, then a blank line. ``conc``, ``ok`` and ``fail`` are
  non-negative integers; the other four are finite decimals (``0.0`` where no
  request succeeded).
- Every line ends with a newline and the table ends with a blank line; output
  cut before either, a table lacking a level the banner asked for, or level
  sections with no table after them are truncated output.

`parse_bench_output` never raises on bad input: it returns a `BenchTable` or a
`BenchParseFailure` naming the file and line.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

SUMMARY_COLUMNS = ("conc", "ok", "fail", "ttft_ms(mean)", "ttft_ms(p95)", "decode_tok_s(mean)", "aggregate_tok_s")
PAGED_LAUNCHES = "paged_decode_launches_total"
_LEVEL_MARKER = re.compile(r">>> concurrency=(\d+) \.\.\.$")
_BANNER_LINE = re.compile(r"([A-Z][A-Za-z ]*):\s+(.*)$")
_LEVEL_LIST = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]$")
_UNAVAILABLE = "/metrics unavailable"


@dataclass(frozen=True)
class SummaryRow:
    """One concurrency level of the bench summary table."""

    concurrency: int
    ok: int
    fail: int
    ttft_ms_mean: float
    ttft_ms_p95: float
    decode_tok_s_mean: float
    aggregate_tok_s: float


@dataclass(frozen=True)
class LevelReport:
    """What the script printed under one ``>>> concurrency=N`` line.

    ``decode_paths`` and ``batch_counters`` map counter names (``mlxcel_``
    dropped, labels kept) to their change across the level; ``batch_steps``
    maps ``occupancy``, ``decode_step_ms`` and ``predicted_seconds_per_step_ms``
    to numbers or None (``n/a``). Each is None when the script printed no such
    line (no ``--metrics``, or a version without it); ``metrics_unavailable``
    says the script asked and the server had no ``/metrics``.
    """

    concurrency: int
    request_errors: tuple[str, ...] = ()
    decode_paths: dict[str, float] | None = None
    batch_counters: dict[str, float] | None = None
    batch_steps: dict[str, float | None] | None = None
    metrics_unavailable: bool = False
    notes: tuple[str, ...] = ()

    @property
    def paged_launches(self) -> float | None:
        """Paged-attention kernel launches in this level (every path), None when not printed."""
        if self.decode_paths is None:
            return None
        return sum(v for k, v in self.decode_paths.items() if k.startswith(PAGED_LAUNCHES))


@dataclass(frozen=True)
class BenchTable:
    """A parsed bench output: the banner, the summary rows and each level's report."""

    source: str
    rows: tuple[SummaryRow, ...]
    levels: dict[int, LevelReport] = field(default_factory=dict)
    banner: dict[str, str] = field(default_factory=dict)

    def row(self, concurrency: int) -> SummaryRow | None:
        """The row for one concurrency level, or None when the table lacks it."""
        return next((r for r in self.rows if r.concurrency == concurrency), None)

    @property
    def failed_requests(self) -> int:
        return sum(r.fail for r in self.rows)


@dataclass(frozen=True)
class BenchParseFailure:
    """Why a bench output could not be read, naming the file and line."""

    source: str
    line: int | None
    message: str
    truncated: bool = False

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        return f"{where}: {self.message}"


class _Failure(Exception):
    def __init__(self, line: int | None, message: str, truncated: bool = False) -> None:
        super().__init__(message)
        self.line, self.message, self.truncated = line, message, truncated


def parse_bench_file(
    path: Path, expected_concurrency: tuple[int, ...] = (), display: str | None = None
) -> BenchTable | BenchParseFailure:
    """Read and parse one bench stdout file; a missing file is a failure too."""
    source = display or str(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        return BenchParseFailure(source, None, f"cannot read bench output: {error.strerror}")
    return parse_bench_output(text, source, expected_concurrency)


def parse_bench_output(
    text: str, source: str, expected_concurrency: tuple[int, ...] = ()
) -> BenchTable | BenchParseFailure:
    """Parse bench stdout ``text``; ``source`` names it in failures.

    The table must contain ``expected_concurrency`` and the levels the banner's
    ``Concurrency:`` line lists (a shorter table is reported as truncated).
    """
    try:
        return _Parser(text.splitlines()).parse(text, source, expected_concurrency)
    except _Failure as failure:
        return BenchParseFailure(source, failure.line, failure.message, failure.truncated)


class _Parser:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def parse(self, text: str, source: str, expected: tuple[int, ...]) -> BenchTable:
        if text and not text.endswith("\n"):
            raise _Failure(len(self.lines), "output ends mid-line (truncated)", truncated=True)
        header_at = next((i for i, line in enumerate(self.lines) if tuple(line.split()) == SUMMARY_COLUMNS), None)
        preamble = self.lines if header_at is None else self.lines[:header_at]
        banner, levels = self.preamble(preamble)
        if header_at is None:
            if levels:
                raise _Failure(None, "no summary table after the level sections (truncated)", truncated=True)
            raise _Failure(None, "no summary table header found")
        rows = self.table(header_at)
        planned = _planned_levels(banner)
        table_levels = {r.concurrency for r in rows}
        missing = [c for c in dict.fromkeys((*expected, *planned)) if c not in table_levels]
        if missing:
            raise _Failure(
                None, "summary table lacks concurrency " + ", ".join(map(str, missing)) + " (truncated)", truncated=True
            )
        for level, (number, _) in levels.items():
            if level not in table_levels:
                raise _Failure(number, f"level {level} has a section but no table row")
        return BenchTable(source, tuple(rows), {k: v for k, (_, v) in levels.items()}, banner)

    def preamble(self, lines: list[str]) -> tuple[dict[str, str], dict[int, tuple[int, LevelReport]]]:
        banner: dict[str, str] = {}
        levels: dict[int, tuple[int, LevelReport]] = {}
        section: _LevelBuilder | None = None
        for number, line in enumerate(lines, start=1):
            stripped = line.strip()
            marker = _LEVEL_MARKER.fullmatch(stripped)
            if marker:
                section = _LevelBuilder(int(marker.group(1)))
                levels[section.concurrency] = (number, section.report())
                continue
            if not stripped:
                continue
            if section is None:
                match = _BANNER_LINE.match(stripped)
                if match:
                    banner[match.group(1)] = match.group(2).strip()
                continue
            problem = section.add(stripped)
            if problem:
                raise _Failure(number, problem)
            levels[section.concurrency] = (levels[section.concurrency][0], section.report())
        return banner, levels

    def table(self, header_at: int) -> list[SummaryRow]:
        rows: list[SummaryRow] = []
        for index in range(header_at + 1, len(self.lines)):
            number, line = index + 1, self.lines[index]
            fields = line.split()
            if not fields:
                if not rows:
                    raise _Failure(number, "summary table has no rows")
                return rows
            if index == header_at + 1 and set(line.strip()) == {"-"}:
                continue
            row = _parse_row(fields)
            if isinstance(row, str):
                raise _Failure(number, row)
            if rows and row.concurrency <= rows[-1].concurrency:
                raise _Failure(number, f"concurrency {row.concurrency} is out of order")
            rows.append(row)
        if not rows:
            raise _Failure(header_at + 1, "summary table has no rows (truncated)", truncated=True)
        raise _Failure(len(self.lines), "summary table does not end with a blank line (truncated)", truncated=True)


class _LevelBuilder:
    """Collects the indented lines under one level marker."""

    def __init__(self, concurrency: int) -> None:
        self.concurrency = concurrency
        self.errors: list[str] = []
        self.notes: list[str] = []
        self.paths: dict[str, float] | None = None
        self.counters: dict[str, float] | None = None
        self.steps: dict[str, float | None] | None = None
        self.unavailable = False

    def add(self, line: str) -> str | None:
        """Take one line; a message when a known line does not have its shape."""
        kind, _, rest = line.partition(": ")
        if kind == "request error":
            self.errors.append(rest)
        elif kind in ("decode paths", "batch counters", "batch steps") and rest.startswith(_UNAVAILABLE):
            self.unavailable = True
        elif kind == "decode paths":
            self.paths = _deltas(rest)
            if self.paths is None:
                return f"decode paths line is not name=delta items: {rest!r}"
        elif kind == "batch counters":
            self.counters = _deltas(rest)
            if self.counters is None:
                return f"batch counters line is not name=delta items: {rest!r}"
        elif kind == "batch steps":
            self.steps = _batch_steps(rest)
            if self.steps is None:
                return f"batch steps line does not have its known shape: {rest!r}"
        else:
            self.notes.append(line)
        return None

    def report(self) -> LevelReport:
        return LevelReport(
            self.concurrency, tuple(self.errors), self.paths, self.counters, self.steps,
            self.unavailable, tuple(self.notes),
        )  # fmt: skip


def _deltas(text: str) -> dict[str, float] | None:
    values: dict[str, float] = {}
    for item in text.split():
        name, sep, raw = item.rpartition("=")
        number = _parse_number(raw)
        if not sep or not name or number is None:
            return None
        values[name.removeprefix("mlxcel_")] = number
    return values or None


_BATCH_STEPS = re.compile(r"occupancy=(\S+)\s+decode_step_ms=(\S+)\s+\(predicted_seconds/steps=(\S+) ms\)$")


def _batch_steps(text: str) -> dict[str, float | None] | None:
    match = _BATCH_STEPS.fullmatch(text.strip())
    if match is None:
        return None
    values = [None if raw == "n/a" else _parse_number(raw) for raw in match.groups()]
    if any(v is None and raw != "n/a" for v, raw in zip(values, match.groups())):
        return None
    return dict(zip(("occupancy", "decode_step_ms", "predicted_seconds_per_step_ms"), values))


def _planned_levels(banner: dict[str, str]) -> tuple[int, ...]:
    listed = banner.get("Concurrency", "")
    if not _LEVEL_LIST.fullmatch(listed):
        return ()
    return tuple(int(part) for part in listed.strip("[]").split(","))


def _parse_row(fields: list[str]) -> SummaryRow | str:
    if len(fields) != len(SUMMARY_COLUMNS):
        return f"summary row has {len(fields)} fields, expected {len(SUMMARY_COLUMNS)}"
    counts = [int(f) if f.isdigit() else None for f in fields[:3]]
    if any(c is None for c in counts):
        return f"summary row: conc, ok and fail must be non-negative integers, got {fields[:3]}"
    numbers = [_parse_number(f) for f in fields[3:]]
    if any(n is None for n in numbers):
        return f"summary row has a non-numeric measurement in {fields[3:]}"
    conc, ok, fail = counts
    return SummaryRow(conc, ok, fail, *numbers)


def _parse_number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None
