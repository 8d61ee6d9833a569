"""Where a dry run's wall time goes when its Rust resolution is spread over processes (issue 41,
point 3: the serial part): a timeline of one run, in this process, with wall clocks around the
plan's phases and inside each forked process.

    python bench/trace_forks.py [--jobs N] [--runs K] -- apply --dry-run --recipe R.toml ROOT

prints, for each of K runs, the seconds from the start of this script to: the engine imported,
the import stage begun, the resolution ahead begun, the processes forked, each process's work
begun and ended (the groups of files it took, its own share's and what it took of the others',
the files, the parses and the seconds its parses took), the processes joined, and the run
done; then the parent's serial part (before the fork and after the join). Run it under
`taskset` to give it N cores. Timing wrappers only: the plan it makes is the engine's own (its
output is thrown away).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from contextlib import redirect_stdout

T0 = time.perf_counter()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=16, help="CODEMOD_JOBS for the run")
    parser.add_argument("--runs", type=int, default=1, help="runs in a row (the first warms the page cache)")
    parser.add_argument("codemod", nargs=argparse.REMAINDER, help="-- then the codemod arguments")
    options = parser.parse_args()
    argv = [a for a in options.codemod if a != "--"]
    os.environ["CODEMOD_JOBS"] = str(options.jobs)

    from codemods.startup import install

    install()
    import codemods.core.parallel as parallel
    import codemods.languages.rust.resolve.references as references
    import codemods.parse as parse
    import codemods.plan.stages as stages
    from codemods.cli.main import main as codemod

    marks: list[tuple[float, str]] = []

    def mark(label: str) -> None:
        marks.append((time.perf_counter() - T0, label))

    parses = {"count": 0, "seconds": 0.0}
    make_parser = parse._parser

    class Timed:
        def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
            self.inner = inner

        def parse(self, *arguments):  # type: ignore[no-untyped-def]
            began = time.perf_counter()
            tree = self.inner.parse(*arguments)
            parses["seconds"] += time.perf_counter() - began
            parses["count"] += 1
            return tree

    parse._parser = lambda language: Timed(make_parser(language))  # type: ignore[assignment]

    def around(owner, name: str, label: str) -> None:  # type: ignore[no-untyped-def]
        inner = getattr(owner, name)

        def timed(*arguments, **keywords):  # type: ignore[no-untyped-def]
            mark(f"{label} begun")
            try:
                return inner(*arguments, **keywords)
            finally:
                mark(f"{label} ended")

        setattr(owner, name, timed)

    around(stages.RemoveImports, "__call__", "import stage")
    around(references.RustResolver, "resolve_files", "resolution ahead")
    around(references, "forked_queues", "processes")
    share_inner = references.RustResolver._resolve_share
    files = [0]

    def share(self, group, targets, also):  # type: ignore[no-untyped-def]
        files[0] += len(group)
        return share_inner(self, group, targets, also)

    references.RustResolver._resolve_share = share  # type: ignore[method-assign]
    drain_inner = parallel._drain_queues

    def drain(task, streams, first):  # type: ignore[no-untyped-def]
        began, count, seconds = time.perf_counter() - T0, parses["count"], parses["seconds"]
        done = drain_inner(task, streams, first)
        ended = time.perf_counter() - T0
        print(
            f"  share {began:.3f}-{ended:.3f} ({ended - began:.3f} s): {len(done)} groups, {files[0]} files, "
            f"{parses['count'] - count} parses in {parses['seconds'] - seconds:.3f} s",
            file=sys.stderr,
            flush=True,
        )
        return done

    parallel._drain_queues = drain  # type: ignore[assignment]
    mark("engine imported")
    for run in range(options.runs):
        marks.clear()
        if run:
            mark("run begun")
        print(f"run {run + 1}:", file=sys.stderr, flush=True)
        with redirect_stdout(io.StringIO()):
            try:
                codemod(argv, standalone_mode=False)
            except SystemExit:
                pass
        mark("done")
        for at, label in marks:
            print(f"  {at:.3f} {label}", file=sys.stderr)
        times = dict((label, at) for at, label in marks)
        if "processes begun" in times:
            start = times.get("run begun", 0.0)
            print(
                f"  serial: {times['processes begun'] - start:.3f} s before the fork, "
                f"{times['done'] - times['processes ended']:.3f} s after the join; "
                f"processes {times['processes ended'] - times['processes begun']:.3f} s",
                file=sys.stderr,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
