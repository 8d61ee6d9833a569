"""`codemod apply --interactive` driven through a real terminal (tmux: send-keys, capture-pane) on
the fixture: a skipped pooled-test rewrite, the refusal when a skipped change is still needed,
`q` and Ctrl-C."""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fixture_crate import copy_fixture

pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None, reason="tmux is not installed (scripts/bootstrap.sh installs it)"
)

CODEMOD = Path(sys.executable).with_name("codemod")
FFI_TESTS = "src/lib/mlxcel-core/src/ffi_tests.rs"
CACHE = "src/lib/mlxcel-core/src/cache.rs"
CPP = "src/lib/mlxcel-core/cpp/mlx_cxx_bridge.cpp"
BATCH_OF_TWO = "dense_reference_decode_attention@test_pooled_paged_decode_batch_of_two"
PROMPT = "Apply this change? ["
DEPENDENCY_PROMPT = "[k]eep this change / [c]ontinue"
QUIT_PROMPT = "[b]ack to this change"
HEADER = re.compile(r"^\[(\d+)/(\d+)\] (\S+)", re.M)
_sockets = itertools.count()


class Terminal:
    """A command running in a detached tmux session of its own server, read by capture-pane."""

    def __init__(self, tmp_path: Path, command: str, cwd: Path, editor: str = "") -> None:
        self.socket = f"codemod-test-{os.getpid()}-{next(_sockets)}"
        config = tmp_path / f"{self.socket}.conf"
        config.write_text("set -g history-limit 200000\n")
        shell = f"cd {shlex.quote(str(cwd))} && {command}; echo EXIT=$?; sleep 600"
        self._tmux(
            "-f",
            str(config),
            "new-session",
            "-d",
            "-s",
            "walk",
            "-x",
            "200",
            "-y",
            "50",
            "-e",
            f"EDITOR={editor}",
            "-e",
            "VISUAL=",
            shell,
        )
        self.socket_path = Path(self._tmux("display-message", "-p", "#{socket_path}").strip())

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], check=True, capture_output=True, text=True).stdout

    def screen(self) -> str:
        """Everything the command printed so far (history included)."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-200000", "-t", "walk")

    def send(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "walk", *keys)

    def wait(self, ready, timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if ready(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"the terminal never got there; it shows:\n{screen[-3000:]}")
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
        self.socket_path.unlink(missing_ok=True)


def exit_code(screen: str) -> int | None:
    found = re.search(r"^EXIT=(\d+)$", screen, re.M)
    return int(found.group(1)) if found else None


def walk(terminal: Terminal, answer, on_dependency: str = "c") -> str:
    """Answer every change prompt with `answer(change_id)` and the dependency questions with the keys
    of `on_dependency` in turn (one key: that key to every one), until the command exits; what the
    terminal showed."""
    keys = iter(on_dependency) if len(on_dependency) > 1 else itertools.repeat(on_dependency)
    answered = dependencies = 0
    while True:
        screen = terminal.wait(
            lambda s, answered=answered, dependencies=dependencies: (
                s.count(PROMPT) > answered or s.count(DEPENDENCY_PROMPT) > dependencies or exit_code(s) is not None
            )
        )
        if screen.count(DEPENDENCY_PROMPT) > dependencies:
            dependencies += 1
            terminal.send(next(keys))
        elif screen.count(PROMPT) > answered:
            answered += 1
            change = HEADER.findall(screen)[-1][2]
            key = answer(change)
            terminal.send(key)
            if key in ("a", "q"):
                return terminal.wait(lambda s: exit_code(s) is not None or QUIT_PROMPT in s.split(PROMPT)[-1])
        else:
            return screen


def digest(tree: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(tree.rglob("*")) if p.is_file())).hexdigest()


@pytest.fixture
def terminal_in(tmp_path: Path):
    opened = []

    def start(command: str, cwd: Path, editor: str = "") -> Terminal:
        opened.append(Terminal(tmp_path, command, cwd, editor))
        return opened[-1]

    yield start
    for terminal in opened:
        terminal.close()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path / "mlxcel-mini")


def test_skip_one_pooled_rewrite_accept_the_rest(tree: Path, terminal_in) -> None:
    terminal = terminal_in(f"{CODEMOD} apply --interactive --allow-dangling .", tree)
    screen = walk(terminal, lambda change: "n" if change == BATCH_OF_TWO else "y")
    assert exit_code(screen) == 0, screen[-3000:]
    assert f"Skipping {BATCH_OF_TWO} leaves" in screen
    assert "Accepted changes that need it:\n" in screen
    headers = HEADER.findall(screen)
    assert [int(n) for n, _, _ in headers] == list(range(1, int(headers[0][1]) + 1))  # every change shown once
    assert f"codemod: 1 change(s) skipped: {BATCH_OF_TWO}" in screen
    ffi = (tree / FFI_TESTS).read_text()
    batch_of_two = ffi[ffi.index("fn test_pooled_paged_decode_batch_of_two") :]
    batch_of_two = batch_of_two[: batch_of_two.index("\n}\n")]
    assert "paged_decode_attention_dense_fallback(" in batch_of_two
    for other in (
        "test_pooled_paged_decode_matches_dense_over_200_steps",
        "test_pooled_prefill_then_decode_matches_dense",
    ):
        body = ffi[ffi.index(f"fn {other}") :]
        body = body[: body.index("\n}\n")]
        assert "dense_reference_decode_attention(" in body and "dense_fallback" not in body
    assert "fn dense_reference_decode_attention(" in ffi
    assert "pub struct PagedDecodeMetadata" not in (tree / CACHE).read_text()
    assert not (tree / ".codemod-journal").exists()


def test_a_skipped_change_still_needed_is_named_and_the_write_refused(tree: Path, terminal_in) -> None:
    before = digest(tree)
    terminal = terminal_in(f"{CODEMOD} apply --interactive .", tree)
    screen = walk(terminal, lambda change: "n" if change == BATCH_OF_TWO else "y")
    assert exit_code(screen) == 1, screen[-3000:]
    needed = screen[screen.index(f"Skipping {BATCH_OF_TWO} leaves") :]
    assert "code still refers to an item the recipe deletes" in needed
    needers = needed[needed.index("Accepted changes that need it:\n") :].splitlines()[1:3]
    assert sorted(needers) == [
        "  paged-compat-removal:fn:paged_decode_attention_dense_fallback",
        "  paged-compat-removal:type:PagedDecodeMetadata",
    ]
    assert "nothing written" in screen
    assert digest(tree) == before


def test_keep_after_a_dependency_question_takes_the_change_back(tree: Path, terminal_in) -> None:
    terminal = terminal_in(f"{CODEMOD} apply --interactive .", tree)
    screen = walk(terminal, lambda change: "n" if change == BATCH_OF_TWO else "y", on_dependency="k")
    assert exit_code(screen) == 0, screen[-3000:]
    assert "codemod: 0 change(s) skipped" in screen
    assert "paged_decode_attention_dense_fallback" not in (tree / FFI_TESTS).read_text()


def test_quit_writes_what_was_accepted_after_one_confirmation(tree: Path, terminal_in) -> None:
    terminal = terminal_in(f"{CODEMOD} apply --interactive --allow-dangling --allow-unreworded .", tree)
    seen = []

    def answer(change: str) -> str:
        seen.append(change)
        return "y" if len(seen) <= 2 else "q"

    screen = walk(terminal, answer)
    assert "Write the 2 accepted change(s) and skip the other" in screen
    terminal.send("y")
    screen = terminal.wait(lambda s: exit_code(s) is not None)
    assert exit_code(screen) == 0, screen[-3000:]
    assert "paged_decode_attention_dense_compat" not in (tree / CPP).read_text()
    assert "pub struct PagedDecodeMetadata" in (tree / CACHE).read_text()


def test_ctrl_c_writes_nothing(tree: Path, terminal_in) -> None:
    before = digest(tree)
    terminal = terminal_in(f"{CODEMOD} apply --interactive --allow-dangling .", tree)
    terminal.wait(lambda s: PROMPT in s)
    terminal.send("y")
    terminal.wait(lambda s: s.count(PROMPT) == 2)
    terminal.send("C-c")
    screen = terminal.wait(lambda s: exit_code(s) is not None)
    assert exit_code(screen) == 130
    assert "codemod: interrupted; nothing written" in screen
    assert digest(tree) == before


def test_quit_declined_writes_nothing(tree: Path, terminal_in) -> None:
    before = digest(tree)
    terminal = terminal_in(f"{CODEMOD} apply --interactive --allow-dangling .", tree)
    screen = walk(terminal, lambda change: "q")
    assert "No change is accepted: [n] quit, writing nothing" in screen
    terminal.send("n")
    screen = terminal.wait(lambda s: exit_code(s) is not None)
    assert exit_code(screen) == 1
    assert "codemod: quit without writing; nothing written" in screen
    assert digest(tree) == before


def test_e_shows_the_change_in_the_editor_and_asks_again(tree: Path, terminal_in, tmp_path: Path) -> None:
    shown = tmp_path / "shown.diff"
    editor = tmp_path / "editor.sh"
    editor.write_text(f'#!/bin/sh\ncp "$1" {shlex.quote(str(shown))}\n')
    editor.chmod(0o755)
    terminal = terminal_in(f"{CODEMOD} apply --interactive .", tree, editor=str(editor))
    terminal.wait(lambda s: "[e]dit / [?]" in s)
    terminal.send("e")
    terminal.wait(lambda s: s.count(PROMPT) == 2)
    assert shown.read_text().startswith("--- a/src/lib/mlxcel-core/cpp/mlx_cxx_bridge.cpp\n")
    terminal.send("C-c")
    assert exit_code(terminal.wait(lambda s: exit_code(s) is not None)) == 130


METADATA = "paged-compat-removal:type:PagedDecodeMetadata"
DENSE_COMPAT = "paged-compat-removal:cpp-function:paged_decode_attention_dense_compat"


def test_on_the_real_tree_a_kept_chain_writes_only_what_was_shown_and_accepted(
    corpus: Path, tmp_path: Path, terminal_in
) -> None:
    """n on the first change, s(kip) the accepted changes that need it, k(eep) it after all: the
    chain's changes are shown when reached (none accepted unseen); n on the PagedDecodeMetadata
    deletion asks nothing (the kept type blocks nothing). What is written is what `--skip` of that
    one change writes. The screen is left in session.txt (docs/interactive-session.txt)."""
    tree, reference = tmp_path / "walked" / "mlxcel", tmp_path / "reference" / "mlxcel"
    shutil.copytree(corpus, tree)
    shutil.copytree(corpus, reference)
    command = f"{CODEMOD} apply --recipe paged-compat-removal --interactive --allow-dangling --no-color ."
    terminal = terminal_in(command, tree)
    screen = walk(terminal, lambda change: "n" if change in (DENSE_COMPAT, METADATA) else "y", on_dependency="sk")
    (tmp_path / "session.txt").write_text(screen)
    assert exit_code(screen) == 0, screen[-3000:]
    chain = screen[screen.index(f"Skipping {DENSE_COMPAT} leaves") :]
    assert "[s]kip them too" in chain and chain.count(DEPENDENCY_PROMPT) == 2
    headers = HEADER.findall(screen)
    total = int(headers[0][1])
    assert [int(n) for n, _, _ in headers] == list(range(1, total + 1))  # each shown once, none skipped unseen
    assert "skipped (it needs a change you skipped)" not in screen
    assert f"Skipping {METADATA} leaves" not in screen
    assert f"codemod: {total - 1} of {total} change(s) accepted" in screen
    assert f"codemod: 1 change(s) skipped: {METADATA}" in screen
    skipped = subprocess.run(
        [str(CODEMOD), "apply", "--recipe", "paged-compat-removal", "--allow-dangling", "--skip", METADATA, "."],
        cwd=reference,
        capture_output=True,
        text=True,
    )
    assert skipped.returncode == 0, skipped.stderr
    assert digest(tree) == digest(reference)
