"""Thin typed wrappers over the CUDA extension in csrc/, built on first use.

Nothing here compiles or imports the extension until a CUDA op is called, so
the package imports and its CPU paths run on machines with no CUDA at all.
`update_torch` is the plain-torch implementation the benchmark compares with.
"""

from __future__ import annotations

import functools
from pathlib import Path
from types import ModuleType

import torch

from kernels._injections import Injection, inject_mask
from kernels._shapes import UpdateInputs
from kernels.reference import Stages, per_head

CSRC = Path(__file__).resolve().parent / "csrc"


@functools.cache
def extension() -> ModuleType:
    """The compiled extension, built by torch.utils.cpp_extension on first call (needs nvcc)."""
    from torch.utils.cpp_extension import load

    return load(
        name="mlxcel_ssm_update",
        sources=[str(CSRC / "ssm_update.cpp"), str(CSRC / "ssm_update_kernels.cu")],
        extra_cflags=["-O3"],
        extra_cuda_cflags=["-O3", "-lineinfo"],
        verbose=False,
    )


def compute_dt(
    dt: torch.Tensor, dt_bias: torch.Tensor, lo: float, hi: float, inject: frozenset[Injection] = frozenset()
) -> torch.Tensor:
    """mlxcel's compute_dt on CUDA: float32 [N, H] dt' = clip(log1p(exp(f32(dt) + dt_bias)), lo, hi)."""
    return extension().compute_dt(dt, dt_bias, lo, hi, inject_mask(inject))


def update_faithful(
    inputs: UpdateInputs,
    dt_prime: torch.Tensor,
    *,
    write_intermediates: bool = False,
    inject: frozenset[Injection] = frozenset(),
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """mlxcel's update kernel on CUDA: (new state in U, out in T, dA [N, H] if asked for)."""
    return extension().update_faithful(
        inputs.x,
        inputs.a_log,
        inputs.B,
        inputs.C,
        inputs.D,
        dt_prime,
        inputs.state,
        write_intermediates,
        inject_mask(inject),
    )


def update_fast(inputs: UpdateInputs) -> tuple[torch.Tensor, torch.Tensor]:
    """The same update, compute_dt fused, mapped for bandwidth: (new state in U, out in T)."""
    return extension().update_fast(
        inputs.x,
        inputs.a_log,
        inputs.B,
        inputs.C,
        inputs.D,
        inputs.dt,
        inputs.dt_bias,
        inputs.state,
        inputs.dt_min,
        inputs.dt_max,
    )


def faithful_stages(inputs: UpdateInputs, inject: frozenset[Injection] = frozenset()) -> Stages:
    """All four stages from compute_dt and the faithful kernel on CUDA, moved to the host."""
    dt_prime = compute_dt(inputs.dt, inputs.dt_bias, inputs.dt_min, inputs.dt_max, inject)
    state, out, dA = update_faithful(inputs, dt_prime, write_intermediates=True, inject=inject)
    return Stages(dt_prime, dA, state, out).cpu()


def update_torch(inputs: UpdateInputs) -> tuple[torch.Tensor, torch.Tensor]:
    """The update in plain torch operations, float32 math: (new state in U, out in T)."""
    heads = inputs.x.shape[1]
    x = inputs.x.float()
    dt = torch.log1p(torch.exp(inputs.dt.float() + inputs.dt_bias.float())).clamp(inputs.dt_min, inputs.dt_max)
    dA = torch.exp(-torch.exp(inputs.a_log.float()) * dt)
    B = per_head(inputs.B, heads).float()
    C = per_head(inputs.C, heads).float()
    state = dA[..., None, None] * inputs.state.float() + (x * dt[..., None])[..., None] * B[:, :, None, :]
    out = torch.einsum("nhds,nhs->nhd", state, C) + x * inputs.D.float()[:, None]
    return state.to(inputs.state.dtype), out.to(inputs.x.dtype)


@functools.cache
def tree_extension(unit: str, contract: bool = True) -> ModuleType:
    """Kernels read from a tree (kernels.tree.compile_unit), built like the extension above.

    The unit is built with nvcc's defaults, as MLX's NVRTC builds a custom
    kernel: FMA contraction on, no fast math.  contract=False builds it with
    --fmad=false, to tell contraction apart from any other difference.
    """
    import hashlib

    from torch.utils.cpp_extension import load

    flags = ["-O3"] if contract else ["-O3", "--fmad=false"]
    name = "mlxcel_tree_" + hashlib.sha256((unit + " ".join(flags)).encode()).hexdigest()[:16]
    build = Path.home() / ".cache" / "mlxcel-codemods" / name
    build.mkdir(parents=True, exist_ok=True)
    generated = build / "tree_kernels.cu"
    if not generated.exists() or generated.read_text() != unit:
        generated.write_text(unit)
    return load(
        name=name,
        sources=[str(CSRC / "tree_launch.cpp"), str(generated)],
        extra_cflags=["-O3"],
        extra_cuda_cflags=flags,
        build_directory=str(build),
        verbose=False,
    )
