"""Work spread over forked processes, for the steps of a plan that parse many files.

py-tree-sitter holds the GIL while it parses, so threads parse one file at a
time; processes parse side by side. The processes are forked, so each starts
with what the plan has computed so far (the files read, the module trees
resolved) without copying it; each returns plain values (picklable results),
never trees. Where forking is not possible the caller does the work itself,
with the same result.

`CODEMOD_JOBS` sets how many processes a plan may use (1: none); by default
the CPUs this process may run on, at most 16.

`forked_call` runs one call in a forked process while this one goes on (a plan's
deletions in C++ files while it deletes in Rust files), its value asked for later.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import threading
import warnings
from typing import Callable, Generic, TypeVar, cast

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
    # A forked process lives for its share of the work only: the cyclic collector would walk the
    # trees and maps it makes again and again (5-8% of its time) to free little before it exits.
    gc.disable()
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
            # What this process holds is frozen first: no collection in a forked process walks it
            # (or writes to its pages, which the processes share until written).
            gc.freeze()
            with multiprocessing.get_context("fork").Pool(min(processes, count)) as pool:
                return cast(list[_Result], pool.map(_run, range(count), chunksize=1))
    except OSError:
        return None
    finally:
        _task = None
        gc.unfreeze()


class Forked(Generic[_Result]):
    """A call running in a forked process (`forked_call`): `result()` waits for its value."""

    def __init__(self, pid: int, stream: int) -> None:
        self._pid, self._stream = pid, stream
        self._finished = False
        self._value: _Result | None = None

    def result(self) -> _Result | None:
        """The call's value; None when the process failed (the caller then does the work itself)."""
        if self._finished:
            return self._value

        data = bytearray()
        try:
            while chunk := os.read(self._stream, 1 << 16):
                data += chunk
        finally:
            os.close(self._stream)
            _, status = os.waitpid(self._pid, 0)
            self._finished = True
        if os.waitstatus_to_exitcode(status) == 0:
            try:
                self._value = cast(_Result, pickle.loads(bytes(data)))
            except Exception:
                self._value = None
        return self._value

    def close(self) -> None:
        """Stop the process if its value was never asked for (the caller gave up on it)."""
        if self._finished:
            return

        self._finished = True
        try:
            os.kill(self._pid, signal.SIGKILL)
        except OSError:
            pass
        os.close(self._stream)
        os.waitpid(self._pid, 0)


def forked_call(task: Callable[[], _Result]) -> Forked[_Result] | None:
    """`task()` started in a forked process, its value to be asked for with `.result()` while
    this process goes on; None where that is not possible or safe (no fork, one CPU or
    `CODEMOD_JOBS=1`, or other threads running here: a fork copies a lock another thread holds)."""
    if not hasattr(os, "fork") or jobs() < 2 or threading.active_count() > 1:
        return None

    readable, writable = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(readable)
        os.close(writable)
        return None
    if pid == 0:  # the forked process: the value, pickled, down the pipe, then out without cleanup
        code = 1
        try:
            os.close(readable)
            view = memoryview(pickle.dumps(task()))
            while view:
                view = view[os.write(writable, view) :]
            code = 0
        except BaseException:
            pass
        finally:
            os._exit(code)
    os.close(writable)
    return Forked(pid, readable)
