"""ssm-diff --tree: the SSM kernel a tree ships, run through the stage diff beside our faithful kernel.

For one configuration and each SSM instance of the tree, the launch site is
run on the update's inputs laid out as mlxcel lays them out (x as [N, 1, H,
Dh], B and C as [N, 1, G, Ds], dt as [N, 1, H]).  dt' comes from the tree's
own compute_dt op chain, executed op by op in torch on the device; the
kernel is the tree's text wrapped as MLX wraps it and built with nvcc's
defaults.  Each stage is compared with the float64 reference (which decides
pass/fail) and with our faithful kernel: dt' with compute_dt's, and the new
state and out of the tree kernel given the faithful dt' with the faithful
kernel's, bit for bit.  The tree kernel keeps dA in a register, so that stage
is not exposed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from kernels._shapes import UpdateConfig, UpdateInputs, make_inputs
from kernels.diff import normalized_rms, stage_budget
from kernels.reference import reference_float64
from kernels.tree import BoundLaunch, TreeKernel, compile_unit, launch_key

TREE_STAGES = ("dt", "state", "out")
"""The stages a tree kernel exposes (dA stays in a register)."""


@dataclass(frozen=True)
class UlpDiff:
    """How far a tensor is from another of the same dtype, in units in the last place."""

    bitwise: bool
    max_ulp: int
    differing: int
    total: int
    nrms: float

    def describe(self) -> str:
        if self.bitwise:
            return "bitwise"
        return f"max {self.max_ulp} ulp ({self.differing} of {self.total} differ, nrms {self.nrms:.1e})"

    def to_json(self) -> dict[str, object]:
        return {
            "bitwise": self.bitwise,
            "max_ulp": self.max_ulp,
            "differing": self.differing,
            "total": self.total,
            "nrms": self.nrms,
        }


@dataclass(frozen=True)
class TreeStage:
    """One stage of the tree kernel: against float64 (nrms, budget, ok) and against the faithful kernel."""

    name: str
    nrms: float
    budget: float
    ok: bool
    vs_faithful: UlpDiff


@dataclass(frozen=True)
class TreeReport:
    """What ssm-diff --tree measured for one instance and configuration."""

    config: UpdateConfig
    launch: BoundLaunch
    stages: tuple[TreeStage, ...]

    @property
    def first_failing_stage(self) -> str | None:
        return next((s.name for s in self.stages if not s.ok), None)

    @property
    def bitwise_faithful(self) -> bool:
        return all(s.vs_faithful.bitwise for s in self.stages)

    def to_json(self) -> dict[str, object]:
        kernel = self.launch.kernel
        return {
            "config": self.config.describe(),
            "instance": kernel.name,
            "module": self.launch.module_name,
            "signature": list(self.launch.signature),
            "registered_at": str(kernel.where),
            "source_at": str(kernel.source_where),
            "launched_at": str(kernel.launch.where),
            "grid": list(self.launch.grid),
            "threadgroup": list(self.launch.threadgroup),
            "dt_chain": list(self.launch.dt_chain),
            "stages": [
                {"name": s.name, "nrms": s.nrms, "budget": s.budget, "ok": s.ok, "vs_faithful": s.vs_faithful.to_json()}
                for s in self.stages
            ],
            "dA": "not exposed",
            "first_failing_stage": self.first_failing_stage,
            "bitwise_faithful": self.bitwise_faithful,
        }


def tree_arguments(kernel: TreeKernel, inputs: UpdateInputs) -> dict[str, object]:
    """The launcher's arguments, by parameter name, from one update's inputs in mlxcel's layout."""
    n, heads, head_dim = inputs.x.shape
    groups, state_dim = inputs.B.shape[1:]
    by_role = {
        "X": inputs.x.reshape(n, 1, heads, head_dim),
        "A_log": inputs.a_log,
        "B": inputs.B.reshape(n, 1, groups, state_dim),
        "C": inputs.C.reshape(n, 1, groups, state_dim),
        "D": inputs.D,
        "state_in": inputs.state,
        "dt": inputs.dt.reshape(n, 1, heads),
        "dt_bias": inputs.dt_bias,
        "dt_min": inputs.dt_min,
        "dt_max": inputs.dt_max,
    }
    return {param: by_role[role] for param, role in kernel.parameter_roles().items()}


def bind_update(kernel: TreeKernel, inputs: UpdateInputs) -> BoundLaunch:
    """The tree kernel's launch for these inputs (on their device)."""
    return kernel.bind(tree_arguments(kernel, inputs))


def run_launch(
    launch: BoundLaunch, module, dt_prime: torch.Tensor | None = None, as_compiled: BoundLaunch | None = None
):
    """Launch once; returns the outputs.  dt_prime replaces the dt input; as_compiled runs another launch's module."""
    inputs = list(launch.inputs)
    if dt_prime is not None:
        index = launch.kernel.input_names.index("dt")
        inputs[index] = dt_prime.reshape(inputs[index].shape).to(inputs[index].dtype).contiguous()
    outputs = [torch.empty_like(t) for t in launch.outputs]
    module.launch(launch_key(as_compiled or launch), inputs + outputs, list(launch.blocks), list(launch.threadgroup))
    torch.cuda.synchronize()
    return dict(zip(launch.kernel.output_names, outputs, strict=True))


def ulp_diff(value: torch.Tensor, reference: torch.Tensor) -> UlpDiff:
    """Distance in ulps between two tensors of one float dtype (f32 or bf16), on an ordered integer line."""
    value, reference = value.contiguous().cpu(), reference.contiguous().cpu()
    int_type, sign = (torch.int32, 0x7FFFFFFF) if value.dtype == torch.float32 else (torch.int16, 0x7FFF)
    a, b = (t.view(int_type).long() for t in (value, reference))
    a = torch.where(a < 0, -(a & sign), a)
    b = torch.where(b < 0, -(b & sign), b)
    gap = (a - b).abs()
    differing = int((gap != 0).sum())
    return UlpDiff(
        differing == 0, int(gap.max()) if gap.numel() else 0, differing, gap.numel(), normalized_rms(value, reference)
    )


def _output(outputs: dict[str, torch.Tensor], prefix: str) -> torch.Tensor:
    return next(t for name, t in outputs.items() if name.startswith(prefix))


def tree_reports(
    kernels: tuple[TreeKernel, ...], configs: tuple[UpdateConfig, ...], contract: bool = True
) -> tuple[TreeReport, ...]:
    """Each instance on each configuration, against float64 and the faithful kernel, on CUDA (one build).

    contract=False builds the tree kernel without FMA contraction (see ops.tree_extension).
    """
    from kernels import ops

    cases = []
    for config in configs:
        inputs = make_inputs(config)
        device_inputs = inputs.to("cuda")
        cases.append((config, inputs, device_inputs, tuple(bind_update(k, device_inputs) for k in kernels)))
    module = ops.tree_extension(compile_unit(tuple(launch for *_, launches in cases for launch in launches)), contract)
    reports = []
    for config, inputs, device_inputs, launches in cases:
        ref64 = reference_float64(inputs)
        faithful_dt = ops.compute_dt(device_inputs.dt, device_inputs.dt_bias, inputs.dt_min, inputs.dt_max)
        faithful_state, faithful_out, _ = ops.update_faithful(device_inputs, faithful_dt)
        for launch in launches:
            reports.append(_report(config, launch, module, ref64, faithful_dt, faithful_state, faithful_out))
    return tuple(reports)


def _report(config, launch, module, ref64, faithful_dt, faithful_state, faithful_out) -> TreeReport:
    tree_dt = launch.inputs[launch.kernel.input_names.index("dt")].reshape(faithful_dt.shape)
    end_to_end = run_launch(launch, module)
    given_faithful_dt = run_launch(launch, module, dt_prime=faithful_dt)
    produced = {
        "dt": (tree_dt, faithful_dt, tree_dt),
        "state": (_output(end_to_end, "state"), faithful_state, _output(given_faithful_dt, "state")),
        "out": (_output(end_to_end, "out"), faithful_out, _output(given_faithful_dt, "out")),
    }
    stages = []
    for name in TREE_STAGES:
        value, faithful, same_dt = produced[name]
        nrms = normalized_rms(value.cpu(), ref64.stage(name).reshape(value.shape))
        budget = stage_budget(name, config)
        stages.append(TreeStage(name, nrms, budget, nrms <= budget, ulp_diff(same_dt, faithful.reshape(same_dt.shape))))
    return TreeReport(config, launch, tuple(stages))


def render_tree_report(report: TreeReport, root: Path) -> str:
    """The table ssm-diff --tree prints for one instance."""
    launch, kernel = report.launch, report.launch.kernel
    config = " ".join(f"{k}={v}" for k, v in report.config.describe().items())
    lines = [
        f"tree={root} instance={kernel.name} module={launch.module_name} device=cuda",
        f"{config}",
        f"registered {kernel.where}, source {kernel.source_name} {kernel.source_where}, launched {kernel.launch.where}: "
        f"grid {launch.grid} / threadgroup {launch.threadgroup} -> blocks {launch.blocks}",
        f"dt' from the tree's op chain: {', '.join(launch.dt_chain)}",
        f"{'stage':<6} {'nrms vs f64':>12} {'budget':>8}  result  vs faithful kernel (state, out: given the same dt')",
    ]
    for stage in report.stages:
        lines.append(
            f"{stage.name:<6} {stage.nrms:>12.3e} {stage.budget:>8.0e}  {'pass' if stage.ok else 'FAIL'}    {stage.vs_faithful.describe()}"
        )
        if stage.name == "dt":
            lines.append("dA     not exposed (the tree kernel keeps dA in a register)")
    lines.append(f"first failing stage: {report.first_failing_stage or 'none'}")
    return "\n".join(lines)


def render_kernel(launch: BoundLaunch, root: Path) -> str:
    """--show-kernel: the extracted source and the generated wrapper, each with path:line."""
    kernel, site = launch.kernel, launch.kernel.launch
    template = ", ".join(f"{n}={_value(v)}" for n, v in launch.template_values)
    header = [
        f"instance {kernel.name}: cuda_kernel at {kernel.where}",
        f"  inputs {', '.join(kernel.input_names)}; outputs {', '.join(kernel.output_names)}",
        f"  launched at {site.where} in {site.function.name}: grid {launch.grid}, threadgroup {launch.threadgroup} "
        f"-> blocks {launch.blocks}",
        f"  template arguments at {site.template_where}: {template}",
        f"  dt input: {', '.join(launch.dt_chain)} (op chain, lines of {site.where.path})",
        f"  module {launch.module_name}",
        "",
        f"--- extracted source: {kernel.source_where} ({kernel.source_name})",
        kernel.source.strip("\n"),
        "",
        f"--- generated wrapper: MLX cuda_kernel layout; signature from {kernel.where}, "
        f"constants from {site.template_where}, body from {kernel.source_where}",
        launch.wrapper().rstrip("\n"),
    ]
    return "\n".join(header)


def _value(value: object) -> str:
    return str(value).removeprefix("torch.") if isinstance(value, torch.dtype) else str(value)
