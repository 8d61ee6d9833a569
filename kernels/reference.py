"""References of every stage of the update: float64, and the parity test's float32 upcast."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from kernels._shapes import UpdateInputs

STAGE_NAMES: tuple[str, ...] = ("dt", "dA", "state", "out")


@dataclass(frozen=True)
class Stages:
    """The four intermediates of one update: dt' and dA [N, H], new state [N, H, Dh, Ds], out [N, H, Dh]."""

    dt: torch.Tensor
    dA: torch.Tensor
    state: torch.Tensor
    out: torch.Tensor

    def stage(self, name: str) -> torch.Tensor:
        """The intermediate called `name` (one of STAGE_NAMES)."""
        return getattr(self, name)

    def cpu(self) -> Stages:
        """The same stages in host memory."""
        return Stages(*(self.stage(name).cpu() for name in STAGE_NAMES))


def per_head(t: torch.Tensor, heads: int) -> torch.Tensor:
    """Broadcast B or C from [N, G, Ds] to [N, H, Ds]: head h reads group h // (H / G)."""
    return t.repeat_interleave(heads // t.shape[1], dim=1)


def _reference(inputs: UpdateInputs, dtype: torch.dtype, softplus) -> Stages:
    up = {name: getattr(inputs, name).to(dtype) for name in ("x", "dt", "dt_bias", "a_log", "B", "C", "D", "state")}
    heads = up["x"].shape[1]
    dt = softplus(up["dt"] + up["dt_bias"]).clamp(inputs.dt_min, inputs.dt_max)
    dA = torch.exp(-torch.exp(up["a_log"]) * dt)
    B, C = per_head(up["B"], heads), per_head(up["C"], heads)
    state = dA[..., None, None] * up["state"] + (up["x"] * dt[..., None])[..., None] * B[:, :, None, :]
    out = (state * C[:, :, None, :]).sum(-1) + up["x"] * up["D"][:, None]
    return Stages(dt, dA, state, out)


def reference_float64(inputs: UpdateInputs) -> Stages:
    """Every stage in float64 from the inputs as given (already rounded to their dtypes)."""
    return _reference(inputs, torch.float64, lambda z: torch.log1p(torch.exp(z)))


def reference_f32_upcast(inputs: UpdateInputs) -> Stages:
    """What mlxcel's parity test computes: every input upcast to float32, softplus for dt'."""
    return _reference(inputs, torch.float32, F.softplus)
