"""Example: structural patterns in a refactor script of your own.

Lists every call of the pooled decode route in the FFI tests with the
sequences and logical starts it passes, then makes each test say which route
failed: `paged_decode_attention_pooled(ARGS).unwrap()` becomes
`paged_decode_attention_pooled(ARGS).expect("the pooled route failed")`,
whatever the arguments and however the call is laid out (run `cargo fmt`
afterwards: the replacement is written on one line). Run it on a tree that
has them, such as the bundled fixture:

    python examples/name_the_pooled_route_failures.py fixtures/mlxcel-mini

It prints the diff and writes nothing unless --write is given; every
finding of the plan, notes included, goes to stderr (a tree whose tests call
another route gets a note saying nothing matched, not silence).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from codemods import Pattern, PatternRewrite, Recipe, plan_recipe, render_diff, write_plan

FFI_TESTS = "src/lib/mlxcel-core/src/ffi_tests.rs"

# One call of the pooled route: `$X` is one node, `$$$` any run of nodes.
POOLED_CALL = Pattern("crate::layers::paged_decode_attention_pooled($Q, $POOL, $SEQUENCES, $STARTS, $$$)", "rust")

RECIPE = Recipe(
    id="example-name-the-pooled-route-failures",
    summary="Pooled decode tests say which route failed",
    rewrites=(
        PatternRewrite(
            FFI_TESTS,
            pattern="crate::layers::paged_decode_attention_pooled($$$ARGS).unwrap()",
            replace='crate::layers::paged_decode_attention_pooled($$$ARGS).expect("the pooled route failed")',
            optional=True,  # a tree whose tests call no such route: a note, not a refusal
        ),
    ),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--write", action="store_true", help="write the change when nothing blocks it")
    args = parser.parse_args(argv)

    source = (args.root / FFI_TESTS).read_bytes()
    calls = POOLED_CALL.find_all(source)
    for match in calls:
        line = source.count(b"\n", 0, match.start) + 1
        print(
            f"{FFI_TESTS}:{line}: sequences {match.text('SEQUENCES')}, logical starts {match.text('STARTS')}",
            file=sys.stderr,
        )
    if not calls:
        print(f"{FFI_TESTS}: no call of paged_decode_attention_pooled (note)", file=sys.stderr)

    plan = plan_recipe(args.root, RECIPE)
    sys.stdout.write(render_diff(plan))
    for finding in plan.findings:
        print(finding.render() + ("" if finding.blocking else " (note)"), file=sys.stderr)
    if plan.blocking:
        return 1
    if not plan.changes:
        print("nothing to change", file=sys.stderr)
    if args.write:
        write_plan(plan)
    return 0


if __name__ == "__main__":
    sys.exit(main())
