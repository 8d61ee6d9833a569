"""ssm-diff --engine mlx: the seven parity checks through MLX, in one process and one by one.

The parent process records versions and starts child processes
(`python -m kernels.mlx_cli --child ...`), each with its own empty MLX PTX
cache folder (MLX_PTX_CACHE_DIR) unless a mode shares one:

* one process: every check in the suite's order (or the file's), with the
  stage capture and the injection search, as `cargo test -- --test-threads=1`
  runs them;
* fresh: each check alone in a new process;
* shared cache: each check in a new process, in order, all with one PTX cache
  folder (what a host that keeps /tmp/mlx between runs sees); the folder's
  custom-kernel files are listed afterwards;
* module reuse: each check in a new process right after a launch with A_log in
  the other dtype, so it runs through the module compiled for that launch
  wherever the module name does not key on A_log's dtype.

Where a check's y or state bytes differ between the modes, the report says so.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import mlx.core as mx

from kernels._exit import EXIT_DIFFERS, EXIT_OK
from kernels.mlx_engine import (
    CHECKS,
    FILE_ORDER,
    SUITE_ORDER,
    ParityCheck,
    make_case,
    prime_other_a_log,
    run_check,
    parity_reference,
    versions,
)
from kernels.mlx_search import INJECTIONS, search
from kernels.tree import TreeKernel, TreeKernelError, find_tree_kernels, select_instances

MODES = ("one process", "fresh", "shared cache", "module reuse")


class EngineError(Exception):
    """The engine cannot run here (no CUDA back-end, several instances, a child that failed); one line."""


def ordered_checks(seeds: tuple[int, ...], order: str) -> tuple[ParityCheck, ...]:
    """The chosen checks (all when `seeds` is empty) in the suite's or the file's order."""
    unknown = [s for s in seeds if s not in CHECKS]
    if unknown:
        raise EngineError(f"no parity check with seed {unknown[0]} (the checks: {', '.join(map(str, CHECKS))})")
    chosen = set(seeds) or set(CHECKS)
    return tuple(c for c in (SUITE_ORDER if order == "suite" else FILE_ORDER) if c.seed in chosen)


def pick_kernel(root: Path, instance: str | None) -> TreeKernel:
    """The tree's one SSM CUDA instance (or the one named)."""
    kernels = select_instances(find_tree_kernels(root), instance)
    if len(kernels) > 1:
        names = ", ".join(k.name for k in kernels)
        raise EngineError(f"the tree has several SSM kernel instances ({names}): choose one with --instance")
    return kernels[0]


# ---------------------------------------------------------------- child


def child(root: Path, instance: str | None, seeds: list[int], stages: bool, search_too: bool, prime: bool) -> dict:
    """Run the checks in this process, in the order given; the JSON the parent reads."""
    kernel = pick_kernel(root, instance)
    results, cases = [], []
    for seed in seeds:
        check = CHECKS[seed]
        primed = prime_other_a_log(kernel, check) if prime else None
        result = run_check(kernel, check, stages=stages)
        if primed is not None:
            result["primed"] = primed
        results.append(result)
        if search_too:
            case = make_case(check)
            cases.append((check, case, parity_reference(check, case)))
    out: dict[str, object] = {"results": results}
    if search_too:
        out["search"] = search(cases)
    return out


def _child_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m kernels.mlx_cli")
    parser.add_argument("--child", action="store_true", required=True)
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--instance")
    parser.add_argument("--seeds", required=True)
    parser.add_argument("--stages", action="store_true")
    parser.add_argument("--search", action="store_true")
    parser.add_argument("--prime", action="store_true")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    print(json.dumps(child(args.tree, args.instance, seeds, args.stages, args.search, args.prime)))
    return 0


# ---------------------------------------------------------------- parent


def _spawn(root: Path, instance: str | None, seeds, cache: Path, **flags: bool) -> dict:
    command = [
        sys.executable,
        "-m",
        "kernels.mlx_cli",
        "--child",
        "--tree",
        str(root),
        "--seeds",
        ",".join(str(s) for s in seeds),
    ]
    if instance:
        command += ["--instance", instance]
    command += [f"--{name}" for name, on in flags.items() if on]
    env = dict(os.environ, MLX_PTX_CACHE_DIR=str(cache))
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        tail = " ".join((done.stderr or done.stdout).split())[-400:]
        raise EngineError(f"a child process for checks {','.join(map(str, seeds))} failed ({done.returncode}): {tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cache_files(folder: Path) -> list[str]:
    """Every file MLX left in a PTX cache folder, relative to it."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def run_engine(root: Path, instance: str | None, seeds: tuple[int, ...], order: str) -> dict[str, object]:
    """Every mode on the chosen checks; the report as JSON-ready values."""
    if not mx.cuda.is_available():
        raise EngineError(
            f"this MLX ({mx.__version__}) has no CUDA back-end here (mx.cuda.is_available() is false): "
            f"--engine mlx runs the tree's kernel through mx.fast.cuda_kernel; install "
            f"'.[kernels-mlx]' (mlx[cuda13]) on a machine with an NVIDIA GPU"
        )
    checks = ordered_checks(seeds, order)
    kernel = pick_kernel(root, instance)
    report: dict[str, object] = {
        "tree": str(root),
        "instance": kernel.name,
        "registered_at": str(kernel.where),
        "source_at": str(kernel.source_where),
        "launched_at": str(kernel.launch.where),
        "order": order,
        "checks": [c.seed for c in checks],
        "versions": versions(root),
        "modes": {},
    }
    seeds_in_order = [c.seed for c in checks]
    with tempfile.TemporaryDirectory(prefix="ssm-mlx-") as scratch:
        scratch_path = Path(scratch)

        def fresh_cache(tag: str) -> Path:
            folder = scratch_path / tag
            folder.mkdir()
            return folder

        one = _spawn(root, kernel.name, seeds_in_order, fresh_cache("one"), stages=True, search=True)
        report["modes"]["one process"] = one["results"]
        report["search"] = one["search"]
        report["modes"]["fresh"] = [
            _spawn(root, kernel.name, [s], fresh_cache(f"fresh-{s}"))["results"][0] for s in seeds_in_order
        ]
        shared = fresh_cache("shared")
        report["modes"]["shared cache"] = [_spawn(root, kernel.name, [s], shared)["results"][0] for s in seeds_in_order]
        report["shared_cache_files"] = cache_files(shared)
        report["modes"]["module reuse"] = [
            _spawn(root, kernel.name, [s], fresh_cache(f"reuse-{s}"), prime=True)["results"][0] for s in seeds_in_order
        ]
    report["differences"] = differences(report["modes"])
    report["passes"] = all(r["passes"] for mode in ("one process", "fresh") for r in report["modes"][mode])
    return report


def differences(modes: dict[str, list[dict]]) -> list[str]:
    """Where a check's output bytes differ from the one-process run, one line each."""
    base = {r["seed"]: r for r in modes["one process"]}
    lines = []
    for mode in ("fresh", "shared cache", "module reuse"):
        for result in modes.get(mode, []):
            first = base.get(result["seed"])
            if first is None:
                continue
            moved = [k for k in ("y", "state") if result["digest"][k] != first["digest"][k]]
            if moved:
                lines.append(
                    f"{result['seed']}: {mode} differs from one process in {' and '.join(moved)} "
                    f"(state nrms {result['state']['nrms']:.3e} vs {first['state']['nrms']:.3e})"
                )
    return lines


def _verdict(result: dict) -> str:
    return "pass" if result["passes"] else "FAIL"


def render(report: dict) -> str:
    """The text report of ssm-diff --engine mlx."""
    v = report["versions"]
    lines = [
        f"tree={report['tree']} instance={report['instance']} (registered {report['registered_at']}, "
        f"source {report['source_at']}, launched {report['launched_at']})",
        f"MLX {v['mlx']} vs the tree's pin {v['tree_pin']}: {v['mlx_vs_pin']}",
        f"GPU {v.get('gpu')} (compute capability {v.get('compute_capability')}, driver {v.get('driver')}); "
        f"MLX device {v.get('default_device')} {v.get('mlx_device_info')}",
        f"order: {report['order']} ({', '.join(map(str, report['checks']))})",
    ]
    for mode in MODES:
        lines += [
            "",
            f"[{mode}]",
            f"{'seed':<5} {'shape':<19} {'act':<4} {'A_log':<5} {'y nrms':>10} {'state nrms':>11} "
            f"{'state nmax':>11} {'state f64':>10}  result  module",
        ]
        for r in report["modes"][mode]:
            lines.append(
                f"{r['seed']:<5} {r['shape']:<19} {r['act_dtype']:<4} {r['a_log_dtype']:<5} "
                f"{r['y']['nrms']:>10.3e} {r['state']['nrms']:>11.3e} {r['state']['nmax']:>11.3e} "
                f"{r['state']['nrms_f64']:>10.3e}  {_verdict(r):<6}  {r['module']}"
                + (f" (primed with A_log {r['primed']['primed_with_a_log']})" if "primed" in r else "")
            )
    lines += [
        "",
        "differences between modes: " + ("none (same y and state bytes)" if not report["differences"] else ""),
    ]
    lines += [f"  {line}" for line in report["differences"]]
    files = report["shared_cache_files"]
    custom = [f for f in files if "custom_kernel" in f]
    lines += [
        f"PTX cache folder after the shared-cache runs: {len(files)} files, {len(custom)} of custom kernels"
        + (f" ({', '.join(custom)})" if custom else "")
    ]
    lines += ["", "[stages, one process] nrms against the test's reference (nrms against float64)"]
    lines.append(
        f"{'seed':<5} " + " ".join(f"{s:>21}" for s in ("dt'", "A", "decay", "state", "y")) + "  first deviating"
    )
    for r in report["modes"]["one process"]:
        cells = " ".join(
            f"{row['nrms']:>9.2e} ({row['nrms_f64']:.1e})" if row["exposed"] else f"{'not exposed':>21}"
            for row in r["stages"]
        )
        probe = "" if r["probe_matches_kernel"] else "  (probe's state/y differ from the kernel's)"
        lines.append(f"{r['seed']:<5} {cells}  {r['first_deviating_stage'] or 'none'}{probe}")
    lines += [
        "",
        "[injection search] state nrms against the test's reference, per seed; * = reproduces the seed's "
        "pattern (2069, 2071 in 1.8e-3..2.5e-3; 2067, 2068, 2070, 2073 under 1e-5)",
    ]
    seeds = report["checks"]
    lines.append(f"{'injection':<52} " + " ".join(f"{s:>9}" for s in seeds))
    for row in report["search"]:
        name = " + ".join(row["inject"]) or "none"
        mark = "*" if row["reproduces_seed_pattern"] else " "
        lines.append(f"{mark}{name:<51} " + " ".join(f"{row['state_nrms'][str(s)]:>9.2e}" for s in seeds))
    reuse = report["modes"]["module reuse"]
    hits = [r for r in reuse if r["module"] == r["primed"]["module"]]
    lines.append(
        " module reuse (GPU, A_log's other dtype first)  "
        + " ".join(f"{r['state']['nrms']:>9.2e}" for r in reuse)
        + f"   ({len(hits)} of {len(reuse)} checks share a module name with the primer)"
    )
    lines.append("injections: " + "; ".join(f"{k}: {v}" for k, v in INJECTIONS.items()))
    reproducing = [" + ".join(r["inject"]) for r in report["search"] if r["reproduces_seed_pattern"]]
    lines.append("reproduce the seed's pattern: " + (", ".join(reproducing) if reproducing else "none"))
    lines.append(f"all checks pass (one process and fresh): {'yes' if report['passes'] else 'no'}")
    return "\n".join(lines)


def main_engine(root: Path, instance: str | None, seeds: tuple[int, ...], order: str, as_json: bool) -> tuple[str, int]:
    """What ssm-diff --engine mlx prints, and its exit status; raises EngineError or TreeKernelError."""
    report = run_engine(root, instance, seeds, order)
    text = json.dumps(report, indent=2) if as_json else render(report)
    return text, (EXIT_OK if report["passes"] else EXIT_DIFFERS)


__all__ = ["EngineError", "MODES", "TreeKernelError", "main_engine", "ordered_checks", "render", "run_engine"]

if __name__ == "__main__":
    raise SystemExit(_child_main(sys.argv[1:]))
