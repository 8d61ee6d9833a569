"""ssm-diff and ssm-generations driven in-process with click's CliRunner."""

import json

import pytest
from click.testing import CliRunner

from kernels.cli import ssm_diff_main, ssm_generations_main


def run(command, args):
    return CliRunner().invoke(command, args, catch_exceptions=False)


def test_ssm_diff_table_passes_the_seed_case_on_cpu():
    result = run(
        ssm_diff_main,
        [
            "--shape",
            "granite-4.0-h-tiny",
            "--batch",
            "1",
            "--act-dtype",
            "bf16",
            "--a-log-dtype",
            "bf16",
            "--state-dtype",
            "f32",
            "--seed",
            "2069",
            "--device",
            "cpu",
        ],
    )
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert [line.split()[0] for line in lines[2:6]] == ["dt", "dA", "state", "out"]
    assert lines[-1] == "first failing stage: none"


@pytest.mark.parametrize(
    ("inject", "stage"),
    [("state-bf16", "state"), ("dt-bf16", "dt"), ("dt-sum-bf16", "dt"), ("dA-bf16", "dA"), ("D-bf16", "out")],
)
def test_ssm_diff_json_names_the_injected_stage(inject, stage):
    result = run(
        ssm_diff_main,
        [
            "--shape",
            "nemotron-h",
            "--act-dtype",
            "f32",
            "--a-log-dtype",
            "f32",
            "--seed",
            "2071",
            "--inject",
            inject,
            "--json",
        ],
    )
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["first_failing_stage"] == stage
    assert [s["name"] for s in report["stages"]] == ["dt", "dA", "state", "out"]
    assert set(report["stages"][0]) >= {"name", "nrms", "budget", "ok"}


def test_ssm_diff_rejects_an_unknown_injection():
    result = CliRunner().invoke(ssm_diff_main, ["--inject", "x-bf16"])
    assert result.exit_code == 2


@pytest.mark.parametrize(
    ("a", "b", "expected", "code"),
    [
        ("1 2 3 4", "1 2 3 4", "identical over the first 4 tokens", 0),
        ("1 2 3 4", "1 2 9 4", "first divergence at token 2: A='3' B='9' (A has 4 tokens, B 4)", 1),
        ("1 2 3", "1 2 3 4", "first divergence at token 3: A=None B='4' (A has 3 tokens, B 4)", 1),
    ],
)
def test_ssm_generations_reports_the_first_divergence(tmp_path, a, b, expected, code):
    (tmp_path / "a.txt").write_text(a)
    (tmp_path / "b.txt").write_text(b)
    result = run(ssm_generations_main, [str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--tokens", "64"])
    assert (result.output.strip(), result.exit_code) == (expected, code)


def test_ssm_generations_reads_json_token_ids_and_stops_at_tokens(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps({"tokens": [5, 6, 7, 8]}))
    (tmp_path / "b.json").write_text(json.dumps([5, 6, 7, 9]))
    result = run(ssm_generations_main, [str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--tokens", "3", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.output)["first_divergence"] is None
