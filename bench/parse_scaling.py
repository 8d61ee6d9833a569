"""Whether tree-sitter's parse keeps its rate when many processes parse at once (issue 41, point 3).

The dry run's CPU on databend grows from about 6 s at 2 cores to about 10 s at 16 on the device,
while ast-grep's stays flat; part of it is parses repeated across processes, the rest is not broken
down. This parses every `.rs` file of a tree dealt round-robin over N forked processes (the texts
read before the fork, one parser per process, each tree dropped once made) and prints, for each N,
the wall time and each process's parse rate, so that a slowdown of the parse itself with N (memory
bandwidth, the allocator, page faults) shows apart from the engine's own work:

    python bench/parse_scaling.py ROOT [--procs 1,2,16] [--env-malloc]

Run it under `taskset` to give it the cores. `--env-malloc` repeats each N in a child whose glibc
malloc keeps its memory (MALLOC_TRIM_THRESHOLD_, MALLOC_MMAP_THRESHOLD_, MALLOC_TOP_PAD_).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

MALLOC_KEEPS = {
    "MALLOC_TRIM_THRESHOLD_": str(1 << 30),
    "MALLOC_MMAP_THRESHOLD_": str(1 << 30),
    "MALLOC_TOP_PAD_": str(1 << 28),
}


def parse_in(texts: list[bytes], processes: int) -> tuple[float, list[tuple[float, int]]]:
    """(wall seconds, [(seconds, bytes)] per process) for `texts` dealt over `processes` forks."""
    import tree_sitter

    from codemods.parse import ts_language

    language = ts_language("rust")  # the grammar the engine's own parses use
    start = time.perf_counter()
    readers = []
    for index in range(processes):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            parser = tree_sitter.Parser(language)
            began, size = time.perf_counter(), 0
            for text in texts[index::processes]:
                tree = parser.parse(text)
                size += len(text)
                del tree
            os.write(write, f"{time.perf_counter() - began} {size}".encode())
            os._exit(0)
        os.close(write)
        readers.append((pid, read))
    shares = []
    for pid, read in readers:
        seconds, size = os.read(read, 100).split()
        os.close(read)
        os.waitpid(pid, 0)
        shares.append((float(seconds), int(size)))
    return time.perf_counter() - start, shares


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--procs", default="1,2,16", help="comma-separated process counts")
    parser.add_argument("--env-malloc", action="store_true", help="each N again with glibc malloc keeping memory")
    parser.add_argument("--label", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    counts = [int(n) for n in args.procs.split(",") if n]
    if args.env_malloc:
        for label, extra in (("plain", {}), ("malloc keeps", MALLOC_KEEPS)):
            command = [sys.executable, __file__, str(args.root), "--procs", args.procs, "--label", label]
            subprocess.run(command, env={**os.environ, **extra}, check=True)
        return 0
    texts = [path.read_bytes() for path in sorted(args.root.rglob("*.rs"))]
    total = sum(map(len, texts))
    for count in counts:
        wall, shares = parse_in(texts, count)
        rates = sorted(size / seconds / 1e6 for seconds, size in shares if seconds > 0)
        cpu = sum(seconds for seconds, _ in shares)
        print(
            f"{args.label + ': ' if args.label else ''}{count:>2} process(es): wall {wall:.3f} s, parse CPU {cpu:.2f} s "
            f"for {total / 1e6:.1f} MB; per process {rates[0]:.1f}-{rates[-1]:.1f} MB/s",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
