"""The CUDA kernels against the CPU emulation and the float64 reference (device machine only)."""

import pytest
import torch

from kernels import SHAPES, STAGE_NAMES, Injection, UpdateConfig, make_inputs, normalized_rms
from kernels.emulation import emulate_update
from kernels.reference import reference_float64

pytestmark = [pytest.mark.cuda, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]


@pytest.mark.parametrize("dtypes", [("f32", "f32", "f32"), ("bf16", "bf16", "f32"), ("bf16", "f32", "bf16")])
@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("inject", [frozenset(), frozenset(Injection)], ids=["none", "all"])
def test_faithful_kernel_is_bitwise_the_emulation_given_its_dt_and_dA(shape, dtypes, inject):
    from kernels import ops

    inputs = make_inputs(UpdateConfig(SHAPES[shape], 3, *dtypes, 2069))
    kernel = ops.faithful_stages(inputs.to("cuda"), inject)
    state, out = emulate_update(inputs, kernel.dt, kernel.dA, inject)
    assert torch.equal(state, kernel.state)
    assert torch.equal(out, kernel.out)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_fast_and_faithful_match_float64_for_f32(shape):
    from kernels import ops

    inputs = make_inputs(UpdateConfig(SHAPES[shape], 5, "f32", "f32", "f32", 2070))
    ref = reference_float64(inputs)
    state, out = ops.update_fast(inputs.to("cuda"))
    assert normalized_rms(state.cpu(), ref.state) < 5e-7
    assert normalized_rms(out.cpu(), ref.out) < 5e-7
    kernel = ops.faithful_stages(inputs.to("cuda"))
    for name in STAGE_NAMES:
        assert normalized_rms(kernel.stage(name), ref.stage(name)) < 5e-7, name


def test_an_upstream_shaped_tree_kernel_runs_within_the_f32_budget():
    """Both CUDA instances of the synthetic tree build, launch and match float64 (its body is not the port's)."""
    from pathlib import Path

    from kernels.tree import find_tree_kernels
    from kernels.tree_diff import tree_reports

    kernels = find_tree_kernels(Path(__file__).parent / "fixtures" / "upstream_shaped")
    configs = (
        UpdateConfig(SHAPES["granite-4.0-h-tiny"], 2, "bf16", "f32", "f32", 2072),
        UpdateConfig(SHAPES["nemotron-h"], 2, "f32", "f32", "f32", 2070),
    )
    reports = tree_reports(kernels, configs)
    assert len(reports) == 4
    for report in reports:
        assert report.first_failing_stage is None, report.to_json()
        assert report.stages[0].vs_faithful.max_ulp <= 4


def test_the_corpus_kernel_runs_beside_the_faithful_one(corpus):
    from kernels.tree import find_tree_kernels
    from kernels.tree_diff import tree_reports

    (report,) = tree_reports(
        find_tree_kernels(corpus), (UpdateConfig(SHAPES["granite-4.0-h-tiny"], 1, "bf16", "bf16", "f32", 2069),)
    )
    assert report.first_failing_stage is None
    assert [s.name for s in report.stages] == ["dt", "state", "out"]
