"""Console scripts: ssm-diff (stage-by-stage diff of the SSM update) and ssm-generations.

Exit codes: 0 all stages within budget / generations agree; 1 a stage over
budget / generations diverge; 2 usage error (click's).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from kernels._injections import Injection
from kernels._shapes import SHAPES, UpdateConfig
from kernels.diff import DiffReport, run_diff
from kernels.generations import GenerationComparison, compare_generations, load_tokens

EXIT_OK = 0
EXIT_DIFFERS = 1


def render_report(report: DiffReport) -> str:
    """The stage table ssm-diff prints."""
    config = report.config.describe()
    injected = ",".join(sorted(i.value for i in report.inject)) or "none"
    lines = [
        " ".join(f"{key}={value}" for key, value in config.items()) + f" device={report.device} inject={injected}",
        f"{'stage':<6} {'nrms vs f64':>12} {'nrms vs f32':>12} {'budget':>8}  result",
    ]
    for stage in report.stages:
        lines.append(
            f"{stage.name:<6} {stage.nrms:>12.3e} {stage.nrms_f32_reference:>12.3e} {stage.budget:>8.0e}  "
            + ("pass" if stage.ok else "FAIL")
        )
    lines.append(f"first failing stage: {report.first_failing_stage or 'none'}")
    return "\n".join(lines)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--shape", type=click.Choice(sorted(SHAPES)), default="granite-4.0-h-tiny", show_default=True)
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True, help="Sequences N.")
@click.option("--act-dtype", type=click.Choice(["bf16", "f32"]), default="bf16", show_default=True)
@click.option("--a-log-dtype", type=click.Choice(["bf16", "f32"]), default="bf16", show_default=True)
@click.option("--state-dtype", type=click.Choice(["f32", "bf16"]), default="f32", show_default=True)
@click.option("--seed", type=int, default=2069, show_default=True)
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True)
@click.option(
    "--inject",
    type=click.Choice([i.value for i in Injection]),
    multiple=True,
    help="Switch on a named deviation (repeat to combine).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--tree",
    type=click.Path(path_type=Path),
    help="Run the SSM kernel this mlxcel tree ships (read from its source) instead of our port; needs --device cuda.",
)
@click.option("--show-kernel", is_flag=True, help="With --tree: print the extracted kernel and its generated wrapper (no CUDA needed).")
@click.option("--instance", help="With --tree: only the SSM kernel instance of this cuda_kernel name (default: all).")
def ssm_diff_main(
    shape: str,
    batch: int,
    act_dtype: str,
    a_log_dtype: str,
    state_dtype: str,
    seed: int,
    device: str,
    inject: tuple[str, ...],
    as_json: bool,
    tree: Path | None,
    show_kernel: bool,
    instance: str | None,
) -> None:
    """Reproduce mlxcel's SSM decode update and diff every stage against the references.

    Stages dt' (compute_dt), dA, the new state and out, each as normalized RMS
    against a float64 reference and against the parity test's float32-upcast
    one; a stage passes when its float64 distance is within its budget (1e-5
    for a float32 result, 1e-2 for a bf16 one).  --device cpu runs the CPU
    emulation of the faithful kernel, --device cuda the kernel itself.
    Exit status 1 when a stage is over budget.

    --tree ROOT finds mlxcel's own SSM kernel in ROOT (the cuda_kernel source,
    its launch site and the compute_dt op chain), wraps it as MLX's
    cuda_kernel does, and diffs dt', the new state and out against float64
    and against our faithful kernel (bitwise or ulps).  --show-kernel prints
    what was extracted and generated, with path:line, without CUDA.
    """
    config = UpdateConfig(SHAPES[shape], batch, act_dtype, a_log_dtype, state_dtype, seed)
    if tree is not None or show_kernel or instance is not None:
        from kernels.tree_cli import run_tree

        raise SystemExit(run_tree(config, tree, device, inject, as_json, show_kernel, instance))
    report = run_diff(config, device, frozenset(Injection(name) for name in inject))
    click.echo(json.dumps(report.to_json(), indent=2) if as_json else render_report(report))
    raise SystemExit(EXIT_OK if report.first_failing_stage is None else EXIT_DIFFERS)


def render_comparison(comparison: GenerationComparison) -> str:
    """The line ssm-generations prints."""
    if comparison.first_divergence is None:
        return f"identical over the first {comparison.compared} tokens"
    return (
        f"first divergence at token {comparison.first_divergence}: "
        f"A={comparison.token_a!r} B={comparison.token_b!r} "
        f"(A has {comparison.length_a} tokens, B {comparison.length_b})"
    )


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("generation_a", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("generation_b", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--tokens", type=click.IntRange(min=1), default=64, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def ssm_generations_main(generation_a: Path, generation_b: Path, tokens: int, as_json: bool) -> None:
    """Compare two saved greedy generations token by token and report the first divergence.

    A .json file holds token ids (a list, or an object with "tokens" or
    "token_ids"); any other file is split on white space.  Exit status 1 when
    they differ within the first --tokens tokens.
    """
    try:
        comparison = compare_generations(load_tokens(generation_a), load_tokens(generation_b), tokens)
    except ValueError as error:
        raise click.UsageError(str(error)) from error
    click.echo(json.dumps(comparison.to_json()) if as_json else render_comparison(comparison))
    raise SystemExit(EXIT_OK if comparison.first_divergence is None else EXIT_DIFFERS)
