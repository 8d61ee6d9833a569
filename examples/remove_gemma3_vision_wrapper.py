"""Example: a refactor script of your own, built on the codemods library.

Deletes the Gemma 3 vision wrapper (its struct, its inherent and trait
impls) together with its test, and prints the diff. Run it on a tree that
has them, such as the bundled fixture:

    python examples/remove_gemma3_vision_wrapper.py fixtures/mlxcel-mini

It writes nothing unless --write is given, and then only if the plan has no
blocking findings (for example, code elsewhere that still uses the wrapper).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from codemods import ItemTarget, Recipe, plan_recipe, render_diff, write_plan

GEMMA3 = "src/models/gemma3.rs"

RECIPE = Recipe(
    id="example-remove-gemma3-vision-wrapper",
    summary="Remove the Gemma 3 vision wrapper and its test",
    deletions=(
        ItemTarget(GEMMA3, "rust", "struct", "Gemma3VisionWrapper"),
        ItemTarget(GEMMA3, "rust", "test", "tests::vision_wrapper_delegates_the_paged_flag"),
    ),
    dead_symbol_pattern=r"Gemma3VisionWrapper",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--write", action="store_true", help="write the change when nothing blocks it")
    args = parser.parse_args(argv)

    plan = plan_recipe(args.root, RECIPE)
    sys.stdout.write(render_diff(plan))
    for finding in plan.findings:
        print(finding.render(), file=sys.stderr)
    if plan.blocking:
        print(f"{len(plan.blocking)} blocking finding(s); nothing written", file=sys.stderr)
        return 1
    if args.write:
        write_plan(plan)
    return 0


if __name__ == "__main__":
    sys.exit(main())
