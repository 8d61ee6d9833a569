"""The `codemod` console script and `python -m codemods`: `main`, then a quick exit.

A dry run on a real tree ends holding every tree it parsed and every memo it kept; the
interpreter's teardown then frees them one by one, which took about 0.1 s of a one-second
run on the tree it was measured on, after the last line had been printed. `run` ends the
process as soon as `main` returns instead: it flushes stdout and stderr, runs the atexit
handlers (the dataclass table is saved there, temporary folders are removed there) and exits
with `os._exit`. It does so only when no other thread is left, so nothing is cut off mid-way;
otherwise it exits the ordinary way. A library caller or test calls `main` itself and never
gets here.

Before anything of the engine is imported, `run` routes the dataclasses' generated methods
through the compiled table of `codemods.startup` (0.1 s of every start). Only the command does
this: importing the library changes nothing of its host program's standard library.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from codemods.startup import install


def _exit_code(code: str | int | None) -> int:
    """What `sys.exit(code)` would make the process's status (printing a message as it does)."""
    if code is None:
        return 0
    if isinstance(code, bool) or not isinstance(code, int):
        print(code, file=sys.stderr)
        return 1
    return code & 0xFF


def run() -> None:
    """The `codemod` command: `codemods.cli.main.main`, then the quick exit described above."""
    install()  # before the engine's modules define their dataclasses
    # here: after install(), so that the engine's dataclasses come from the table
    from codemods.cli.main import main

    try:
        main()
        code: str | int | None = 0
    except SystemExit as done:
        code = done.code
    if threading.active_count() > 1:
        sys.exit(code)
    status = _exit_code(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`codemod ... | head`): nothing more reaches it
            pass
    atexit._run_exitfuncs()
    os._exit(status)
