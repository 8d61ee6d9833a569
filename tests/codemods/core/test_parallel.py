"""The reference check spread over forked processes finds what it finds in one process."""

from __future__ import annotations

from pathlib import Path

import codemods.languages.rust.resolve.references as resolve
from codemods import ItemTarget, Recipe
from codemods.core.parallel import forked_map, forked_queues, jobs
from codemods.plan.planner import plan_recipe

from resolve_helpers import write_tree

CARGO = '[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n{extra}\n'


def _tree(root: Path, files: int) -> None:
    """A crate whose `Ledger::settle` is deleted and `files` modules of another crate that call
    it in several ways (definite, possible, on another type), enough to be resolved in processes."""
    tree = {
        "Cargo.toml": '[workspace]\nmembers = ["books", "desk"]\n',
        "books/Cargo.toml": CARGO.format(name="books", extra=""),
        "books/src/lib.rs": """
            pub struct Ledger;
            impl Ledger {
                pub fn settle(&self) -> u32 { 1 }
                pub fn open() -> Ledger { Ledger }
            }
        """,
        "desk/Cargo.toml": CARGO.format(name="desk", extra='[dependencies]\nbooks = { path = "../books" }'),
        "desk/src/lib.rs": "".join(f"pub mod clerk_{i};\n" for i in range(files)),
    }
    for i in range(files):
        tree[f"desk/src/clerk_{i}.rs"] = f"""
            use books::Ledger;
            pub struct Till;
            impl Till {{
                pub fn settle(&self) -> u32 {{ {i} }}
            }}
            pub fn close<T: Settle>(ledger: &Ledger, other: &T, till: &Till) -> u32 {{
                Ledger::settle(ledger) + other.settle() + till.settle()
            }}
        """
    write_tree(root, tree)


def _findings(root: Path) -> list[tuple]:
    recipe = Recipe(
        id="t", summary="", deletions=(ItemTarget("books/src/lib.rs", "rust", "fn", "crate::Ledger::settle"),)
    )
    plan = plan_recipe(root, recipe)
    return [(f.path, f.line, f.col, f.code, f.certainty, f.message) for f in plan.findings]


def test_forked_processes_find_the_same_references(tmp_path, monkeypatch):
    _tree(tmp_path, resolve.PARALLEL_FILES + 6)
    monkeypatch.setenv("CODEMOD_JOBS", "1")
    alone = _findings(tmp_path)
    forks = []

    def spy(task, queues):
        forks.append(len(queues))
        return forked_queues(task, queues)

    monkeypatch.setattr(resolve, "forked_queues", spy)
    monkeypatch.setenv("CODEMOD_JOBS", "2")
    spread = _findings(tmp_path)
    assert forks == [2]
    assert spread == alone
    definite = [f for f in alone if f[4] == "definite"]
    possible = [f for f in alone if f[4] == "possible"]
    assert len(definite) == len(possible) == resolve.PARALLEL_FILES + 6


def test_a_share_lets_go_of_the_trees_of_the_files_it_resolved(tmp_path, monkeypatch):
    """Each process keeps no tree of a file whose uses it has resolved (they are let go one by one,
    so that the next parse reuses their memory)."""
    import codemods.parse as parsing

    _tree(tmp_path, resolve.PARALLEL_FILES + 2)
    monkeypatch.setenv("CODEMOD_JOBS", "2")
    seen = []

    def in_process(task, queues):  # the shares run here, where their state can be seen
        values = [task(index) for index in range(sum(len(queue) for queue in queues))]
        seen.append({source for (_, source) in parsing._TREES})
        return values

    monkeypatch.setattr(resolve, "forked_queues", in_process)
    findings = _findings(tmp_path)
    assert len(seen) == 1
    assert len([f for f in findings if f[4] == "definite"]) == resolve.PARALLEL_FILES + 2
    for i in range(resolve.PARALLEL_FILES + 2):
        assert (tmp_path / f"desk/src/clerk_{i}.rs").read_bytes() not in seen[0]


def test_forked_map_keeps_the_order_and_jobs_reads_the_setting(monkeypatch):
    squares = forked_map(lambda index: index * index, 5, 3)
    assert squares == [0, 1, 4, 9, 16]
    assert forked_map(lambda index: index, 5, 1) is None
    monkeypatch.setenv("CODEMOD_JOBS", "3")
    assert jobs() == 3
    monkeypatch.setenv("CODEMOD_JOBS", "none")
    assert 1 <= jobs() <= 16


def test_a_file_that_spells_a_deleted_method_only_as_a_bare_word_is_not_parsed(tmp_path, monkeypatch):
    """A method is named only after `.` or `::`; `let settle = ..` or `fn settle` elsewhere is no use."""
    _tree(tmp_path, 1)
    (tmp_path / "desk/src/lib.rs").write_text("pub mod clerk_0;\npub mod notes;\n")
    (tmp_path / "desk/src/notes.rs").write_text(
        "pub fn settle(settle: u32) -> u32 {\n    let settled = settle;\n    settled\n}\n"
    )
    parsed = []
    real_parse = resolve.parse
    monkeypatch.setattr(
        resolve, "parse", lambda source, language: parsed.append(source) or real_parse(source, language)
    )
    findings = _findings(tmp_path)
    assert not [f for f in findings if f[0] == "desk/src/notes.rs"]
    assert (tmp_path / "desk/src/notes.rs").read_bytes() not in parsed
    assert [f for f in findings if f[0] == "desk/src/clerk_0.rs" and f[4] == "definite"]


class _Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("not this one")


def _fail(index: int) -> int:
    if index == 3:
        raise ValueError(f"ledger {index} does not balance")
    return index


def _die(index: int) -> int:
    import os

    if index == 2:
        os._exit(9)  # a process killed mid-way writes nothing
    return index


def _fail_unpicklably(index: int) -> int:
    raise _Unpicklable("kept here")


def test_forked_map_raises_what_a_task_raised_and_gives_none_for_a_process_that_died():
    import pytest

    with pytest.raises(ValueError, match="ledger 3 does not balance"):
        forked_map(_fail, 6, 4)
    with pytest.raises(RuntimeError, match="_Unpicklable: kept here"):
        forked_map(_fail_unpicklably, 2, 2)
    assert forked_map(_die, 5, 2) is None
    big = forked_map(lambda index: bytes([index]) * 3_000_000, 4, 2)  # more than a pipe holds, side by side
    assert big is not None and [len(b) for b in big] == [3_000_000] * 4 and big[3][:1] == b"\x03"


def _slow_first(index: int) -> tuple[int, int]:
    import os
    import time

    if index == 0:
        time.sleep(1.0)  # the first queue's process is held up on its first index
    return index, os.getpid()


def test_forked_queues_give_every_value_in_order_and_a_held_up_queue_is_emptied_by_the_others():
    queues = [[0, 1, 2, 3, 4, 5], [6, 7], [8]]
    found = forked_queues(_slow_first, queues)
    assert found is not None and [index for index, _ in found] == list(range(9))
    held_up = found[0][1]
    # Meanwhile the other processes took the rest of the first queue.
    assert {pid for _, pid in found[1:6]} - {held_up}
    assert forked_queues(lambda index: index, [[0, 1]]) is None  # one queue: no fork
    with __import__("pytest").raises(ValueError, match="ledger 3"):
        forked_queues(_fail, [[0, 1], [2, 3]])
    assert forked_queues(_die, [[0, 1], [2, 3]]) is None


def test_forked_call_gives_the_value_and_none_where_the_call_fails(monkeypatch):
    import time

    from codemods.core.parallel import forked_call

    forked = forked_call(lambda: {"kiln": [1, 2]})
    assert forked is not None, "no other thread runs in the test process"
    assert forked.result() == {"kiln": [1, 2]}
    assert forked.result() == {"kiln": [1, 2]}  # asked again: the same value
    failing = forked_call(lambda: 1 / 0)
    assert failing is not None and failing.result() is None
    slow = forked_call(lambda: time.sleep(60))
    assert slow is not None
    started = time.monotonic()
    slow.close()  # the caller gave up on it: stopped, not waited for
    assert time.monotonic() - started < 10
    monkeypatch.setenv("CODEMOD_JOBS", "1")
    assert forked_call(lambda: 1) is None


def test_forked_call_does_not_fork_while_another_thread_runs():
    import threading

    from codemods.core.parallel import forked_call

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert forked_call(lambda: 1) is None
    finally:
        stop.set()
        other.join()


_PLAN = """
import json, sys
from codemods import load_recipe, plan_recipe
from codemods.plan import planner
forked = []
real = planner.forked_call
planner.forked_call = lambda task: (lambda f: forked.append(f is not None) or f)(real(task))
plan = plan_recipe(sys.argv[1], load_recipe("paged-compat-removal"))
print(json.dumps({"forked": forked, "plan": plan.to_dict()}))
"""


def test_cpp_deletions_in_a_forked_process_plan_what_one_process_plans(tmp_path):
    """The fixture's recipe deletes in C++ and Rust files: the C++ files' deletions (and their
    parse errors) come from a forked process, and the plan is the same, byte for byte."""
    import json
    import os
    import shutil
    import subprocess
    import sys

    house = Path(__file__).resolve().parents[3]
    tree = tmp_path / "mlxcel-mini"
    shutil.copytree(house / "fixtures" / "mlxcel-mini", tree)
    runs = {}
    for jobs_setting in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", _PLAN, str(tree)],
            capture_output=True,
            text=True,
            cwd=house,
            env=os.environ | {"CODEMOD_JOBS": jobs_setting},
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        runs[jobs_setting] = json.loads(done.stdout)
    assert runs["1"]["forked"] == [False] and runs["2"]["forked"] == [True]
    assert runs["2"]["plan"] == runs["1"]["plan"]
    paths = [c["path"] for c in runs["1"]["plan"]["changes"]]
    assert any(p.endswith(".cpp") for p in paths) and any(p.endswith(".rs") for p in paths)


def test_a_package_too_large_for_one_share_is_dealt_by_folder():
    """A package over half a share goes to the shares folder by folder (a module subtree's files
    together, sharing its `mod.rs` scopes), not file by file; every file is dealt once."""

    class Package:
        dir = "big"

    folders = ["orders", "ledger", "stock", "audit", "payroll"]
    files = [(f"big/src/{folder}/part_{i}.rs", b"x" * 40) for folder in folders for i in range(3)]
    files.append(("big/src/lib.rs", b"x" * 30))
    shares = [
        [file for group in share for file in group] for share in resolve.deal_groups(files, lambda path: Package(), 2)
    ]
    assert sorted(path for share in shares for path, _ in share) == sorted(path for path, _ in files)
    for folder in folders:
        holding = [i for i, share in enumerate(shares) if any(p.startswith(f"big/src/{folder}/") for p, _ in share)]
        assert len(holding) == 1, folder
    assert sorted(sum(len(s) for _, s in share) for share in shares) == [270, 360]


def _import_tree(root: Path, files: int) -> None:
    """A crate whose `reckon` is deleted; `files` modules of another crate that import it, half
    never calling it (the import goes, in files the plan does not otherwise edit) and half calling
    it only under a `#[cfg]` flag nothing sets (a possible use)."""
    tree = {
        "Cargo.toml": '[workspace]\nmembers = ["books", "desk"]\n',
        "books/Cargo.toml": CARGO.format(name="books", extra=""),
        "books/src/lib.rs": "pub struct Ledger;\npub fn reckon() -> u32 {\n    1\n}\n",
        "desk/Cargo.toml": CARGO.format(name="desk", extra='[dependencies]\nbooks = { path = "../books" }'),
        "desk/src/lib.rs": "".join(f"pub mod teller_{i};\n" for i in range(files)),
    }
    for i in range(files):
        tree[f"desk/src/teller_{i}.rs"] = f"// teller {i}\n" + (
            "use books::{reckon, Ledger};\n\npub fn open(_ledger: &Ledger) -> u32 {\n    0\n}\n"
            if i % 2
            else "use books::reckon;\n\n#[cfg(paper_ledgers)]\npub fn count() -> u32 {\n    reckon()\n}\n"
        )
    write_tree(root, tree)


def test_forked_processes_work_out_the_import_stage_and_cfg_checks_as_one_process_does(tmp_path, monkeypatch):
    """The processes that resolve the files also work out the imports the plan leaves unused in a
    file it does not otherwise edit, and the unset `#[cfg]` around each definite use: the plan is
    the one a single process makes, and the plan's own process parses none of the files it leaves
    as they are again."""
    import codemods.parse as parsing

    _import_tree(tmp_path, resolve.PARALLEL_FILES + 4)
    recipe = Recipe(id="t", summary="", deletions=(ItemTarget("books/src/lib.rs", "rust", "fn", "crate::reckon"),))

    def plan() -> tuple:
        made = plan_recipe(tmp_path, recipe)
        return (
            sorted((c.path, c.after) for c in made.changes),
            [(f.path, f.line, f.col, f.code, f.certainty, f.message) for f in made.findings],
        )

    monkeypatch.setenv("CODEMOD_JOBS", "1")
    alone = plan()
    parsed_after_fork: list[bytes] = []
    real_parser = parsing._parser

    class Counting:
        def __init__(self, parser):
            self._parser = parser

        def parse(self, source, *rest):
            if forked:
                parsed_after_fork.append(source)
            return self._parser.parse(source, *rest)

    forked: list[int] = []

    def spy(task, queues):
        values = forked_queues(task, queues)
        forked.append(len(queues))
        return values

    import codemods.languages.rust.language as rust

    worked_here: list[str] = []
    real_references = rust._references

    def references_here(path, text, deleted, shared):
        if forked:
            worked_here.append(path)
        return real_references(path, text, deleted, shared)

    monkeypatch.setattr(resolve, "forked_queues", spy)
    monkeypatch.setattr(parsing, "_parser", lambda name: Counting(real_parser(name)))
    monkeypatch.setattr(rust, "_references", references_here)
    parsing._TREES.clear()
    monkeypatch.setenv("CODEMOD_JOBS", "2")
    spread = plan()
    assert forked == [2]
    assert spread == alone
    # The reference check takes each unedited file's uses from the process that resolved it.
    assert not [path for path in worked_here if path.startswith("desk/src/teller_") and int(path[16:-3]) % 2 == 0]
    changed = [path for path, _ in alone[0]]
    assert "desk/src/teller_1.rs" in changed and "desk/src/teller_0.rs" not in changed
    assert any(f[0] == "desk/src/teller_0.rs" and f[4] == "possible" for f in alone[1])
    unedited = {(tmp_path / f"desk/src/teller_{i}.rs").read_bytes() for i in range(0, resolve.PARALLEL_FILES + 4, 2)}
    assert not unedited & set(parsed_after_fork)


def test_a_file_the_stages_edit_is_resolved_ahead_as_they_leave_it(tmp_path, monkeypatch):
    """The file a recipe deletes in is resolved by the processes on its text as the stages leave
    it too, so the reference check finds it done (the plan's own process resolves it no more),
    with the findings one process gives."""
    _tree(tmp_path, resolve.PARALLEL_FILES + 2)
    (tmp_path / "books/src/lib.rs").write_text(
        "pub struct Ledger;\nimpl Ledger {\n    pub fn settle(&self) -> u32 {\n        1\n    }\n"
        "    pub fn open() -> Ledger {\n        Ledger\n    }\n}\n\n"
        "pub fn audit(ledger: &Ledger) -> u32 {\n    ledger.settle()\n}\n"
    )
    monkeypatch.setenv("CODEMOD_JOBS", "1")
    alone = _findings(tmp_path)
    assert [f for f in alone if f[0] == "books/src/lib.rs" and f[4] == "definite"]
    forked: list[int] = []
    after_fork: list[str] = []
    real_resolve = resolve.RustResolver._references_in_text

    def spy(task, queues):
        values = forked_queues(task, queues)
        forked.append(len(queues))
        return values

    def resolving(self, path, source, targets):
        if forked:
            after_fork.append(path)
        return real_resolve(self, path, source, targets)

    monkeypatch.setattr(resolve, "forked_queues", spy)
    monkeypatch.setattr(resolve.RustResolver, "_references_in_text", resolving)
    monkeypatch.setenv("CODEMOD_JOBS", "2")
    assert _findings(tmp_path) == alone
    assert forked == [2]
    assert "books/src/lib.rs" not in after_fork
