"""``paged-bench``: measure paged vs dense decode storage and decide the flag.

Exit codes (one table for every command, shown in each command's --help):
0 success, nothing to report; 1 done, but problems were recorded (failed
servers, failed requests, unparsable output, missing rounds); 2 usage error;
130 interrupted (the run folder is consistent; run the same command to resume).
"""

from __future__ import annotations

import json
import re
import signal
import sys
from pathlib import Path

import click

from interchange.cli_style import HELP_OPTIONS, Group, UsageLine

from analysis._collect import decide_run_folder, decision_to_json, summarise_levels
from analysis._report import MissingPlotter, write_report
from analysis._run_folder import RUNS_FILE, STATUS_OK, STATUS_SERVER_FAILED
from analysis._preflight import PreflightError, adapt_bench_template, check_programs, read_bench_options
from analysis._runner import REPEATS_TO_STOP, RunnerSettings, record_host, run_schedule
from analysis._schedule import DEFAULT_BENCH_TEMPLATE, DEFAULT_SERVE_TEMPLATE, Family, build_schedule, render_command
from interchange.decision import KNOWN_FAMILIES

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_CODES = (
    "Exit codes: 0 success, nothing to report; 1 done, but problems were recorded (failed servers, "
    "failed requests, unparsable output, missing rounds); 2 usage error (one line, "
    "`paged-bench: error: ...`); 130 interrupted (run the same command to resume)."
)
# Placeholders a template must hold, with what goes wrong without them (see _check_templates).
WHY_NEEDED = {
    "backend": "the paged, dense and null arms would start the same server",
    "model": "every family would start the same model",
    "port": "--port 0 gives every run its own port",
    "prompt_tokens": "every prompt length would run the same bench",
}
# Assumed for `plan`'s estimate when no measurement is at hand: a server start plus one bench.
DEFAULT_SECONDS_PER_RUN = 180.0
_FAMILY_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _parse_family(ctx, param, values: tuple[str, ...]) -> tuple[Family, ...]:
    families = []
    for value in values:
        name, sep, model = value.partition("=")
        if not sep or not _FAMILY_NAME.match(name) or not model:
            raise click.BadParameter(f"{value!r}: expected NAME=MODEL_PATH, e.g. gemma3=models/mlx/gemma-3-1b-it-4bit")
        if name not in KNOWN_FAMILIES:
            raise click.BadParameter(
                f"{value!r}: unknown family {name!r} (known: {', '.join(KNOWN_FAMILIES)}; "
                "the paged-flag recipe sets the flag of these only)"
            )
        if name in (f.name for f in families):
            raise click.BadParameter(f"family {name!r} given twice")
        families.append(Family(name, model))
    return tuple(families)


def _parse_prompt_tokens(ctx, param, value: str) -> tuple[int, ...]:
    try:
        lengths = tuple(int(part) for part in value.split(","))
    except ValueError:
        raise click.BadParameter(f"{value!r}: expected comma-separated integers") from None
    if not lengths or any(n <= 0 for n in lengths) or len(set(lengths)) != len(lengths):
        raise click.BadParameter(f"{value!r}: expected distinct positive integers")
    return lengths


def _check_template(option: str, template: str, needed: tuple[str, ...], **values: object) -> None:
    import string

    try:
        render_command(template, **values)
        used = {field for _, field, _, _ in string.Formatter().parse(template) if field}
    except (KeyError, IndexError, ValueError) as error:
        raise UsageLine(
            f"{option} {template!r}: bad placeholder {error} (placeholders: {', '.join('{' + k + '}' for k in values)})"
        ) from None
    missing = [name for name in needed if name not in used]
    if missing:
        raise UsageLine(f"{option} {template!r} lacks {{{missing[0]}}}: without it {WHY_NEEDED[missing[0]]}")


def schedule_options(command):
    """Options shared by `run` and `plan`: what to measure and how to start it."""
    options = [
        click.option("--family", "families", multiple=True, required=True, callback=_parse_family,
                     help=f"NAME=MODEL_PATH; repeat per family. NAME is one of: {', '.join(KNOWN_FAMILIES)}."),
        click.option("--prompt-tokens", default="512,4096", show_default=True,
                     callback=_parse_prompt_tokens, help="Comma-separated prompt lengths, in tokens."),
        click.option("--rounds", default=5, show_default=True, type=click.IntRange(min=1),
                     help="Rounds per family and prompt length; each round runs the three arms once."),
        click.option("--serve-cmd", "serve_template", default=DEFAULT_SERVE_TEMPLATE, show_default=True,
                     help="Server command template; placeholders {model} {port} {backend} "
                          "({model} and {backend} required)."),
        click.option("--bench-cmd", "bench_template", default=DEFAULT_BENCH_TEMPLATE, show_default=True,
                     help="Bench command template; placeholders {port} {prompt_tokens}."),
        click.option("--port", default=18080, show_default=True, type=click.IntRange(0, 65535),
                     help="Server port; 0 picks a free port for every run."),
    ]  # fmt: skip
    for option in reversed(options):
        command = option(command)
    return command


@click.group(name="paged-bench", cls=Group, context_settings=HELP_OPTIONS, epilog=EXIT_CODES)
@click.version_option(package_name="mlxcel-codemods")
def main() -> None:
    """Measure paged vs dense decode storage per model family and decide the flag."""


@main.command(epilog=EXIT_CODES)
@schedule_options
@click.option("--json", "as_json", is_flag=True, help="Print the schedule as JSON.")
@click.option(
    "--seconds-per-run",
    default=DEFAULT_SECONDS_PER_RUN,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds one run takes (server start, bench, stop), for the time estimate; "
    "`run` re-estimates from the runs it has done.",
)
def plan(families, prompt_tokens, rounds, serve_template, bench_template, port, as_json, seconds_per_run) -> None:
    """Print the run schedule and its time estimate without running anything."""
    _check_templates(serve_template, bench_template, port, prompt_tokens)
    schedule = build_schedule(families, prompt_tokens, rounds)
    shown_port = port or "{port}"
    rows = [
        {
            "run_id": run.run_id,
            **run.fields(),
            "serve_command": serve_template.format(model=run.model, port=shown_port, backend=run.backend),
            "command": bench_template.format(port=shown_port, prompt_tokens=run.prompt_tokens),
        }
        for run in schedule
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for index, row in enumerate(rows, start=1):
        click.echo(
            f"{index:>3} {row['family']} p{row['prompt_tokens']} round {row['round']} "
            f"pos {row['position']} {row['arm']}\n      serve: {row['serve_command']}\n"
            f"      bench: {row['command']}"
        )
    click.echo(
        f"{len(rows)} runs, each on a fresh server; about {_duration(len(rows) * seconds_per_run)} "
        f"at {seconds_per_run:g}s per run (--seconds-per-run)",
        err=True,
    )


def _duration(seconds: float) -> str:
    """`4h 30min`, `12min`, `40s`: a time estimate at the precision it deserves."""
    minutes = round(seconds / 60)
    if minutes >= 60:
        return f"{minutes // 60}h {minutes % 60:02d}min"
    return f"{minutes}min" if minutes else f"{seconds:.0f}s"


@main.command(epilog=EXIT_CODES)
@schedule_options
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Run folder; created if needed, resumed if it holds runs.jsonl.",
)
@click.option(
    "--repo",
    "--cwd",
    "repo",
    default=".",
    show_default=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Target repository: commands run here; host.json records its commit and MLX pin.",
)
@click.option("--no-resume", is_flag=True, help="Refuse to run into a folder that already holds runs.jsonl.")
@click.option(
    "--health-path",
    default="/health",
    show_default=True,
    help="HTTP path polled until the server answers it (any status below 500): then it is up.",
)
@click.option(
    "--startup-timeout",
    default=900.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds to wait for the server to answer on --health-path (model loading included).",
)
@click.option(
    "--poll-interval",
    default=0.02,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds between two probes (health while the server starts, the port while it stops).",
)
@click.option(
    "--bench-timeout",
    default=3600.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds one bench command may run before it is stopped and the run recorded as failed.",
)
@click.option(
    "--stop-timeout",
    default=30.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds to wait for the server (or a timed-out bench) to exit after SIGTERM before "
    "SIGKILL, and for the port to be free again.",
)
def run(families, prompt_tokens, rounds, serve_template, bench_template, port, out, repo,
        no_resume, health_path, startup_timeout, poll_interval, bench_timeout, stop_timeout) -> None:  # fmt: skip
    """Run every arm of every round on a fresh server and record it under --out.

    Resumes by default: runs recorded in OUT/runs.jsonl with status ok (bench
    exit 0, output parsed, no failed requests) are skipped; every other run is
    done again. Progress goes to stderr, with the time left estimated from
    the runs done so far.
    """
    _check_templates(serve_template, bench_template, port, prompt_tokens)
    if no_resume and (out / RUNS_FILE).exists():
        raise UsageLine(f"{out / RUNS_FILE} exists and --no-resume was given")
    try:
        check_programs(serve_template, bench_template, repo.resolve())
        bench_script = read_bench_options(bench_template, repo.resolve())
        effective_bench, dropped = adapt_bench_template(bench_template, bench_script)
    except PreflightError as error:
        raise UsageLine(str(error)) from None
    click.echo(bench_script.describe() + (f": running it without {', '.join(dropped)}" if dropped else ""), err=True)
    settings = RunnerSettings(
        serve_template, effective_bench, repo.resolve(), out.resolve(), port, health_path,
        startup_timeout, poll_interval, bench_timeout, stop_timeout,
    )  # fmt: skip
    settings.out.mkdir(parents=True, exist_ok=True)
    command_line = ["paged-bench", "run"]
    for family in families:
        command_line += ["--family", f"{family.name}={family.model}"]
    command_line += [
        "--prompt-tokens", ",".join(map(str, prompt_tokens)), "--rounds", str(rounds),
        "--serve-cmd", serve_template, "--bench-cmd", bench_template, "--port", str(port),
        "--out", str(out), "--repo", str(repo), "--health-path", health_path,
        "--startup-timeout", f"{startup_timeout:g}", "--poll-interval", f"{poll_interval:g}",
        "--bench-timeout", f"{bench_timeout:g}", "--stop-timeout", f"{stop_timeout:g}",
    ]  # fmt: skip
    record_host(
        settings,
        command_line,
        {
            "script": bench_script.script,
            "options": None if bench_script.options is None else sorted(bench_script.options),
            "dropped": list(dropped),
        },
    )
    schedule = build_schedule(families, prompt_tokens, rounds)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        result = run_schedule(schedule, settings, lambda line: click.echo(line, err=True))
    except KeyboardInterrupt:
        click.echo("interrupted; the server was stopped. Resume with the same command.", err=True)
        sys.exit(EXIT_INTERRUPTED)
    finally:
        signal.signal(signal.SIGTERM, previous)
    outcomes = result.outcomes
    failed = [o for o in outcomes if o.status != STATUS_OK]
    click.echo(f"{len(outcomes) - len(failed)} of {len(outcomes)} runs ok; records in {out / RUNS_FILE}", err=True)
    for outcome in failed:
        click.echo(f"  {outcome.run.run_id}: {outcome.status}: {outcome.message}", err=True)
    if result.stopped_by is not None:
        for line in _repeated_failure_lines(result, out):
            click.echo(line, err=True)
    sys.exit(EXIT_PROBLEMS if failed else EXIT_OK)


def _repeated_failure_lines(result, out: Path) -> list[str]:
    """Why the schedule stopped, what to fix, and how many runs are left."""
    stopped = result.stopped_by
    paths = stopped.run.key.output_paths()
    if stopped.status == STATUS_SERVER_FAILED:
        fix = (
            f"see {out / paths['server_log']}; check --serve-cmd, the model path and --startup-timeout "
            "(`paged-bench plan` prints every command)"
        )
    elif "unrecognized arguments" in stopped.message or "unrecognised arguments" in stopped.message:
        fix = "the bench script rejects an argument of --bench-cmd: remove it (the script's --help lists what it takes)"
    else:
        fix = f"see {out / paths['stderr']} and {out / paths['server_log']}; check --bench-cmd"
    lines = [f"stopped: {REPEATS_TO_STOP} runs in a row failed the same way: {stopped.failure}", f"fix: {fix}"]
    if result.not_done:
        lines.append(f"{result.not_done} run(s) not started; after the fix, run the same command to resume")
    return lines


@main.command(epilog=EXIT_CODES)
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print decision.json content (results_document null).")
def decide(run_dir: Path, as_json: bool) -> None:
    """Apply the decision rule to the runs under RUN_DIR and print each family's flag."""
    decision = _decide(run_dir)
    if as_json:
        click.echo(json.dumps(decision_to_json(decision), indent=2))
    else:
        click.echo(render_decision_text(decision))
    sys.exit(EXIT_PROBLEMS if decision.problems else EXIT_OK)


@main.command(epilog=EXIT_CODES)
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The document, e.g. docs/benchmark_results/paged-vs-dense-gb10-2026-11-30.md.",
)
@click.option("--repo", "repo", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Repository root the document's path is recorded against "
                   "(default: the folder above docs/ in --out, else the current folder).")  # fmt: skip
def report(run_dir: Path, out: Path, repo: Path | None) -> None:
    """Write the results document, its plot and data folder, and RUN_DIR/decision.json."""
    if out.suffix != ".md":
        raise UsageLine(f"--out {out}: expected a .md path")
    root = repo or _repository_root_of(out)
    try:
        out.resolve().relative_to(root.resolve())
    except ValueError:
        raise UsageLine(f"--out {out} is not inside the repository root {root}") from None
    decision = _decide(run_dir)
    try:
        written = write_report(run_dir, decision, out, root)
    except MissingPlotter as error:
        raise UsageLine(str(error)) from None
    click.echo(render_decision_text(decision))
    click.echo(f"wrote {written.document}, {written.plot}, {written.data_dir}/ and {written.decision_file}", err=True)
    sys.exit(EXIT_PROBLEMS if decision.problems else EXIT_OK)


def render_decision_text(decision) -> str:
    """Per family: the flag and reason, each cell's numbers and notes; then problems."""
    lines = []
    for family in decision.families:
        flag = str(family.supports_paged_decode_backend).lower()
        lines.append(f"{family.name} ({family.model}): supports_paged_decode_backend = {flag}")
        lines.append(f"  {family.reason}")
        lines += [f"  note: {note}" for note in family.notes]
        for cell in family.cells:
            median = "n/a" if cell.median_paired_delta is None else f"{100 * cell.median_paired_delta:+.2f}%"
            spread = "n/a" if cell.null_spread is None else f"{100 * cell.null_spread:.2f}%"
            ci = "n/a" if cell.ci95 is None else f"[{100 * cell.ci95[0]:+.2f}%, {100 * cell.ci95[1]:+.2f}%]"
            lines.append(
                f"  p{cell.prompt_tokens} c{cell.concurrency}: median d {median}, null spread {spread}, "
                f"{cell.verdict}; CI95 {ci}; dense ahead in {cell.rounds_favouring_dense}/{len(cell.rounds)} "
                f"rounds; rounds to resolve {cell.rounds_to_resolve or 'n/a'}"
                + (" [inconclusive]" if cell.inconclusive else "")
            )
            lines += [f"    {note}" for note in cell.notes]
    lines += _decode_path_lines(decision)
    if decision.problems:
        lines.append(f"problems ({len(decision.problems)}):")
        lines += [f"  {p.describe()}" for p in decision.problems]
    return "\n".join(lines)


def _decode_path_lines(decision) -> list[str]:
    """Per family and prompt length, which decode path each arm's runs took at each level."""
    summaries = [s for s in summarise_levels(decision.observations) if s.paged_launches is not None]
    if not summaries:
        return []
    lines = ["decode paths (median paged-kernel launches per level, from the bench's --metrics lines):"]
    keys = dict.fromkeys((s.family, s.prompt_tokens, s.arm) for s in summaries)
    for family, prompt, arm in keys:
        levels = [s for s in summaries if (s.family, s.prompt_tokens, s.arm) == (family, prompt, arm)]
        cells = ", ".join(f"c{s.concurrency} {s.paged_launches:.0f}" for s in levels)
        steps = ", ".join(f"c{s.concurrency} {s.occupancy:.2f}" for s in levels if s.occupancy is not None)
        lines.append(f"  {family} p{prompt} {arm}: {cells}" + (f"; batch occupancy {steps}" if steps else ""))
    return lines


def _decide(run_dir: Path):
    runs = run_dir / RUNS_FILE
    if not runs.is_file():
        raise UsageLine(f"{run_dir} holds no {RUNS_FILE}; run `paged-bench run --out {run_dir}` first")
    try:
        with runs.open("rb") as lines:
            empty = not any(line.strip() for line in lines)
    except OSError as error:
        raise UsageLine(f"cannot read {runs}: {error.strerror or error}") from None
    if empty:
        raise UsageLine(f"{runs} holds no runs; run `paged-bench run --out {run_dir}` first")
    return decide_run_folder(run_dir)


def _repository_root_of(out: Path) -> Path:
    parts = out.resolve().parts
    if "docs" in parts:
        return Path(*parts[: len(parts) - 1 - parts[::-1].index("docs")])
    return Path.cwd()


def _check_templates(serve_template: str, bench_template: str, port: int, prompt_tokens: tuple[int, ...]) -> None:
    """Usage errors for templates that do not render, or that leave out what varies between runs:
    {port} in both when --port 0 picks a new port per run, {prompt_tokens} when there are several."""
    port_needed = ("port",) if port == 0 else ()
    _check_template(
        "--serve-cmd", serve_template, ("model", "backend", *port_needed), model="m", port=1, backend="paged"
    )
    lengths_needed = ("prompt_tokens",) if len(prompt_tokens) > 1 else ()
    _check_template("--bench-cmd", bench_template, port_needed + lengths_needed, port=1, prompt_tokens=1)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
