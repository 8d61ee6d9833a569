"""The maintainer's decision rule and the statistics reported beside it. Pure.

It returns decision.json's own types (`interchange.decision`), whose loader
re-applies the family rule `flag_from_verdicts` defined there.

Per cell (family, prompt length, concurrency), with aggregate tok/s P (paged),
D (dense) and N (paged-null) of each complete round (all three arms measured):

- paired delta ``d = D/P - 1``; null delta ``z = N/P - 1``;
- median paired delta = median of d over rounds; null spread = max |z|;
- verdict ``dense-faster`` when median d > null spread, ``paged-faster`` when
  median d < -null spread, ``within-noise`` otherwise, ``no-data`` without a
  complete round.

A family's ``supports_paged_decode_backend`` becomes false when at least one
cell is dense-faster and none is paged-faster; otherwise it stays true.

Beside the rule, per cell:

- a 95% t confidence interval of the mean paired delta (needs 2 rounds);
- how many rounds favoured dense (d > 0);
- rounds to resolve: rounds a paired t-test needs to detect a delta of the
  observed median's size at 5% two-sided with 80% power, taking the noise of
  one paired delta to be the root mean square of the null deltas,
  ``ceil(((1.96 + 0.84) * rms(z) / |median d|)^2)`` (at least 2; None when the
  median is exactly 0);
- the statistics' own verdict from the interval (excludes 0 above: dense
  faster; below: paged faster; else unresolved), a disagreement note when it
  differs from the rule's, and ``inconclusive`` when the cell has fewer than 3
  complete rounds, no data, or neither the rule nor the interval resolves it.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from interchange.decision import (
    STATS_UNRESOLVED,
    VERDICT_DENSE,
    VERDICT_NO_DATA,
    VERDICT_NOISE,
    VERDICT_PAGED,
    CellDecision,
    FamilyDecision,
    flag_from_verdicts,
)

RULE_TEXT = (
    "per cell: d = D/P - 1, z = N/P - 1 per round; dense clears the null spread upward "
    "when median(d) > max|z|, paged is faster beyond it when median(d) < -max|z|; "
    "supports_paged_decode_backend becomes false iff dense clears upward in at least one "
    "cell and paged is faster beyond the null spread in none"
)
MIN_CONCLUSIVE_ROUNDS = 3
_Z_ALPHA_PLUS_POWER = 1.959964 + 0.841621
_T_975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
          2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
          2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)  # fmt: skip


@dataclass(frozen=True)
class RoundTriple:
    """Aggregate tok/s of the three arms in one round of one cell."""

    round: int
    paged: float
    dense: float
    paged_null: float


def paired_delta(paged: float, dense: float) -> float:
    return dense / paged - 1.0


def decide_cell(family: str, prompt_tokens: int, concurrency: int, triples: list[RoundTriple]) -> CellDecision:
    """Apply the rule and the statistics to one cell's complete rounds."""
    triples = sorted(triples, key=lambda t: t.round)
    d = tuple(paired_delta(t.paged, t.dense) for t in triples)
    z = tuple(paired_delta(t.paged, t.paged_null) for t in triples)
    if not triples:
        return CellDecision(
            family, prompt_tokens, concurrency, (), (), (), None, None, VERDICT_NO_DATA,
            None, None, None, None, 0, None, STATS_UNRESOLVED, True, ("no complete round",),
        )  # fmt: skip
    median_d = statistics.median(d)
    spread = max(abs(v) for v in z)
    verdict = rule_verdict(median_d, spread)
    ci = t_interval(d)
    stats_verdict = _interval_verdict(ci)
    to_resolve = rounds_to_resolve(median_d, z)
    notes = []
    if len(triples) < MIN_CONCLUSIVE_ROUNDS:
        notes.append(f"only {len(triples)} complete round(s)")
    if verdict == VERDICT_NOISE and stats_verdict == STATS_UNRESOLVED:
        more = f"; about {to_resolve} rounds could resolve a delta this size" if to_resolve else ""
        notes.append(f"neither the rule nor the interval resolves a difference{more}")
    if verdict != VERDICT_NOISE and stats_verdict != verdict:
        notes.append(f"rule says {verdict} but the 95% interval says {stats_verdict}")
    if verdict == VERDICT_NOISE and stats_verdict != STATS_UNRESOLVED:
        notes.append(f"rule says within noise but the 95% interval says {stats_verdict}")
    inconclusive = len(triples) < MIN_CONCLUSIVE_ROUNDS or (
        verdict == VERDICT_NOISE and stats_verdict == STATS_UNRESOLVED
    )
    return CellDecision(
        family,
        prompt_tokens,
        concurrency,
        tuple(t.round for t in triples),
        d,
        z,
        median_d,
        spread,
        verdict,
        statistics.median(t.paged for t in triples),
        statistics.median(t.dense for t in triples),
        statistics.fmean(d),
        ci,
        sum(1 for v in d if v > 0),
        to_resolve,
        stats_verdict,
        inconclusive,
        tuple(notes),
    )


def rule_verdict(median_paired_delta: float, null_spread: float) -> str:
    if median_paired_delta > null_spread:
        return VERDICT_DENSE
    if median_paired_delta < -null_spread:
        return VERDICT_PAGED
    return VERDICT_NOISE


def decide_family(name: str, model: str, cells: list[CellDecision]) -> FamilyDecision:
    """The family's flag by the rule, the flag the statistics alone would give, and notes."""
    dense = [c for c in cells if c.verdict == VERDICT_DENSE]
    paged = [c for c in cells if c.verdict == VERDICT_PAGED]
    flag = flag_from_verdicts([c.verdict for c in cells])
    stats_flag = flag_from_verdicts([c.statistics_verdict for c in cells])
    reason = (
        f"dense clears the null spread upward in {_cell_list(dense)}; "
        f"paged is faster beyond it in {_cell_list(paged)}; "
        + ("so the flag becomes false" if not flag else "so the flag stays true")
    )
    notes = []
    if stats_flag != flag:
        notes.append(
            f"the rule gives {str(flag).lower()} but the 95% intervals alone would give {str(stats_flag).lower()}"
        )
    inconclusive = [c for c in cells if c.inconclusive]
    if inconclusive:
        notes.append(f"{len(inconclusive)} of {len(cells)} cells are inconclusive")
    if not cells or all(c.verdict == VERDICT_NO_DATA for c in cells):
        notes.append("no cell has a complete round: the flag stays true for lack of data")
    return FamilyDecision(name, model, flag, reason, stats_flag, tuple(cells), tuple(notes))


def t_interval(values: tuple[float, ...]) -> tuple[float, float] | None:
    """95% t confidence interval of the mean; None with fewer than 2 values."""
    if len(values) < 2:
        return None
    mean = statistics.fmean(values)
    half = _t_975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return (mean - half, mean + half)


def rounds_to_resolve(median_paired_delta: float, null_deltas: tuple[float, ...]) -> int | None:
    """Rounds needed to detect a delta of this size given the null deltas' noise."""
    if median_paired_delta == 0:
        return None
    noise = math.sqrt(statistics.fmean(v * v for v in null_deltas))
    needed = (_Z_ALPHA_PLUS_POWER * noise / abs(median_paired_delta)) ** 2
    return max(2, math.ceil(needed))


def cell_name(cell: CellDecision) -> str:
    return f"p{cell.prompt_tokens}/c{cell.concurrency}"


def _cell_list(cells: list[CellDecision]) -> str:
    return ", ".join(cell_name(c) for c in cells) if cells else "no cell"


def _interval_verdict(ci: tuple[float, float] | None) -> str:
    if ci is None:
        return STATS_UNRESOLVED
    if ci[0] > 0:
        return VERDICT_DENSE
    if ci[1] < 0:
        return VERDICT_PAGED
    return STATS_UNRESOLVED


def _t_975(degrees_of_freedom: int) -> float:
    if degrees_of_freedom <= len(_T_975):
        return _T_975[degrees_of_freedom - 1]
    return 2.0 if degrees_of_freedom <= 60 else 1.96
