"""Parse the output of ``scripts/bench_serving_concurrency.py``.

The format (what the bench script prints on stdout, and what the fake client in
``fixtures/fake-serve/`` prints) is line oriented:

```
bench_serving_concurrency: port=18080 prompt_tokens=512 max_tokens=128
conc  ok  fail  ttft_ms(mean)  ttft_ms(p95)  decode_tok_s(mean)  aggregate_tok_s
1     1   0     41.20          41.20         82.10               81.40
4     4   0     55.03          61.77         80.93               318.20
8     8   0     70.11          90.02         78.40               611.35
metrics conc=1 backend=paged requests_total=1 generated_tokens_total=128
metrics conc=4 backend=paged requests_total=5 generated_tokens_total=640
metrics conc=8 backend=paged requests_total=13 generated_tokens_total=1664
```

- Lines before the header (banners, progress) are ignored.
- The header is the one line whose whitespace-separated fields are exactly the
  seven column names above, in that order.
- The summary rows follow the header, one per concurrency level, until a blank
  line, a ``metrics`` line or the end of the file. Each row has seven fields:
  ``conc``, ``ok`` and ``fail`` are non-negative integers; the other four are
  decimal numbers, or ``nan`` / ``-`` where no request succeeded. Concurrency
  levels are strictly increasing.
- With ``--metrics`` the script scrapes the server after each level and prints
  one ``metrics conc=<level> key=value ...`` line per level. Values are numbers
  or bare words (``backend=paged``); every level named must be in the table.
- Every line ends with a newline; a last line without one was cut off, so the
  output is truncated. So is a table that lacks an expected concurrency level.

`parse_bench_output` never raises on bad input: it returns a `BenchTable` or a
`BenchParseFailure` naming the file and line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

SUMMARY_COLUMNS = (
    "conc",
    "ok",
    "fail",
    "ttft_ms(mean)",
    "ttft_ms(p95)",
    "decode_tok_s(mean)",
    "aggregate_tok_s",
)
_MISSING_NUMBER_SPELLINGS = ("nan", "-")


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
class BenchTable:
    """A parsed bench output: summary rows by level and the metrics lines."""

    source: str
    rows: tuple[SummaryRow, ...]
    metrics: dict[int, dict[str, float | str]] = field(default_factory=dict)

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

    ``expected_concurrency`` lists levels the table must contain (a shorter table
    is reported as truncated).
    """
    lines = text.splitlines()
    if text and not text.endswith("\n"):
        return BenchParseFailure(
            source, len(lines), "output ends mid-line (truncated)", truncated=True
        )
    header_at = _find_header(lines)
    if header_at is None:
        return BenchParseFailure(source, None, "no summary table header found")
    rows: list[SummaryRow] = []
    metrics: dict[int, dict[str, float | str]] = {}
    in_table = True
    for number, line in enumerate(lines[header_at + 1 :], start=header_at + 2):
        fields = line.split()
        if not fields:
            in_table = False
            continue
        if fields[0] == "metrics":
            in_table = False
            parsed = _parse_metrics_line(fields[1:])
            if isinstance(parsed, str):
                return BenchParseFailure(source, number, parsed)
            level, values = parsed
            metrics[level] = values
            continue
        if not in_table:
            continue
        row = _parse_row(fields)
        if isinstance(row, str):
            return BenchParseFailure(source, number, row)
        if rows and row.concurrency <= rows[-1].concurrency:
            return BenchParseFailure(
                source, number, f"concurrency {row.concurrency} is out of order"
            )
        rows.append(row)
    if not rows:
        return BenchParseFailure(
            source, header_at + 1, "summary table has no rows (truncated)", truncated=True
        )
    levels = {r.concurrency for r in rows}
    missing = [c for c in expected_concurrency if c not in levels]
    if missing:
        return BenchParseFailure(
            source,
            None,
            "summary table lacks concurrency " + ", ".join(map(str, missing)) + " (truncated)",
            truncated=True,
        )
    unknown = sorted(set(metrics) - levels)
    if unknown:
        return BenchParseFailure(
            source, None, f"metrics for concurrency {unknown[0]} which the table lacks"
        )
    return BenchTable(source, tuple(rows), metrics)


def _find_header(lines: list[str]) -> int | None:
    return next(
        (i for i, line in enumerate(lines) if tuple(line.split()) == SUMMARY_COLUMNS), None
    )


def _parse_row(fields: list[str]) -> SummaryRow | str:
    if len(fields) != len(SUMMARY_COLUMNS):
        return f"summary row has {len(fields)} fields, expected {len(SUMMARY_COLUMNS)}"
    counts = [_parse_count(f) for f in fields[:3]]
    if any(c is None for c in counts):
        return f"summary row: conc, ok and fail must be non-negative integers, got {fields[:3]}"
    numbers = [_parse_number(f) for f in fields[3:]]
    if any(n is None for n in numbers):
        return f"summary row has a non-numeric measurement in {fields[3:]}"
    conc, ok, fail = counts
    return SummaryRow(conc, ok, fail, *numbers)


def _parse_metrics_line(fields: list[str]) -> tuple[int, dict[str, float | str]] | str:
    values: dict[str, float | str] = {}
    for item in fields:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            return f"metrics item {item!r} is not key=value"
        number = _parse_number(raw)
        values[key] = raw if number is None or math.isnan(number) else number
    level = values.pop("conc", None)
    if not isinstance(level, float) or level != int(level) or level < 0:
        return "metrics line lacks an integer conc=<level>"
    return int(level), values


def _parse_count(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def _parse_number(text: str) -> float | None:
    if text.lower() in _MISSING_NUMBER_SPELLINGS:
        return math.nan
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None
