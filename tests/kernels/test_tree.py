"""ssm-diff --tree on the CPU: finding the SSM kernel by structure, reading its call site, --show-kernel."""

import json
import shutil
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from kernels._shapes import SHAPES, UpdateConfig, make_inputs
from kernels.cli import ssm_diff_main
from kernels.tree import TreeKernelError, compile_unit, find_tree_kernels, select_instances
from kernels.tree_diff import bind_update, ulp_diff

UPSTREAM_SHAPED = Path(__file__).parent / "fixtures" / "upstream_shaped"
KERNEL_FILE = "src/lib/mlxcel-core/cpp/mlx_cxx_kernels.cpp"
GRANITE, NEMOTRON = SHAPES["granite-4.0-h-tiny"], SHAPES["nemotron-h"]


def launch_for(kernel, shape, act, a_log, state="f32", batch=1):
    return bind_update(kernel, make_inputs(UpdateConfig(shape, batch, act, a_log, state, 2069)))


def edited_tree(tmp_path, old, new):
    """A copy of the upstream-shaped tree with one piece of its kernel file replaced."""
    root = tmp_path / "tree"
    shutil.copytree(UPSTREAM_SHAPED, root)
    path = root / KERNEL_FILE
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return root


def ssm_diff(*args):
    return CliRunner().invoke(ssm_diff_main, [str(a) for a in args], catch_exceptions=False)


def test_corpus_kernel_is_found_with_its_call_site(corpus):
    (kernel,) = find_tree_kernels(corpus)
    assert kernel.name == "ssm_kernel_cu"
    assert kernel.input_names == ("X", "A_log", "B", "C", "D", "dt", "state_in")
    assert kernel.output_names == ("out", "state_out")
    assert kernel.source_name == "SSM_CUDA_SOURCE"
    assert "__shfl_down_sync" in kernel.source and "expf" in kernel.source
    assert kernel.launch.function.name == "ssm_update_kernel"
    assert [name for name, _ in kernel.launch.template_args] == ["T", "U", "Dh", "Ds", "H", "G"]
    assert str(kernel.where).startswith(KERNEL_FILE + ":")


def test_corpus_call_site_evaluates_on_an_update(corpus):
    (kernel,) = find_tree_kernels(corpus)
    launch = launch_for(kernel, NEMOTRON, "bf16", "f32", batch=2)
    assert launch.grid == (32, 64, 2 * 128) and launch.threadgroup == (32, 8, 1) and launch.blocks == (1, 8, 256)
    assert dict(launch.template_values) == {
        "T": torch.bfloat16,
        "U": torch.float32,
        "Dh": 64,
        "Ds": 128,
        "H": 128,
        "G": 16,
    }
    assert [op.split()[0] for op in launch.dt_chain] == ["astype(float32)", "add", "exp", "log1p", "clip"]
    assert [t.shape for t in launch.outputs] == [(2, 1, 128, 64), (2, 128, 64, 128)]
    assert launch.module_name == "custom_kernel_ssm_kernel_cu_bfloat16_float32_64_128_128_16"


def test_the_tree_op_chain_computes_dt_prime():
    inputs = make_inputs(UpdateConfig(GRANITE, 2, "bf16", "bf16", "f32", 2071))
    expected = torch.log1p(torch.exp(inputs.dt.float() + inputs.dt_bias)).clamp(inputs.dt_min, inputs.dt_max)
    kernel = find_tree_kernels(UPSTREAM_SHAPED)[0]
    launch = bind_update(kernel, inputs)
    assert torch.equal(launch.inputs[kernel.input_names.index("dt")].reshape(expected.shape), expected)


def test_corpus_module_name_omits_the_a_log_dtype(corpus):
    """The corpus keys its JIT module on T, U and the shape only: the A_log bf16 and f32 launches share a name."""
    (kernel,) = find_tree_kernels(corpus)
    bf16, f32 = (launch_for(kernel, GRANITE, "bf16", a_log) for a_log in ("bf16", "f32"))
    assert bf16.module_name == f32.module_name
    assert bf16.signature != f32.signature
    unit = compile_unit((bf16, f32))
    assert unit.count("__global__ void") == 2


def test_show_kernel_on_the_corpus_prints_path_and_line(corpus):
    result = ssm_diff("--tree", corpus, "--show-kernel")
    assert result.exit_code == 0
    assert f"--- extracted source: {KERNEL_FILE}:" in result.output
    assert f"--- generated wrapper: MLX cuda_kernel layout; signature from {KERNEL_FILE}:" in result.output
    assert "__global__ void custom_kernel_ssm_kernel_cu_bfloat16_float32_64_128_48_48(" in result.output
    assert "    const __nv_bfloat16* X,\n    const __nv_bfloat16* A_log," in result.output


def test_upstream_shaped_table_has_two_cuda_instances_keyed_on_every_dtype():
    kernels = find_tree_kernels(UPSTREAM_SHAPED)
    assert [k.name for k in kernels] == ["ssm_kernel_cu", "ssm_kernel_cu_bf16_state"]
    assert {k.launch.function.name for k in kernels} == {"ssm_update_kernel"}
    bf16, f32 = (launch_for(kernels[0], GRANITE, "bf16", a_log) for a_log in ("bf16", "f32"))
    assert [n for n, _ in bf16.template_values] == ["T", "U", "TA", "TB", "TC", "Dh", "Ds", "H", "G"]
    assert bf16.module_name != f32.module_name
    assert bf16.threadgroup == (32, 4, 1) and bf16.blocks == (1, 16, 48)


def test_instance_selects_one_and_names_the_others():
    kernels = find_tree_kernels(UPSTREAM_SHAPED)
    assert [k.name for k in select_instances(kernels, "ssm_kernel_cu_bf16_state")] == ["ssm_kernel_cu_bf16_state"]
    with pytest.raises(TreeKernelError, match="ssm_kernel_cu, ssm_kernel_cu_bf16_state"):
        select_instances(kernels, "nope")


def test_show_kernel_json_lists_each_instance():
    result = ssm_diff("--tree", UPSTREAM_SHAPED, "--show-kernel", "--json", "--instance", "ssm_kernel_cu")
    assert result.exit_code == 0
    (instance,) = json.loads(result.output)["instances"]
    assert instance["instance"] == "ssm_kernel_cu"
    assert instance["source_at"] == f"{KERNEL_FILE}:17"
    assert "using TA = __nv_bfloat16;" in instance["wrapper"]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("std::make_tuple(32, 4, 1),", "block_shape(),", "no call site launching"),
        ("astype(d_in.inner, act)", "scaled(d_in.inner)", "unsupported call scaled"),
        (
            "std::make_tuple(32, head_dim, heads * batch)",
            "std::make_tuple(32, head_dim, rows(heads))",
            "cannot read the call site at",
        ),
    ],
    ids=["no-launch", "unreadable-input", "unreadable-grid"],
)
def test_unreadable_trees_are_one_line_errors(tmp_path, old, new, message):
    root = edited_tree(tmp_path, old, new)
    result = CliRunner().invoke(ssm_diff_main, ["--tree", str(root), "--show-kernel"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and result.output.startswith("ssm-diff: error: ")
    assert message in result.output


def test_a_tree_without_an_ssm_kernel_is_a_usage_error(tmp_path):
    root = edited_tree(tmp_path, "fast::cuda_kernel(", "fast::metal_kernel(")
    result = CliRunner().invoke(ssm_diff_main, ["--tree", str(root), "--show-kernel"])
    assert result.exit_code == 2
    assert "no SSM kernel in src/lib/mlxcel-core/cpp/" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tree", "."], "add --device cuda"),
        (["--show-kernel"], "give --tree ROOT"),
        (["--tree", ".", "--show-kernel"], "has no src/lib/mlxcel-core/cpp/"),
        (["--tree", str(UPSTREAM_SHAPED), "--show-kernel", "--inject", "dt-bf16"], "does not apply"),
    ],
)
def test_tree_option_errors(args, message):
    result = CliRunner().invoke(ssm_diff_main, args)
    assert result.exit_code == 2
    assert message in result.output


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message on a machine without CUDA")
@pytest.mark.skipif(torch.cuda.is_available(), reason="this torch has CUDA")
def test_running_a_tree_kernel_without_cuda_is_a_usage_error():
    result = CliRunner().invoke(ssm_diff_main, ["--tree", str(UPSTREAM_SHAPED), "--device", "cuda"])
    assert result.exit_code == 2
    assert result.output.startswith("ssm-diff: error: --device cuda: ")
    assert result.output.count("\n") == 1


def test_ulp_diff_counts_on_an_ordered_line():
    one = torch.tensor([1.0, -1.0, 0.0])
    nudged = torch.tensor([torch.nextafter(torch.tensor(1.0), torch.tensor(2.0)).item(), -1.0, -0.0])
    diff = ulp_diff(nudged, one)
    assert (diff.bitwise, diff.max_ulp, diff.differing) == (False, 1, 1)
    assert ulp_diff(one.bfloat16(), one.bfloat16()).bitwise
