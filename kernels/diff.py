"""Stage-by-stage comparison of a reproduction against the float64 and float32-upcast references."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from kernels._injections import Injection
from kernels._shapes import UpdateConfig, make_inputs
from kernels.emulation import emulate_faithful
from kernels.reference import STAGE_NAMES, Stages, reference_f32_upcast, reference_float64

F32_BUDGET = 1e-5
"""mlxcel's parity budget (tolerance_for) for a float32 result, normalized RMS."""
BF16_BUDGET = 1e-2
"""The budget of a stage stored in bfloat16: a few bf16 roundings, normalized RMS."""


@dataclass(frozen=True)
class StageDiff:
    """One stage's normalized RMS against both references, and whether it is within budget.

    `ok` judges `nrms`, the distance to the float64 reference.
    """

    name: str
    nrms: float
    nrms_f32_reference: float
    budget: float
    ok: bool


@dataclass(frozen=True)
class DiffReport:
    """What ssm-diff measured for one configuration, device and injection."""

    config: UpdateConfig
    device: str
    inject: frozenset[Injection]
    stages: tuple[StageDiff, ...]

    @property
    def first_failing_stage(self) -> str | None:
        """The first stage, in update order, over its budget; None when all pass."""
        return next((stage.name for stage in self.stages if not stage.ok), None)

    def to_json(self) -> dict[str, object]:
        """The report as JSON-ready values (the CLI's --json)."""
        return {
            "config": self.config.describe(),
            "device": self.device,
            "inject": sorted(injection.value for injection in self.inject),
            "stages": [
                {
                    "name": s.name,
                    "nrms": s.nrms,
                    "nrms_f32_reference": s.nrms_f32_reference,
                    "budget": s.budget,
                    "ok": s.ok,
                }
                for s in self.stages
            ],
            "first_failing_stage": self.first_failing_stage,
        }


def normalized_rms(value: torch.Tensor, reference: torch.Tensor) -> float:
    """||value - reference|| / ||reference||, in float64; NaN anywhere gives NaN."""
    ref = reference.double()
    return float(torch.linalg.vector_norm(value.double() - ref) / torch.linalg.vector_norm(ref))


def stage_budget(name: str, config: UpdateConfig) -> float:
    """The budget of a stage by the dtype it is stored in: dt' and dA are float32, state U, out T."""
    stored = {"dt": "f32", "dA": "f32", "state": config.state_dtype, "out": config.act_dtype}[name]
    return F32_BUDGET if stored == "f32" else BF16_BUDGET


def diff_stages(candidate: Stages, ref64: Stages, ref32: Stages, config: UpdateConfig) -> tuple[StageDiff, ...]:
    """Each stage of `candidate` against both references, in update order."""
    diffs = []
    for name in STAGE_NAMES:
        nrms = normalized_rms(candidate.stage(name), ref64.stage(name))
        budget = stage_budget(name, config)
        diffs.append(
            StageDiff(
                name=name,
                nrms=nrms,
                nrms_f32_reference=normalized_rms(candidate.stage(name), ref32.stage(name)),
                budget=budget,
                ok=nrms <= budget,
            )
        )
    return tuple(diffs)


def run_diff(config: UpdateConfig, device: str = "cpu", inject: frozenset[Injection] = frozenset()) -> DiffReport:
    """Reproduce one update (CPU emulation or the CUDA faithful kernel) and diff every stage."""
    inputs = make_inputs(config)
    if device == "cuda":
        import kernels.ops as ops

        candidate = ops.faithful_stages(inputs.to("cuda"), inject)
    else:
        candidate = emulate_faithful(inputs, inject)
    stages = diff_stages(candidate, reference_float64(inputs), reference_f32_upcast(inputs), config)
    return DiffReport(config=config, device=device, inject=inject, stages=stages)
