"""Time the codemods at the scale of big workspaces (issue 25), against ast-grep in the same run.

On the generated workspace (bench/gen_workspace.py: 40 crates, about 2.1M
lines of Rust, a dev-dependency cycle, re-exports, globs, the same names in
every crate), each row a median of interleaved runs:

  1. `codemod apply --dry-run --recipe delete-six.toml ROOT`: six items of two
     crates deleted, with the complete reference check (the plan refuses: other
     crates use them), against `ast-grep run -p PATTERN --rewrite ''` of ONE
     function-deletion pattern over the whole tree     target: ratio <= 1.0
  2. the same dry run against `ast-grep scan` with one rule (information)
  3. `codemod check` on ten files against `python3 -c pass` target: <= +60 ms
  4. a 100 MB `.rs` file that names a removed symbol: the dry run of a recipe
     deleting that item from another file                target: < 10 s

and the peak memory (max RSS) of the dry runs: targets < 1 GiB for the
workspace, < 5x the file's size for the big file.

    python bench/bench_scale.py [--runs N] [--json] [--skip-big-file]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

from _harness import OUT, REPO, add_bytecode_option, machine, prepare_bytecode, race, tool

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_workspace import DEFAULT_OUT, generate  # noqa: E402

PATTERN = "pub fn evict_stale_pages($$$ARGS) -> $RET { $$$BODY }"
RULE = """id: deleted-items
language: rust
rule:
  kind: identifier
  regex: ^(evict_stale_pages|legacy_block_count|dense_compat_attend|drain_legacy_queue)$
"""
BIG_MB = 100


def peak_rss(argv: list[str], cwd: Path) -> tuple[int, float, int]:
    """(max RSS in bytes, seconds, exit code) of one run of `argv`, measured in a fresh child."""
    probe = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
             "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.perf_counter() - t, r.returncode)")
    out = subprocess.run([sys.executable, "-c", probe, *argv], cwd=cwd, capture_output=True, text=True).stdout.split()
    return int(out[0]) * 1024, float(out[1]), int(out[2])


def big_file_tree(size_mb: int) -> Path:
    """A tree with one small file holding the deleted item and a `size_mb` MB file that names it."""
    root = OUT / "bigfile"
    big = root / "src" / "big.rs"
    if big.is_file() and big.stat().st_size >= size_mb * 1_000_000:
        return root
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "src" / "lib.rs").write_text("mod big;\n\npub fn gone_helper(x: usize) -> usize {\n    x\n}\n\n"
                                         "pub fn kept(x: usize) -> usize {\n    x + 1\n}\n")
    chunk = "".join(f"pub fn filler_{i}(x: usize) -> usize {{\n    // a comment about item {i}\n    x * {i % 7 + 1}\n}}\n\n"
                    for i in range(2000))
    with big.open("w") as out:
        written = 0
        out.write("use crate::gone_helper;\n\npub fn user(x: usize) -> usize {\n    gone_helper(x)\n}\n\n")
        while written < size_mb * 1_000_000:
            out.write(chunk)
            written += len(chunk)
    (root / "recipe.toml").write_text('id = "big"\nsummary = "delete one fn a 100 MB file names"\n'
                                      'dead_symbol_pattern = "gone_helper"\n\n[[delete]]\npath = "src/lib.rs"\n'
                                      'language = "rust"\nkind = "fn"\nname = "crate::gone_helper"\n')
    return root


def ten_files(root: Path) -> list[str]:
    files = sorted(str(p.relative_to(root)) for p in (root / "crates").rglob("*.rs"))
    step = max(1, len(files) // 10)
    return files[::step][:10]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--skip-big-file", action="store_true")
    add_bytecode_option(parser)
    args = parser.parse_args()
    prepare_bytecode(args.bytecode)

    manifest = generate(DEFAULT_OUT, 2_100_000, 40, 2230)
    root = DEFAULT_OUT
    codemod, sg, python = tool("codemod"), tool("ast-grep"), tool("python")
    rule = OUT / "rules" / "deleted-items.yml"
    rule.parent.mkdir(parents=True, exist_ok=True)
    rule.write_text(RULE)
    dry_run = [codemod, "apply", "--dry-run", "--recipe", "delete-six.toml", "."]
    rows = []

    timed = race([("codemod", dry_run),
                  ("ast-grep run", [sg, "run", "--lang", "rust", "-p", PATTERN, "--rewrite", "", "crates/"]),
                  ("ast-grep scan", [sg, "scan", "--rule", str(rule), "crates/"])], root, args.runs)
    ours, run_peer, scan_peer = timed
    rows.append(("dry run (6 items, 2 crates) vs ast-grep run -p", ours.median, run_peer.median,
                 f"{ours.median / run_peer.median:.3f}x", "ratio <= 1.0", ours.median <= run_peer.median))
    rows.append(("dry run vs ast-grep scan, one rule (information)", ours.median, scan_peer.median,
                 f"{ours.median / scan_peer.median:.3f}x", "-", None))
    memory, _, code = peak_rss(dry_run, root)
    rows.append(("dry run peak memory (max RSS)", memory / 2**20, None, f"{memory / 2**20:.0f} MiB", "< 1024 MiB",
                 memory < 2**30))

    files = ten_files(root)
    check, bare = race([("check", [codemod, "check", *files]), ("python", [python, "-c", "pass"])], root, args.runs)
    delta = check.median - bare.median
    rows.append(("check on 10 files vs python3 -c pass", check.median, bare.median, f"+{delta * 1000:.0f} ms",
                 "delta <= 0.060 s", delta <= 0.060))

    if not args.skip_big_file:
        big = big_file_tree(BIG_MB)
        size = (big / "src" / "big.rs").stat().st_size
        memory, seconds, big_code = peak_rss([codemod, "apply", "--dry-run", "--recipe", "recipe.toml", "."], big)
        rows.append((f"{size / 1e6:.0f} MB file naming a removed symbol: dry run", seconds, None, f"{seconds:.1f} s",
                     "< 10 s", seconds < 10))
        rows.append(("  its peak memory (max RSS)", memory / 2**20, None, f"{memory / size:.1f}x the file",
                     "< 5x", memory < 5 * size))

    if args.json:
        print(json.dumps({"machine": machine(), "workspace": manifest, "dry_run_exit": code,
                          "rows": [dict(zip(("row", "codemod", "peer", "figure", "target", "met"), r)) for r in rows]},
                         indent=2))
        return
    print(machine() + f"; median of {args.runs} interleaved runs")
    print(f"workspace: {manifest['crates']} crates, {manifest['files']} files, {manifest['lines']} lines of Rust "
          f"({root.relative_to(REPO)}); the dry run exits {code} (the plan refuses: other crates use the items)")
    print(f"{'row':52} {'codemod':>9} {'peer':>9} {'figure':>14}  {'target':18} met")
    for name, ours_s, peer_s, figure, target, met in rows:
        ours_txt = f"{ours_s:.3f}s" if peer_s is not None else ""
        peer_txt = f"{peer_s:.3f}s" if peer_s is not None else ""
        print(f"{name:52} {ours_txt:>9} {peer_txt:>9} {figure:>14}  {target:18} "
              f"{'-' if met is None else 'yes' if met else 'NO'}")
    print(f"peers (run in ROOT): {run_peer.command}; {scan_peer.command}")


if __name__ == "__main__":
    main()
