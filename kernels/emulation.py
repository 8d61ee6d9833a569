"""The faithful CUDA kernel emulated in torch on the CPU, operation for operation.

Each product and sum is a separate float32 torch operation, so each is rounded
once, as the kernel's __fmul_rn / __fadd_rn are; the per-lane column order and
the shuffle-down tree (offsets 16, 8, 4, 2, 1) are followed exactly.  Given the
kernel's own dt' and dA, the new state and out agree with it bitwise; exp and
log1p differ between libraries by an ulp or two, so dt' and dA agree to f32
rounding only.
"""

from __future__ import annotations

import torch

from kernels._injections import Injection
from kernels._shapes import UpdateInputs
from kernels.reference import Stages, per_head

WARP_LANES = 32
SHUFFLE_OFFSETS: tuple[int, ...] = (16, 8, 4, 2, 1)


def round_to_bf16(t: torch.Tensor) -> torch.Tensor:
    """A float32 tensor rounded to the nearest bfloat16 and widened back."""
    return t.to(torch.bfloat16).to(torch.float32)


def emulate_compute_dt(inputs: UpdateInputs, inject: frozenset[Injection] = frozenset()) -> torch.Tensor:
    """compute_dt: clip(log1p(exp(f32(dt) + f32(dt_bias))), lo, hi) in float32, [N, H]."""
    dt, bias = inputs.dt.float(), inputs.dt_bias.float()
    if Injection.DT_SUM_BF16 in inject:
        z = round_to_bf16(round_to_bf16(dt) + round_to_bf16(bias))
    else:
        z = dt + bias
    dt_prime = torch.log1p(torch.exp(z)).clamp(inputs.dt_min, inputs.dt_max)
    return round_to_bf16(dt_prime) if Injection.DT_BF16 in inject else dt_prime


def emulate_decay(
    inputs: UpdateInputs, dt_prime: torch.Tensor, inject: frozenset[Injection] = frozenset()
) -> torch.Tensor:
    """dA = exp(A * dt') with A = -exp(f32(A_log[h])), float32 [N, H]."""
    A = -torch.exp(inputs.a_log.float())
    dA = torch.exp(A * dt_prime)
    return round_to_bf16(dA) if Injection.DA_BF16 in inject else dA


def _warp_tree_sum(lanes: torch.Tensor) -> torch.Tensor:
    """Lane 0's value after acc += shfl_down(acc, k) for k = 16, 8, 4, 2, 1 (lanes on the last axis)."""
    for offset in SHUFFLE_OFFSETS:
        lanes = lanes[..., :offset] + lanes[..., offset : 2 * offset]
    return lanes[..., 0]


def emulate_update(
    inputs: UpdateInputs, dt_prime: torch.Tensor, dA: torch.Tensor, inject: frozenset[Injection] = frozenset()
) -> tuple[torch.Tensor, torch.Tensor]:
    """The kernel body from dt' and dA: (new state in U, out in T), in the kernel's order."""
    n, heads, head_dim, state_dim = inputs.state.shape
    per_lane = state_dim // WARP_LANES
    lane_view = (n, heads, WARP_LANES, per_lane)
    B = per_head(inputs.B, heads).float().reshape(lane_view)[:, :, None]
    C = per_head(inputs.C, heads).float().reshape(lane_view)[:, :, None]
    state = inputs.state.float().reshape(n, heads, head_dim, WARP_LANES, per_lane)
    x = inputs.x.float()
    x_dt = x * dt_prime[..., None]
    updated = dA[..., None, None, None] * state + x_dt[..., None, None] * B
    acc = torch.zeros(n, heads, head_dim, WARP_LANES)
    for column in range(per_lane):
        acc = acc + updated[..., column] * C[..., column]
    d_skip = inputs.D.float()
    if Injection.D_BF16 in inject:
        d_skip = round_to_bf16(d_skip)
    out = (_warp_tree_sum(acc) + x * d_skip[:, None]).to(inputs.x.dtype)
    stored = round_to_bf16(updated) if Injection.STATE_BF16 in inject else updated
    return stored.reshape(inputs.state.shape).to(inputs.state.dtype), out


def emulate_faithful(inputs: UpdateInputs, inject: frozenset[Injection] = frozenset()) -> Stages:
    """All four stages as compute_dt followed by the faithful kernel produce them."""
    dt_prime = emulate_compute_dt(inputs, inject)
    dA = emulate_decay(inputs, dt_prime, inject)
    state, out = emulate_update(inputs, dt_prime, dA, inject)
    return Stages(dt_prime, dA, state, out)
