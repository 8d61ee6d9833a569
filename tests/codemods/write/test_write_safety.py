"""The write path keeps every file exactly as it was or exactly as planned, byte for byte.

All or nothing, stale plans, the tree lock, recovery from a journal, line
endings, BOMs, undecodable bytes, file modes and symlinks. Failures injected
into the write itself are in test_fault_injection.py.
"""

from __future__ import annotations

import dataclasses
import fcntl
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from codemods.edit.refusals import WriteRefused
from codemods.write.atomic import TreeLocked, write_changes
from codemods.edit.splice import FileChange, line_ending, with_line_endings_of
from codemods.edit.values import Edit
from codemods.write.journal import JOURNAL_DIR, LOCK_FILE, tree_lock
from codemods.plan.planner import plan_recipe
from codemods.cli.main import main
from codemods import ItemTarget, Recipe, Rewording, StepResult
from write_trees import AFTER, BEFORE, RECIPE, make_tree, snapshot, write_recipe


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "tree")


def _apply(*args: str):
    return CliRunner().invoke(main, ["apply", *args])


# ---------------------------------------------------------------- all or nothing, stale plans, lock


def test_apply_writes_every_file_and_leaves_no_journal_lock_or_temporary(tree: Path, tmp_path: Path) -> None:
    result = _apply("--recipe", str(write_recipe(tmp_path)), str(tree))
    assert result.exit_code == 0, result.output
    assert snapshot(tree) == AFTER
    assert "changed 3 file(s)" in result.stderr


def test_a_file_changed_since_the_plan_is_named_and_nothing_is_written(tree: Path) -> None:
    plan = plan_recipe(tree, RECIPE)
    (tree / "src/b.rs").write_bytes(BEFORE["src/b.rs"] + b"// edited meanwhile\n")
    edited = snapshot(tree)
    with pytest.raises(WriteRefused) as refused:
        write_changes(tree, list(plan.changes))
    assert [(f.path, f.code) for f in refused.value.findings] == [("src/b.rs", "stale-plan")]
    assert "src/b.rs: changed since it was read; nothing written" in str(refused.value)
    assert snapshot(tree) == edited


def test_a_file_deleted_since_the_plan_is_named_and_nothing_is_written(tree: Path) -> None:
    plan = plan_recipe(tree, RECIPE)
    (tree / "src/a.rs").unlink()
    with pytest.raises(WriteRefused) as refused:
        write_changes(tree, list(plan.changes))
    assert [(f.path, f.code) for f in refused.value.findings] == [("src/a.rs", "unreadable-file")]
    assert snapshot(tree) == {p: d for p, d in BEFORE.items() if p != "src/a.rs"}


def test_a_second_run_while_the_tree_is_locked_stops_at_once_and_writes_nothing(tree: Path, tmp_path: Path) -> None:
    # Another open file description holds the flock, as another process would.
    fd = os.open(tree / LOCK_FILE, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(fd, b"4242\n")
        result = _apply("--recipe", str(write_recipe(tmp_path)), str(tree))
        assert result.exit_code == 1
        assert result.stderr.strip() == (
            f"codemod: error: another codemod apply is running on {tree} (pid 4242); "
            f"wait for it to finish (lock: {tree / LOCK_FILE})"
        )
        with pytest.raises(TreeLocked):
            write_changes(tree, list(plan_recipe(tree, RECIPE).changes))
        assert {p: d for p, d in snapshot(tree).items() if p != LOCK_FILE} == BEFORE
    finally:
        os.close(fd)
    assert _apply("--recipe", str(write_recipe(tmp_path)), str(tree)).exit_code == 0
    assert snapshot(tree) == AFTER


def test_the_held_tree_lock_is_passed_down_not_taken_again_and_removed_on_release(tree: Path) -> None:
    with tree_lock(tree) as held:
        assert (tree / LOCK_FILE).read_text().strip() == str(os.getpid())
        with pytest.raises(TreeLocked, match="this process already holds the lock"):
            with tree_lock(tree):
                pass
        write_changes(tree, list(plan_recipe(tree, RECIPE).changes), lock=held)
        assert (tree / LOCK_FILE).exists()
    assert not held.held and not (tree / LOCK_FILE).exists()
    assert snapshot(tree) == AFTER


def test_a_lock_that_is_not_held_is_not_accepted(tree: Path, tmp_path: Path) -> None:
    with tree_lock(tree) as held:
        pass
    with pytest.raises(ValueError, match="not the held lock"):
        write_changes(tree, list(plan_recipe(tree, RECIPE).changes), lock=held)
    (tmp_path / "other").mkdir()
    with tree_lock(tmp_path / "other") as other, pytest.raises(ValueError, match="not the held lock"):
        write_changes(tree, list(plan_recipe(tree, RECIPE).changes), lock=other)
    assert snapshot(tree) != AFTER


def test_a_leftover_journal_blocks_writing_until_apply_recovers_it(tree: Path, tmp_path: Path) -> None:
    (tree / JOURNAL_DIR).mkdir()  # a finished run's journal, its manifest already removed
    with pytest.raises(WriteRefused) as refused:
        write_changes(tree, list(plan_recipe(tree, RECIPE).changes))
    assert refused.value.findings[0].code == "journal-present"
    dry = _apply("--dry-run", "--recipe", str(write_recipe(tmp_path)), str(tree))
    assert f"note: {JOURNAL_DIR}/ is left from an interrupted run" in dry.stderr
    result = _apply("--recipe", str(write_recipe(tmp_path)), str(tree))
    assert result.exit_code == 0, result.output
    assert f"codemod: recovered: removed {JOURNAL_DIR}/ left by a run that had finished writing" in result.stderr
    assert snapshot(tree) == AFTER


# ---------------------------------------------------------------- bytes kept


def test_file_modes_are_kept(tree: Path) -> None:
    os.chmod(tree / "src/a.rs", 0o755)
    os.chmod(tree / "src/b.rs", 0o640)
    write_changes(tree, list(plan_recipe(tree, RECIPE).changes))
    assert os.stat(tree / "src/a.rs").st_mode & 0o7777 == 0o755
    assert os.stat(tree / "src/b.rs").st_mode & 0o7777 == 0o640
    assert snapshot(tree) == AFTER


@dataclasses.dataclass(frozen=True)
class _InsertAfter:
    """A step that inserts LF text after the first line starting with `anchor`, as generated code does."""

    path: str
    anchor: bytes
    text: bytes

    def __call__(self, workspace) -> StepResult:
        source = workspace.read(self.path)
        line = source.index(self.anchor)
        end = source.index(b"\n", line) + 1
        return StepResult(edits=(Edit(self.path, end, end, self.text, "test:insert"),))


def test_crlf_file_stays_crlf_including_inserted_and_reworded_text(tmp_path: Path) -> None:
    before = b"// The old route is\r\n// deprecated.\r\n\r\nfn gone() {}\r\n\r\nfn keep() {}\r\n\r\nfn last() {}\r\n"
    root = make_tree(tmp_path / "tree", {"src/lib.rs": before})
    recipe = Recipe(
        id="crlf",
        summary="insert, reword and delete in a CRLF file",
        deletions=(ItemTarget("src/lib.rs", "rust", "fn", "gone"),),
        steps=(_InsertAfter("src/lib.rs", b"fn keep", b"\nfn added() {\n    keep();\n}\n"),),
        rewordings=(Rewording("src/lib.rs", "// The old route is\n// deprecated.\n", "// One route.\n"),),
    )
    plan = plan_recipe(root, recipe)
    assert not plan.blocking, plan.blocking
    assert plan.crlf_files == ("src/lib.rs",)
    assert all(b"\n" not in e.replacement.replace(b"\r\n", b"") for e in plan.changes[0].edits)
    write_changes(root, list(plan.changes))
    assert (root / "src/lib.rs").read_bytes() == (
        b"// One route.\r\n\r\nfn keep() {}\r\n\r\nfn added() {\r\n    keep();\r\n}\r\n\r\nfn last() {}\r\n"
    )
    lf = plan_recipe(make_tree(tmp_path / "lf", {"src/lib.rs": before.replace(b"\r\n", b"\n")}), recipe)
    assert lf.changes and lf.crlf_files == ()


def test_inserted_text_is_converted_only_where_it_differs_from_what_it_replaces() -> None:
    # Mostly CRLF, one LF line; a whole-file rewrite (as libcst returns) changes one line.
    source = b"a = 1\r\nb = 2\nc = 3\r\nd = 4\r\n"
    rewritten = b"a = 1\r\nb = 2\nc = 30\nx = 0\r\nd = 4\r\n"
    [edit] = with_line_endings_of(source, [Edit("t.py", 0, len(source), rewritten)])
    assert edit.replacement == b"a = 1\r\nb = 2\nc = 30\r\nx = 0\r\nd = 4\r\n"
    assert with_line_endings_of(b"a\nb\r\nc\n", [Edit("t", 0, 0, b"x\n")])[0].replacement == b"x\n"
    # A line whose end the edit keeps (old `3\r\n`, new `30\n`): the inserted LF still takes CRLF.
    [edit] = with_line_endings_of(b"f(x);\r\ng();\r\n", [Edit("t.rs", 0, 7, b"h(\n    x,\n);\n")])
    assert edit.replacement == b"h(\r\n    x,\r\n);\r\n"
    assert with_line_endings_of(b"a\nb\r\nc\r\n", [Edit("t", 0, 3, b"z\nb")])[0].replacement == b"z\nb"
    assert line_ending(b"a\r\nb\r\nc\n") == b"\r\n"
    assert line_ending(b"") == b"\n"


def test_bom_invalid_utf8_and_tabs_outside_the_edit_survive_byte_for_byte(tmp_path: Path) -> None:
    keep_head = b'\xef\xbb\xbf// caf\xe9 \xff\xfe in Latin-1\n\tconst X: &[u8] = b"\\xff";\n\n'
    gone = b"/// Gone.\nfn gone() {}\n\n"
    keep_tail = b'fn keep() {\n\tlet s = "\xc3\x28";\t// odd bytes\n}\n'
    root = make_tree(tmp_path / "tree", {"src/lib.rs": keep_head + gone + keep_tail})
    recipe = Recipe(id="bytes", summary="", deletions=(ItemTarget("src/lib.rs", "rust", "fn", "gone"),))
    plan = plan_recipe(root, recipe)
    assert not plan.blocking, plan.blocking
    write_changes(root, list(plan.changes))
    assert (root / "src/lib.rs").read_bytes() == keep_head + keep_tail


# ---------------------------------------------------------------- symlinks, aliases, read-only files


def test_a_symlink_resolving_inside_root_is_written_through_and_stays_a_link(tree: Path) -> None:
    (tree / "src/b.rs").rename(tree / "src/b_real.rs")
    (tree / "src/b.rs").symlink_to("b_real.rs")
    write_changes(tree, list(plan_recipe(tree, RECIPE).changes))
    assert (tree / "src/b.rs").is_symlink()
    assert os.readlink(tree / "src/b.rs") == "b_real.rs"
    assert (tree / "src/b_real.rs").read_bytes() == AFTER["src/b.rs"]


def test_a_symlink_resolving_outside_root_is_refused_and_its_target_untouched(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.rs"
    outside.write_bytes(BEFORE["src/b.rs"])
    (tree / "src/b.rs").unlink()
    (tree / "src/b.rs").symlink_to(outside)
    plan = plan_recipe(tree, RECIPE)
    assert [(f.path, f.code) for f in plan.blocking] == [("src/b.rs", "symlink-outside-root")]
    forged = [FileChange("src/b.rs", BEFORE["src/b.rs"], b"")]
    with pytest.raises(WriteRefused) as refused:
        write_changes(tree, forged)
    assert refused.value.findings[0].code == "symlink-outside-root"
    result = _apply("--recipe", str(write_recipe(tmp_path)), str(tree))
    assert result.exit_code == 1
    assert "src/b.rs: resolves outside ROOT (through a symlink or ..); not edited" in result.stderr
    assert outside.read_bytes() == BEFORE["src/b.rs"]
    assert (tree / "src/a.rs").read_bytes() == BEFORE["src/a.rs"]


def test_two_paths_to_one_file_are_refused(tree: Path) -> None:
    (tree / "src/alias.rs").symlink_to("a.rs")
    changes = [
        FileChange("src/a.rs", BEFORE["src/a.rs"], AFTER["src/a.rs"]),
        FileChange("src/alias.rs", BEFORE["src/a.rs"], b""),
    ]
    with pytest.raises(WriteRefused) as refused:
        write_changes(tree, changes)
    assert [(f.path, f.code) for f in refused.value.findings] == [("src/alias.rs", "aliased-path")]
    assert (tree / "src/a.rs").read_bytes() == BEFORE["src/a.rs"]


def test_a_path_leaving_root_is_refused(tree: Path, tmp_path: Path) -> None:
    (tmp_path / "victim.rs").write_bytes(b"x")
    with pytest.raises(WriteRefused) as refused:
        write_changes(tree, [FileChange("../victim.rs", b"x", b"")])
    assert refused.value.findings[0].code == "symlink-outside-root"
    assert (tmp_path / "victim.rs").read_bytes() == b"x"


def test_a_read_only_file_is_refused_and_nothing_is_written(tree: Path, tmp_path: Path) -> None:
    os.chmod(tree / "src/nested/c.rs", 0o444)
    result = _apply("--recipe", str(write_recipe(tmp_path)), str(tree))
    assert result.exit_code == 1
    assert "src/nested/c.rs: file is read-only; nothing written" in result.stderr
    assert "codemod: write refused: 1 blocking finding(s); nothing written" in result.stderr
    assert snapshot(tree) == BEFORE


def test_a_file_in_a_read_only_folder_is_refused_and_nothing_is_written(tree: Path) -> None:
    os.chmod(tree / "src/nested", 0o555)
    try:
        with pytest.raises(WriteRefused) as refused:
            write_changes(tree, list(plan_recipe(tree, RECIPE).changes))
        assert [(f.path, f.code) for f in refused.value.findings] == [("src/nested/c.rs", "read-only-folder")]
    finally:
        os.chmod(tree / "src/nested", 0o755)
    assert snapshot(tree) == BEFORE


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may give a file to another user")
def test_the_owner_is_kept_when_root_writes_a_users_file(tree: Path) -> None:
    os.chown(tree / "src/a.rs", 1234, 5678)
    write_changes(tree, list(plan_recipe(tree, RECIPE).changes))
    status = os.stat(tree / "src/a.rs")
    assert (status.st_uid, status.st_gid) == (1234, 5678)
    assert snapshot(tree) == AFTER


def test_two_processes_cannot_apply_to_one_tree_at_once(tree: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[3]
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; sys.path.insert(0, sys.argv[2]); from codemods.write.journal import tree_lock\n"
            "with tree_lock(sys.argv[1]):\n    print('held', flush=True)\n    sys.stdin.read()\n",
            str(tree),
            str(repo),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "held\n"
        result = _apply("--recipe", str(write_recipe(tmp_path)), str(tree))
        assert result.exit_code == 1
        assert f"another codemod apply is running on {tree} (pid {holder.pid})" in result.stderr
        assert {p: d for p, d in snapshot(tree).items() if p != LOCK_FILE} == BEFORE
    finally:
        holder.communicate("", timeout=60)
    assert _apply("--recipe", str(write_recipe(tmp_path)), str(tree)).exit_code == 0
    assert snapshot(tree) == AFTER


def test_a_plan_reads_regular_files_only_and_as_pathlib_would(tmp_path: Path) -> None:
    # The snapshot's one-open read gives what `is_file()` and `read_bytes()` give: the bytes of
    # a regular file (through a link too), None for a folder, a FIFO (never waited on), a
    # missing file, a dangling link, a loop of links or a path through a file; and the whole
    # of a file larger than one read.
    from codemods.config.recipe import read_regular_file

    (tmp_path / "a.rs").write_bytes(b"fn kept() {}\n")
    (tmp_path / "empty.rs").write_bytes(b"")
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "pipe")
    os.symlink(tmp_path / "a.rs", tmp_path / "link.rs")
    os.symlink(tmp_path / "gone.rs", tmp_path / "dangling.rs")
    os.symlink(tmp_path / "loop.rs", tmp_path / "loop.rs")
    large = bytes(range(256)) * 12_000
    (tmp_path / "large.rs").write_bytes(large)
    names = ["a.rs", "empty.rs", "folder", "pipe", "link.rs", "dangling.rs", "loop.rs", "gone.rs", "a.rs/x", "large.rs"]
    for name in names:
        path = tmp_path / name
        assert read_regular_file(str(path)) == (path.read_bytes() if path.is_file() else None), name
    assert read_regular_file(str(tmp_path / "large.rs")) == large
