"""Time the dry run at 2, 4, 8 and 16 cores (`--cores`: 1 too, for the speed-up from one core)
against ast-grep given the same cores (issue 41 point 3).

For each tree bench_scale.py knows (generated, registry, databend, and the mlxcel tree
when its archive is there; `--only` picks), at each core count N (capped at the CPUs this
process may use):

  - `taskset -c 0-(N-1) env CODEMOD_JOBS=N codemod apply --dry-run --recipe ...` (the
    same command line as bench_scale.py's), and
  - `taskset -c 0-(N-1) ast-grep run --threads N -p PATTERN --rewrite '' DIR` (its peer),

all runs of one tree interleaved (codemod N=2, ast-grep N=2, codemod N=4, ...; one warm-up
round first), each figure the median of its runs, with the CPU seconds of each run (user +
system of the command and its children) and the peak memory (max RSS of the largest single
process, one extra run each). Per tree, a least-squares fit of codemod's medians to
T(N) = S + P/N gives the serial seconds S and the parallel seconds P (Amdahl), and so
the speed-up 16 cores can give at most.

With `--profile N` the dry run of each tree runs once more under cProfile at N cores
(CODEMOD_JOBS=N): the parent process's time, the part spent waiting for the forked workers
(`forked_map`) and the functions the rest goes to, written to PROFILE_DIR/profile.txt
(the raw .prof files beside it).

With `--floor` each tree's parse floor is measured too: the dry run runs once in one process
(CODEMOD_JOBS=1) noting every distinct text the engine hands tree-sitter, then those texts are
parsed again in a loop (the faster of two rounds), and a bare start-up (`python -c "import
codemods.cli.main"`, the median of three) is timed. At N cores, floor(N) = start-up + parse/N:
what any run that parses those files must take even with no other work and a perfect split over
N processes, printed as a ratio to ast-grep's time at N (how much of the ratio is left to the
resolution, the reading and the report).

With `--baseline DIR` (a checkout of an earlier commit) that checkout's dry run is timed too, in
the same interleaved rounds at each N (PYTHONPATH=DIR before the rest of PYTHONPATH): the before
and after of a change on one machine at once.

The registry workspace is built from the Cargo registry on this machine; where there is
none (a machine the tree was carried to), a tree already under bench/out/registry-workspace
is used as it is.

    python bench/bench_cores.py [--runs N] [--cores 2,4,8,16] [--only generated,registry,databend,real]
                                [--profile N] [--profile-dir DIR] [--json] [--save FILE] [--corpus ARCHIVE]
                                [--baseline DIR] [--floor]
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_scale
import registry_workspace
from _harness import OUT, baseline_run, add_bytecode_option, add_corpus_option, machine, prepare_bytecode, tool

CORES = (2, 4, 8, 16)


def usable_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(os.cpu_count() or 1))


def pinned(cpus: list[int], n: int) -> list[str]:
    """`taskset -c` to the first `n` CPUs this process may use (where there is no taskset, the
    same through Python's sched_setaffinity, then exec)."""
    chosen = ",".join(map(str, cpus[:n]))
    if shutil.which("taskset"):
        return ["taskset", "-c", chosen]
    return [
        sys.executable,
        "-c",
        (
            "import os, sys; os.sched_setaffinity(0, [int(c) for c in sys.argv[1].split(',')]); "
            "os.execvp(sys.argv[2], sys.argv[2:])"
        ),
        chosen,
    ]


def peer_with_threads(peer: list[str], n: int) -> list[str]:
    """ast-grep's command line told to use `n` threads (`run --threads N`)."""
    at = peer.index("run") + 1
    return [*peer[:at], "--threads", str(n), *peer[at:]]


def run_once(argv: list[str], cwd: Path) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the command and its children, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    code = subprocess.run(argv, check=False, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), code


def amdahl(points: list[tuple[int, float]]) -> tuple[float, float] | None:
    """(S, P) of the least-squares fit T(N) = S + P/N; None with fewer than two core counts."""
    if len(points) < 2:
        return None
    xs, ys = [1 / n for n, _ in points], [t for _, t in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - slope * mx, slope


def use_carried_registry() -> None:
    """Where this machine has no Cargo registry but a registry workspace was carried here, time
    that tree as it is (its builder would refuse: no registry to copy from)."""
    manifest = registry_workspace.DEFAULT_OUT / "manifest.json"
    if not registry_workspace.crate_dirs() and manifest.is_file():
        carried = json.loads(manifest.read_text())
        bench_scale.build_registry = lambda out: carried


def _swap_pairs(arms: list[tuple[int, str, list[str]]]) -> list[int]:
    """The order of `arms` with each core count's codemod and baseline arms swapped."""
    order = list(range(len(arms)))
    for i in range(len(arms) - 1):
        if arms[i][1] == "codemod" and arms[i + 1][1] == "baseline":
            order[i], order[i + 1] = i + 1, i
    return order


def time_tree(
    tree: bench_scale.Workspace, cores: list[int], cpus: list[int], runs: int, baseline: Path | None = None
) -> dict:
    """The interleaved runs of one tree at each core count: medians, CPU seconds, peak memory."""
    arms = []
    for n in cores:
        arms.append((n, "codemod", [*pinned(cpus, n), "env", f"CODEMOD_JOBS={n}", *tree.dry_run]))
        if baseline is not None:
            arms.append(
                (n, "baseline", [*pinned(cpus, n), "env", f"CODEMOD_JOBS={n}", *baseline_run(baseline, tree.dry_run)])
            )
        arms.append((n, "ast-grep", [*pinned(cpus, n), *peer_with_threads(tree.peer, n)]))
    walls: dict[tuple[int, str], list[float]] = {(n, side): [] for n, side, _ in arms}
    cpu: dict[tuple[int, str], list[float]] = {(n, side): [] for n, side, _ in arms}
    codes = {}
    swapped = [arms[i] for i in _swap_pairs(arms)]
    for round_ in range(runs + 1):  # round 0: the warm-up
        # Every other round the baseline runs before this checkout, so that neither always runs
        # right after the previous core count's ast-grep (all cores busy). In a run where the
        # mlxcel tree's dry run was the same code in both checkouts, the baseline, always second,
        # was faster in 7 of 7 rounds (0.398 s against 0.481 s at 2 cores).
        for n, side, argv in swapped if round_ % 2 else arms:
            wall, seconds, codes[n, side] = run_once(argv, tree.root)
            if round_:
                walls[n, side].append(wall)
                cpu[n, side].append(seconds)
    for (n, side), code in codes.items():
        if side != "ast-grep" and code not in (0, 1):
            sys.exit(
                f"bench_cores: {tree.name}: the dry run exits {code} at N={n} (not a plan): "
                f"{' '.join(tree.dry_run)} in {tree.root}"
            )
    rows = []
    for n in cores:
        ours, peer = statistics.median(walls[n, "codemod"]), statistics.median(walls[n, "ast-grep"])
        memory, _, _ = bench_scale.peak_rss([*pinned(cpus, n), "env", f"CODEMOD_JOBS={n}", *tree.dry_run], tree.root)
        peer_memory, _, _ = bench_scale.peak_rss([*pinned(cpus, n), *peer_with_threads(tree.peer, n)], tree.root)
        rows.append(
            {
                "cores": n,
                "codemod_s": ours,
                "ast_grep_s": peer,
                "ratio": ours / peer,
                "codemod_cpu_s": statistics.median(cpu[n, "codemod"]),
                "ast_grep_cpu_s": statistics.median(cpu[n, "ast-grep"]),
                "codemod_runs": walls[n, "codemod"],
                "ast_grep_runs": walls[n, "ast-grep"],
                "codemod_peak_mib": memory / 2**20,
                "ast_grep_peak_mib": peer_memory / 2**20,
            }
        )
        if baseline is not None:
            rows[-1]["baseline_s"] = statistics.median(walls[n, "baseline"])
            rows[-1]["baseline_ratio"] = rows[-1]["baseline_s"] / peer
            rows[-1]["baseline_runs"] = walls[n, "baseline"]
    first = rows[0]
    for row in rows:
        row["codemod_speedup"] = first["codemod_s"] / row["codemod_s"]
        row["ast_grep_speedup"] = first["ast_grep_s"] / row["ast_grep_s"]
    fit = amdahl([(row["cores"], row["codemod_s"]) for row in rows])
    peer_fit = amdahl([(row["cores"], row["ast_grep_s"]) for row in rows])
    return {
        "name": tree.name,
        "root": str(tree.root),
        "files": tree.files,
        "lines": tree.lines,
        "dry_run_exit": codes[cores[0], "codemod"],
        "dry_run": " ".join(tree.dry_run[1:]),
        "peer": " ".join(tree.peer[1:]),
        "rows": rows,
        "fit": None if fit is None else {"serial_s": fit[0], "parallel_s": fit[1]},
        "peer_fit": None if peer_fit is None else {"serial_s": peer_fit[0], "parallel_s": peer_fit[1]},
    }


# `codemod ARGS` under cProfile, its imports included (`python -m cProfile -m codemods` writes
# nothing: the command ends with os._exit), the stats written to argv[1].
PROFILED = """import cProfile, sys
profile = cProfile.Profile()
profile.enable()
from codemods.startup import install
install()
from codemods.cli.main import main
out, sys.argv = sys.argv[1], ["codemod", *sys.argv[2:]]
try:
    main()
except SystemExit:
    pass
profile.disable()
profile.dump_stats(out)
"""


# The dry run `codemod ARGS` in this process at CODEMOD_JOBS=1, noting each distinct text given to
# a tree-sitter parser; then the time to parse them all again (the faster of two rounds), as JSON.
FLOOR = """import json, sys, time
from codemods.startup import install
install()
import codemods.parse as parse_module
texts = {}
make = parse_module._parser
class Noting:
    def __init__(self, language):
        self.language, self.parser = language, make(language)
    def parse(self, source, *rest, **named):
        texts[(self.language, source)] = None
        return self.parser.parse(source, *rest, **named)
parse_module._parser = Noting
from codemods.cli.main import main
sys.argv = ["codemod", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
best = None
for _ in range(2):
    start = time.perf_counter()
    for language, source in texts:
        make(language).parse(source)
    took = time.perf_counter() - start
    best = took if best is None else min(best, took)
print(json.dumps({"texts": len(texts), "bytes": sum(len(s) for _, s in texts), "parse_s": best}))
"""


def parse_floor(tree: bench_scale.Workspace, cpus: list[int]) -> dict:
    """The parse floor of one tree's dry run (see FLOOR), on one CPU, with the start-up time."""
    out = subprocess.run(
        [*pinned(cpus, 1), "env", "CODEMOD_JOBS=1", tool("python"), "-c", FLOOR, *tree.dry_run[1:]],
        cwd=tree.root,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = out.stdout.strip().splitlines()
    if not lines:
        sys.exit(f"bench_cores: {tree.name}: the parse floor run printed nothing: {out.stderr[-2000:]}")
    found = json.loads(lines[-1])
    startups = [
        run_once([*pinned(cpus, 1), tool("python"), "-c", "import codemods.cli.main"], tree.root)[0] for _ in range(3)
    ]
    found["startup_s"] = statistics.median(startups)
    return found


def profile_tree(tree: bench_scale.Workspace, n: int, cpus: list[int], folder: Path) -> str:
    """One dry run under cProfile at `n` cores: where the parent process's time goes."""
    folder.mkdir(parents=True, exist_ok=True)
    stats_file = folder / f"{tree.name.split()[0]}-{n}.prof"
    argv = [
        *pinned(cpus, n),
        "env",
        f"CODEMOD_JOBS={n}",
        tool("python"),
        "-c",
        PROFILED,
        str(stats_file),
        *tree.dry_run[1:],
    ]
    wall, _, _ = run_once(argv, tree.root)
    stats = pstats.Stats(str(stats_file))
    entries = stats.stats  # type: ignore[attr-defined]
    total = stats.total_tt  # type: ignore[attr-defined]

    def cumulative(name: str) -> float:
        return sum(value[3] for key, value in entries.items() if key[2] == name)

    def where(key: tuple) -> str:
        path, line, name = key
        short = path.split("/codemods/", 1)[-1] if "/codemods/" in path else Path(path).name
        return f"{short}:{line}({name})"

    waiting = cumulative("forked_map")
    own = sorted(entries.items(), key=lambda item: -item[1][2])[:15]
    ours = sorted(((k, v) for k, v in entries.items() if "/codemods/" in k[0]), key=lambda item: -item[1][3])[:25]
    lines = [
        (
            f"== {tree.name} at N={n} (CODEMOD_JOBS={n}): wall {wall:.2f} s under cProfile, "
            f"parent's profiled time {total:.2f} s, of which waiting on the forked workers (forked_map) "
            f"{waiting:.2f} s, so {total - waiting:.2f} s serial in the parent"
        ),
        "-- functions by own time (tottime, ncalls)",
    ]
    lines += [f"  {v[2]:7.3f} s  {v[1]:>9}  {where(k)}" for k, v in own]
    lines.append("-- the project's functions by cumulative time")
    lines += [f"  {v[3]:7.3f} s  {v[1]:>9}  {where(k)}" for k, v in ours]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cores", default=",".join(map(str, CORES)), help="core counts (capped at the usable CPUs)")
    parser.add_argument(
        "--only",
        default="generated,registry,databend,real",
        help="comma-separated trees (generated, registry, databend, real)",
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="also profile each tree's dry run once at N cores (0: no profile)",
    )
    parser.add_argument("--profile-dir", type=Path, default=OUT / "cores-profile")
    parser.add_argument("--json", action="store_true", help="print the results as JSON (the table goes to stderr)")
    parser.add_argument(
        "--baseline", type=Path, metavar="DIR", help="a checkout of an earlier commit, timed beside this one"
    )
    parser.add_argument(
        "--floor", action="store_true", help="also measure each tree's parse floor (start-up + parse/N)"
    )
    parser.add_argument(
        "--save", type=Path, metavar="FILE", help="also write the results as JSON to FILE, after each tree"
    )
    add_corpus_option(parser)
    add_bytecode_option(parser)
    args = parser.parse_args()
    baseline = args.baseline.resolve() if args.baseline else None
    if baseline is not None and not (baseline / "codemods" / "__init__.py").is_file():
        sys.exit(f"bench_cores: --baseline {args.baseline}: no codemods package there")
    prepare_bytecode(args.bytecode, baseline)
    cpus = usable_cpus()
    cores = sorted({n for n in map(int, args.cores.split(",")) if n <= len(cpus)}) or [len(cpus)]
    capped = sorted({n for n in map(int, args.cores.split(",")) if n > len(cpus)})

    use_carried_registry()
    trees, skipped, _ = bench_scale.workspaces(set(args.only.split(",")), args.corpus)

    def say(text: str) -> None:
        print(text, file=sys.stderr if args.json else sys.stdout, flush=True)

    say(machine() + f"; {len(cpus)} usable CPUs; median of {args.runs} interleaved runs after one warm-up round")
    if capped:
        say(f"core counts above the usable CPUs left out: {capped}")
    for reason in skipped:
        say(f"skipped: {reason}")
    results, profiles = [], []
    header = (
        f"{'tree':14} {'N':>3} {'codemod':>9} {'ast-grep':>9} {'ratio':>7} {'x vs ' + str(cores[0]):>7} {'ag x':>6} "
        f"{'cm CPU':>8} {'ag CPU':>8} {'cm MiB':>7} {'ag MiB':>7}"
    )
    for tree in trees:
        result = time_tree(tree, cores, cpus, args.runs, baseline)
        if args.floor:
            result["floor"] = parse_floor(tree, cpus)
            for row in result["rows"]:
                row["floor_s"] = result["floor"]["startup_s"] + result["floor"]["parse_s"] / row["cores"]
                row["floor_ratio"] = row["floor_s"] / row["ast_grep_s"]
        results.append(result)
        say(f"\n{tree.name}: {tree.files} files, {tree.lines} lines; the dry run exits {result['dry_run_exit']}")
        say(header)
        for row in result["rows"]:
            say(
                f"{tree.name.split()[0]:14} {row['cores']:>3} {row['codemod_s']:8.3f}s {row['ast_grep_s']:8.3f}s "
                f"{row['ratio']:6.2f}x {row['codemod_speedup']:6.2f}x {row['ast_grep_speedup']:5.2f}x "
                f"{row['codemod_cpu_s']:7.2f}s {row['ast_grep_cpu_s']:7.2f}s {row['codemod_peak_mib']:7.0f} "
                f"{row['ast_grep_peak_mib']:7.0f}"
            )
            if "baseline_s" in row:
                say(
                    f"{'  baseline':14} {row['cores']:>3} {row['baseline_s']:8.3f}s {row['ast_grep_s']:8.3f}s "
                    f"{row['baseline_ratio']:6.2f}x  (the checkout at {baseline})"
                )
        if "floor" in result:
            floor = result["floor"]
            say(
                f"parse floor: {floor['texts']} texts, {floor['bytes'] / 2**20:.1f} MiB parsed in "
                f"{floor['parse_s']:.2f} s on one CPU; start-up {floor['startup_s']:.2f} s; floor(N) = "
                + ", ".join(f"{r['floor_s']:.2f} s ({r['floor_ratio']:.2f}x) at {r['cores']}" for r in result["rows"])
            )
        if result["fit"]:
            serial, parallel = result["fit"]["serial_s"], result["fit"]["parallel_s"]
            say(
                f"fit T(N) = S + P/N: codemod S = {serial:.2f} s serial, P = {parallel:.2f} s parallel "
                f"(at most {(serial + parallel) / (serial + parallel / 16):.1f}x from 1 to 16 cores); ast-grep "
                f"S = {result['peer_fit']['serial_s']:.2f} s, P = {result['peer_fit']['parallel_s']:.2f} s"
            )
        if args.save:
            args.save.write_text(
                json.dumps(
                    {"machine": machine(), "cpus": len(cpus), "runs": args.runs, "skipped": skipped, "trees": results},
                    indent=2,
                )
            )
        if args.profile:
            profiles.append(profile_tree(tree, min(args.profile, len(cpus)), cpus, args.profile_dir))
            (args.profile_dir / "profile.txt").write_text("".join(profiles))
            say(profiles[-1])
    document = {"machine": machine(), "cpus": len(cpus), "runs": args.runs, "skipped": skipped, "trees": results}
    if args.save:
        args.save.write_text(json.dumps(document, indent=2))
    if args.json:
        print(json.dumps(document, indent=2))


if __name__ == "__main__":
    main()
