"""Time `codemod apply --dry-run` against ast-grep on the generated tree (issue 2's done-when).

In one run, each a median of several interleaved runs:
  - `codemod apply --dry-run ROOT`: the whole paged-compat-removal recipe
    (every deletion, the oracle rewrite, rewordings, closure and mention checks),
    rendered as a unified diff;
  - `ast-grep run --lang rust --pattern 'pub fn paged_decode_attention_dense_fallback(...) ...' --rewrite ''`
    over the same tree: ONE of the same functions deleted, shown as a diff (no -U).
Target: ratio codemod / ast-grep <= 1.0.

    python bench/bench_apply.py [--runs N] [--json] [--profile]

--profile also runs the dry run once in-process under cProfile and prints where the time goes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from _harness import REPO, ensure_tree, machine, race, tool

FUNCTION = "paged_decode_attention_dense_fallback"
PATTERN = f"pub fn {FUNCTION}($$$ARGS) -> $RET {{ $$$BODY }}"


def profile(root) -> str:
    import cProfile
    import io
    import pstats

    sys.path.insert(0, str(REPO))
    from codemods._diff import unified_diff
    from codemods._plan import plan_recipe
    from codemods.recipes import load_recipe

    profiler = cProfile.Profile()
    profiler.enable()
    plan = plan_recipe(root, load_recipe("paged-compat-removal"))
    for change in plan.changes:
        unified_diff(change.path, change.before, change.after, edits=change.edits)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="One JSON document instead of the table.")
    parser.add_argument("--profile", action="store_true", help="Also profile one dry run in-process.")
    args = parser.parse_args(argv)

    root, manifest = ensure_tree()
    codemod, sg = tool("codemod"), tool("ast-grep")
    ours_cmd = [codemod, "apply", "--dry-run", str(root)]
    peer_cmd = [sg, "run", "--lang", "rust", "--pattern", PATTERN, "--rewrite", "", "src/"]
    ours_diff = subprocess.run(ours_cmd, capture_output=True, text=True)
    peer_diff = subprocess.run(peer_cmd, cwd=root, capture_output=True, text=True)
    if ours_diff.returncode not in (0, 1) or f"-pub fn {FUNCTION}(" not in ours_diff.stdout:
        print(f"bench_apply: codemod's dry run did not delete {FUNCTION}:\n{ours_diff.stderr}", file=sys.stderr)
        return 1
    if f"pub fn {FUNCTION}(" not in peer_diff.stdout:
        print(f"bench_apply: ast-grep's dry run did not delete {FUNCTION}:\n{peer_diff.stderr}", file=sys.stderr)
        return 1
    ours, peer = race([("codemod apply --dry-run", ours_cmd), ("ast-grep run --rewrite ''", peer_cmd)],
                      root, args.runs)
    ratio = ours.median / peer.median
    lines = manifest["lines"]["rust"] + manifest["lines"]["cpp"]
    document = {
        "tree": str(root), "files": manifest["files"], "lines": lines, "machine": machine(), "runs": args.runs,
        "codemod": {"command": ours.command, "median_s": ours.median, "runs_s": ours.seconds,
                    "diff_files": ours_diff.stdout.count("\n+++ "), "exit_code": ours_diff.returncode},
        "ast_grep": {"command": peer.command, "median_s": peer.median, "runs_s": peer.seconds},
        "ratio": ratio, "target": "ratio <= 1.0", "met": ratio <= 1.0,
    }
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        print(f"tree: {manifest['files']} files, {lines} lines of Rust and C++; {machine()}; "
              f"median of {args.runs} runs")
        print(f"codemod apply --dry-run (whole recipe, {document['codemod']['diff_files']} files in the diff): "
              f"{ours.median:.3f} s")
        print(f"ast-grep run --rewrite '' (one function):  {peer.median:.3f} s")
        print(f"ratio: {ratio:.3f} (target <= 1.0: {'met' if ratio <= 1.0 else 'NOT met'})")
    if args.profile:
        print(profile(root), file=sys.stderr)
    return 0 if ratio <= 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
