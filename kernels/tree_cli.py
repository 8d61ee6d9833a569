"""The --tree branch of ssm-diff: option checks, then --show-kernel or the CUDA run."""

from __future__ import annotations

import json
from pathlib import Path

import click

from interchange.cli_style import UsageLine
from kernels._shapes import UpdateConfig
from kernels._exit import EXIT_DIFFERS, EXIT_OK


def run_tree(
    config: UpdateConfig,
    root: Path | None,
    device: str,
    inject: tuple[str, ...],
    as_json: bool,
    show_kernel: bool,
    instance: str | None,
) -> int:
    """ssm-diff --tree ROOT [--show-kernel] [--instance NAME]; returns the exit status."""
    from kernels.tree import TreeKernelError, find_tree_kernels, select_instances

    if root is None:
        raise UsageLine("--show-kernel and --instance read a tree: give --tree ROOT")
    if inject:
        raise UsageLine("--inject switches deviations on in our port; it does not apply to a tree's kernel")
    if not show_kernel and device != "cuda":
        raise UsageLine("--tree runs the tree's CUDA kernel: add --device cuda (or --show-kernel, which needs no CUDA)")
    try:
        kernels = select_instances(find_tree_kernels(root), instance)
        if show_kernel:
            return _show(kernels, config, root, as_json)
        from kernels.tree_diff import render_tree_report, tree_reports

        reports = tree_reports(kernels, (config,))
    except TreeKernelError as error:
        raise UsageLine(str(error)) from None
    if as_json:
        click.echo(json.dumps({"tree": str(root), "instances": [r.to_json() for r in reports]}, indent=2))
    else:
        click.echo("\n\n".join(render_tree_report(r, root) for r in reports))
    return EXIT_OK if all(r.first_failing_stage is None for r in reports) else EXIT_DIFFERS


def _show(kernels, config: UpdateConfig, root: Path, as_json: bool) -> int:
    from kernels._shapes import make_inputs
    from kernels.tree_diff import bind_update, render_kernel

    inputs = make_inputs(config)
    launches = [bind_update(kernel, inputs) for kernel in kernels]
    if as_json:
        click.echo(
            json.dumps(
                {
                    "tree": str(root),
                    "instances": [
                        {
                            "instance": launch.kernel.name,
                            "registered_at": str(launch.kernel.where),
                            "source_at": str(launch.kernel.source_where),
                            "launched_at": str(launch.kernel.launch.where),
                            "module": launch.module_name,
                            "source": launch.kernel.source,
                            "wrapper": launch.wrapper(),
                        }
                        for launch in launches
                    ],
                },
                indent=2,
            )
        )
    else:
        click.echo("\n\n".join(render_kernel(launch, root) for launch in launches))
    return EXIT_OK
