"""Per-file work done in a forked second process, on the machine's other CPU.

tree-sitter's Python binding holds the GIL while it parses, so threads cannot
parse two files at once; a forked process can. The plan hands the files of one
language whose work needs no other file (the C++ sources it deletes from) to a
child: the child parses them, answers the jobs it was started with while the
parent works on the other files, then answers the requests the parent sends it
about the same files (their trees stay in the child). Every answer is computed
by the same functions the parent would call, and pickled; when the child
cannot answer (no `os.fork`, a thread running, a job that raised, the child
gone), the parent computes the answer itself, so the outcome never depends on
the route.
"""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable, Iterable
from typing import Any

_FAILED = ("failed", None)


class Worker:
    """A forked child that runs `jobs` (key, function) at once and then, on request, `handler`."""

    def __init__(self, jobs: Iterable[tuple[Any, Callable[[], Any]]], handler: Callable[[Any], Any]):
        self._answers: dict[Any, tuple[str, Any]] = {}
        self._pid = 0
        self._requests = self._replies = None
        self._pending: list[Any] = []
        if not hasattr(os, "fork") or threading.active_count() > 1:
            return
        jobs = list(jobs)
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(request_write)
            os.close(reply_read)
            _serve(jobs, handler, os.fdopen(request_read, "rb"), os.fdopen(reply_write, "wb"))
        os.close(request_read)
        os.close(reply_write)
        self._pid = pid
        self._requests = os.fdopen(request_write, "wb")
        self._replies = os.fdopen(reply_read, "rb")
        self._pending = [key for key, _ in jobs]

    def owns(self, key: Any) -> bool:
        """Whether the child was given `key` to answer and has not yet been asked for it."""
        return key in self._pending or key in self._answers

    def result(self, key: Any, compute: Callable[[], Any]) -> Any:
        """The child's answer for `key` (a job's key, or a request sent with `ask`), else `compute()`."""
        while key not in self._answers and self._replies is not None and self._pending:
            try:
                answered, answer = pickle.load(self._replies)
            except (EOFError, OSError, pickle.UnpicklingError):
                self.close()
                break
            self._pending.remove(answered)
            self._answers[answered] = answer
        status, value = self._answers.pop(key, _FAILED)
        return value if status == "ok" else compute()

    def ask(self, key: Any, request: Any) -> None:
        """Send the child a request, answered later through `result(key, ...)`."""
        if self._requests is None:
            return
        try:
            pickle.dump((key, request), self._requests)
            self._requests.flush()
        except (OSError, pickle.PicklingError):
            self.close()
            return
        self._pending.append(key)

    def close(self) -> None:
        """Let the child go (it exits when its requests end) and reap it."""
        for stream in (self._requests, self._replies):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self._requests = self._replies = None
        if self._pid:
            os.waitpid(self._pid, 0)
            self._pid = 0

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _serve(jobs, handler, requests, replies) -> None:
    """The child: answer the jobs, then each request until the parent closes the pipe; never return."""
    try:
        for key, job in jobs:
            _answer(replies, key, job)
        while True:
            try:
                key, request = pickle.load(requests)
            except EOFError:
                break
            _answer(replies, key, lambda: handler(request))
    except BaseException:  # noqa: BLE001 - the child must reach os._exit whatever happens
        pass
    finally:
        os._exit(0)


def _answer(replies, key, job) -> None:
    try:
        answer = ("ok", job())
    except Exception:  # noqa: BLE001 - the parent computes it itself
        answer = _FAILED
    try:
        payload = pickle.dumps((key, answer))
    except Exception:  # noqa: BLE001
        payload = pickle.dumps((key, _FAILED))
    replies.write(payload)
    replies.flush()
