"""The console script's quick exit (`codemods.cli.entry.run`): everything printed arrives,
the status is `sys.exit`'s, the atexit handlers run, and a thread still working is waited for."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def _run(body: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent("""\
        import atexit, sys, threading, time
        from pathlib import Path
        import codemods.cli.main as cli
        OUT = Path(sys.argv[1])
        def main():
        {body}
        cli.main = main
        from codemods.cli.entry import run
        run()
        """).format(body=textwrap.indent(textwrap.dedent(body), "    "))
    return subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=60)


def test_all_output_arrives_through_a_pipe_and_the_status_is_kept(tmp_path: Path) -> None:
    done = _run(
        """\
        sys.stdout.write("line of a long diff\\n" * 20000)
        print("the last line", file=sys.stderr)
        sys.exit(1)
        """,
        tmp_path,
    )
    assert done.returncode == 1
    assert done.stdout == "line of a long diff\n" * 20000
    assert done.stderr == "the last line\n"


@pytest.mark.parametrize(
    ("code", "status", "stderr"), [(None, 0, ""), (0, 0, ""), (3, 3, ""), ("'bad recipe'", 1, "bad recipe\n")]
)
def test_the_status_is_the_one_sys_exit_would_give(tmp_path: Path, code: object, status: int, stderr: str) -> None:
    done = _run(f"sys.exit({code})", tmp_path)
    assert (done.returncode, done.stderr) == (status, stderr)


def test_a_main_that_returns_exits_0_and_atexit_handlers_run(tmp_path: Path) -> None:
    done = _run(
        """\
        atexit.register(lambda: (OUT / "saved").write_text("yes"))
        print("planned")
        """,
        tmp_path,
    )
    assert (done.returncode, done.stdout) == (0, "planned\n")
    assert (tmp_path / "saved").read_text() == "yes"


def test_a_thread_still_working_is_waited_for(tmp_path: Path) -> None:
    done = _run(
        """\
        def later():
            time.sleep(0.3)
            (OUT / "written").write_text("whole")
        threading.Thread(target=later).start()
        sys.exit(2)
        """,
        tmp_path,
    )
    assert done.returncode == 2
    assert (tmp_path / "written").read_text() == "whole"


def test_python_m_codemods_is_the_quick_exit() -> None:
    source = (Path(__file__).resolve().parents[1] / "codemods" / "__main__.py").read_text()
    assert "from codemods.cli.entry import run" in source
