"""Time the codemods at the scale of big workspaces (issues 25 and 31), against ast-grep in the same run.

Three trees, each row a median of interleaved runs:

  - generated: bench/gen_workspace.py, 40 crates, about 2.1M lines of Rust, a
    dev-dependency cycle, re-exports, globs, the same names in every crate;
    `codemod apply --dry-run --recipe delete-six.toml` (six items of two crates,
    the plan refuses: other crates use them)               target: ratio <= 1.0
  - registry: bench/registry_workspace.py, the real crates of the Cargo
    registry on this machine side by side in one workspace (83 crates, about
    2,100 files and 760k lines here); `--recipe delete-methods.toml` deletes six
    methods with common names (`len`, `get`, `insert`, `parse`, ...)
                                                            target: ratio <= 1.0
  - databend: bench/real_workspace.py, a real workspace fetched at a pinned commit
    (about 3,800 files and 930k lines; 108 of its 110 manifests inherit dependencies
    from the root's `[workspace.dependencies]`); `--recipe delete-methods.toml`
    deletes six methods with common names                 target: ratio <= 1.0
    (skipped, saying so, when the mirror is not there)
  - real: the mlxcel tree (../shared/corpora, as bench_apply.py unpacks it), the
    bundled paged-compat-removal recipe                    target: ratio <= 0.5
    (skipped, saying so, when the archive is not there)

Each dry run is timed against `ast-grep run -p PATTERN --rewrite ''` of ONE
function-deletion pattern over the same tree, and its peak memory (max RSS)
is measured (target < 1 GiB). Then, on the generated workspace:

  - the dry run against `ast-grep scan` with one rule (information)
  - `codemod check` on ten files against `python3 -c pass` target: <= +60 ms
  - a 100 MB `.rs` file that names a removed symbol: the dry run of a recipe
    deleting that item from another file                target: < 10 s, < 5x its size

The growth curve (`--only growth`, or with the others): the generated workspace's recipe on
one workspace of 1, 2, 4 and 8 copies of a 260k-line generated workspace's crates, every copy
using the first copy's deleted items (so the uses to resolve grow with the tree): seconds and
peak memory per size and seconds per million lines, beside ast-grep's, so that a reader sees
whether the cost grows linearly.

With `--baseline DIR` (a checkout of an earlier commit: `git worktree add /tmp/base COMMIT`)
each dry run is also timed with that checkout's code (PYTHONPATH=DIR, the same venv), in the
same interleaved runs: the before and after of a change, each against ast-grep.

    python bench/bench_scale.py [--runs N] [--json] [--skip-big-file]
                                [--only generated,registry,databend,real,growth]
                                [--baseline DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from _harness import (
    DEFAULT_CORPUS,
    OUT,
    REPO,
    add_bytecode_option,
    baseline_run,
    add_corpus_option,
    corpus_tree,
    machine,
    prepare_bytecode,
    race,
    tool,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_workspace import DEFAULT_OUT, generate
from real_workspace import build as build_databend
from registry_workspace import build as build_registry

PATTERN = "pub fn evict_stale_pages($$$ARGS) -> $RET { $$$BODY }"
RULE = """id: deleted-items
language: rust
rule:
  kind: identifier
  regex: ^(evict_stale_pages|legacy_block_count|dense_compat_attend|drain_legacy_queue)$
"""
REGISTRY_PATTERN = "pub fn len(&self) -> usize { $$$BODY }"
DATABEND_PATTERN = "pub fn len(&self) -> usize { $$$BODY }"
GROWTH = (1, 2, 4, 8)
GROWTH_BASE_LINES = 262_500
MLXCEL_PATTERN = "pub fn paged_decode_attention_dense_fallback($$$ARGS) -> $RET { $$$BODY }"
BIG_MB = 100


def peak_rss(argv: list[str], cwd: Path) -> tuple[int, float, int]:
    """(max RSS in bytes, seconds, exit code) of one run of `argv`, measured in a fresh child."""
    probe = (
        "import resource, subprocess, sys, time; t = time.perf_counter(); "
        "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.perf_counter() - t, r.returncode)"
    )
    out = subprocess.run([sys.executable, "-c", probe, *argv], cwd=cwd, capture_output=True, text=True).stdout.split()
    return int(out[0]) * 1024, float(out[1]), int(out[2])


def big_file_tree(size_mb: int) -> Path:
    """A tree with one small file holding the deleted item and a `size_mb` MB file that names it."""
    root = OUT / "bigfile"
    big = root / "src" / "big.rs"
    if big.is_file() and big.stat().st_size >= size_mb * 1_000_000:
        return root
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "src" / "lib.rs").write_text(
        "mod big;\n\npub fn gone_helper(x: usize) -> usize {\n    x\n}\n\n"
        "pub fn kept(x: usize) -> usize {\n    x + 1\n}\n"
    )
    chunk = "".join(
        f"pub fn filler_{i}(x: usize) -> usize {{\n    // a comment about item {i}\n    x * {i % 7 + 1}\n}}\n\n"
        for i in range(2000)
    )
    with big.open("w") as out:
        written = 0
        out.write("use crate::gone_helper;\n\npub fn user(x: usize) -> usize {\n    gone_helper(x)\n}\n\n")
        while written < size_mb * 1_000_000:
            out.write(chunk)
            written += len(chunk)
    (root / "recipe.toml").write_text(
        'id = "big"\nsummary = "delete one fn a 100 MB file names"\n'
        'dead_symbol_pattern = "gone_helper"\n\n[[delete]]\npath = "src/lib.rs"\n'
        'language = "rust"\nkind = "fn"\nname = "crate::gone_helper"\n'
    )
    return root


def ten_files(root: Path) -> list[str]:
    files = sorted(str(p.relative_to(root)) for p in (root / "crates").rglob("*.rs"))
    step = max(1, len(files) // 10)
    return files[::step][:10]


@dataclass(frozen=True)
class Workspace:
    """One tree timed: the dry run, its ast-grep peer, and the ratio the dry run must stay under."""

    name: str
    root: Path
    files: int
    lines: int
    dry_run: list[str]
    peer: list[str]
    target: float


def workspaces(only: set[str], corpus: str | None) -> tuple[list[Workspace], list[str], dict | None]:
    """The trees asked for, the reasons a tree was skipped, and the generated workspace's manifest."""
    codemod, sg = tool("codemod"), tool("ast-grep")
    found, skipped, generated = [], [], None
    if "generated" in only:
        generated = generate(DEFAULT_OUT, 2_100_000, 40, 2230)
        found.append(
            Workspace(
                "generated",
                DEFAULT_OUT,
                generated["files"],
                generated["lines"],
                [codemod, "apply", "--dry-run", "--recipe", "delete-six.toml", "."],
                [sg, "run", "--lang", "rust", "-p", PATTERN, "--rewrite", "", "crates/"],
                1.0,
            )
        )
    if "registry" in only:
        registry = OUT / "registry-workspace"
        manifest = build_registry(registry)
        found.append(
            Workspace(
                "registry",
                registry,
                manifest["files"],
                manifest["lines"],
                [codemod, "apply", "--dry-run", "--recipe", "delete-methods.toml", "."],
                [sg, "run", "--lang", "rust", "-p", REGISTRY_PATTERN, "--rewrite", "", "crates/"],
                1.0,
            )
        )
    if "databend" in only:
        try:
            databend = build_databend(OUT / "databend")
        except FileNotFoundError as missing:
            skipped.append(f"databend: {missing}")
        else:
            found.append(
                Workspace(
                    "databend",
                    OUT / "databend",
                    databend["files"],
                    databend["lines"],
                    [codemod, "apply", "--dry-run", "--recipe", "delete-methods.toml", "."],
                    [sg, "run", "--lang", "rust", "-p", DATABEND_PATTERN, "--rewrite", "", "src/"],
                    1.0,
                )
            )
    if "real" in only:
        archive = Path(corpus) if corpus else DEFAULT_CORPUS
        if archive.is_file():
            tree = corpus_tree(archive)
            found.append(
                Workspace(
                    "real (mlxcel)",
                    tree.root,
                    tree.files,
                    tree.lines,
                    [codemod, "apply", "--dry-run", "--recipe", "paged-compat-removal", "."],
                    [sg, "run", "--lang", "rust", "-p", MLXCEL_PATTERN, "--rewrite", "", "src/"],
                    0.5,
                )
            )
        else:
            skipped.append(f"real (mlxcel): no archive at {archive}")
    return found, skipped, generated


SHARED_CRATES = ("base", "sched", "testkit")


def growth_trees() -> list[tuple[int, Path, int]]:
    """(copies, root, lines) for each size of the growth curve: one workspace of `copies` copies of
    a generated workspace's crates (copy0/crates/..., copy1/crates/..., hard links), every copy's
    crates depending on copy0's `base` and `sched`, whose six items the recipe deletes, so that
    the uses to resolve grow with the copies."""
    base = OUT / "growth" / "base"
    manifest = generate(base, GROWTH_BASE_LINES, 12, 2230)
    recipe = (base / "delete-six.toml").read_text()
    recipe = recipe.replace('path = "', 'path = "copy0/').replace('check_scope = ["crates"]', 'check_scope = ["."]')
    trees = []
    for copies in GROWTH:
        root = OUT / "growth" / f"{copies}x"
        stamp = root / "stamp.json"
        if not stamp.is_file() or json.loads(stamp.read_text()) != manifest:
            shutil.rmtree(root, ignore_errors=True)
            for index in range(copies):
                shared = () if index == 0 else SHARED_CRATES
                copy = root / f"copy{index}" / "crates"
                shutil.copytree(
                    base / "crates",
                    copy,
                    copy_function=os.link,
                    ignore=lambda folder, names, shared=shared: [
                        name for name in names if Path(folder).name == "crates" and name in shared
                    ],
                )
                for cargo in copy.glob("*/Cargo.toml") if index else ():
                    text = cargo.read_text()
                    cargo.unlink()
                    for crate in SHARED_CRATES:
                        text = text.replace(f'path = "../{crate}"', f'path = "../../../copy0/crates/{crate}"')
                    cargo.write_text(text)
            (root / "Cargo.toml").write_text('[workspace]\nresolver = "2"\nmembers = ["copy*/crates/*"]\n')
            (root / "delete-six.toml").write_text(recipe)
            stamp.write_text(json.dumps(manifest))
        trees.append((copies, root, sum(path.read_bytes().count(b"\n") for path in root.rglob("*.rs"))))
    return trees


def growth_rows(runs: int) -> list[tuple]:
    """One row per size: the dry run and ast-grep, their seconds per million lines, peak memory."""
    codemod, sg = tool("codemod"), tool("ast-grep")
    rows = []
    for copies, root, lines in growth_trees():
        dry_run = [codemod, "apply", "--dry-run", "--recipe", "delete-six.toml", "."]
        ours, peer = race(
            [
                ("codemod", dry_run),
                ("ast-grep run", [sg, "run", "--lang", "rust", "-p", PATTERN, "--rewrite", "", "."]),
            ],
            root,
            runs,
        )
        memory, _, _ = peak_rss(dry_run, root)
        per_million = ours.median / (lines / 1e6)
        rows.append(
            (
                f"growth {copies}x ({lines / 1e6:.2f}M lines): dry run, {memory / 2**20:.0f} MiB",
                ours.median,
                peer.median,
                f"{per_million:.2f} s/Mline",
                f"ag {peer.median / (lines / 1e6):.2f}",
                None,
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--skip-big-file", action="store_true")
    parser.add_argument(
        "--only",
        default="generated,registry,databend,real,growth",
        help="comma-separated trees to time (generated, registry, databend, real) and the growth "
        "curve (growth); the rows of the generated workspace beyond its dry run need it",
    )
    parser.add_argument(
        "--baseline", metavar="DIR", help="a checkout of an earlier commit: its dry runs are timed too (PYTHONPATH=DIR)"
    )
    add_corpus_option(parser)
    add_bytecode_option(parser)
    args = parser.parse_args()
    baseline = Path(args.baseline).resolve() if args.baseline else None
    if baseline is not None and not (baseline / "codemods" / "__init__.py").is_file():
        sys.exit(f"bench_scale: --baseline {args.baseline}: no codemods package there")
    prepare_bytecode(args.bytecode, baseline)

    only = set(args.only.split(","))
    trees, skipped, manifest = workspaces(only, args.corpus)
    codemod, sg, python = tool("codemod"), tool("ast-grep"), tool("python")
    rows, exits, peers = [], {}, []
    for tree in trees:
        arms = [("codemod", tree.dry_run), ("ast-grep run", tree.peer)]
        if baseline is not None:
            # The same command line, the earlier checkout's package first on the path.
            arms.append(("baseline", baseline_run(baseline, tree.dry_run)))
        ours, peer, *before = race(arms, tree.root, args.runs)
        rows.append(
            (
                f"{tree.name}: dry run vs ast-grep run -p",
                ours.median,
                peer.median,
                f"{ours.median / peer.median:.3f}x",
                f"ratio <= {tree.target}",
                ours.median <= tree.target * peer.median,
            )
        )
        if before:
            rows.append(
                (
                    f"{tree.name}: baseline's dry run vs ast-grep run -p",
                    before[0].median,
                    peer.median,
                    f"{before[0].median / peer.median:.3f}x",
                    "(information)",
                    None,
                )
            )
        memory, _, exits[tree.name] = peak_rss(tree.dry_run, tree.root)
        if exits[tree.name] not in (0, 1):
            sys.exit(
                f"bench_scale: {tree.name}: the dry run exits {exits[tree.name]} (not a plan): "
                f"{' '.join(tree.dry_run)} in {tree.root}"
            )
        rows.append(
            (
                f"{tree.name}: dry run peak memory (max RSS)",
                memory / 2**20,
                None,
                f"{memory / 2**20:.0f} MiB",
                "< 1024 MiB",
                memory < 2**30,
            )
        )
        peers.append(f"{tree.name}: {peer.command}")

    if manifest is not None:
        root = DEFAULT_OUT
        rule = OUT / "rules" / "deleted-items.yml"
        rule.parent.mkdir(parents=True, exist_ok=True)
        rule.write_text(RULE)
        ours, scan_peer = race(
            [("codemod", trees[0].dry_run), ("ast-grep scan", [sg, "scan", "--rule", str(rule), "crates/"])],
            root,
            args.runs,
        )
        rows.append(
            (
                "generated: dry run vs ast-grep scan, one rule (information)",
                ours.median,
                scan_peer.median,
                f"{ours.median / scan_peer.median:.3f}x",
                "-",
                None,
            )
        )
        peers.append(f"generated: {scan_peer.command}")
        files = ten_files(root)
        check, bare = race(
            [
                ("check", [codemod, "check", "--recipe", "paged-compat-removal", *files]),
                ("python", [python, "-c", "pass"]),
            ],
            root,
            args.runs,
        )
        if check.returncode not in (0, 1):
            sys.exit(f"bench_scale: `{check.command}` exited with {check.returncode} (a usage error is not a check)")
        delta = check.median - bare.median
        rows.append(
            (
                "generated: check on 10 files vs python3 -c pass",
                check.median,
                bare.median,
                f"+{delta * 1000:.0f} ms",
                "delta <= 0.060 s",
                delta <= 0.060,
            )
        )

    if "growth" in only:
        rows += growth_rows(args.runs)

    if not args.skip_big_file:
        big = big_file_tree(BIG_MB)
        size = (big / "src" / "big.rs").stat().st_size
        memory, seconds, _big_code = peak_rss([codemod, "apply", "--dry-run", "--recipe", "recipe.toml", "."], big)
        rows.append(
            (
                f"{size / 1e6:.0f} MB file naming a removed symbol: dry run",
                seconds,
                None,
                f"{seconds:.1f} s",
                "< 10 s",
                seconds < 10,
            )
        )
        rows.append(
            (
                "  its peak memory (max RSS)",
                memory / 2**20,
                None,
                f"{memory / size:.1f}x the file",
                "< 5x",
                memory < 5 * size,
            )
        )

    if args.json:
        print(
            json.dumps(
                {
                    "machine": machine(),
                    "workspace": manifest,
                    "skipped": skipped,
                    "dry_run_exits": exits,
                    "trees": [{"name": t.name, "root": str(t.root), "files": t.files, "lines": t.lines} for t in trees],
                    "rows": [dict(zip(("row", "codemod", "peer", "figure", "target", "met"), r)) for r in rows],
                },
                indent=2,
            )
        )
        return
    print(machine() + f"; median of {args.runs} interleaved runs")
    for tree in trees:
        print(
            f"{tree.name}: {tree.files} files, {tree.lines} lines ({tree.root.relative_to(REPO)}); "
            f"the dry run exits {exits[tree.name]}"
        )
    for reason in skipped:
        print(f"skipped: {reason}")
    print(f"{'row':62} {'codemod':>9} {'peer':>9} {'figure':>14}  {'target':18} met")
    for name, ours_s, peer_s, figure, target, met in rows:
        ours_txt = f"{ours_s:.3f}s" if peer_s is not None else ""
        peer_txt = f"{peer_s:.3f}s" if peer_s is not None else ""
        print(
            f"{name:62} {ours_txt:>9} {peer_txt:>9} {figure:>14}  {target:18} "
            f"{'-' if met is None else 'yes' if met else 'NO'}"
        )
    print("peers (run in each ROOT): " + "; ".join(peers))
    if baseline is not None:
        print(f"baseline: {baseline} (PYTHONPATH), run interleaved with the dry run and its peer")


if __name__ == "__main__":
    main()
