"""Model shapes of the SSM decode update and the seeded inputs of one update."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import torch

DTYPES: dict[str, torch.dtype] = {"bf16": torch.bfloat16, "f32": torch.float32}


@dataclass(frozen=True)
class SsmShape:
    """One model's SSM head layout and its dt clip limits."""

    name: str
    heads: int
    head_dim: int
    state_dim: int
    groups: int
    dt_min: float
    dt_max: float


SHAPES: dict[str, SsmShape] = {
    "granite-4.0-h-tiny": SsmShape("granite-4.0-h-tiny", 48, 64, 128, 1, 0.001, 100.0),
    "nemotron-h": SsmShape("nemotron-h", 128, 64, 128, 8, 0.001, 0.1),
}


@dataclass(frozen=True)
class UpdateConfig:
    """Which update to reproduce: shape, batch, the three dtypes (by name) and the seed."""

    shape: SsmShape
    batch: int
    act_dtype: str
    a_log_dtype: str
    state_dtype: str
    seed: int

    def describe(self) -> dict[str, object]:
        """The configuration as plain values, for tables and JSON."""
        return {
            "shape": self.shape.name,
            "batch": self.batch,
            "act_dtype": self.act_dtype,
            "a_log_dtype": self.a_log_dtype,
            "state_dtype": self.state_dtype,
            "seed": self.seed,
        }


# Peak bytes ssm-diff holds in host memory per element of the [N, H, Dh, Ds] state: the
# inputs, both references' float64/float32 copies (always computed on the CPU) and the CPU
# reproduction's intermediates (measured: about 42 bytes for nemotron-h at N = 16..64;
# rounded up).
HOST_BYTES_PER_STATE_ELEMENT = 48
# On the GPU (--device cuda): the state moved there, the new state and the kernel's
# float32 intermediates, at most four bytes each (rounded up).
GPU_BYTES_PER_STATE_ELEMENT = 16


def state_elements(config: UpdateConfig) -> int:
    """Elements of the [N, H, Dh, Ds] state, the tensor every memory need scales with."""
    shape = config.shape
    return config.batch * shape.heads * shape.head_dim * shape.state_dim


@dataclass(frozen=True)
class UpdateInputs:
    """The tensors one decode step reads, in the dtypes the kernel receives them.

    x [N, H, Dh], dt [N, H], B and C [N, G, Ds], D and dt_bias [H] are in the
    activation dtype T; A_log [H] in its own dtype; state [N, H, Dh, Ds] in U.
    """

    x: torch.Tensor
    dt: torch.Tensor
    dt_bias: torch.Tensor
    a_log: torch.Tensor
    B: torch.Tensor
    C: torch.Tensor
    D: torch.Tensor
    state: torch.Tensor
    dt_min: float
    dt_max: float

    def to(self, device: torch.device | str) -> UpdateInputs:
        """The same inputs on another device."""
        moved = {
            f.name: getattr(self, f.name).to(device)
            for f in dataclasses.fields(self)
            if isinstance(getattr(self, f.name), torch.Tensor)
        }
        return dataclasses.replace(self, **moved)


def make_inputs(config: UpdateConfig) -> UpdateInputs:
    """Draw every input from N(0, 1) in float32 with the config's seed, then cast it.

    A standard normal everywhere is the assumption this reproduction makes about
    mlxcel's parity test: it makes granite's dt' = softplus(N(0, 2)) unclipped
    and clips about 94% of Nemotron-H's at 0.1, as the seed describes.
    """
    shape = config.shape
    n, h, dh, ds, g = config.batch, shape.heads, shape.head_dim, shape.state_dim, shape.groups
    gen = torch.Generator().manual_seed(config.seed)

    def draw(*size: int) -> torch.Tensor:
        return torch.randn(*size, generator=gen, dtype=torch.float32)

    act = DTYPES[config.act_dtype]
    return UpdateInputs(
        x=draw(n, h, dh).to(act),
        dt=draw(n, h).to(act),
        dt_bias=draw(h).to(act),
        a_log=draw(h).to(DTYPES[config.a_log_dtype]),
        B=draw(n, g, ds).to(act),
        C=draw(n, g, ds).to(act),
        D=draw(h).to(act),
        state=draw(n, h, dh, ds).to(DTYPES[config.state_dtype]),
        dt_min=shape.dt_min,
        dt_max=shape.dt_max,
    )
