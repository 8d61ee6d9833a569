"""Reproduction of mlxcel's SSM decode update (#2230 part c): CUDA kernels, references,
a CPU emulation of the faithful kernel and a stage-by-stage diff."""

from kernels._injections import Injection
from kernels._shapes import SHAPES, SsmShape, UpdateConfig, UpdateInputs, make_inputs
from kernels.diff import DiffReport, StageDiff, diff_stages, normalized_rms, run_diff
from kernels.emulation import emulate_faithful
from kernels.reference import STAGE_NAMES, Stages, reference_f32_upcast, reference_float64

__all__ = [
    "SHAPES",
    "STAGE_NAMES",
    "DiffReport",
    "Injection",
    "SsmShape",
    "StageDiff",
    "Stages",
    "UpdateConfig",
    "UpdateInputs",
    "diff_stages",
    "emulate_faithful",
    "make_inputs",
    "normalized_rms",
    "reference_f32_upcast",
    "reference_float64",
    "run_diff",
]
