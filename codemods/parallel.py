"""Work spread over forked processes, for the steps of a plan that parse many files.

py-tree-sitter holds the GIL while it parses, so threads parse one file at a
time; processes parse side by side. The processes are forked, so each starts
with what the plan has computed so far (the files read, the module trees
resolved) without copying it; each returns plain values (picklable results),
never trees. Where forking is not possible the caller does the work itself,
with the same result.

`CODEMOD_JOBS` sets how many processes a plan may use (1: none); by default
the CPUs this process may run on, at most 16.
"""

from __future__ import annotations

import os
import warnings
from typing import Callable, TypeVar

_Result = TypeVar("_Result")
_MAX_JOBS = 16

# The task of the forked processes: set before they are forked, so that each inherits it
# (a closure cannot be pickled, an index can).
_task: Callable[[int], object] | None = None


def jobs() -> int:
    """How many processes a step may spread its work over: `CODEMOD_JOBS`, else the usable CPUs."""
    setting = os.environ.get("CODEMOD_JOBS", "").strip()
    if setting.isdigit() and int(setting) > 0:
        return int(setting)
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(usable, _MAX_JOBS))


def _run(index: int) -> object:
    assert _task is not None
    return _task(index)


def forked_map(task: Callable[[int], _Result], count: int, processes: int) -> list[_Result] | None:
    """[task(0), ..., task(count - 1)], each computed in one of `processes` forked processes;
    None when processes cannot be forked here (the caller then computes the values itself)."""
    global _task
    import multiprocessing  # here: it imports socket, which `codemod check` and the recipes never need

    if processes < 2 or count < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return None
    _task = task
    try:
        with warnings.catch_warnings():
            # The plan's other threads only wait on formatter subprocesses; a forked process
            # runs `task` alone and takes none of their locks.
            warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
            with multiprocessing.get_context("fork").Pool(min(processes, count)) as pool:
                return pool.map(_run, range(count), chunksize=1)
    except OSError:
        return None
    finally:
        _task = None
