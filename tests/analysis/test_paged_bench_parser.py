"""The bench output parser on real output of both versions of mlxcel's bench script."""

import pytest

from analysis._bench_output import BenchParseFailure, BenchTable, parse_bench_file, parse_bench_output
from paged_bench_helpers import ROOT, bench_stdout

SAMPLES = ROOT / "fixtures" / "bench-output"


def _sample(name: str) -> str:
    return (SAMPLES / name).read_text()


def _parsed(name: str) -> BenchTable:
    table = parse_bench_file(SAMPLES / name, display=name)
    assert isinstance(table, BenchTable), str(table)
    return table


def test_every_committed_sample_parses():
    names = sorted(p.name for p in SAMPLES.glob("*.txt"))
    assert len(names) == 7
    for name in names:
        _parsed(name)


@pytest.mark.parametrize("name", ["corpus-plain.txt", "upstream-plain.txt"])
def test_output_without_metrics(name):
    table = _parsed(name)
    assert [r.concurrency for r in table.rows] == [1, 4, 8]
    assert table.banner["Concurrency"] == "[1, 4, 8]" and table.banner["Max tokens"] == "32"
    assert all(r.ok == r.concurrency and r.fail == 0 and r.aggregate_tok_s > 0 for r in table.rows)
    assert set(table.levels) == {1, 4, 8}
    assert all(level.decode_paths is None and level.batch_counters is None for level in table.levels.values())
    assert table.levels[8].paged_launches is None


def test_metrics_keep_each_levels_decode_paths_and_batch_counters():
    paged = _parsed("upstream-metrics-paged.txt")
    level = paged.levels[4]
    assert level.decode_paths['paged_decode_launches_total{path="fused_v2"}'] > 0
    assert level.decode_paths['paged_decode_launches_total{path="cascade"}'] == 0
    assert level.paged_launches == level.decode_paths['paged_decode_launches_total{path="fused_v2"}']
    assert set(level.batch_counters) == {"decode_steps", "decode_tokens", "mixed_steps", "prefill_chunks",
                                         "tokens_predicted_seconds"}  # fmt: skip
    assert level.batch_counters["decode_tokens"] >= level.batch_counters["decode_steps"] > 0
    assert set(level.batch_steps) == {"occupancy", "decode_step_ms", "predicted_seconds_per_step_ms"}
    assert level.notes and level.notes[0].startswith("NOTE: no cascade launch")
    assert paged.row(4).aggregate_tok_s > 0

    dense = _parsed("upstream-metrics-dense.txt")
    assert all(level.paged_launches == 0 for level in dense.levels.values())
    assert all(level.batch_counters["decode_steps"] > 0 for level in dense.levels.values())


def test_metrics_unavailable_is_recorded_not_fatal():
    table = _parsed("upstream-metrics-unavailable.txt")
    assert [r.concurrency for r in table.rows] == [1, 4]
    assert all(level.metrics_unavailable and level.decode_paths is None for level in table.levels.values())


def test_failed_requests_and_a_level_where_all_failed():
    table = _parsed("upstream-metrics-failed-requests.txt")
    assert table.failed_requests == 1
    assert table.levels[4].request_errors == ('HTTP 500: {"error": "injected failure"}',)
    down = _parsed("upstream-metrics-all-failed.txt")
    assert [(r.ok, r.fail, r.aggregate_tok_s) for r in down.rows] == [(0, 1, 0.0), (0, 2, 0.0)]
    assert down.levels[2].batch_steps == {"occupancy": None, "decode_step_ms": None,
                                          "predicted_seconds_per_step_ms": None}  # fmt: skip


GOOD = _sample("upstream-metrics-paged.txt")
_ROW_4 = next(line for line in GOOD.splitlines() if line.split()[:1] == ["4"])
_ROW_8 = next(line for line in GOOD.splitlines() if line.split()[:1] == ["8"])


@pytest.mark.parametrize(
    ("text", "message", "truncated"),
    [
        (GOOD[:-20], "ends mid-line", True),
        (GOOD[: GOOD.index(_ROW_8)], "does not end with a blank line", True),
        (GOOD[: GOOD.index(_ROW_8) + len(_ROW_8) + 1], "does not end with a blank line", True),
        (GOOD.replace(_ROW_8 + "\n", ""), "lacks concurrency 8", True),
        (GOOD[: GOOD.index("\nconc ")] + "\n", "no summary table after the level sections", True),
        ("just a banner\n", "no summary table header", False),
        (GOOD.replace(_ROW_4, _ROW_4.replace(_ROW_4.split()[-1], "fast")), "non-numeric", False),
        (GOOD.replace(_ROW_4, _ROW_4.rsplit(maxsplit=1)[0]), "6 fields, expected 7", False),
        (GOOD.replace(_ROW_8, _ROW_8.replace("   8 ", "   2 ", 1)), "out of order", False),
        (GOOD.replace("decode_steps=+", "decode_steps=", 1).replace("decode_steps=", "decode_steps=x", 1),
         "batch counters line is not name=delta", False),
        (GOOD.replace(">>> concurrency=8 ...", ">>> concurrency=16 ..."), "level 16 has a section but no table row",
         False),
    ],
    ids=["cut-mid-line", "cut-before-last-row", "cut-before-closing-blank", "missing-level", "no-table",
         "no-header", "non-numeric", "short-row", "out-of-order", "bad-counter", "section-without-row"],
)  # fmt: skip
def test_bad_output_is_a_failure_naming_the_file(text, message, truncated):
    failure = parse_bench_output(text, "stdout/x.txt", expected_concurrency=(1, 4, 8))
    assert isinstance(failure, BenchParseFailure)
    assert message in failure.message
    assert failure.truncated is truncated
    assert str(failure).startswith("stdout/x.txt")


def test_missing_file_is_a_failure(tmp_path):
    failure = parse_bench_file(tmp_path / "absent.txt")
    assert isinstance(failure, BenchParseFailure)
    assert "absent.txt" in str(failure) and "cannot read" in failure.message


def test_synthetic_output_of_the_test_helpers_has_the_real_shape():
    table = parse_bench_output(bench_stdout({1: 10.0, 4: 30.0}, paged_launches=0), "synthetic")
    assert isinstance(table, BenchTable) and table.row(4).aggregate_tok_s == 30.0
    assert table.levels[4].paged_launches == 0
