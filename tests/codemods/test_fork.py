"""The forked worker of a plan (codemods/plan/fork.py): same answers as in-process, whatever fails."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import codemods.plan.planner as plan_module
from codemods.plan.fork import Worker
from codemods.plan.planner import plan_recipe
from codemods import load_recipe
from codemods.plan.recipe import Workspace
from fixture_crate import copy_fixture

RECIPE = load_recipe("paged-compat-removal")


def _unpicklable() -> object:
    return lambda: None


def _fails() -> object:
    raise RuntimeError("job failed")


def test_jobs_and_requests_are_answered_by_the_child() -> None:
    with Worker([("pid", os.getpid), ("sum", lambda: sum(range(10)))], lambda n: n * 2) as worker:
        worker.ask("double", 21)
        assert worker.result("double", lambda: "local") == 42
        assert worker.result("sum", lambda: "local") == 45
        assert worker.result("pid", lambda: "local") != os.getpid()


@pytest.mark.parametrize("job", [_fails, _unpicklable], ids=["raises", "unpicklable"])
def test_a_job_the_child_cannot_answer_is_computed_here(job) -> None:
    with Worker([("job", job), ("after", lambda: "child")], lambda request: request) as worker:
        assert worker.result("job", lambda: "local") == "local"
        assert worker.result("after", lambda: "local") == "child"


def test_without_fork_everything_is_computed_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "fork")
    with Worker([("job", lambda: "child")], lambda request: "child") as worker:
        assert not worker.owns("job")
        worker.ask("request", None)
        assert worker.result("job", lambda: "local") == "local"
        assert worker.result("request", lambda: "local") == "local"


def test_a_closed_worker_answers_nothing() -> None:
    worker = Worker([("job", lambda: "child")], lambda request: "child")
    worker.close()
    worker.ask("request", None)
    assert worker.result("job", lambda: "local") == "local"
    assert worker.result("request", lambda: "local") == "local"


def test_a_plan_is_the_same_with_and_without_the_child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = copy_fixture(tmp_path / "mlxcel-mini")
    monkeypatch.setattr(plan_module, "FORK_BYTES", 10**12)
    alone = plan_recipe(tree, RECIPE)
    monkeypatch.setattr(plan_module, "FORK_BYTES", 0)
    assert plan_module._forked_paths(Workspace(root=tree), RECIPE), "the fixture's C++ files go to the child"
    forked = plan_recipe(tree, RECIPE)
    assert forked == alone
    assert forked.changes and any(c.path.endswith(".cpp") for c in forked.changes)
