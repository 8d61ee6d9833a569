import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis._collect import decide_run_folder
from analysis._decision import (
    VERDICT_DENSE,
    VERDICT_NOISE,
    VERDICT_PAGED,
    RoundTriple,
    decide_cell,
    flag_from_verdicts,
    rounds_to_resolve,
    t_interval,
)
from paged_bench_helpers import cells_from_ratios, write_run_folder

NOISE = [(1.00, 1.01), (1.005, 0.995), (0.998, 1.008), (1.002, 0.992), (0.999, 1.004)]
DENSE_5PCT = [(1.05, 1.01), (1.06, 0.995), (1.04, 1.008), (1.05, 0.992), (1.055, 1.004)]
PAGED_5PCT = [(0.95, 1.01), (0.94, 0.995), (0.96, 1.008), (0.95, 0.992), (0.945, 1.004)]


def _family(tmp_path, ratios):
    decision = decide_run_folder(write_run_folder(tmp_path, cells_from_ratios("gemma3", ratios)))
    (family,) = decision.families
    return decision, family


def test_dense_faster_in_one_cell_only_flips_the_flag(tmp_path):
    decision, family = _family(tmp_path, {(512, 1): NOISE, (512, 4): DENSE_5PCT, (512, 8): NOISE, (4096, 1): NOISE})
    assert family.supports_paged_decode_backend is False
    verdicts = {(c.prompt_tokens, c.concurrency): c.verdict for c in family.cells}
    assert verdicts[(512, 4)] == VERDICT_DENSE
    assert [v for v in verdicts.values() if v != VERDICT_NOISE] == [VERDICT_DENSE]
    assert "p512/c4" in family.reason and "becomes false" in family.reason
    assert decision.problems == ()


def test_paged_faster_in_one_cell_and_dense_in_another_keeps_true(tmp_path):
    _, family = _family(tmp_path, {(512, 1): DENSE_5PCT, (4096, 8): PAGED_5PCT})
    assert family.supports_paged_decode_backend is True
    assert {c.verdict for c in family.cells} == {VERDICT_DENSE, VERDICT_PAGED}


def test_everything_within_noise_keeps_true(tmp_path):
    _, family = _family(tmp_path, {(512, 1): NOISE, (512, 8): NOISE, (4096, 4): NOISE})
    assert family.supports_paged_decode_backend is True
    assert all(c.verdict == VERDICT_NOISE for c in family.cells)
    assert all(c.inconclusive for c in family.cells)


def test_cell_numbers_match_hand_computation():
    triples = [RoundTriple(r, 100.0, 100.0 * d, 100.0 * n) for r, (d, n) in enumerate(DENSE_5PCT, 1)]
    cell = decide_cell("gemma3", 512, 4, triples)
    assert cell.median_paired_delta == pytest.approx(0.05)
    assert cell.null_spread == pytest.approx(0.01)
    assert cell.rounds_favouring_dense == 5
    assert cell.verdict == cell.statistics_verdict == VERDICT_DENSE
    low, high = cell.ci95
    assert low > 0 and low < 0.051 < high


def test_seed_like_overlap_is_inconclusive_with_rounds_to_resolve():
    """The #2226 shape: dense ~1.5% ahead, noise of the same size."""
    rounds = [(1.015, 1.02), (1.01, 0.985), (1.02, 1.018)]
    cell = decide_cell(
        "gemma3", 512, 4, [RoundTriple(r, 350.0, 350.0 * d, 350.0 * n) for r, (d, n) in enumerate(rounds, 1)]
    )
    assert cell.verdict == VERDICT_NOISE
    assert cell.statistics_verdict == VERDICT_DENSE
    assert any("interval says dense-faster" in note for note in cell.notes)
    assert cell.rounds_to_resolve is not None and cell.rounds_to_resolve > 3


def test_rule_and_statistics_disagreement_is_reported():
    rounds = [(1.30, 1.01), (0.80, 1.0), (1.25, 0.99)]
    cell = decide_cell(
        "llama4", 512, 8, [RoundTriple(r, 100.0, 100 * d, 100 * n) for r, (d, n) in enumerate(rounds, 1)]
    )
    assert cell.verdict == VERDICT_DENSE and cell.statistics_verdict == "unresolved"
    assert any("rule says dense-faster but the 95% interval says unresolved" in n for n in cell.notes)


def test_rounds_to_resolve_formula():
    assert rounds_to_resolve(0.0, (0.01,)) is None
    noise = 0.02
    expected = math.ceil(((1.959964 + 0.841621) * noise / 0.01) ** 2)
    assert rounds_to_resolve(0.01, (noise, -noise)) == expected
    assert rounds_to_resolve(0.5, (0.001,)) == 2


def test_t_interval_needs_two_values():
    assert t_interval((0.1,)) is None
    low, high = t_interval((0.0, 0.2))
    assert (low + high) / 2 == pytest.approx(0.1)
    assert high - low == pytest.approx(2 * 12.706 * math.sqrt(0.02) / math.sqrt(2))


@given(st.lists(st.sampled_from([VERDICT_DENSE, VERDICT_PAGED, VERDICT_NOISE, "no-data"]), max_size=8))
def test_flag_is_false_exactly_when_dense_wins_somewhere_and_paged_nowhere(verdicts):
    expected = not (VERDICT_DENSE in verdicts and VERDICT_PAGED not in verdicts)
    assert flag_from_verdicts(verdicts) is expected
