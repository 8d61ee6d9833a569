"""Shared by the bench scripts: the tree, the tools, and timing commands against each other.

Each command runs `runs` times after one warm-up run; the runs of the
commands compared in one row are interleaved (A, B, A, B, ...) so that a
change in machine load hits both sides alike, and each side's figure is the
median of its runs.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out"
VENV_BIN = REPO / ".venv" / "bin"


def tool(name: str) -> str:
    """A tool from the project's venv if it is there, else from PATH."""
    candidate = VENV_BIN / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if found is None:
        sys.exit(f"bench: {name} not found (install the test extra: pip install -e '.[test]')")
    return found


def baseline_run(baseline: Path, dry_run: list[str]) -> list[str]:
    """The dry run `dry_run` (`codemod ARGS`) with the code of the checkout `baseline`: its package
    first on PYTHONPATH, before the rest of it (where the engine's dependencies may be)."""
    rest = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry and Path(entry) != REPO]
    return [
        "env",
        f"PYTHONPATH={os.pathsep.join([str(baseline), *rest])}",
        tool("python"),
        "-m",
        "codemods",
        *dry_run[1:],
    ]


# Beside the project, or beside the folder of worktrees that holds it.
DEFAULT_CORPUS = next(
    (
        base / "shared" / "corpora" / "mlxcel-2026-07.tar.xz"
        for base in (REPO.parent, REPO.parent.parent)
        if (base / "shared" / "corpora" / "mlxcel-2026-07.tar.xz").is_file()
    ),
    REPO.parent / "shared" / "corpora" / "mlxcel-2026-07.tar.xz",
)

# The packages `codemod` imports from this checkout.
PACKAGES = (REPO / "codemods", REPO / "interchange")
_LOAD_AT_START = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
_bytecode = "bytecode as found"


def add_bytecode_option(parser) -> None:
    parser.add_argument(
        "--bytecode",
        choices=("compiled", "source"),
        default="compiled",
        help="compiled (default): byte-compile the project's packages first, as `pip install` "
        "does (and their dataclasses' methods, as the first run does); source: remove "
        "their bytecode and run with PYTHONDONTWRITEBYTECODE=1, so "
        "that every run compiles the modules it imports",
    )


def prepare_bytecode(mode: str, baseline: Path | None = None) -> None:
    """Put the project's packages in the state `mode` names (see add_bytecode_option), and those
    of `baseline` (an earlier checkout timed beside them) in the same state: compared with
    packages compiled once, a checkout whose modules are compiled on every start loses about
    0.1-0.5 s of each run to that alone."""
    global _bytecode
    if mode == "compiled":
        for top in [REPO] if baseline is None else [REPO, baseline]:
            packages = [str(top / package.name) for package in PACKAGES if (top / package.name).is_dir()]
            env = {**os.environ, "PYTHONPATH": str(top)}
            subprocess.run(
                [tool("python"), "-m", "compileall", "-q", *packages], check=True, stdout=subprocess.DEVNULL, env=env
            )
            # The dataclasses' generated methods, compiled beside the bytecode (codemods/startup.py;
            # a checkout from before it has none).
            if (top / "codemods" / "startup.py").is_file():
                subprocess.run(
                    [tool("python"), "-m", "codemods.startup"], check=True, stdout=subprocess.DEVNULL, env=env, cwd=top
                )
        _bytecode = "packages byte-compiled, dataclass methods compiled" + (" (the baseline's too)" if baseline else "")
        return
    for package in PACKAGES:
        for cache in sorted(package.rglob("__pycache__")):
            shutil.rmtree(cache)
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    _bytecode = "packages not byte-compiled (PYTHONDONTWRITEBYTECODE=1)"


def ensure_tree(lines: int = 550_000, seed: int = 2230) -> tuple[Path, dict]:
    sys.path.insert(0, str(HERE))
    from gen_tree import DEFAULT_OUT, generate

    return DEFAULT_OUT, generate(DEFAULT_OUT, lines, seed)


@dataclass
class Tree:
    """A tree to time on: its name in the report, its root, and its size."""

    name: str
    root: Path
    files: int
    lines: int


def generated_tree() -> Tree:
    root, manifest = ensure_tree()
    return Tree("generated", root, manifest["files"], manifest["lines"]["rust"] + manifest["lines"]["cpp"])


def corpus_tree(archive: Path) -> Tree:
    """The real mlxcel tree, unpacked from `archive` into bench/out/corpus/ (once per archive)."""
    import tarfile

    target = OUT / "corpus" / archive.name.split(".")[0]
    if not (target / "mlxcel").is_dir():
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        with tarfile.open(archive) as opened:
            opened.extractall(target, filter="data")
    root = target / "mlxcel"
    sources = [p for p in (root / "src").rglob("*") if p.suffix in (".rs", ".cpp", ".h", ".cu", ".cc", ".hpp", ".cuh")]
    lines = sum(p.read_bytes().count(b"\n") for p in sources)
    return Tree("real (corpus)", root, len(sources), lines)


def trees(corpus: str | None) -> list[Tree]:
    """The trees to time: the real one when its archive is there (`corpus`, or the default), then the generated one."""
    found = []
    archive = Path(corpus) if corpus else DEFAULT_CORPUS
    if archive.is_file():
        found.append(corpus_tree(archive))
    elif corpus:
        sys.exit(f"bench: corpus archive {archive} not found")
    found.append(generated_tree())
    return found


def add_corpus_option(parser) -> None:
    parser.add_argument(
        "--corpus",
        metavar="ARCHIVE",
        default=None,
        help=f"the real tree's .tar.xz (default: {DEFAULT_CORPUS} when present)",
    )


@dataclass
class Timed:
    label: str
    command: str
    seconds: list[float]
    returncode: int

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def _run_once(argv: list[str] | str, cwd: Path) -> tuple[float, int]:
    start = time.perf_counter()
    result = subprocess.run(
        argv, cwd=cwd, shell=isinstance(argv, str), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - start, result.returncode


def race(commands: list[tuple[str, list[str] | str]], cwd: Path, runs: int) -> list[Timed]:
    """Time each (label, command) `runs` times, interleaved, after one warm-up run each."""
    timed = []
    for label, argv in commands:
        _, code = _run_once(argv, cwd)
        shown = argv if isinstance(argv, str) else " ".join(_short(a) for a in argv)
        timed.append(Timed(label, shown, [], code))
    for _ in range(runs):
        for entry, (_, argv) in zip(timed, commands):
            seconds, _ = _run_once(argv, cwd)
            entry.seconds.append(seconds)
    return timed


def _short(arg: str) -> str:
    for prefix, name in ((str(VENV_BIN) + os.sep, ""), (str(REPO) + os.sep, "")):
        if arg.startswith(prefix):
            return name + arg[len(prefix) :]
    return arg


def machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{os.cpu_count()} CPUs, load average {_LOAD_AT_START:.2f} before / {load:.2f} after (the bench's "
        f"own runs included), Python {sys.version.split()[0]}, {_bytecode}"
    )
