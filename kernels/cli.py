"""Console scripts: ssm-diff (stage-by-stage diff of the SSM update) and ssm-generations.

Exit codes: 0 all stages within budget / generations agree; 1 a stage over
budget / generations diverge; 2 usage error (one line, `PROG: error: ...`):
bad flags, CUDA asked for where torch has none, a batch that does not fit in
memory, a generation file that cannot be read.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import torch

from interchange.cli_style import HELP_OPTIONS, Command, UsageLine
from kernels._exit import EXIT_DIFFERS, EXIT_OK
from kernels._injections import Injection
from kernels._shapes import (
    GPU_BYTES_PER_STATE_ELEMENT,
    HOST_BYTES_PER_STATE_ELEMENT,
    SHAPES,
    UpdateConfig,
    state_elements,
)
from kernels.diff import DiffReport, run_diff
from kernels.generations import GenerationComparison, GenerationFileError, compare_generations, load_tokens
from kernels.tree_cli import run_tree

__all__ = ["EXIT_DIFFERS", "EXIT_OK", "render_comparison", "render_report", "ssm_diff_main", "ssm_generations_main"]
DIFF_EXIT_CODES = (
    "Exit codes: 0 every stage within budget; 1 a stage over budget; 2 usage error (one line, "
    "`ssm-diff: error: ...`: bad flags, CUDA where torch has none, a batch that does not fit)."
)
GENERATIONS_EXIT_CODES = (
    "Exit codes: 0 identical over the compared tokens; 1 they diverge; 2 usage error (one "
    "line, `ssm-generations: error: ...`: bad flags, a file that cannot be read)."
)


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


@click.command(name="ssm-diff", cls=Command, context_settings=HELP_OPTIONS, epilog=DIFF_EXIT_CODES)
@click.option(
    "--shape",
    type=click.Choice(sorted(SHAPES)),
    default="granite-4.0-h-tiny",
    show_default=True,
    help="Model whose SSM head layout (heads, head and state sizes, groups, dt clip) is reproduced.",
)
@click.option(
    "--batch",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Sequences N in the decode step (memory grows with it: about 20 MB per sequence for granite-4.0-h-tiny).",
)
@click.option(
    "--act-dtype",
    type=click.Choice(["bf16", "f32"]),
    default="bf16",
    show_default=True,
    help="Dtype T of the activations x, dt, B, C, D and dt_bias.",
)
@click.option(
    "--a-log-dtype", type=click.Choice(["bf16", "f32"]), default="bf16", show_default=True, help="Dtype of A_log."
)
@click.option(
    "--state-dtype",
    type=click.Choice(["f32", "bf16"]),
    default="f32",
    show_default=True,
    help="Dtype U of the SSM state.",
)
@click.option("--seed", type=int, default=2069, show_default=True, help="Seed of the N(0, 1) inputs.")
@click.option(
    "--device",
    type=click.Choice(["cpu", "cuda"]),
    default="cpu",
    show_default=True,
    help="cpu: the CPU emulation of the kernel; cuda: the kernel itself (needs a CUDA build of torch).",
)
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
@click.option(
    "--show-kernel",
    is_flag=True,
    help="With --tree: print the extracted kernel and its generated wrapper (no CUDA needed).",
)
@click.option("--instance", help="With --tree: only the SSM kernel instance of this cuda_kernel name (default: all).")
@click.option(
    "--engine",
    type=click.Choice(["torch", "mlx"]),
    default="torch",
    show_default=True,
    help="torch: our port or, with --tree, the tree's kernel in a torch extension; mlx: replay mlxcel's seven "
    "SSM parity checks through MLX's CUDA back-end (needs --tree and '.[kernels-mlx]').",
)
@click.option(
    "--check",
    "checks",
    type=int,
    multiple=True,
    help="With --engine mlx: only the parity check with this seed (repeat; default: all seven).",
)
@click.option(
    "--order",
    type=click.Choice(["suite", "file"]),
    default="suite",
    show_default=True,
    help="With --engine mlx: the one-process run's order: suite (cargo test's, tests by name) or file.",
)
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
    engine: str,
    checks: tuple[int, ...],
    order: str,
) -> None:
    """Reproduce mlxcel's SSM decode update and diff every stage against the references.

    Stages dt' (compute_dt), dA, the new state and out, each as normalized RMS
    against a float64 reference and against the parity test's float32-upcast
    one; a stage passes when its float64 distance is within its budget (1e-5
    for a float32 result, 1e-2 for a bf16 one).  --device cpu runs the CPU
    emulation of the faithful kernel, --device cuda the kernel itself.

    --tree ROOT finds mlxcel's own SSM kernel in ROOT (the cuda_kernel source,
    its launch site and the compute_dt op chain), wraps it as MLX's
    cuda_kernel does, and diffs dt', the new state and out against float64
    and against our faithful kernel (bitwise or ulps).  --show-kernel prints
    what was extracted and generated, with path:line, without CUDA.

    --engine mlx --tree ROOT replays mlxcel's SSM parity checks (seeds 2067 to
    2073) through MLX itself: the test's inputs from MLX's random, the tree's
    kernel through mx.fast.cuda_kernel, dt' through mx.compile, the test's
    reference from MLX ops; in one process, each check in a fresh process,
    with the stages the kernel computes and the injection search.
    """
    if engine == "mlx":
        raise SystemExit(_run_mlx_engine(tree, instance, checks, order, as_json))
    if checks or order != "suite":
        raise UsageLine("--check and --order choose parity checks: they go with --engine mlx")
    config = UpdateConfig(SHAPES[shape], batch, act_dtype, a_log_dtype, state_dtype, seed)
    if not show_kernel:
        _check_device(device)
        _check_fits(config, device)
    try:
        if tree is not None or show_kernel or instance is not None:
            raise SystemExit(run_tree(config, tree, device, inject, as_json, show_kernel, instance))
        report = run_diff(config, device, frozenset(Injection(name) for name in inject))
    except (MemoryError, torch.OutOfMemoryError) as error:
        raise UsageLine(
            f"--batch {batch}: out of memory on {device} ({_one_line(error)}); use a smaller --batch"
        ) from None
    click.echo(json.dumps(report.to_json(), indent=2) if as_json else render_report(report))
    raise SystemExit(EXIT_OK if report.first_failing_stage is None else EXIT_DIFFERS)


MLX_FIXED = ("shape", "batch", "act_dtype", "a_log_dtype", "state_dtype", "seed", "device", "inject", "show_kernel")
"""Options the parity checks fix: --engine mlx refuses them."""


def _run_mlx_engine(tree: Path | None, instance: str | None, checks: tuple[int, ...], order: str, as_json: bool) -> int:
    context = click.get_current_context()
    given = [name for name in MLX_FIXED if context.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE]
    if given:
        flag = "--" + given[0].replace("_", "-")
        raise UsageLine(
            f"{flag} does not apply to --engine mlx: the parity checks fix shapes, dtypes and seeds "
            f"(choose checks with --check SEED)"
        )
    if tree is None:
        raise UsageLine("--engine mlx runs the kernel a tree ships: give --tree ROOT (an mlxcel checkout)")
    try:
        from kernels import mlx_cli  # optional dependency: mlx, from '.[kernels-mlx]'
    except ImportError as error:
        raise UsageLine(f"--engine mlx needs MLX ({_one_line(error)}): pip install '.[kernels-mlx]'") from None
    try:
        text, status = mlx_cli.main_engine(tree, instance, checks, order, as_json)
    except (mlx_cli.EngineError, mlx_cli.TreeKernelError) as error:
        raise UsageLine(str(error)) from None
    click.echo(text)
    return status


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())[:200] or type(error).__name__


def _check_device(device: str) -> None:
    """A usage error when CUDA is asked for and this torch cannot give it."""
    if device != "cuda" or torch.cuda.is_available():
        return
    why = "is a CPU-only build" if torch.version.cuda is None else "sees no CUDA device"
    raise UsageLine(
        f"--device cuda: this torch ({torch.__version__}) {why}; use --device cpu, or a CUDA build "
        f"of torch on a machine with a GPU"
    )


def _host_available_bytes() -> int | None:
    """Host memory available now (MemAvailable), None where /proc/meminfo does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _check_fits(config: UpdateConfig, device: str) -> None:
    """A usage error when the batch cannot be allocated, said before trying: the references
    always live in host memory, the kernel's tensors on the GPU with --device cuda."""
    elements = state_elements(config)
    needs = [("host memory", elements * HOST_BYTES_PER_STATE_ELEMENT, _host_available_bytes())]
    if device == "cuda":
        needs.append(("GPU memory", elements * GPU_BYTES_PER_STATE_ELEMENT, torch.cuda.mem_get_info()[0]))
    for where, needed, available in needs:
        if available is not None and needed > available:
            fits = max(1, config.batch * available // needed)
            raise UsageLine(
                f"--batch {config.batch}: needs about {_size(needed)} of {where}, "
                f"{_size(available)} is available; at most about --batch {fits} fits"
            )


def _size(count: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024:
            return f"{count:.0f} {unit}"
        count /= 1024
    return f"{count:.1f} TB"


def render_comparison(comparison: GenerationComparison) -> str:
    """The line ssm-generations prints."""
    if comparison.first_divergence is None:
        return f"identical over the first {comparison.compared} tokens"
    return (
        f"first divergence at token {comparison.first_divergence}: "
        f"A={comparison.token_a!r} B={comparison.token_b!r} "
        f"(A has {comparison.length_a} tokens, B {comparison.length_b})"
    )


@click.command(name="ssm-generations", cls=Command, context_settings=HELP_OPTIONS, epilog=GENERATIONS_EXIT_CODES)
@click.argument("generation_a", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("generation_b", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--tokens",
    type=click.IntRange(min=1),
    default=64,
    show_default=True,
    help="How many tokens from the start to compare.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def ssm_generations_main(generation_a: Path, generation_b: Path, tokens: int, as_json: bool) -> None:
    """Compare two saved greedy generations token by token and report the first divergence.

    A .json file holds token ids (a list, or an object with "tokens" or
    "token_ids"); any other file is split on white space.  Exit status 1 when
    they differ within the first --tokens tokens.
    """
    try:
        comparison = compare_generations(load_tokens(generation_a), load_tokens(generation_b), tokens)
    except GenerationFileError as error:
        raise UsageLine(str(error)) from None
    click.echo(json.dumps(comparison.to_json()) if as_json else render_comparison(comparison))
    raise SystemExit(EXIT_OK if comparison.first_divergence is None else EXIT_DIFFERS)
