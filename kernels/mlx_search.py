"""The injection search on the parity checks' own MLX inputs (ssm-diff --engine mlx).

Each injection is one bf16 rounding at one stage of the update, applied to every
check; the update is recomputed in float32 (numpy) from the check's input
bytes with that rounding, and the new state is measured as the test measures
it, against the test's MLX reference.  An injection, or a pair, "reproduces the
seed's pattern" when the two checks the seed saw fail (2069, 2071) land in its
state range (1.8e-3 to 2.5e-3) and the four it saw pass (2067, 2068, 2070,
2073) stay within the float32 budget (1e-5 normalized RMS).  Reusing a module
compiled for the other A_log dtype is measured on the GPU, not here (see
kernels.mlx_cli).
"""

from __future__ import annotations

import itertools

import numpy as np

from kernels.mlx_engine import (
    F32_TOLERANCE,
    SEED_PATTERN_FAILING,
    SEED_PATTERN_PASSING,
    SEED_PATTERN_RANGE,
    ParityCheck,
    normalized_deviation,
    to_numpy,
)

STAGE_INJECTIONS: dict[str, str] = {
    "dt-sum-bf16": "dt + dt_bias rounded to bf16 before softplus",
    "dt-bf16": "dt' (after the clip) rounded to bf16",
    "A-bf16": "A = -exp(A_log) rounded to bf16",
    "dA-bf16": "the decay exp(A dt') rounded to bf16",
    "state-bf16": "the new state rounded to bf16",
    "D-bf16": "D rounded to bf16 (y only)",
}
ONLY_BF16_A_LOG = "@bf16-A_log"
"""Suffix of an injection that applies only to checks whose A_log is bf16 (a fault of that kernel instance or
module; A-bf16@bf16-A_log is also the graph path's A, formed in A_log's dtype)."""
INJECTIONS: dict[str, str] = {
    **STAGE_INJECTIONS,
    **{name + ONLY_BF16_A_LOG: what + ", only where A_log is bf16" for name, what in STAGE_INJECTIONS.items()},
}


def round_bf16(values: np.ndarray) -> np.ndarray:
    """float32 values rounded to the nearest bfloat16 (ties to even), as float32."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isfinite(values), out, values).astype(np.float32)


def update_f32(check: ParityCheck, case: dict, inject: frozenset[str]) -> tuple[np.ndarray, np.ndarray]:
    """(y, new state) in float32 from the check's inputs, with the injected roundings."""
    s = check.shape
    b, h, dh, g, ds = s.batch, s.heads, s.head_dim, s.groups, s.state_dim
    v = {name: to_numpy(array).astype(np.float32) for name, array in case.items()}
    inject = frozenset(
        name.removesuffix(ONLY_BF16_A_LOG)
        for name in inject
        if not name.endswith(ONLY_BF16_A_LOG) or check.a_log_dtype == "bf16"
    )
    z = v["dt"].reshape(b, h) + v["dt_bias"][None, :]
    if "dt-sum-bf16" in inject:
        z = round_bf16(z)
    dt = np.clip(np.logaddexp(z, np.float32(0)), np.float32(s.dt_limits[0]), np.float32(s.dt_limits[1]))
    dt = dt.astype(np.float32)
    if "dt-bf16" in inject:
        dt = round_bf16(dt)
    a = -np.exp(v["A_log"])
    if "A-bf16" in inject:
        a = round_bf16(a)
    decay = np.exp(a[None, :] * dt).astype(np.float32)
    if "dA-bf16" in inject:
        decay = round_bf16(decay)
    per_head = lambda m: np.repeat(m.reshape(b, g, ds), h // g, axis=1)[:, :, None, :]  # noqa: E731
    x = v["x"].reshape(b, h, dh)
    state = (decay[..., None, None] * v["state"] + (dt[..., None] * x)[..., None] * per_head(v["B"])).astype(np.float32)
    d = round_bf16(v["D"]) if "D-bf16" in inject else v["D"]
    y = (state * per_head(v["C"])).sum(-1, dtype=np.float32) + x * d[None, :, None]
    if "state-bf16" in inject:
        state = round_bf16(state)
    return y.reshape(b, 1, h, dh), state


def injection_sets() -> list[frozenset[str]]:
    """None, every single injection and every pair."""
    names = sorted(INJECTIONS)
    pairs = [
        frozenset(p)
        for p in itertools.combinations(names, 2)
        if p[0].removesuffix(ONLY_BF16_A_LOG) != p[1].removesuffix(ONLY_BF16_A_LOG)
    ]
    return [frozenset()] + [frozenset([n]) for n in names] + pairs


def reproduces(state_nrms: dict[str, float]) -> bool:
    """True when the per-seed state nrms (keyed by the seed as a string, as in JSON) show the seed's pattern."""
    state_nrms = {int(seed): value for seed, value in state_nrms.items()}
    lo, hi = SEED_PATTERN_RANGE
    failing = all(lo <= state_nrms[seed] <= hi for seed in SEED_PATTERN_FAILING if seed in state_nrms)
    passing = all(state_nrms[seed] < F32_TOLERANCE[0] for seed in SEED_PATTERN_PASSING if seed in state_nrms)
    return failing and passing and all(seed in state_nrms for seed in SEED_PATTERN_FAILING + SEED_PATTERN_PASSING)


def search(cases: list[tuple[ParityCheck, dict, object]]) -> list[dict[str, object]]:
    """Every injection set on every check: state and y nrms against the test's reference, and the pattern verdict.

    `cases` holds (check, inputs, the test's Reference) for each check.
    """
    rows = []
    for inject in injection_sets():
        state_nrms, y_nrms = {}, {}
        for check, case, reference in cases:
            y, state = update_f32(check, case, inject)
            state_nrms[str(check.seed)] = normalized_deviation(state, reference.state)[0]
            y_nrms[str(check.seed)] = normalized_deviation(y, reference.y)[0]
        rows.append(
            {
                "inject": sorted(inject),
                "state_nrms": state_nrms,
                "y_nrms": y_nrms,
                "reproduces_seed_pattern": reproduces(state_nrms),
            }
        )
    return rows
