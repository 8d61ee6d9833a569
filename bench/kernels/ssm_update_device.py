"""Everything issue 6 measures on the GPU, in one run: build, faithful-vs-emulation
check, stage tables, injection matrix and the timing bench.

    PYTHONPATH=. python3 bench/kernels/ssm_update_device.py --out "$OUT"

Writes results.json and results.md under --out and prints the tables.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import statistics
import sys
import time
import traceback
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kernels import ops
from kernels._injections import Injection
from kernels._shapes import SHAPES, UpdateConfig, make_inputs
from kernels.diff import normalized_rms, run_diff
from kernels.emulation import emulate_faithful, emulate_update
from kernels.reference import STAGE_NAMES, reference_float64

GRANITE, NEMOTRON = SHAPES["granite-4.0-h-tiny"], SHAPES["nemotron-h"]
SEED_RANGE = (1.8e-3, 2.5e-3)
# The seed's cases: (label, shape, act, A_log, seed, fails in mlxcel on CUDA?)
SEED_CASES = [
    ("granite bf16/A_log bf16 s2069", GRANITE, "bf16", "bf16", 2069, True),
    ("granite bf16/A_log bf16 s2071", GRANITE, "bf16", "bf16", 2071, True),
    ("nemotron bf16/A_log f32 s2070", NEMOTRON, "bf16", "f32", 2070, False),
    ("granite bf16/A_log f32 s2072", GRANITE, "bf16", "f32", 2072, None),
    ("granite f32 s2069", GRANITE, "f32", "f32", 2069, False),
    ("nemotron f32 s2070", NEMOTRON, "f32", "f32", 2070, False),
]


def ulp_distance(a: torch.Tensor, b: torch.Tensor) -> int:
    """Largest distance in float32 ulps between two float32 tensors of one sign pattern."""
    ia = a.contiguous().view(torch.int32).long()
    ib = b.contiguous().view(torch.int32).long()
    return int((ia - ib).abs().max()) if a.numel() else 0


def check_faithful() -> list[dict]:
    """Faithful kernel (and compute_dt) against the CPU emulation, every dtype combination."""
    rows = []
    injects = [frozenset(), frozenset(Injection)]
    for shape, act, a_log, state, seed, inject in itertools.product(
        (GRANITE, NEMOTRON), ("bf16", "f32"), ("bf16", "f32"), ("f32", "bf16"), (2069, 2070), injects
    ):
        config = UpdateConfig(shape, 3, act, a_log, state, seed)
        inputs = make_inputs(config)
        kernel = ops.faithful_stages(inputs.to("cuda"), inject)
        emulated = emulate_faithful(inputs, inject)
        body_state, body_out = emulate_update(inputs, kernel.dt, kernel.dA, inject)
        fast_state, fast_out = ops.update_fast(inputs.to("cuda"))
        ref = reference_float64(inputs)
        rows.append(
            {
                "shape": shape.name,
                "act": act,
                "a_log": a_log,
                "state": state,
                "seed": seed,
                "inject": "all" if inject else "none",
                "dt_max_ulp": ulp_distance(kernel.dt, emulated.dt),
                "dA_max_ulp": ulp_distance(kernel.dA, emulated.dA),
                "nrms_vs_emulation": {n: normalized_rms(kernel.stage(n), emulated.stage(n)) for n in STAGE_NAMES},
                "state_bitwise_given_kernel_dt_dA": bool(torch.equal(body_state, kernel.state)),
                "out_bitwise_given_kernel_dt_dA": bool(torch.equal(body_out, kernel.out)),
                "state_bitwise_end_to_end": bool(torch.equal(emulated.state, kernel.state)),
                "fast_state_nrms_f64": normalized_rms(fast_state.cpu(), ref.state),
                "fast_out_nrms_f64": normalized_rms(fast_out.cpu(), ref.out),
            }
        )
    return rows


def stage_tables(batch: int) -> list[dict]:
    """ssm-diff --device cuda (and cpu) for the seed's failing and passing cases."""
    tables = []
    for label, shape, act, a_log, seed, fails in SEED_CASES:
        config = UpdateConfig(shape, batch, act, a_log, "f32", seed)
        for device in ("cuda", "cpu"):
            report = run_diff(config, device)
            tables.append({"case": label, "mlxcel_fails": fails, **report.to_json()})
    return tables


def injection_matrix(batches: tuple[int, ...]) -> list[dict]:
    """State nrms vs the parity test's f32 reference for each injection (single and pairs)."""
    sets = [frozenset()] + [frozenset({i}) for i in Injection]
    sets += [frozenset(pair) for pair in itertools.combinations(Injection, 2)]
    rows = []
    for inject in sets:
        row = {"inject": "+".join(sorted(i.value for i in inject)) or "none", "cases": {}}
        for batch in batches:
            for label, shape, act, a_log, seed, _ in SEED_CASES:
                config = UpdateConfig(shape, batch, act, a_log, "f32", seed)
                state = run_diff(config, "cuda", inject).stages[STAGE_NAMES.index("state")]
                row["cases"][f"{label} b{batch}"] = state.nrms_f32_reference
        failing = [v for k, v in row["cases"].items() if k.startswith("granite bf16/A_log bf16")]
        passing = [v for k, v in row["cases"].items() if k.startswith(("nemotron", "granite f32"))]
        row["failing_cases_in_seed_range"] = all(SEED_RANGE[0] <= v <= SEED_RANGE[1] for v in failing)
        row["passing_cases_within_1e-5"] = all(v <= 1e-5 for v in passing)
        row["reproduces_seed"] = row["failing_cases_in_seed_range"] and row["passing_cases_within_1e-5"]
        rows.append(row)
    return rows


def _timed_ms(fn, launches: int) -> float:
    """Median milliseconds per call of fn(i), i cycling, over a CUDA-graph of `launches` calls."""
    for i in range(launches):
        fn(i)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for i in range(3):
            fn(i)
        with torch.cuda.graph(graph, stream=stream):
            for i in range(launches):
                fn(i)
    torch.cuda.current_stream().wait_stream(stream)
    graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(15):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / launches)
    return statistics.median(times)


def copy_bandwidth() -> dict:
    """Device-to-device copy of 2 GiB, bytes read plus written over median time."""
    n = 2**29
    src = torch.randn(n, device="cuda")
    dst = torch.empty_like(src)
    times = []
    for _ in range(3):
        dst.copy_(src)
    for _ in range(20):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        dst.copy_(src)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    ms = statistics.median(times)
    del src, dst
    return {"bytes": 2 * 4 * n, "ms": ms, "GBps": 2 * 4 * n / ms / 1e6}


def minimum_bytes(config: UpdateConfig) -> int:
    """Each input read once and each output written once."""
    s, n = config.shape, config.batch
    act = 2 if config.act_dtype == "bf16" else 4
    state = n * s.heads * s.head_dim * s.state_dim * (2 if config.state_dtype == "bf16" else 4)
    x_out = 2 * n * s.heads * s.head_dim * act
    bc = 2 * n * s.groups * s.state_dim * act
    dt = n * s.heads * act
    params = s.heads * (3 * act + (2 if config.a_log_dtype == "bf16" else 4))
    return 2 * state + x_out + bc + dt + params


def bench(copy_gbps: float) -> list[dict]:
    """faithful (compute_dt + kernel), fast and plain torch, f32 state, rotated inputs."""
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    rows = []
    for shape, a_log in ((GRANITE, "bf16"), (NEMOTRON, "f32")):
        for batch in (1, 8, 64, 256):
            config = UpdateConfig(shape, batch, "bf16", a_log, "f32", 7)
            nbytes = minimum_bytes(config)
            sets = max(2, math.ceil(4 * l2 / nbytes))
            inputs = [
                make_inputs(UpdateConfig(shape, batch, "bf16", a_log, "f32", 7 + k)).to("cuda")
                for k in range(min(sets, 4))
            ]
            while len(inputs) < sets:  # same values, distinct buffers: only the addresses must rotate
                inputs.append(_clone(inputs[len(inputs) % 4]))
            launches = max(sets, 20)
            states = [torch.empty_like(inp.state) for inp in inputs]

            def faithful(i: int) -> None:
                inp = inputs[i % sets]
                dt = ops.compute_dt(inp.dt, inp.dt_bias, inp.dt_min, inp.dt_max)
                ops.update_faithful(inp, dt)

            def fast(i: int) -> None:
                ops.update_fast(inputs[i % sets])

            def plain(i: int) -> None:
                ops.update_torch(inputs[i % sets])

            def copy(i: int) -> None:
                states[i % sets].copy_(inputs[i % sets].state)

            row = {"shape": shape.name, "batch": batch, "bytes": nbytes, "rotated_sets": sets}
            for name, fn, moved in (
                ("faithful", faithful, nbytes),
                ("fast", fast, nbytes),
                ("torch", plain, nbytes),
                ("copy_state", copy, 2 * inputs[0].state.numel() * 4),
            ):
                ms = _timed_ms(fn, launches)
                gbps = moved / ms / 1e6
                row[name] = {"us": ms * 1e3, "GBps": gbps, "fraction_of_copy": gbps / copy_gbps}
            rows.append(row)
            print(
                f"{shape.name:<19} b{batch:<4} {nbytes / 1e6:9.1f} MB  "
                + "  ".join(
                    f"{k} {row[k]['us']:8.1f}us {row[k]['fraction_of_copy']:5.1%}"
                    for k in ("faithful", "fast", "torch", "copy_state")
                ),
                flush=True,
            )
            del inputs, states
            torch.cuda.empty_cache()
    return rows


def _clone(inputs):
    import dataclasses

    return dataclasses.replace(
        inputs,
        **{
            f.name: getattr(inputs, f.name).clone()
            for f in dataclasses.fields(inputs)
            if isinstance(getattr(inputs, f.name), torch.Tensor)
        },
    )


def render(results: dict) -> str:
    """results.md: the tables in Markdown."""
    out = [
        f"# SSM update on {results['device']}",
        "",
        f"torch {results['torch']}, build {results['build_s']:.0f} s",
        "",
    ]
    checks = results["faithful_check"]
    out.append("## Faithful kernel vs CPU emulation")
    out.append(
        f"{len(checks)} configurations; state bitwise given the kernel's dt'/dA: "
        f"{sum(r['state_bitwise_given_kernel_dt_dA'] for r in checks)}/{len(checks)}; out bitwise: "
        f"{sum(r['out_bitwise_given_kernel_dt_dA'] for r in checks)}/{len(checks)}; state bitwise end to end: "
        f"{sum(r['state_bitwise_end_to_end'] for r in checks)}/{len(checks)}; max dt' ulp {max(r['dt_max_ulp'] for r in checks)}, "
        f"max dA ulp {max(r['dA_max_ulp'] for r in checks)}; max stage nrms vs emulation "
        f"{max(max(r['nrms_vs_emulation'].values()) for r in checks):.2e}; fast kernel max nrms vs f64 "
        f"state {max(r['fast_state_nrms_f64'] for r in checks if r['state'] == 'f32'):.2e} (f32 state)"
    )
    out += ["", "## Stage tables (nrms vs f64 / vs f32-upcast, budget)", ""]
    for t in results["stage_tables"]:
        out.append(
            f"**{t['case']}**, batch {t['config']['batch']}, device {t['device']}, mlxcel fails: {t['mlxcel_fails']}, first failing: {t['first_failing_stage']}"
        )
        out.append("")
        out.append("| stage | nrms vs f64 | nrms vs f32 | budget | ok |\n| --- | --- | --- | --- | --- |")
        for s in t["stages"]:
            out.append(
                f"| {s['name']} | {s['nrms']:.3e} | {s['nrms_f32_reference']:.3e} | {s['budget']:.0e} | {s['ok']} |"
            )
        out.append("")
    out += ["## Injections: new-state nrms vs the parity test's f32 reference", ""]
    cases = list(results["injection_matrix"][0]["cases"])
    out.append("| inject | " + " | ".join(cases) + " | failing in 1.8e-3..2.5e-3 | passing <= 1e-5 | reproduces |")
    out.append("| --- " * (len(cases) + 4) + "|")
    for r in results["injection_matrix"]:
        out.append(
            f"| {r['inject']} | "
            + " | ".join(f"{r['cases'][c]:.2e}" for c in cases)
            + f" | {r['failing_cases_in_seed_range']} | {r['passing_cases_within_1e-5']} | {r['reproduces_seed']} |"
        )
    out += ["", f"## Timing (copy bandwidth {results['copy']['GBps']:.0f} GB/s, 2 GiB device copy)", ""]
    out.append(
        "| shape | batch | MB moved | sets | faithful us (frac) | fast us (frac) | torch us (frac) | state copy us (frac) |"
    )
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results["bench"]:
        out.append(
            f"| {r['shape']} | {r['batch']} | {r['bytes'] / 1e6:.1f} | {r['rotated_sets']} | "
            + " | ".join(
                f"{r[k]['us']:.1f} ({r[k]['fraction_of_copy']:.1%})"
                for k in ("faithful", "fast", "torch", "copy_state")
            )
            + " |"
        )
    return "\n".join(out) + "\n"


def run_sections(sections: dict, results: dict, saved: Path) -> None:
    """Each of `sections` run in turn into `results[name]`, `results` saved as JSON to `saved` after
    each; a section that fails is None, its traceback under `results["errors"]`."""
    for name, section in sections.items():
        started = time.time()
        try:
            results[name] = section()
        except Exception:  # a failed section must not cost the others their results
            results[name] = None
            results.setdefault("errors", {})[name] = traceback.format_exc()
            print(results["errors"][name], flush=True)
        print(f"{name}: {time.time() - started:.0f} s", flush=True)
        saved.write_text(json.dumps(results, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")
    results: dict = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__}
    started = time.time()
    ops.extension()
    results["build_s"] = time.time() - started
    print(f"built in {results['build_s']:.0f} s", flush=True)
    sections = {
        "faithful_check": check_faithful,
        "stage_tables": lambda: stage_tables(batch=1),
        "injection_matrix": lambda: injection_matrix(batches=(1, 8)),
        "copy": copy_bandwidth,
        "bench": lambda: bench(results["copy"]["GBps"]),
    }
    run_sections(sections, results, args.out / "results.json")
    if "errors" not in results:
        text = render(results)
        (args.out / "results.md").write_text(text)
        print(text)


if __name__ == "__main__":
    main()
