"""ssm-diff --engine mlx: the parity checks' inputs, references and launch (CPU), and the kernel (MLX CUDA only).

The CPU tests need MLX (`mlx[cpu]`, in the test extra); the GPU tests need
MLX's CUDA back-end (`.[kernels-mlx]` on a machine with an NVIDIA GPU) and a
tree: the real corpus, or the folder SSM_MLX_TREE names.
"""

import json
import os
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

mx = pytest.importorskip("mlx.core", reason="MLX is not installed here (the test extra installs mlx[cpu] on Linux)")

from kernels.cli import ssm_diff_main  # noqa: E402
from kernels.mlx_engine import (  # noqa: E402
    CHECKS,
    FILE_ORDER,
    SUITE_ORDER,
    bind,
    float64_reference,
    instrument,
    make_case,
    module_name,
    normalized_deviation,
    run_check,
    signature,
    parity_reference,
    to_numpy,
    tree_pin,
    versions,
)
from kernels.mlx_search import INJECTIONS, reproduces, round_bf16, search  # noqa: E402
from kernels.tree import find_tree_kernels  # noqa: E402

UPSTREAM_SHAPED = Path(__file__).parent / "fixtures" / "upstream_shaped"
CUDA = mx.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="needs MLX's CUDA back-end (mlx[cuda13] and an NVIDIA GPU)")


@pytest.fixture(scope="module")
def tree(request) -> Path:
    """The tree the launch tests read: SSM_MLX_TREE when set, else the real corpus."""
    if os.environ.get("SSM_MLX_TREE"):
        return Path(os.environ["SSM_MLX_TREE"])
    return request.getfixturevalue("corpus")


@pytest.fixture(scope="module")
def corpus_kernel(tree):
    (kernel,) = find_tree_kernels(tree)
    return kernel


def _draws_by_key(check):
    """The test's inputs drawn again with explicit keys from the global sequence: seed, then split per draw."""
    s = check.shape
    key = mx.random.key(check.seed)
    draws = []

    def next_key():
        nonlocal key
        key, sub = mx.random.split(key)
        return sub

    act = {"f32": mx.float32, "bf16": mx.bfloat16}[check.act_dtype]
    a_log = mx.log(mx.random.uniform(1.0, 16.0, [s.heads], key=next_key())).astype(
        {"f32": mx.float32, "bf16": mx.bfloat16}[check.a_log_dtype]
    )
    draws.append(("A_log", a_log))
    draws.append(("dt_bias", mx.random.uniform(-3.0, -1.0, [s.heads], key=next_key()).astype(act)))
    draws.append(("x", mx.random.normal([s.batch, 1, s.heads, s.head_dim], key=next_key()).astype(act)))
    draws.append(("B", mx.random.normal([s.batch, 1, s.groups, s.state_dim], key=next_key()).astype(act)))
    draws.append(("C", mx.random.normal([s.batch, 1, s.groups, s.state_dim], key=next_key()).astype(act)))
    draws.append(("D", mx.random.uniform(0.5, 1.5, [s.heads], key=next_key()).astype(act)))
    draws.append(("dt", mx.random.normal([s.batch, 1, s.heads], key=next_key()).astype(act)))
    draws.append(("state", mx.random.normal([s.batch, s.heads, s.head_dim, s.state_dim], key=next_key())))
    return dict(draws)


@pytest.mark.parametrize("seed", sorted(CHECKS))
def test_inputs_are_mlx_random_in_the_tests_call_order(seed):
    check = CHECKS[seed]
    case = make_case(check)
    expected = _draws_by_key(check)
    assert list(case) == list(expected)
    for name, array in case.items():
        assert array.dtype == expected[name].dtype, name
        assert array.shape == expected[name].shape, name
        assert mx.array_equal(array, expected[name]).item(), name


def test_inputs_have_the_tests_shapes_dtypes_and_ranges():
    case = make_case(CHECKS[2070])
    assert case["x"].shape == (2, 1, 64, 64) and case["B"].shape == (2, 1, 8, 128)
    assert case["dt"].shape == (2, 1, 64) and case["state"].shape == (2, 64, 64, 128)
    assert case["A_log"].dtype == mx.float32 and case["x"].dtype == mx.bfloat16 and case["state"].dtype == mx.float32
    a = np.exp(to_numpy(case["A_log"]))
    assert a.min() >= 1.0 - 1e-5 and a.max() <= 16.0 + 1e-4
    assert to_numpy(case["dt_bias"]).min() >= -3.0 and to_numpy(case["dt_bias"]).max() <= -1.0
    assert to_numpy(case["D"]).min() >= 0.5 and to_numpy(case["D"]).max() <= 1.5
    granite = make_case(CHECKS[2069])
    assert granite["A_log"].dtype == mx.bfloat16 and granite["x"].shape == (1, 1, 48, 64)


def test_the_suite_order_is_libtests_name_order():
    assert [c.seed for c in FILE_ORDER] == [2067, 2068, 2073, 2069, 2070, 2071, 2072]
    assert [c.seed for c in SUITE_ORDER] == [2071, 2072, 2069, 2070, 2067, 2068, 2073]
    assert [c.test for c in SUITE_ORDER] == sorted(c.test for c in SUITE_ORDER)


@pytest.mark.parametrize("seed", sorted(CHECKS))
def test_the_tests_reference_is_float64_to_float32_rounding(seed):
    check = CHECKS[seed]
    case = make_case(check)
    ref, ref64 = parity_reference(check, case), float64_reference(check, case)
    for name in ("dt", "A", "decay", "state", "y"):
        assert normalized_deviation(getattr(ref, name), getattr(ref64, name))[0] < 1e-6, name


def test_normalized_deviation_is_the_tests():
    got, want = np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 4.0])
    nrms, nmax = normalized_deviation(got, want)
    rms = np.sqrt((1 + 4 + 16) / 3)
    assert nrms == pytest.approx(np.sqrt(1 / 3) / rms) and nmax == pytest.approx(1 / rms)


def test_the_generated_launch_is_the_trees(corpus_kernel, tree):
    """Template arguments, grid, threadgroup, inputs and the dt chain as the tree's launch site writes them."""
    kernel = corpus_kernel
    source = (tree / kernel.launch.where.path).read_text()
    for text in (
        '{"T", input_type}',
        '{"U", state_type}',
        '{"Dh", dh}',
        '{"Ds", ds}',
        '{"H", h}',
        '{"G", g}',
        "std::make_tuple(32, dh, h * n)",
        "std::make_tuple(32, 8, 1)",
        "astype(D.inner, input_type)",
    ):
        assert text in source
    check = CHECKS[2070]
    site = bind(kernel, check, make_case(check))
    assert [name for name, _ in site.template_values] == ["T", "U", "Dh", "Ds", "H", "G"]
    assert [v for _, v in site.template_values][2:] == [64, 128, 64, 8]
    assert site.grid == (32, 64, 128) and site.threadgroup == (32, 8, 1)
    assert site.output_shapes == ((2, 1, 64, 64), (2, 64, 64, 128))
    assert module_name(kernel.name, site.template_values) == "custom_kernel_ssm_kernel_cu_bfloat16_float32_64_128_64_8"
    assert signature(site)[1] == "float" and signature(site)[0] == "__nv_bfloat16"
    assert [op.split(" ")[0] for op in site.dt_chain] == ["astype(float32)", "add", "exp", "log1p", "clip"]


def test_the_module_name_omits_a_log_dtype_in_the_corpus(corpus_kernel):
    sites = [bind(corpus_kernel, CHECKS[s], make_case(CHECKS[s])) for s in (2071, 2072)]
    names = {module_name(corpus_kernel.name, site.template_values) for site in sites}
    assert len(names) == 1
    assert signature(sites[0])[1] == "__nv_bfloat16" and signature(sites[1])[1] == "float"


@pytest.mark.parametrize("seed", sorted(CHECKS))
def test_dt_through_mx_compile_is_the_tests_softplus(corpus_kernel, seed):
    check = CHECKS[seed]
    case = make_case(check)
    site = bind(corpus_kernel, check, case)
    dt = to_numpy(site.inputs[corpus_kernel.input_names.index("dt")]).reshape(-1)
    assert normalized_deviation(dt, parity_reference(check, case).dt)[0] < 1e-6


def test_the_probe_inserts_one_line_and_leaves_the_body(corpus_kernel):
    probe = instrument(corpus_kernel)
    assert probe.source.replace(probe.inserted, "", 1) == corpus_kernel.source
    assert probe.inserted.count("\n") == 0
    assert "stage_dt[n] = dt_" in probe.inserted and "stage_A[n] = A" in probe.inserted
    assert "stage_decay[n] = dA" in probe.inserted
    assert probe.name == corpus_kernel.name + "_stages"


def test_a_probe_of_a_kernel_that_forms_a_inline_exposes_no_a():
    for kernel in find_tree_kernels(UPSTREAM_SHAPED):
        probe = instrument(kernel)
        assert probe.extra_outputs == ("stage_dt", "stage_decay")
        assert probe.source.replace(probe.inserted, "", 1) == kernel.source


def test_round_bf16_is_torchs():
    torch = pytest.importorskip("torch")
    values = np.random.default_rng(0).normal(size=4096).astype(np.float32) * 100
    want = torch.from_numpy(values).to(torch.bfloat16).to(torch.float32).numpy()
    assert np.array_equal(round_bf16(values), want)


def test_the_injection_search_signatures():
    cases = [(c, case, parity_reference(c, case)) for c in FILE_ORDER for case in [make_case(c)]]
    rows = {"+".join(r["inject"]) or "none": r for r in search(cases)}
    assert max(rows["none"]["state_nrms"].values()) < 1e-6
    assert all(1.5e-3 < v < 1.8e-3 for v in rows["state-bf16"]["state_nrms"].values())
    only = rows["state-bf16@bf16-A_log"]["state_nrms"]
    assert only["2069"] > 1e-3 and only["2070"] < 1e-6 and only["2072"] < 1e-6
    assert not rows["none"]["reproduces_seed_pattern"]
    assert set(INJECTIONS) >= {"dt-bf16", "dA-bf16", "state-bf16", "A-bf16@bf16-A_log"}


def test_the_pattern_needs_every_seen_check():
    inside = {"2069": 2e-3, "2071": 2.2e-3, "2067": 1e-7, "2068": 1e-7, "2070": 1e-7, "2073": 1e-7}
    assert reproduces(inside)
    assert not reproduces({**inside, "2070": 2e-5})
    assert not reproduces({k: v for k, v in inside.items() if k != "2073"})


def test_versions_read_the_trees_pin(tree):
    pin = tree_pin(tree)
    assert pin is not None and len(pin) >= 7
    recorded = versions(tree)
    assert recorded["mlx"] == mx.__version__ and recorded["tree_pin"] == pin
    assert recorded["mlx_vs_pin"].startswith("differ")


@pytest.mark.skipif(CUDA, reason="checks the refusal on a machine without MLX's CUDA back-end")
def test_engine_mlx_without_cuda_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(ssm_diff_main, ["--engine", "mlx", "--tree", str(UPSTREAM_SHAPED)])
    assert result.exit_code == 2
    assert "no CUDA back-end" in result.output


def test_engine_mlx_usage_errors():
    runner = CliRunner()
    result = runner.invoke(ssm_diff_main, ["--engine", "mlx"])
    assert result.exit_code == 2 and "give --tree ROOT" in result.output
    result = runner.invoke(ssm_diff_main, ["--engine", "mlx", "--seed", "3", "--tree", "x"])
    assert result.exit_code == 2 and "--seed does not apply" in result.output
    result = runner.invoke(ssm_diff_main, ["--check", "2069"])
    assert result.exit_code == 2 and "--engine mlx" in result.output


@needs_cuda
@pytest.mark.cuda
@pytest.mark.parametrize("seed", [2067, 2070, 2072])
def test_the_probe_matches_the_kernel_and_the_tests_budget(corpus_kernel, seed):
    result = run_check(corpus_kernel, CHECKS[seed])
    assert result["probe_matches_kernel"]
    assert result["state"]["nrms_f64"] < 1e-6
    rows = {row["stage"]: row for row in result["stages"]}
    assert rows["dt"]["nrms"] < 1e-6 and rows["decay"]["nrms"] < 1e-6


@needs_cuda
@pytest.mark.cuda
def test_engine_mlx_runs_every_mode(tree):
    result = CliRunner().invoke(
        ssm_diff_main, ["--engine", "mlx", "--tree", str(tree), "--check", "2069", "--check", "2070", "--json"]
    )
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.output)
    assert set(report["modes"]) == {"one process", "fresh", "shared cache", "module reuse"}
    assert [r["seed"] for r in report["modes"]["fresh"]] == [2069, 2070]
