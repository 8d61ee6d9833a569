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
from functools import partial
from typing import Callable, Generic, TypeVar, cast

_Result = TypeVar("_Result")
_MAX_JOBS = 16


def jobs() -> int:
    """How many processes a step may spread its work over: `CODEMOD_JOBS`, else the usable CPUs."""
    setting = os.environ.get("CODEMOD_JOBS", "").strip()
    if setting.isdigit() and int(setting) > 0:
        return int(setting)
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(usable, _MAX_JOBS))


def forked_map(task: Callable[[int], _Result], count: int, processes: int) -> list[_Result] | None:
    """[task(0), ..., task(count - 1)], computed in `processes` forked processes (index i in
    process i % processes); None when processes cannot be forked here, or when one of them
    died without a value (the caller then computes the values itself). An exception `task`
    raises in a forked process is raised here.

    Forked and read here, without multiprocessing's pool: its start (three threads, a queue of
    tasks, 16 processes, each told its task) took 0.065 s where this takes 0.045 s, here, for
    16 processes, besides 5 ms of imports; and a pool whose process dies waits for it forever."""
    if processes < 2 or count < 2 or not hasattr(os, "fork"):
        return None
    children: list[tuple[int, int]] = []  # (pid, the read end of its pipe)
    read = False
    # What this process holds is frozen first: no collection in a forked process walks it (or
    # writes to its pages, which the processes share until written).
    gc.freeze()
    try:
        with warnings.catch_warnings():
            # The plan's other threads only wait on formatter subprocesses; a forked process
            # runs `task` alone and takes none of their locks.
            warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
            for first in range(min(processes, count)):
                child = _fork_piped(partial(_compute_share, task, range(first, count, processes)))
                if child is None:
                    return None
                children.append(child)
        payloads = _read_all([readable for _, readable in children])
        read = True
    except OSError:
        return None
    finally:
        _end(children, stop=not read)
        gc.unfreeze()
    results: list[object] = [None] * count
    for first, payload in enumerate(payloads):
        try:
            outcome, values = pickle.loads(payload)
        except Exception:  # a process that died before it wrote its whole value
            return None
        if outcome == "raised":
            raise values
        results[first::processes] = values
    return cast(list[_Result], results)


def forked_queues(task: Callable[[int], _Result], queues: list[list[int]]) -> list[_Result] | None:
    """`task(i)` for each index i of `queues` (the indices 0 to n - 1, each in one queue), in one
    forked process per queue, as a list indexed by i; None as for `forked_map`.

    Each process takes the indices of its own queue in order; once its queue is empty, it takes
    what is left in the others (the queue after its own first, and so on). So a process the
    machine slows down leaves its last indices to the others: at 16 processes, the same share of
    work took anywhere from 0.29 s to 0.45 s from one run to the next on the device, and the
    slowest process was the run's wall time. A queue is a pipe filled before the fork, read 4
    bytes at a time (whole indices: the only writes were whole ones, so no read gets part of one)."""
    count = sum(len(queue) for queue in queues)
    if len(queues) < 2 or count < 2 or not hasattr(os, "fork"):
        return None
    if any(len(queue) * 4 > _QUEUE_BYTES for queue in queues):  # a pipe filled before any reader
        return forked_map(task, count, len(queues))
    streams: list[int] = []
    try:
        for queue in queues:
            readable, writable = os.pipe()
            streams.append(readable)
            try:
                os.write(writable, b"".join(index.to_bytes(4, "little") for index in queue))
            finally:
                os.close(writable)
        found = forked_map(lambda first: _drain_queues(task, streams, first), len(queues), len(queues))
    except OSError:
        return None
    finally:
        for stream in streams:
            os.close(stream)
    if found is None:
        return None
    results: list[object] = [None] * count
    for pairs in found:
        for index, value in pairs:
            results[index] = value
    return cast(list[_Result], results)


# What a pipe takes before it blocks its writer (Linux's default capacity is 64 KiB).
_QUEUE_BYTES = 60_000


def _drain_queues(task: Callable[[int], object], streams: list[int], first: int) -> list[tuple[int, object]]:
    """In a forked process: (index, task(index)) for each index this process takes from the
    queues, its own (`first`) first."""
    done: list[tuple[int, object]] = []
    for stream in streams[first:] + streams[:first]:
        while token := os.read(stream, 4):
            index = int.from_bytes(token, "little")
            done.append((index, task(index)))
    return done


def _compute_share(task: Callable[[int], object], indices: range, writable: int) -> None:
    """In a forked process: `task` of each index, pickled down `writable` (or the exception it
    raised), then out at once (no cleanup: this process holds its parent's state)."""
    code = 1
    try:
        # A forked process lives for its share of the work only: the cyclic collector would walk
        # the trees and maps it makes again and again (5-8% of its time) to free little.
        gc.disable()
        try:
            payload = pickle.dumps(("values", [task(index) for index in indices]), pickle.HIGHEST_PROTOCOL)
        except Exception as error:
            try:
                payload = pickle.dumps(("raised", error), pickle.HIGHEST_PROTOCOL)
            except Exception:
                payload = pickle.dumps(("raised", RuntimeError(f"{type(error).__name__}: {error}")))
        _write_all(writable, payload)
        code = 0
    finally:
        os._exit(code)


def _fork_piped(child: Callable[[int], None]) -> tuple[int, int] | None:
    """A forked process running `child(the write end of a pipe)` (which must end it with
    `os._exit`): (its pid, the pipe's read end) here; None where it cannot be forked."""
    readable, writable = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(readable)
        os.close(writable)
        return None
    if pid == 0:
        os.close(readable)
        child(writable)
    os.close(writable)
    return pid, readable


def _write_all(writable: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(writable, view) :]


def _read_all(streams: list[int]) -> list[bytes]:
    """Everything written to each of `streams` until it closes, read side by side (a process
    blocks on a full pipe until it is read)."""
    import selectors  # here: `codemod check` never forks (epoll here, kqueue on macOS)

    data = {stream: bytearray() for stream in streams}
    with selectors.DefaultSelector() as selector:
        for stream in streams:
            selector.register(stream, selectors.EVENT_READ)
        while selector.get_map():
            for key, _ in selector.select():
                chunk = os.read(key.fd, 1 << 20)
                if chunk:
                    data[key.fd] += chunk
                else:
                    selector.unregister(key.fd)
    return [bytes(data[stream]) for stream in streams]


def _end(children: list[tuple[int, int]], stop: bool) -> None:
    """Close each child's pipe and wait for it to exit; with `stop` (this process gave up on
    them: a fork failed, or it was interrupted while reading), kill it first."""
    for pid, readable in children:
        os.close(readable)
        try:
            if stop:
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ChildProcessError, ProcessLookupError):
            pass


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

    def child(writable: int) -> None:  # the value, pickled, down the pipe, then out without cleanup
        code = 1
        try:
            _write_all(writable, pickle.dumps(task()))
            code = 0
        except BaseException:
            pass
        finally:
            os._exit(code)

    forked = _fork_piped(child)
    return Forked(*forked) if forked is not None else None
