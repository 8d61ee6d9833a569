"""Time `codemod check` against ast-grep on the real tree and the generated one.

Rows per tree, each a median of several interleaved runs:
  1. the whole tree: `codemod check ROOT` vs `ast-grep scan` with identifier
     rules (Rust and C++) for the same pattern
     target: ratio <= 0.12 on the real tree (issue 14), <= 0.25 on the generated one (issue 3)
  2. the whole tree: `codemod check ROOT` vs
     `rg -l PATTERN src/ | xargs ast-grep scan ...`
     target: ratio <= 1.2 on the real tree, <= 2.0 on the generated one
  3. ten files of a clean commit: `codemod check FILE...` vs a bare
     `python3 -c pass` (the same interpreter)            target: <= +100 ms
  4. (information) ten files of which one mentions a removed symbol.

Before timing it checks that the check's path:line set equals `rg -n`'s on each tree.

    python bench/bench_check.py [--runs N] [--corpus ARCHIVE] [--bytecode compiled|source] [--json]

The real tree is ../shared/corpora/mlxcel-2026-07.tar.xz beside the project
(or --corpus), unpacked into bench/out/corpus/; without it only the
generated tree is timed.

The project's packages are byte-compiled first, as `pip install` does (an
environment with PYTHONDONTWRITEBYTECODE=1 and an editable install would
otherwise compile every module on every run); --bytecode source times that.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys

from _harness import (
    OUT,
    Tree,
    VENV_BIN,
    add_bytecode_option,
    add_corpus_option,
    machine,
    prepare_bytecode,
    race,
    tool,
    trees,
)

RECIPE = "paged-compat-removal"
IDENTIFIER_KINDS = ("identifier", "type_identifier", "field_identifier")
# (ratio vs ast-grep scan, ratio vs the rg | ast-grep pipeline) per tree.
TARGETS = {"real (corpus)": (0.12, 1.2), "generated": (0.25, 2.0)}


def write_rules(pattern: str) -> str:
    """ast-grep rules: any identifier node of Rust or C++ whose whole text matches the pattern."""
    anchored = f"^({pattern})$"
    documents = []
    for language in ("Rust", "Cpp"):
        kinds = "\n".join(f"    - kind: {kind}\n      regex: {json.dumps(anchored)}" for kind in IDENTIFIER_KINDS)
        documents.append(
            f"id: dead-symbol-{language.lower()}\nlanguage: {language}\nseverity: error\n"
            f"message: a removed symbol is named again\nrule:\n  any:\n{kinds}\n"
        )
    path = OUT / "rules" / "dead-symbols.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\n".join(documents))
    return str(path)


def rg_lines(root, pattern: str) -> set[tuple[str, int]]:
    out = subprocess.run([tool("rg"), "-n", "--null", pattern, "src/"], cwd=root, capture_output=True).stdout
    lines = set()
    for record in out.splitlines():
        path, _, rest = record.partition(b"\0")
        lines.add((path.decode(), int(rest.split(b":", 1)[0])))
    return lines


def check_lines(root) -> tuple[set[tuple[str, int]], int]:
    out = subprocess.run(
        [tool("codemod"), "check", "--recipe", RECIPE, "--json", str(root)], capture_output=True
    ).stdout
    mentions = json.loads(out)["mentions"]
    return {(m["path"], m["line"]) for m in mentions}, len(mentions)


def pick_files(root, pattern: str) -> tuple[list[str], list[str]]:
    """Ten files of a clean commit (Rust, C++, a header), and the same with one mentioning file."""
    listed = subprocess.run([tool("rg"), "--files", "src/"], cwd=root, capture_output=True, text=True).stdout.split()
    mentioning = set(
        subprocess.run([tool("rg"), "-l", pattern, "src/"], cwd=root, capture_output=True, text=True).stdout.split()
    )
    clean = sorted(p for p in listed if p not in mentioning)
    rust = [p for p in clean if p.endswith(".rs")][:7]
    cpp = [p for p in clean if p.endswith(".cpp")][:2]
    header = [p for p in clean if p.endswith(".h")][:1]
    files = rust + cpp + header
    small_mention = min(mentioning, key=lambda p: (root / p).stat().st_size)
    return files, files[:-1] + [small_mention]


def time_tree(tree: Tree, pattern: str, rules: str, runs: int) -> dict | str:
    """The rows of one tree, or why it could not be timed."""
    root = tree.root
    codemod, sg, rg = tool("codemod"), tool("ast-grep"), tool("rg")
    python = str(VENV_BIN / "python3")
    found, mention_count = check_lines(root)
    expected = rg_lines(root, pattern)
    if found != expected:
        return f"codemod check and rg -n disagree: {sorted(found ^ expected)[:5]}"
    clean, with_mention = pick_files(root, pattern)
    pipeline = (
        f"{shlex.quote(rg)} -l {shlex.quote(pattern)} src/ | xargs {shlex.quote(sg)} scan --rule {shlex.quote(rules)}"
    )
    scan_target, pipe_target = TARGETS[tree.name]
    rows = []

    def row(name: str, target: str, ours, peer, limit: float | None, kind: str) -> None:
        value = ours.median / peer.median if kind == "ratio" else ours.median - peer.median
        met = None if limit is None else value <= limit
        rows.append(
            {
                "row": name,
                "target": target,
                "ours": ours.command,
                "ours_s": ours.median,
                "ours_runs": ours.seconds,
                "peer": peer.command,
                "peer_s": peer.median,
                "peer_runs": peer.seconds,
                kind: value,
                "met": met,
            }
        )

    check_tree_cmd = ("codemod check ROOT", [codemod, "check", "--recipe", RECIPE, str(root)])
    full = race([check_tree_cmd, ("ast-grep scan", [sg, "scan", "--rule", rules, "src/"])], root, runs)
    row("whole tree vs ast-grep scan", f"ratio <= {scan_target}", full[0], full[1], scan_target, "ratio")
    piped = race([check_tree_cmd, ("rg -l | xargs ast-grep scan", pipeline)], root, runs)
    row(
        "whole tree vs rg -l | xargs ast-grep scan", f"ratio <= {pipe_target}", piped[0], piped[1], pipe_target, "ratio"
    )
    ten = race(
        [
            ("codemod check 10 files", [codemod, "check", "--recipe", RECIPE, *clean]),
            ("python3 -c pass", [python, "-c", "pass"]),
        ],
        root,
        runs,
    )
    for timed in (*full[:1], *ten[:1]):
        if timed.returncode not in (0, 1):
            sys.exit(f"bench_check: `{timed.command}` exited with {timed.returncode} (a usage error is not a check)")
    row("10 files (clean commit) vs python3 -c pass", "delta <= 0.100 s", ten[0], ten[1], 0.100, "delta")
    ten_hit = race(
        [
            ("codemod check 10 files, 1 with a mention", [codemod, "check", "--recipe", RECIPE, *with_mention]),
            ("python3 -c pass", [python, "-c", "pass"]),
        ],
        root,
        runs,
    )
    row("10 files, one with a mention (information)", "-", ten_hit[0], ten_hit[1], None, "delta")
    return {
        "tree": tree.name,
        "root": str(root),
        "files": tree.files,
        "lines": tree.lines,
        "mentions": mention_count,
        "rg_equal": True,
        "rows": rows,
        "clean_files": clean,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    add_corpus_option(parser)
    add_bytecode_option(parser)
    parser.add_argument("--json", action="store_true", help="One JSON document instead of the table.")
    args = parser.parse_args(argv)
    prepare_bytecode(args.bytecode)

    timed = trees(args.corpus)
    sys.path.insert(0, str(VENV_BIN.parent.parent))
    from codemods import load_recipe

    pattern = load_recipe(RECIPE).dead_symbol_pattern
    rules = write_rules(pattern)
    results = []
    for tree in timed:
        result = time_tree(tree, pattern, rules, args.runs)
        if isinstance(result, str):
            print(f"bench_check: {tree.name}: {result}", file=sys.stderr)
            return 1
        results.append(result)
    document = {"machine": machine(), "runs": args.runs, "trees": results}
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        print(f"{machine()}; median of {args.runs} interleaved runs")
        for result in results:
            print(
                f"\ntree: {result['tree']}, {result['files']} files, {result['lines']} lines of Rust and C++; "
                f"{result['mentions']} mentions (path:line set equal to rg -n's)"
            )
            print(f"{'row':48} {'codemod':>9} {'peer':>9} {'figure':>10}  {'target':18} met")
            for r in result["rows"]:
                figure = f"{r['ratio']:.3f}x" if "ratio" in r else f"{r['delta'] * 1000:+.0f} ms"
                print(
                    f"{r['row']:48} {r['ours_s']:8.3f}s {r['peer_s']:8.3f}s {figure:>10}  {r['target']:18} "
                    f"{'-' if r['met'] is None else 'yes' if r['met'] else 'NO'}"
                )
        print("\npeers (run in ROOT):", "; ".join(sorted({r["peer"] for r in results[0]["rows"]})))
    met = all(r["met"] is not False for result in results for r in result["rows"])
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
