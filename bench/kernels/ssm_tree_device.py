"""Issue 11's device run: the SSM kernel a tree ships, on the seed's cases, beside the faithful kernel.

    PYTHONPATH=. python3 bench/kernels/ssm_tree_device.py --tree CORPUS_ROOT \
        --upstream tests/kernels/fixtures/upstream_shaped --out "$OUT"

For each tree: every SSM instance on the seed's four bf16 cases, the two f32
cases and a bf16-state case, at batch 1 and 8 (one build per tree).  Then the
JIT cache experiment: where two cases give one module name but different
kernel signatures (the corpus does not key its module on A_log's dtype), the
second case runs through the module compiled for the first, as it would in one
process.  Writes tree_results.json and tree_results.md under --out.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kernels import ops
from kernels._shapes import SHAPES, UpdateConfig, make_inputs
from kernels.diff import normalized_rms
from kernels.reference import reference_f32_upcast, reference_float64
from kernels.tree import WRAPPER_PRELUDE, compile_unit, find_tree_kernels
from kernels.tree_diff import bind_update, run_launch, tree_reports
from ssm_update_device import run_sections

GRANITE, NEMOTRON = SHAPES["granite-4.0-h-tiny"], SHAPES["nemotron-h"]
# (label, shape, activations, A_log, state, seed): the seed's four, the f32 cases, a bf16 state.
CASES = [
    ("granite bf16/A_log bf16 s2069", GRANITE, "bf16", "bf16", "f32", 2069),
    ("granite bf16/A_log bf16 s2071", GRANITE, "bf16", "bf16", "f32", 2071),
    ("nemotron bf16/A_log f32 s2070", NEMOTRON, "bf16", "f32", "f32", 2070),
    ("granite bf16/A_log f32 s2072", GRANITE, "bf16", "f32", "f32", 2072),
    ("granite f32 s2069", GRANITE, "f32", "f32", "f32", 2069),
    ("nemotron f32 s2070", NEMOTRON, "f32", "f32", "f32", 2070),
    ("granite bf16/A_log bf16 state bf16 s2069", GRANITE, "bf16", "bf16", "bf16", 2069),
]
BATCHES = (1, 8)
# (compiled first, then run through that module): the order of ssm_update_kernel_keys_on_a_log_dtype, and its reverse.
CACHE_ORDERS = [(1, 3), (3, 0)]


def configs() -> list[tuple[str, UpdateConfig]]:
    return [
        (f"{label} b{batch}", UpdateConfig(shape, batch, act, a_log, state, seed))
        for batch in BATCHES
        for label, shape, act, a_log, state, seed in CASES
    ]


def tree_section(root: Path, contract: bool = True) -> list[dict]:
    """Every instance of the tree on every case (contract=False: built with --fmad=false)."""
    kernels = find_tree_kernels(root)
    labelled = configs()
    reports = tree_reports(kernels, tuple(config for _, config in labelled), contract)
    rows = []
    per_case = len(kernels)
    for index, report in enumerate(reports):
        rows.append({"case": labelled[index // per_case][0], **report.to_json()})
    return rows


def cache_section(root: Path) -> list[dict]:
    """A case run through the module another case compiled, where the tree gives both one module name."""
    pairs = []
    for kernel in find_tree_kernels(root):
        for first, second in CACHE_ORDERS:
            (label_a, config_a), (label_b, config_b) = configs()[first], configs()[second]
            inputs_b = make_inputs(config_b)
            launch_a = bind_update(kernel, make_inputs(config_a).to("cuda"))
            launch_b = bind_update(kernel, inputs_b.to("cuda"))
            pairs.append((kernel.name, label_a, label_b, inputs_b, launch_a, launch_b))
    colliding = [p for p in pairs if p[4].module_name == p[5].module_name and p[4].signature != p[5].signature]
    module = (
        ops.tree_extension(compile_unit(tuple(launch for p in colliding for launch in p[4:]))) if colliding else None
    )
    rows = []
    for name, label_a, label_b, inputs_b, launch_a, launch_b in pairs:
        row = {
            "instance": name,
            "compiled_for": label_a,
            "run": label_b,
            "module_a": launch_a.module_name,
            "module_b": launch_b.module_name,
            "same_module_name": launch_a.module_name == launch_b.module_name,
            "signatures_differ": launch_a.signature != launch_b.signature,
        }
        if row["same_module_name"] and row["signatures_differ"]:
            state = run_launch(launch_b, module, as_compiled=launch_a)["state_out"].cpu()
            row["state_nrms_f64"] = normalized_rms(state, reference_float64(inputs_b).state)
            row["state_nrms_f32_reference"] = normalized_rms(state, reference_f32_upcast(inputs_b).state)
        rows.append(row)
    return rows


def nvrtc_section(root: Path) -> list[dict]:
    """Each wrapper compiled by NVRTC (MLX's compiler; cupy picks the arch) against the nvcc build."""
    import cupy

    pairs = [
        (label, bind_update(kernel, make_inputs(config).to("cuda")))
        for kernel in find_tree_kernels(root)
        for label, config in configs()[: len(CASES)]
    ]
    nvcc = ops.tree_extension(compile_unit(tuple(launch for _, launch in pairs)))
    rows = []
    for label, launch in pairs:
        module = cupy.RawModule(
            code=WRAPPER_PRELUDE + launch.wrapper(),
            options=("-I/usr/local/cuda/include", "-I/usr/local/cuda/include/cccl"),
            name_expressions=[f"mlx::core::cu::{launch.module_name}"],
        )
        outputs = [torch.empty_like(t) for t in launch.outputs]
        buffers = [
            cupy.from_dlpack(t.view(torch.int16) if t.dtype == torch.bfloat16 else t)
            for t in list(launch.inputs) + outputs
        ]
        module.get_function(f"mlx::core::cu::{launch.module_name}")(launch.blocks, launch.threadgroup, tuple(buffers))
        torch.cuda.synchronize()
        built = run_launch(launch, nvcc)
        rows.append(
            {
                "case": label,
                "module": launch.module_name,
                "state_bitwise": bool(torch.equal(outputs[1], built["state_out"])),
                "out_bitwise": bool(torch.equal(outputs[0], built["out"])),
            }
        )
    return rows


def render(results: dict) -> str:
    out = [f"# ssm-diff --tree on {results['device']}", "", f"torch {results['torch']}", ""]
    for tree in ("corpus", "corpus_no_fma", "upstream_shaped"):
        rows = results.get(tree) or []
        out += [f"## {tree}: {results['roots'][tree]}", ""]
        out.append(
            "| case | instance | module | dt vs f64 | dt vs faithful | state vs f64 | state vs faithful (same dt') "
            "| out vs f64 | out vs faithful (same dt') | first failing |"
        )
        out.append("| --- " * 10 + "|")
        for r in rows:
            s = {st["name"]: st for st in r["stages"]}
            cells = [r["case"], r["instance"], f"`{r['module']}`"]
            for name in ("dt", "state", "out"):
                cells.append(f"{s[name]['nrms']:.2e}")
                cells.append(_vs(s[name]["vs_faithful"]))
            cells.append(str(r["first_failing_stage"]))
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    out += ["## One module name, two signatures: a case run through the module compiled for another", ""]
    out.append(
        "| tree | instance | compiled for | run | same module name | signatures differ | state nrms vs f64 | vs f32 reference |"
    )
    out.append("| --- " * 8 + "|")
    for tree in ("corpus", "upstream_shaped"):
        for r in results.get(f"{tree}_cache") or []:
            out.append(
                f"| {tree} | {r['instance']} | {r['compiled_for']} | {r['run']} | {r['same_module_name']} | {r['signatures_differ']} "
                f"| {r.get('state_nrms_f64', float('nan')):.3e} | {r.get('state_nrms_f32_reference', float('nan')):.3e} |"
            )
    out += ["", "## The nvcc build against NVRTC (MLX's compiler) on the corpus kernel, batch 1", ""]
    out.append("| case | module | state bitwise | out bitwise |")
    out.append("| --- | --- | --- | --- |")
    for r in results.get("corpus_nvrtc") or []:
        out.append(f"| {r['case']} | `{r['module']}` | {r['state_bitwise']} | {r['out_bitwise']} |")
    return "\n".join(out) + "\n"


def _vs(diff: dict) -> str:
    if diff["bitwise"]:
        return "bitwise"
    return f"{diff['max_ulp']} ulp, {diff['differing']}/{diff['total']}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tree", type=Path, required=True, help="the corpus's mlxcel ROOT")
    parser.add_argument("--upstream", type=Path, required=True, help="the upstream-shaped synthetic ROOT")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results: dict = {
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "roots": {
            "corpus": str(args.tree),
            "corpus_no_fma": f"{args.tree}, built with --fmad=false",
            "upstream_shaped": str(args.upstream),
        },
    }
    started = time.time()
    ops.extension()
    print(f"faithful extension built in {time.time() - started:.0f} s", flush=True)
    sections = {
        "corpus": lambda: tree_section(args.tree),
        "corpus_no_fma": lambda: tree_section(args.tree, contract=False),
        "corpus_cache": lambda: cache_section(args.tree),
        "corpus_nvrtc": lambda: nvrtc_section(args.tree),
        "upstream_shaped": lambda: tree_section(args.upstream),
        "upstream_shaped_cache": lambda: cache_section(args.upstream),
    }
    run_sections(sections, results, args.out / "tree_results.json")
    text = render(results)
    (args.out / "tree_results.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
