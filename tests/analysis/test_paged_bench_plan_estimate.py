"""`paged-bench plan` says how long `run` would take, as `run` itself does while it runs."""

from click.testing import CliRunner

from analysis.cli import main


def test_plan_prints_the_number_of_runs_and_a_time_estimate():
    result = CliRunner().invoke(
        main, ["plan", "--family", "gemma3=m", "--family", "llama4=n", "--rounds", "5", "--seconds-per-run", "90"]
    )
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[-1] == (
        "60 runs, each on a fresh server; about 1h 30min at 90s per run (--seconds-per-run)"
    )


def test_a_short_plan_is_estimated_in_minutes_or_seconds():
    minutes = CliRunner().invoke(main, ["plan", "--family", "gemma3=m", "--rounds", "1", "--prompt-tokens", "512"])
    assert "3 runs, each on a fresh server; about 9min at 180s per run" in minutes.stderr
    seconds = CliRunner().invoke(
        main, ["plan", "--family", "gemma3=m", "--rounds", "1", "--prompt-tokens", "512", "--seconds-per-run", "5"]
    )
    assert "about 15s at 5s per run" in seconds.stderr
