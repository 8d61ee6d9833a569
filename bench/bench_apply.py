"""Time `codemod apply --dry-run` against ast-grep on the real tree and the generated one.

Per tree, in one run, each a median of several interleaved runs:
  - `codemod apply --dry-run ROOT`: the whole paged-compat-removal recipe
    (every deletion, the oracle rewrite, rewordings, closure and mention checks),
    rendered as a unified diff;
  - `ast-grep run --lang rust --pattern 'pub fn paged_decode_attention_dense_fallback(...) ...' --rewrite ''`
    over the same tree: ONE of the same functions deleted, shown as a diff (no -U).
Targets: ratio codemod / ast-grep <= 0.5 on the real tree (issue 14), <= 1.0 on
the generated one (issue 2).

    python bench/bench_apply.py [--runs N] [--corpus ARCHIVE] [--bytecode compiled|source] [--json] [--profile]

The real tree is ../shared/corpora/mlxcel-2026-07.tar.xz beside the project
(or --corpus), unpacked into bench/out/corpus/; without it only the generated
tree is timed. --profile also runs the dry run once in-process under cProfile
(on the first tree) and prints where the time goes.

The project's packages are byte-compiled first, as `pip install` does (an
environment with PYTHONDONTWRITEBYTECODE=1 and an editable install would
otherwise compile every module on every run); --bytecode source times that.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from _harness import REPO, Tree, add_bytecode_option, add_corpus_option, machine, prepare_bytecode, race, tool, trees

FUNCTION = "paged_decode_attention_dense_fallback"
PATTERN = f"pub fn {FUNCTION}($$$ARGS) -> $RET {{ $$$BODY }}"


def profile(root) -> str:
    import cProfile
    import io
    import pstats

    sys.path.insert(0, str(REPO))
    from codemods.edit.diff import unified_diff
    from codemods.plan.planner import plan_recipe
    from codemods import load_recipe

    profiler = cProfile.Profile()
    profiler.enable()
    plan = plan_recipe(root, load_recipe("paged-compat-removal"))
    for change in plan.changes:
        unified_diff(change.path, change.before, change.after, edits=change.edits)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
    return out.getvalue()


TARGETS = {"real (corpus)": 0.5, "generated": 1.0}


def time_tree(tree: Tree, runs: int) -> dict | str:
    """One row: the dry run against ast-grep on `tree`, or why it could not be timed."""
    codemod, sg = tool("codemod"), tool("ast-grep")
    ours_cmd = [codemod, "apply", "--dry-run", "--recipe", "paged-compat-removal", str(tree.root)]
    peer_cmd = [sg, "run", "--lang", "rust", "--pattern", PATTERN, "--rewrite", "", "src/"]
    ours_diff = subprocess.run(ours_cmd, capture_output=True, text=True)
    peer_diff = subprocess.run(peer_cmd, cwd=tree.root, capture_output=True, text=True)
    if ours_diff.returncode not in (0, 1) or f"-pub fn {FUNCTION}(" not in ours_diff.stdout:
        return f"codemod's dry run did not delete {FUNCTION}:\n{ours_diff.stderr}"
    if f"pub fn {FUNCTION}(" not in peer_diff.stdout:
        return f"ast-grep's dry run did not delete {FUNCTION}:\n{peer_diff.stderr}"
    ours, peer = race([("codemod apply --dry-run", ours_cmd), ("ast-grep run --rewrite ''", peer_cmd)], tree.root, runs)
    ratio = ours.median / peer.median
    target = TARGETS[tree.name]
    return {
        "tree": tree.name,
        "root": str(tree.root),
        "files": tree.files,
        "lines": tree.lines,
        "codemod": {
            "command": ours.command,
            "median_s": ours.median,
            "runs_s": ours.seconds,
            "diff_files": ours_diff.stdout.count("\n+++ "),
            "exit_code": ours_diff.returncode,
        },
        "ast_grep": {"command": peer.command, "median_s": peer.median, "runs_s": peer.seconds},
        "ratio": ratio,
        "target": f"ratio <= {target}",
        "met": ratio <= target,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    add_corpus_option(parser)
    add_bytecode_option(parser)
    parser.add_argument("--json", action="store_true", help="One JSON document instead of the table.")
    parser.add_argument("--profile", action="store_true", help="Also profile one dry run in-process.")
    args = parser.parse_args(argv)
    prepare_bytecode(args.bytecode)

    timed = trees(args.corpus)
    rows = []
    for tree in timed:
        row = time_tree(tree, args.runs)
        if isinstance(row, str):
            print(f"bench_apply: {tree.name}: {row}", file=sys.stderr)
            return 1
        rows.append(row)
    document = {"machine": machine(), "runs": args.runs, "rows": rows}
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        print(f"{machine()}; median of {args.runs} interleaved runs")
        print(f"{'tree':15} {'files':>6} {'lines':>8} {'codemod':>9} {'ast-grep':>9} {'ratio':>7}  {'target':12} met")
        for r in rows:
            print(
                f"{r['tree']:15} {r['files']:6} {r['lines']:8} {r['codemod']['median_s']:8.3f}s "
                f"{r['ast_grep']['median_s']:8.3f}s {r['ratio']:7.3f}  {r['target']:12} {'yes' if r['met'] else 'NO'}"
            )
        print(
            "codemod:",
            rows[0]["codemod"]["command"],
            "  (ROOT per tree; diff files:",
            ", ".join(f"{r['tree']} {r['codemod']['diff_files']}" for r in rows) + ")",
        )
        print("peer (run in ROOT):", rows[0]["ast_grep"]["command"])
    if args.profile:
        print(profile(timed[0].root), file=sys.stderr)
    return 0 if all(r["met"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
