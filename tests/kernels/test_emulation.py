"""The CPU emulation of the faithful kernel against the float64 reference, and the injections."""

import pytest
import torch

from kernels import SHAPES, STAGE_NAMES, Injection, UpdateConfig, make_inputs, normalized_rms, run_diff
from kernels.emulation import _warp_tree_sum, emulate_faithful
from kernels.reference import reference_float64

SEEDS = (2069, 2070, 2071)
F32_ROUNDING = 5e-7  # a few float32 roundings, normalized RMS


def config(shape: str, seed: int, act: str = "f32", a_log: str = "f32", state: str = "f32") -> UpdateConfig:
    return UpdateConfig(SHAPES[shape], 2, act, a_log, state, seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_all_f32_emulation_matches_float64_within_f32_rounding(shape, seed):
    inputs = make_inputs(config(shape, seed))
    emulated, ref = emulate_faithful(inputs), reference_float64(inputs)
    for name in STAGE_NAMES:
        assert normalized_rms(emulated.stage(name), ref.stage(name)) < F32_ROUNDING, name


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("inject", list(Injection), ids=lambda i: i.value)
def test_each_injection_moves_the_first_failing_stage_to_its_stage(inject, shape, seed):
    report = run_diff(config(shape, seed), "cpu", frozenset({inject}))
    assert report.first_failing_stage == inject.stage


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_no_injection_passes_every_stage(shape):
    assert run_diff(config(shape, 2069, "bf16", "bf16"), "cpu").first_failing_stage is None


def test_state_bf16_touches_only_the_state():
    stages = {s.name: s for s in run_diff(config("nemotron-h", 2070), "cpu", frozenset({Injection.STATE_BF16})).stages}
    assert [name for name, s in stages.items() if not s.ok] == ["state"]


def test_warp_tree_sum_follows_the_shuffle_down_order():
    # 1e8 absorbs a following 1.0 in float32, so the order of the additions shows:
    # offset 16 cancels lanes 0 and 16 first, and the tree then sums 30 ones exactly,
    # where a left-to-right loop would lose the 15 ones that follow 1e8.
    lanes = torch.tensor([1e8] + [1.0] * 15 + [-1e8] + [1.0] * 15, dtype=torch.float32)
    sequential = torch.tensor(0.0)
    for value in lanes:
        sequential = sequential + value
    assert float(_warp_tree_sum(lanes)) == 30.0
    assert float(sequential) == 15.0


def test_bf16_inputs_reach_the_kernel_rounded():
    inputs = make_inputs(config("granite-4.0-h-tiny", 2069, "bf16", "bf16"))
    assert inputs.x.dtype == torch.bfloat16 and inputs.a_log.dtype == torch.bfloat16
    assert inputs.state.dtype == torch.float32
