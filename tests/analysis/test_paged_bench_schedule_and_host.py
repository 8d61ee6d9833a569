import json
from collections import Counter

from click.testing import CliRunner

from analysis._host import find_mlx_pin
from analysis._schedule import ARMS, Family, arm_order, build_schedule
from analysis.cli import main


def test_each_arm_takes_each_position_over_three_rounds():
    assert arm_order(1) == ("paged", "dense", "paged-null")
    assert arm_order(2) == ("dense", "paged-null", "paged")
    assert arm_order(3) == ("paged-null", "paged", "dense")
    assert arm_order(4) == arm_order(1)
    positions = Counter((arm_order(r).index(arm), arm) for r in (1, 2, 3) for arm in ARMS)
    assert set(positions.values()) == {1} and len(positions) == 9


def test_schedule_covers_every_family_length_round_and_arm():
    families = (Family("gemma3", "g"), Family("llama4", "l"))
    schedule = build_schedule(families, (512, 4096), 5)
    assert len(schedule) == 2 * 2 * 5 * 3
    assert len({run.run_id for run in schedule}) == len(schedule)
    assert {run.position for run in schedule} == {1, 2, 3}
    assert schedule[0].arm == "paged" and schedule[3].arm == "dense"


def test_plan_prints_the_seed_commands_by_default():
    result = CliRunner().invoke(
        main, ["plan", "--family", "gemma3=models/mlx/gemma-3-1b-it-4bit", "--rounds", "2", "--json"]
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert len(rows) == 2 * 2 * 3
    assert rows[0]["serve_command"] == (
        "mlxcel serve -m models/mlx/gemma-3-1b-it-4bit --port 18080 --metrics --parallel 8 "
        "--decode-storage-backend paged"
    )
    assert rows[0]["command"] == (
        "python3 scripts/bench_serving_concurrency.py --port 18080 --concurrency 1,4,8 "
        "--prompt-tokens 512 --max-tokens 128 --metrics"
    )
    null_rows = [r for r in rows if r["arm"] == "paged-null"]
    assert all("--decode-storage-backend paged" in r["serve_command"] for r in null_rows)


def test_plan_text_and_usage_errors():
    runner = CliRunner()
    text = runner.invoke(main, ["plan", "--family", "gemma3=m", "--family", "llama4=n", "--rounds", "1"])
    assert text.exit_code == 0 and "llama4 p4096 round 1 pos 3 paged-null" in text.output
    for bad, said in ((["--family", "gemma3"], "expected NAME=MODEL_PATH"),
                      (["--family", "gemma3=m", "--prompt-tokens", "5,x"], "expected comma-separated integers"),
                      (["--family", "gemma3=m", "--serve-cmd", "serve {modle}"], "bad placeholder 'modle'"),
                      (["--family", "gemma3=m", "--family", "gemma3=n"], "family 'gemma3' given twice"),
                      (["--family", "mistral=/x"], "unknown family 'mistral' (known: gemma3, llama4")):  # fmt: skip
        result = runner.invoke(main, ["plan", *bad])
        assert result.exit_code == 2 and said in result.output, (bad, result.output)


def test_mlx_pin_lookup(tmp_path):
    assert find_mlx_pin(tmp_path) is None
    (tmp_path / "Cargo.lock").write_text(
        '[[package]]\nname = "mlxcel-core"\nversion = "0.1.0"\n\n'
        '[[package]]\nname = "mlx-sys"\nversion = "0.2.0"\n'
        'source = "git+https://example.invalid/mlx-rs?rev=abc#abc"\n'
    )
    pin = find_mlx_pin(tmp_path)
    assert pin["source"] == "Cargo.lock" and pin["pin"].startswith("mlx-sys 0.2.0")
    (tmp_path / "mlx.version").write_text("v0.29.1\n")
    assert find_mlx_pin(tmp_path) == {"source": "mlx.version", "pin": "v0.29.1"}


def test_mlx_pin_from_a_tracked_build_script(tmp_path):
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "crates" / "core").mkdir(parents=True)
    (tmp_path / "crates" / "core" / "build.rs").write_text('const MLX_GIT_TAG: &str = "v0.29.1";\n')
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True)
    assert find_mlx_pin(tmp_path) == {"source": "crates/core/build.rs", "pin": "v0.29.1"}
