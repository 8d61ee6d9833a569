import math
from textwrap import dedent

import pytest

from analysis._bench_output import BenchParseFailure, BenchTable, parse_bench_file, parse_bench_output

GOOD = dedent(
    """\
    bench_serving_concurrency: port=18080 prompt_tokens=512 max_tokens=128
    progress: warming up
    conc  ok  fail  ttft_ms(mean)  ttft_ms(p95)  decode_tok_s(mean)  aggregate_tok_s
    1     1   0     41.20          41.20         82.10               81.40
    4     4   0     55.03          61.77         80.93               318.20
    8     7   1     70.11          90.02         78.40               611.35
    metrics conc=1 backend=paged requests_total=1
    metrics conc=4 backend=paged requests_total=5
    metrics conc=8 backend=paged requests_total=13
    """
)


def test_parses_rows_and_metrics():
    table = parse_bench_output(GOOD, "run.txt", expected_concurrency=(1, 4, 8))
    assert isinstance(table, BenchTable)
    assert [r.concurrency for r in table.rows] == [1, 4, 8]
    assert table.row(4).aggregate_tok_s == 318.20
    assert table.row(8).fail == 1
    assert table.failed_requests == 1
    assert table.metrics[8] == {"backend": "paged", "requests_total": 13.0}


def test_no_metrics_lines_is_fine():
    text = "\n".join(GOOD.splitlines()[:6]) + "\n"
    table = parse_bench_output(text, "run.txt")
    assert isinstance(table, BenchTable) and table.metrics == {}


def test_nan_measurements_when_nothing_succeeded():
    text = GOOD.replace("8     7   1     70.11          90.02         78.40", "8     0   8     nan  -  nan")
    table = parse_bench_output(text, "run.txt")
    assert isinstance(table, BenchTable)
    assert table.row(8).ok == 0 and math.isnan(table.row(8).ttft_ms_p95)


@pytest.mark.parametrize(
    ("text", "message", "truncated"),
    [
        (GOOD[:-20], "ends mid-line", True),
        ("\n".join(GOOD.splitlines()[:4]) + "\n", "lacks concurrency 4, 8", True),
        ("\n".join(GOOD.splitlines()[:3]) + "\n", "no rows", True),
        ("just a banner\n", "no summary table header", False),
        (GOOD.replace("318.20", "fast"), "non-numeric", False),
        (GOOD.replace("4     4   0", "4     4"), "fields, expected 7", False),
        (GOOD.replace("8     7   1", "2     7   1"), "out of order", False),
        (GOOD.replace("metrics conc=8", "metrics conc=16"), "metrics for concurrency 16", False),
        (GOOD.replace("metrics conc=1 backend", "metrics backend"), "lacks an integer conc", False),
    ],
    ids=["cut-mid-line", "missing-levels", "header-only", "no-header", "non-numeric",
         "short-row", "out-of-order", "metrics-unknown-level", "metrics-no-level"],  # fmt: skip
)
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


def test_fake_bench_client_output_parses():
    """The fake client prints the same shape as this module documents."""
    from paged_bench_helpers import bench_stdout

    table = parse_bench_output(bench_stdout({1: 10.0, 4: 30.0}), "synthetic")
    assert isinstance(table, BenchTable) and table.row(4).aggregate_tok_s == 30.0
