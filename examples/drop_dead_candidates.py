"""Example: delete the candidates a dead-code report named, keeping those still used.

A refactor script on the public `codemods` surface: plan the recipe, look at
its findings by code, choose the subset of its changes that leaves out every
deletion code still refers to, check that subset again, and write it.

    python examples/drop_dead_candidates.py ROOT RECIPE.toml [--write]

`examples/drop_dead_candidates/alacritty_candidates.toml` is such a recipe for
the tree of alacritty that the replay corpus holds (case 03-alacritty-limit):
of its three candidates, the easing curve is still called, so it is kept.
Writes nothing without --write, nor when the subset still has a blocking
finding (exit 1).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from codemods import Code, changes_of, load_recipe, plan_recipe, plan_subset, render_diff, write_plan

# The finding of a use the plan would leave pointing at a deleted item (docs/findings.md lists the codes).
STILL_USED = Code.DANGLING_REFERENCE


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("recipe", help="a recipe id or file whose deletions are the candidates")
    parser.add_argument("--write", action="store_true", help="write the subset when nothing blocks it")
    args = parser.parse_args(argv)

    plan = plan_recipe(args.root, load_recipe(args.recipe))
    by_code = defaultdict(list)
    for finding in plan.findings:
        by_code[finding.code].append(finding)
    for code, findings in sorted(by_code.items()):
        print(f"{code}: {len(findings)}", file=sys.stderr)
        for finding in findings:
            print(f"  {finding.render()}", file=sys.stderr)

    used = {finding.symbol for finding in by_code[STILL_USED]}
    kept = [change.id for change in changes_of(plan) if used & set(change.removes)]
    for change_id in kept:
        print(f"kept (still used): {change_id}", file=sys.stderr)
    subset = plan_subset(plan, kept)
    if subset.plan.blocking:
        for finding in subset.plan.blocking:
            print(f"blocking: {finding.render()}", file=sys.stderr)
        print("the subset is refused; nothing written", file=sys.stderr)
        return 1
    sys.stdout.write(render_diff(subset.plan))
    if args.write:
        write_plan(subset.plan)
        print(f"written: {len(subset.accepted)} of {len(subset.accepted) + len(kept)} change(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
