"""Issue 23, point 14: a very large source file that mentions a removed symbol.

Its uses are found by the lexical scan instead of a parse (a syntax tree takes tens
of times the file's size), so the plan's memory stays within a few times the file's
size; and a long `apply` shows what it is doing on stderr when that is a terminal
(only then). The file here is 32 MB, which keeps the test to a few seconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from fixture_crate import copy_fixture

SIZE = 32 * 1024 * 1024
LINE = "fn filler_{0}(x: i32) -> i32 {{ let y = x + {0}; y * 2 }} // filler comment number {0}\n"

# Plans the tree in argv[1] and prints the plan's blocking findings and the process's peak RSS (bytes).
PLAN = """
import json, resource, sys
from pathlib import Path
from codemods import load_recipe, plan_recipe
plan = plan_recipe(Path(sys.argv[1]), load_recipe("paged-compat-removal"))
print(json.dumps({"blocking": [f.render() for f in plan.blocking],
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def _write_large_file(path: Path) -> int:
    """A Rust file of about SIZE bytes whose last function names a removed type; its line count."""
    lines = 0
    with path.open("w") as out:
        written = 0
        while written < SIZE:
            text = "".join(LINE.format(lines + i) for i in range(1000))
            out.write(text)
            written += len(text)
            lines += 1000
        out.write("fn uses() -> Option<PagedDecodeMetadata> { None }\n")
    return lines + 1


def _plan(root: Path) -> tuple[dict, float]:
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-c", PLAN, str(root)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), time.monotonic() - started


def test_a_large_file_naming_a_removed_symbol_is_planned_in_bounded_memory(tmp_path: Path) -> None:
    tree = copy_fixture(tmp_path / "tree")
    baseline, _ = _plan(tree)
    line = _write_large_file(tree / "src/large.rs")
    size = (tree / "src/large.rs").stat().st_size
    planned, elapsed = _plan(tree)
    assert planned["blocking"] == [
        f"src/large.rs:{line}:21: PagedDecodeMetadata: code still names an item the recipe deletes"
    ]
    assert planned["peak"] - baseline["peak"] < 4 * size, (planned["peak"], baseline["peak"], size)
    assert elapsed < 30, elapsed


def test_progress_goes_to_stderr_on_a_terminal_only(tmp_path: Path) -> None:
    import pty

    tree = copy_fixture(tmp_path / "tree")
    codemod = Path(sys.executable).parent / "codemod"
    piped = subprocess.run([str(codemod), "apply", "--dry-run", str(tree)], capture_output=True, text=True)
    assert "\r" not in piped.stderr and "looking for" not in piped.stderr
    main, secondary = pty.openpty()
    process = subprocess.Popen(
        [str(codemod), "apply", "--dry-run", str(tree)], stdout=subprocess.DEVNULL, stderr=secondary
    )
    os.close(secondary)
    shown = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        shown += chunk
    assert process.wait() == 0
    os.close(main)
    assert b"\r\x1b[Kcodemod: deleting items..." in shown
    assert b"\r\x1b[Kcodemod: looking for uses of what the plan deletes..." in shown
    # The progress line is cleared before the report; the summary is the last line.
    assert shown.rstrip().splitlines()[-1].startswith(b"codemod: paged-compat-removal: would change 7 file(s)")
