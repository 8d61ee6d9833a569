"""The cost of `codemod apply --verify`, as a ratio to the check it runs, run alone (issue 39).

Per tree, a plan is made (with allow_dangling, so that the build always runs) and then:
  check alone, cold   the detected check (cargo check --workspace --all-targets, or the
                      translation units of compile_commands.json that include a changed file,
                      -fsyntax-only) on a copy of the tree as it is, in a target directory of
                      its own that starts with the dependencies only
  check alone, warm   the same check on that copy after the plan's changes are written into it
                      (what checking the result by hand costs: an incremental build)
  verify, 1st run     `verify_plan` with a cache that starts with the dependencies only: the
                      baseline on the tree as it is, then the planned tree, in a scratch copy
  verify, 2nd run     `verify_plan` again: the baseline from the cache, the build incremental
Ratios: 1st run / cold, 2nd run / warm.

Trees: the fixture crate (fixtures/mlxcel-mini, offline; its dependencies from the test seed),
a workspace of bench/gen_workspace.py (12 crates, about 160k lines of Rust; one crate has an
error of its own, which the baseline keeps out), and with `--cpp DIR RECIPE` a C++ tree with
DIR/build/compile_commands.json (e.g. a cmake project configured with
-DCMAKE_EXPORT_COMPILE_COMMANDS=ON).

    python bench/bench_verify.py [--lines N] [--cpp DIR RECIPE] [--skip-fixture] [--skip-generated]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from _harness import OUT, REPO, machine

sys.path.insert(0, str(REPO / "tests"))

from codemods import ItemTarget, Recipe, load_recipe, plan_recipe, verify_plan
from codemods.write.checks import Processes, detected_checks
from fixture_crate import copy_fixture, seed_target_dir, write_offline_cargo_config

HERE = OUT / "verify"
SOURCES = (".rs", ".cpp", ".cc", ".h", ".hpp", ".py")


def _lines(root: Path) -> int:
    return sum(
        path.read_bytes().count(b"\n")
        for path in root.rglob("*")
        if path.suffix in SOURCES and path.is_file() and "target" not in path.parts
    )


def _fresh_target(folder: Path, seed: Path | None) -> Path:
    """`folder`, emptied, or a copy of the seed (the dependencies, built once)."""
    shutil.rmtree(folder, ignore_errors=True)
    if seed is not None:
        shutil.copytree(seed, folder, symlinks=True, ignore=shutil.ignore_patterns(".seeded"))
    return folder


def _check_alone(root: Path, plan, work: Path, seed: Path | None) -> tuple[float, float, str]:
    """The detected checks on a copy of the tree (cold), then on it with the plan written (warm)."""
    copy = work / "alone"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns("target"))
    for database in (copy / "compile_commands.json", copy / "build" / "compile_commands.json"):
        if database.is_file():  # its paths are ROOT's: the copy's units are the copy's files
            database.write_text(database.read_text(encoding="utf-8").replace(str(root), str(copy)), encoding="utf-8")
    plan_there = dataclasses.replace(plan, root=copy)
    checks = detected_checks(plan_there, [], work / "alone-cache")
    target = _fresh_target(work / "alone-cache" / "target", seed)
    checks = [dataclasses.replace(c, target_dir=target) if hasattr(c, "target_dir") else c for c in checks]
    processes = Processes(os.environ)
    began = time.monotonic()
    outcomes = [check.run(copy, processes) for check in checks]
    cold = time.monotonic() - began
    for change in plan.changes:
        if change.deleted:
            (copy / change.path).unlink()
        else:
            (copy / change.path).write_bytes(change.after)
    began = time.monotonic()
    outcomes += [check.run(copy, processes) for check in checks]
    warm = time.monotonic() - began
    exits = ", ".join(f"exit {o.exit_code} ({len(o.errors)} error(s))" for o in outcomes)
    return cold, warm, f"{'; '.join(c.label for c in checks)}; alone: {exits}"


def _case(name: str, root: Path, recipe: Recipe, seed: Path | None) -> dict[str, object]:
    work = HERE / f"{name}-work"
    work.mkdir(parents=True, exist_ok=True)
    plan = plan_recipe(root, recipe, allow_dangling=True, allow_unreworded=True, allow_unmatched=True)
    cold, warm, label = _check_alone(root, plan, work, seed)
    cache = work / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    _fresh_target(cache / "target", seed)
    first = verify_plan(plan, cache=cache)
    second = verify_plan(plan, cache=cache)
    return {
        "tree": name,
        "lines": _lines(root),
        "files changed": len(plan.changes),
        "check": label,
        "alone cold": cold,
        "alone warm": warm,
        "verify 1st": first.seconds,
        "verify 2nd": second.seconds,
        "new errors": len(first.new_errors),
        "baseline cached (2nd)": all(c.baseline_cached for c in second.checks),
    }


def _fixture() -> tuple[Path, Recipe, Path]:
    root = HERE / "fixture"
    shutil.rmtree(root, ignore_errors=True)
    copy_fixture(root)
    write_offline_cargo_config(root)
    recipe = Recipe(
        id="drop-chunk-size",
        summary="",
        deletions=(ItemTarget("src/models/llama4.rs", "rust", "fn", "Llama4Wrapper::attention_chunk_size"),),
    )
    return root, recipe, seed_target_dir()


def _generated(lines: int) -> tuple[Path, Recipe, None]:
    root = HERE / "generated"
    subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "gen_workspace.py"),
            "--out",
            str(root),
            "--lines",
            str(lines),
            "--crates",
            "12",
        ],
        check=True,
        capture_output=True,
    )
    return root, load_recipe(str(root / "delete-six.toml")), None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=150_000, help="lines of the generated workspace")
    parser.add_argument("--cpp", nargs=2, metavar=("DIR", "RECIPE"), help="a C++ tree with compile_commands.json")
    parser.add_argument("--skip-fixture", action="store_true")
    parser.add_argument("--skip-generated", action="store_true")
    args = parser.parse_args()
    HERE.mkdir(parents=True, exist_ok=True)
    cases = []
    if not args.skip_fixture:
        cases.append(("fixture", *_fixture()))
    if not args.skip_generated:
        cases.append(("generated", *_generated(args.lines)))
    if args.cpp:
        cases.append(("c++", Path(args.cpp[0]).resolve(), load_recipe(str(Path(args.cpp[1]).resolve())), None))
    print(f"# bench_verify on {machine()}")
    for name, root, recipe, seed in cases:
        row = _case(name, root, recipe, seed)
        print(
            f"\n{row['tree']}: {row['lines']} lines, {row['files changed']} file(s) changed, "
            f"{row['new errors']} new error(s); check: {row['check']}"
        )
        print(f"  check alone: cold {row['alone cold']:.1f} s, warm (after the plan's edit) {row['alone warm']:.1f} s")
        print(
            f"  verify:      1st run {row['verify 1st']:.1f} s, 2nd run {row['verify 2nd']:.1f} s "
            f"(baseline from the cache: {row['baseline cached (2nd)']})"
        )
        print(
            f"  ratio:       1st / cold {row['verify 1st'] / max(row['alone cold'], 1e-3):.2f}, "
            f"2nd / warm {row['verify 2nd'] / max(row['alone warm'], 1e-3):.2f}"
        )


if __name__ == "__main__":
    main()
