"""Faults injected into the write path; after each, every file is as it was or as planned.

The matrix: os.replace failing on each file (I/O error, permission denied,
disk full, read-only file system), every single fsync failing in turn, the
disk filling up while a file's bytes are written, the undo itself failing,
a file edited while the plan is being written, an interrupt, and the process
SIGKILLed at each step between journaling and finishing. Each case checks
the tree on disk (no journal, lock or temporary left unless the next run
needs it) and that the next `codemod apply` recovers and finishes.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

import codemods.write.atomic as apply_module
from codemods.edit.refusals import WriteRefused
from codemods.write.atomic import WriteFailed, write_changes
from codemods.write.journal import JOURNAL_DIR, recover, tree_lock
from codemods.plan.planner import plan_recipe
from codemods.cli.main import main
from write_trees import AFTER, BEFORE, RECIPE, TARGETS, make_tree, snapshot, write_recipe

REPO = Path(__file__).resolve().parents[3]


def _changes(root: Path):
    return list(plan_recipe(root, RECIPE).changes)


def _is_tree_file(root: Path, path) -> bool:
    """Whether `path` is one of the recipe's files (not a temporary or the journal)."""
    real = os.path.realpath(root)
    return any(os.path.realpath(path) == os.path.join(real, t) for t in TARGETS)


def _all_or_nothing(root: Path) -> str:
    """ "before" or "after" when the recipe's files are all as they were or all as planned."""
    files = {p: d for p, d in snapshot(root).items() if p in TARGETS}
    if files == BEFORE:
        return "before"
    if files == AFTER:
        return "after"
    raise AssertionError(f"a mix of old and new files: {files}")


def _apply_recovers_and_finishes(root: Path, tmp_path: Path) -> str:
    result = CliRunner().invoke(main, ["apply", "--recipe", str(write_recipe(tmp_path)), str(root)])
    assert result.exit_code == 0, result.output
    assert snapshot(root) == AFTER
    return result.stderr


def _fail_on_call(monkeypatch, name: str, nth: int, error: BaseException, applies=lambda *a: True) -> None:
    """Make os.<name> raise `error` on its nth call for which `applies(*args)` holds."""
    real = getattr(os, name)
    calls = {"count": 0}

    def failing(*args, **kwargs):
        if applies(*args):
            calls["count"] += 1
            if calls["count"] == nth:
                raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, failing)


@pytest.mark.parametrize("nth", [1, 2, 3])
@pytest.mark.parametrize(
    "code", [errno.EIO, errno.EACCES, errno.ENOSPC, errno.EROFS], ids=["EIO", "EACCES", "ENOSPC", "EROFS"]
)
def test_replace_failing_on_any_file_puts_every_file_back(
    tree: Path, tmp_path: Path, monkeypatch, nth: int, code: int
) -> None:
    changes = _changes(tree)
    _fail_on_call(
        monkeypatch, "replace", nth, OSError(code, os.strerror(code)), applies=lambda src, dst: _is_tree_file(tree, dst)
    )
    with pytest.raises(WriteFailed) as failed:
        write_changes(tree, changes)
    assert failed.value.restored
    assert str(failed.value) == (f"{TARGETS[nth - 1]}: {os.strerror(code)}; every file put back, nothing changed")
    assert snapshot(tree) == BEFORE
    monkeypatch.undo()
    _apply_recovers_and_finishes(tree, tmp_path)


def _count_calls(monkeypatch, name: str, run) -> int:
    real = getattr(os, name)
    calls = {"count": 0}

    def counting(*args, **kwargs):
        calls["count"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, counting)
    run()
    monkeypatch.undo()
    return calls["count"]


def test_each_single_fsync_failing_leaves_all_or_nothing(tmp_path: Path, monkeypatch) -> None:
    probe = make_tree(tmp_path / "probe")
    total = _count_calls(monkeypatch, "fsync", lambda: write_changes(probe, _changes(probe)))
    assert total >= 12  # journal blobs, manifest, folders, each file and its folder, the finish
    outcomes = {}
    for nth in range(1, total + 1):
        root = make_tree(tmp_path / f"tree{nth}")
        changes = _changes(root)
        _fail_on_call(monkeypatch, "fsync", nth, OSError(errno.EIO, "Input/output error"))
        with pytest.raises(WriteFailed) as failed:
            write_changes(root, changes)
        monkeypatch.undo()
        state = _all_or_nothing(root)
        outcomes[nth] = state
        if failed.value.restored:
            assert state == "before" and snapshot(root) == BEFORE, nth
        else:
            # Only the journal's removal failed: every file is written; the next run drops the journal.
            assert state == "after", nth
            assert "every file written, but the journal" in str(failed.value)
        _apply_recovers_and_finishes(root, tmp_path)
    assert set(outcomes.values()) == {"before", "after"}


class _DiskFullFile:
    """A file object whose write fails as a full disk does."""

    def __init__(self, handle):
        self._handle = handle

    def write(self, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self._handle.__exit__(*exc)


def test_disk_full_while_writing_the_second_file_puts_the_first_back(tree: Path, tmp_path: Path, monkeypatch) -> None:
    changes = _changes(tree)
    real_fdopen = os.fdopen

    def fdopen(fd, *args, **kwargs):
        handle = real_fdopen(fd, *args, **kwargs)
        if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).startswith(".b.rs."):
            return _DiskFullFile(handle)
        return handle

    monkeypatch.setattr(os, "fdopen", fdopen)
    with pytest.raises(WriteFailed, match=r"src/b\.rs: No space left on device; every file put back"):
        write_changes(tree, changes)
    assert snapshot(tree) == BEFORE


def test_when_the_undo_fails_too_the_journal_lets_the_next_run_put_files_back(
    tree: Path, tmp_path: Path, monkeypatch
) -> None:
    changes = _changes(tree)
    # The third file's replace fails, then so does putting the first one back.
    real_replace = os.replace
    calls = []

    def replace(src, dst):
        if _is_tree_file(tree, dst):
            calls.append(os.path.relpath(dst, tree))
            if len(calls) in (3, 5):
                raise OSError(errno.EIO, "Input/output error")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(WriteFailed) as failed:
        write_changes(tree, changes)
    monkeypatch.undo()
    assert not failed.value.restored
    assert str(failed.value) == (
        f"src/nested/c.rs: Input/output error; 1 file(s) already written could not be "
        f"put back (src/a.rs): run `codemod apply {tree}` again to restore them "
        f"from {JOURNAL_DIR}/"
    )
    assert (tree / JOURNAL_DIR).is_dir()
    assert (tree / "src/a.rs").read_bytes() == AFTER["src/a.rs"]
    assert (tree / "src/b.rs").read_bytes() == BEFORE["src/b.rs"]
    stderr = _apply_recovers_and_finishes(tree, tmp_path)
    assert (
        "codemod: recovered: an interrupted codemod run had written 1 of 3 file(s) of its plan; "
        "restored src/a.rs to their original bytes"
    ) in stderr


def test_a_file_edited_while_the_plan_is_written_is_kept_and_the_rest_put_back(tree: Path, monkeypatch) -> None:
    changes = _changes(tree)
    real_write = apply_module.atomic_write
    edited = BEFORE["src/nested/c.rs"] + b"// saved by an editor meanwhile\n"

    def write_then_user_saves(target, data, mode):
        real_write(target, data, mode)
        if target.name == "a.rs":
            (tree / "src/nested/c.rs").write_bytes(edited)

    monkeypatch.setattr(apply_module, "atomic_write", write_then_user_saves)
    with pytest.raises(WriteRefused) as refused:
        write_changes(tree, changes)
    assert [(f.path, f.code) for f in refused.value.findings] == [("src/nested/c.rs", "stale-plan")]
    assert snapshot(tree) == {**BEFORE, "src/nested/c.rs": edited}


def test_an_interrupt_during_the_write_puts_every_file_back(tree: Path, monkeypatch) -> None:
    changes = _changes(tree)
    _fail_on_call(monkeypatch, "replace", 2, KeyboardInterrupt(), applies=lambda src, dst: _is_tree_file(tree, dst))
    with pytest.raises(KeyboardInterrupt):
        write_changes(tree, changes)
    assert snapshot(tree) == BEFORE


# ---------------------------------------------------------------- SIGKILL between steps, in a child process

_CHILD = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path

    sys.path[:0] = [{repo!r}, {tests!r}]
    from codemods.write.atomic import write_changes
    from codemods.write.journal import JOURNAL_DIR
    from codemods.plan.planner import plan_recipe
    from write_trees import RECIPE, TARGETS

    root, event, after = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    real = os.path.realpath(root)
    seen = {{"count": 0}}

    def die_if(kind):
        if kind == event:
            seen["count"] += 1
            if seen["count"] > after:
                os.kill(os.getpid(), signal.SIGKILL)

    def hook(name, kind_of):
        original = getattr(os, name)
        def wrapper(*args, **kwargs):
            kind = kind_of(*args)
            if kind:
                die_if(kind)
            return original(*args, **kwargs)
        setattr(os, name, wrapper)

    tree_files = {{os.path.join(real, t) for t in TARGETS}}
    hook("rename", lambda src, dst: "journal" if str(dst).endswith(JOURNAL_DIR) else None)
    hook("replace", lambda src, dst: "file" if os.path.realpath(dst) in tree_files else None)
    hook("unlink", lambda path, *a: "finish" if str(path).endswith("manifest.json") else None)
    write_changes(root, list(plan_recipe(root, RECIPE).changes))
    print("finished without being killed")
""")

# (event, how many of those events happen before the kill, files written when it dies, what recovery does)
KILL_POINTS = [
    ("journal", 0, 0, "cleaned"),
    ("file", 0, 0, "rolled-back"),
    ("file", 1, 1, "rolled-back"),
    ("file", 2, 2, "rolled-back"),
    ("finish", 0, 3, "completed"),
]


@pytest.mark.parametrize(
    ("event", "after", "written", "action"),
    KILL_POINTS,
    ids=["while-journaling", "before-first-file", "after-first-file", "after-second-file", "before-journal-removal"],
)
def test_sigkill_between_steps_is_recovered_by_the_next_run(
    tree: Path, tmp_path: Path, event: str, after: int, written: int, action: str
) -> None:
    script = tmp_path / "child.py"
    script.write_text(_CHILD.format(repo=str(REPO), tests=str(REPO / "tests")))
    child = subprocess.run(
        [sys.executable, str(script), str(tree), event, str(after)], capture_output=True, text=True, timeout=120
    )
    assert child.returncode == -signal.SIGKILL, child.stdout + child.stderr
    on_disk = snapshot(tree)
    assert [t for t in TARGETS if on_disk[t] == AFTER[t]] == list(TARGETS[:written])
    assert [t for t in TARGETS if on_disk[t] == BEFORE[t]] == list(TARGETS[written:])

    with tree_lock(tree):  # a killed holder's lock file is left, its flock released with the process
        recovery = recover(tree)
    assert recovery.action == action, recovery
    assert _all_or_nothing(tree) == ("after" if action == "completed" else "before")
    assert snapshot(tree) == (AFTER if action == "completed" else BEFORE)
    if action == "rolled-back":
        assert recovery.restored == TARGETS[:written]
    _apply_recovers_and_finishes(tree, tmp_path)


def test_apply_on_a_killed_run_says_what_it_restored_then_writes(tree: Path, tmp_path: Path) -> None:
    script = tmp_path / "child.py"
    script.write_text(_CHILD.format(repo=str(REPO), tests=str(REPO / "tests")))
    child = subprocess.run([sys.executable, str(script), str(tree), "file", "2"], capture_output=True, timeout=120)
    assert child.returncode == -signal.SIGKILL
    stderr = _apply_recovers_and_finishes(tree, tmp_path)
    assert stderr.splitlines()[0] == (
        "codemod: recovered: an interrupted codemod run had written 2 of 3 file(s) "
        "of its plan; restored src/a.rs, src/b.rs to their original bytes"
    )


def test_recovery_refuses_to_touch_a_file_edited_after_the_kill(tree: Path, tmp_path: Path) -> None:
    script = tmp_path / "child.py"
    script.write_text(_CHILD.format(repo=str(REPO), tests=str(REPO / "tests")))
    subprocess.run([sys.executable, str(script), str(tree), "file", "1"], capture_output=True, timeout=120)
    (tree / "src/a.rs").write_bytes(b"// the user's own edit\n")
    edited = snapshot(tree)
    result = CliRunner().invoke(main, ["apply", "--recipe", str(write_recipe(tmp_path)), str(tree)])
    assert result.exit_code == 1
    journal = tree.resolve() / JOURNAL_DIR
    assert result.stderr.strip() == (
        f"codemod: error: recovery refused: an interrupted codemod run left {journal}, and 1 of its files changed "
        f"since (src/a.rs); nothing touched. Put each one back by hand (the original of src/a.rs is "
        f"{journal}/before/000000) or keep your version, then delete {journal}"
    )
    assert {p: d for p, d in snapshot(tree).items() if p in TARGETS} == {
        p: d for p, d in edited.items() if p in TARGETS
    }
    assert (journal / "before/000000").read_bytes() == BEFORE["src/a.rs"]


def test_the_library_entry_recovers_a_killed_run_then_writes(tree: Path, tmp_path: Path) -> None:
    from codemods import apply_recipe

    script = tmp_path / "child.py"
    script.write_text(_CHILD.format(repo=str(REPO), tests=str(REPO / "tests")))
    child = subprocess.run([sys.executable, str(script), str(tree), "file", "2"], capture_output=True, timeout=120)
    assert child.returncode == -signal.SIGKILL
    dry = apply_recipe(tree, RECIPE, dry_run=True)
    assert dry.recovery is not None and dry.recovery.startswith(f"note: {JOURNAL_DIR}/ is left")
    assert not dry.written and (tree / JOURNAL_DIR).exists()
    run = apply_recipe(tree, RECIPE)
    assert run.recovery == (
        "recovered: an interrupted codemod run had written 2 of 3 file(s) of its plan; "
        "restored src/a.rs, src/b.rs to their original bytes"
    )
    assert run.written and not run.blocking and run.error is None
    assert snapshot(tree) == AFTER
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.written = False  # type: ignore[misc]
    again = apply_recipe(tree, RECIPE)
    assert again.plan is not None and not again.plan.changes and not again.written


def test_write_plan_recovers_first_and_refuses_a_plan_made_before(tree: Path, tmp_path: Path) -> None:
    from codemods import WriteRefused, write_plan

    script = tmp_path / "child.py"
    script.write_text(_CHILD.format(repo=str(REPO), tests=str(REPO / "tests")))
    subprocess.run([sys.executable, str(script), str(tree), "file", "2"], capture_output=True, timeout=120)
    stale = plan_recipe(tree, RECIPE)
    with pytest.raises(WriteRefused) as refused:
        write_plan(stale)
    assert {f.code for f in refused.value.findings} == {"stale-plan"}
    assert not (tree / JOURNAL_DIR).exists() and snapshot(tree) == BEFORE
    write_plan(plan_recipe(tree, RECIPE))
    assert snapshot(tree) == AFTER


# ---------------------------------------------------------------- issue 23, point 6: where the journal lives, Ctrl-C


def _git_tree(tree: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    subprocess.run(["git", "-C", str(tree), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(tree), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "before"], check=True
    )
    return tree


def test_in_a_git_work_tree_the_journal_and_lock_stay_out_of_git_status(tree: Path, tmp_path: Path) -> None:
    from codemods.write import journal

    _git_tree(tree)
    changes = _changes(tree)
    # What a SIGKILL after the first file leaves: the journal, and one file written.
    journal.begin(
        tree, [(journal.JournalEntry(c.path, 0o644, c.before_digest, c.after_digest), c.before) for c in changes]
    )
    (tree / changes[0].path).write_bytes(changes[0].after)
    assert (tree / ".git/codemod" / JOURNAL_DIR).is_dir() and not (tree / JOURNAL_DIR).exists()
    status = subprocess.run(
        ["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert status.splitlines() == [f" M {changes[0].path}"]
    check = CliRunner().invoke(main, ["check", "--recipe", str(write_recipe(tmp_path)), str(tree)])
    assert check.stderr.splitlines()[-1] == (
        f"codemod check: warning: {tree.resolve()}/.git/codemod/{JOURNAL_DIR}/ is left from an interrupted "
        f"`codemod apply`: files may be half written; `codemod apply {tree}` recovers them"
    )
    result = CliRunner().invoke(main, ["apply", "--recipe", str(write_recipe(tmp_path)), str(tree)])
    assert result.exit_code == 0, result.output
    assert "restored src/a.rs to their original bytes" in result.stderr
    assert {p: d for p, d in snapshot(tree).items() if not p.startswith(".git/")} == AFTER
    assert not (tree / ".git/codemod" / JOURNAL_DIR).exists() and not (tree / ".git/codemod/.codemod.lock").exists()


def test_a_journal_an_older_version_left_in_root_is_still_recovered(tree: Path, tmp_path: Path) -> None:
    _git_tree(tree)
    (tree / JOURNAL_DIR).mkdir()  # a finished run's journal, its manifest already removed
    result = CliRunner().invoke(main, ["apply", "--recipe", str(write_recipe(tmp_path)), str(tree)])
    assert result.exit_code == 0, result.output
    assert f"codemod: recovered: removed {JOURNAL_DIR}/ left by a run that had finished writing" in result.stderr
    assert not (tree / JOURNAL_DIR).exists()


def test_ctrl_c_during_the_write_exits_130_and_never_says_changed(tree: Path, tmp_path: Path, monkeypatch) -> None:
    _fail_on_call(monkeypatch, "replace", 2, KeyboardInterrupt(), applies=lambda src, dst: _is_tree_file(tree, dst))
    result = CliRunner().invoke(main, ["apply", "--recipe", str(write_recipe(tmp_path)), str(tree)])
    monkeypatch.undo()
    assert result.exit_code == 130
    assert result.stderr.splitlines()[-1] == (
        "codemod: interrupted (Ctrl-C); no file is half written (a write in progress was put back)"
    )
    assert "changed" not in result.stderr
    assert snapshot(tree) == BEFORE
