"""Replay real removal commits of other projects and compare with what their maintainers wrote.

For each case of the replay corpus (../shared/corpora/replay/NN-name/: parent.tar.xz,
commit.diff, case.toml) this script

  1. unpacks the parent twice, into a scratch folder: once as the child (the
     maintainer's commit applied with `git apply`), once as the work tree;
  2. runs the recipe a user would write, `bench/replay/NN-name.toml` (through
     `codemod apply`), or `bench/replay/NN-name.py` (a short script on the public
     API, run as `python NN-name.py [--dry-run] ROOT`) where a recipe file cannot
     say it: first as a timed dry run, then for real;
  3. compares the work tree with the child: the same set of changed files (added,
     deleted, edited), each token-equal to the child's (whitespace aside; comments
     are tokens, their words compared), rustfmt- or clang-format-clean where the
     child's file is (when the formatter is installed),
     and no traceback from either run.

One line per case, `N/M token-equal` last; `--json` prints one JSON document.

    python bench/replay.py [--corpus DIR] [--case NN-name ...] [--keep DIR] [--json] [--infer]

With `--infer`, the recipe is not read from bench/replay/: it is inferred from the parent and
the child (`codemods.infer_recipe`, as `codemod infer` prints it), then applied the same way.

With `--corpus bench/corpus` (a folder of `[[commit]]` lists, bench/corpus/README.md) it
replays the mined corpus instead: recipes inferred from each commit, applied, compared, and
ablated (bench/_mined.py says how, and what each outcome means); a table by outcome last.

    python bench/replay.py --corpus bench/corpus [--jobs 2] [--timeout 600] [--case SHA|REPO ...]
                           [--per-project N] [--results DIR [--reuse]] [--write FILE] [--json]

Exit status: 0 when every case that has a recipe is token-equal with the same files
and no traceback, 1 otherwise, 2 for a usage error (no corpus).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RECIPES = HERE / "replay"
DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "replay"

RUST_SUFFIXES = (".rs",)
CPP_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".cu", ".cuh", ".inl")
SKIPPED_DIRS = {".git", "target", "build"}

# A lexer fair to Rust and C/C++: comments, raw and ordinary strings, char
# literals, lifetimes, numbers, identifiers, multi-character operators, then
# any other single character. Whitespace separates tokens and is dropped.
_TOKEN = re.compile(
    r"""
      (?P<line_comment>//[^\n]*)
    | (?P<block_comment>/\*.*?\*/)
    | (?P<raw_string>b?r(?P<hashes>\#*)"(?:.|\n)*?"(?P=hashes))
    | (?P<cpp_raw>(?:u8|u|U|L)?R"(?P<delim>[^(\s]*)\((?:.|\n)*?\)(?P=delim)")
    | (?P<string>(?:b|u8|u|U|L)?"(?:\\.|[^"\\])*")
    | (?P<char>(?:b|u8|u|U|L)?'(?:\\.|\\u\{[0-9a-fA-F]+\}|[^'\\\n])')
    | (?P<lifetime>'[A-Za-z_][A-Za-z0-9_]*)
    | (?P<number>[0-9][0-9A-Za-z_]*(?:\.[0-9][0-9A-Za-z_]*)?(?:[eE][+-]?[0-9]+)?)
    | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<op>::|->|=>|==|!=|<=|>=|&&|\|\||\+=|-=|\*=|/=|%=|\^=|&=|\|=|<<=|>>=|\.\.=|\.\.\.|\.\.|\#\#|<<|>>|\+\+|--)
    | (?P<other>\S)
    """,
    re.VERBOSE | re.DOTALL,
)


def tokens(text: str) -> list[str]:
    """The file's tokens, whitespace aside; a comment is its marker and its words."""
    out: list[str] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        token = match.group(0)
        if kind in ("line_comment", "block_comment"):
            out.append(" ".join(token.split()))
        else:
            out.append(token)
    return out


@dataclass
class CaseResult:
    """What one case came to."""

    case: str
    language: str
    recipe: str | None = None
    recipe_lines: int = 0
    status: str = "no recipe"  # no recipe | token-equal | differs | error
    same_files: bool = False
    token_equal_files: int = 0
    expected_files: list[str] = field(default_factory=list)
    missing_files: list[str] = field(default_factory=list)  # changed by the commit, not by the recipe
    extra_files: list[str] = field(default_factory=list)  # changed by the recipe, not by the commit
    differing: list[str] = field(default_factory=list)  # "path: first difference ..."
    unformatted: list[str] = field(default_factory=list)  # rustfmt/clang-format clean in the child, not here
    traceback: bool = False
    exit_codes: list[int] = field(default_factory=list)
    dry_run_s: float | None = None
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.status == "token-equal"


def case_language(case_dir: Path) -> str:
    diff = (case_dir / "commit.diff").read_text(encoding="utf-8", errors="replace")
    paths = re.findall(r"^diff --git a/(\S+)", diff, re.MULTILINE)
    if any(p.endswith(RUST_SUFFIXES) for p in paths):
        return "rust"
    return "cpp"


def recipe_for(case: str) -> Path | None:
    for suffix in (".toml", ".py"):
        candidate = RECIPES / f"{case}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def unpack(case_dir: Path, into: Path) -> Path:
    """Unpack the parent into `into`; returns the tree's root (the archive's one folder)."""
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(case_dir / "parent.tar.xz") as archive:
        archive.extractall(into, filter="data")
    entries = [p for p in into.iterdir()]
    return entries[0] if len(entries) == 1 and entries[0].is_dir() else into


def _copy(tree: Path, into: Path) -> Path:
    """A copy of the unpacked tree under `into`, with the same folder name."""
    target = into / tree.name
    shutil.copytree(tree, target, symlinks=True)
    return target


def make_child(case_dir: Path, root: Path) -> None:
    """Apply the maintainer's commit to `root` (a git repository just for that, removed after)."""
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE, "text": True}
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, **quiet)
    done = subprocess.run(["git", "apply", "--whitespace=nowarn", str(case_dir / "commit.diff")], cwd=root, **quiet)
    shutil.rmtree(root / ".git")
    if done.returncode != 0:
        raise RuntimeError(f"git apply failed: {done.stderr.strip()}")


def files_of(root: Path) -> dict[str, bytes]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIPPED_DIRS]
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_symlink() and not path.exists():
                continue  # a link to nothing: there is nothing to compare
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def changed(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


def file_difference(rel: str, want: bytes | None, have: bytes | None) -> str | None:
    """How the file `rel` the commit leaves (`want`, None: deleted) and the one the recipe leaves
    (`have`) differ, as one line; None when they are token-equal or both deleted."""
    if want is None or have is None:
        if (want is None) == (have is None):
            return None
        return (
            f"{rel}: {'deleted' if want is None else 'kept'} by the commit, "
            f"{'kept' if have is not None else 'deleted'} by the recipe"
        )
    want_text, have_text = want.decode("utf-8", "replace"), have.decode("utf-8", "replace")
    if tokens(want_text) == tokens(have_text):
        return None
    return f"{rel}: {first_difference(want_text, have_text)}"


def first_difference(expected: str, got: str) -> str:
    a, b = tokens(expected), tokens(got)
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"token {i}: expected {x[:60]!r}, got {y[:60]!r}"
    if len(a) > len(b):
        return f"token {len(b)}: expected {a[len(b)][:60]!r}, got end of file"
    return f"token {len(a)}: expected end of file, got {b[len(a)][:60]!r}"


def edition_of(root: Path, path: Path) -> str:
    """The edition of the crate holding `path` (its nearest Cargo.toml), 2015 by default."""
    for folder in path.parents:
        manifest = folder / "Cargo.toml"
        if manifest.is_file():
            found = re.search(r'^\s*edition\s*=\s*"(\d{4})"', manifest.read_text(errors="replace"), re.MULTILINE)
            if found:
                return found.group(1)
            if re.search(r"^\s*edition\.workspace\s*=\s*true", manifest.read_text(errors="replace"), re.MULTILINE):
                continue
            return "2015"
        if folder == root:
            break
    return "2015"


def rustfmt_clean(root: Path, rel: str) -> bool | None:
    """Whether rustfmt leaves the file as it is (None: no rustfmt, or it cannot parse it)."""
    rustfmt = shutil.which("rustfmt")
    if rustfmt is None:
        return None
    path = root / rel
    command = [rustfmt, "--edition", edition_of(root, path), "--emit", "stdout", "--quiet"]
    for name in ("rustfmt.toml", ".rustfmt.toml"):
        if (root / name).is_file():
            command += ["--config-path", str(root / name)]
            break
    env = dict(os.environ, RUSTUP_TOOLCHAIN=os.environ.get("RUSTUP_TOOLCHAIN", "stable"))
    done = subprocess.run(command, input=path.read_bytes(), capture_output=True, env=env)
    if done.returncode != 0:
        return None
    return done.stdout == path.read_bytes()


def clang_format_clean(root: Path, rel: str) -> bool | None:
    """Whether clang-format (the tree's .clang-format, found from the file) leaves the file as it
    is (None: no clang-format, or it fails)."""
    clang_format = shutil.which("clang-format")
    if clang_format is None:
        return None
    path = root / rel
    done = subprocess.run(
        [clang_format, "--style=file", f"--assume-filename={path}"], input=path.read_bytes(), capture_output=True
    )
    if done.returncode != 0:
        return None
    return done.stdout == path.read_bytes()


def formatter_clean(root: Path, rel: str) -> bool | None:
    if rel.endswith(RUST_SUFFIXES):
        return rustfmt_clean(root, rel)
    if rel.endswith(CPP_SUFFIXES):
        return clang_format_clean(root, rel)
    return None


def run_recipe(recipe: Path, root: Path, dry_run: bool) -> subprocess.CompletedProcess:
    python = REPO / ".venv" / "bin" / "python"
    python_exe = str(python) if python.exists() else sys.executable
    if recipe.suffix == ".py":
        command = [python_exe, str(recipe), *(["--dry-run"] if dry_run else []), str(root)]
    else:
        command = [
            python_exe,
            "-c",
            "import sys; from codemods.cli.main import main; sys.argv[0] = 'codemod'; main()",
            "apply",
            *(["--dry-run"] if dry_run else []),
            "--no-color",
            "--recipe",
            str(recipe),
            str(root),
        ]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(command, capture_output=True, text=True, env=env)


def inferred_recipe(parent_root: Path, child_root: Path, into: Path, case: str) -> Path:
    """The recipe `codemods.infer_recipe` infers from the parent and the child, as a file."""
    from codemods import infer_recipe

    recipe = into / f"{case}.inferred.toml"
    recipe.write_text(infer_recipe(parent_root, child_root, recipe_id=f"inferred-{case}").toml, encoding="utf-8")
    return recipe


def replay(case_dir: Path, scratch: Path, infer: bool = False) -> CaseResult:
    result = CaseResult(case=case_dir.name, language=case_language(case_dir))
    recipe = None if infer else recipe_for(case_dir.name)
    parent_root = unpack(case_dir, scratch / "parent")
    child_root = _copy(parent_root, scratch / "child")
    try:
        make_child(case_dir, child_root)
    except RuntimeError as error:
        result.status, result.error = "error", str(error)
        return result
    parent, child = files_of(parent_root), files_of(child_root)
    expected = changed(parent, child)
    result.expected_files = sorted(expected)
    if infer:
        recipe = inferred_recipe(parent_root, child_root, scratch, case_dir.name)
    if recipe is None:
        return result
    result.recipe = recipe.relative_to(REPO).as_posix() if recipe.is_relative_to(REPO) else recipe.name
    result.recipe_lines = len(recipe.read_text(encoding="utf-8").splitlines())
    work_root = _copy(parent_root, scratch / "work")

    start = time.perf_counter()
    dry = run_recipe(recipe, work_root, dry_run=True)
    result.dry_run_s = round(time.perf_counter() - start, 3)
    real = run_recipe(recipe, work_root, dry_run=False)
    result.exit_codes = [dry.returncode, real.returncode]
    result.traceback = any("Traceback (most recent call last)" in run.stderr + run.stdout for run in (dry, real))
    if real.returncode != 0:
        last = (real.stderr.strip().splitlines() or real.stdout.strip().splitlines() or [""])[-1]
        result.error = f"apply exited {real.returncode}: {last[:300]}"

    work = files_of(work_root)
    got = changed(parent, work)
    result.missing_files = sorted(expected - got)
    result.extra_files = sorted(got - expected)
    result.same_files = not result.missing_files and not result.extra_files
    for rel in sorted(expected | got):
        want, have = child.get(rel), work.get(rel)
        difference = file_difference(rel, want, have)
        if difference is not None:
            result.differing.append(difference)
        if difference is not None or want is None or have is None:
            continue
        result.token_equal_files += 1
        if formatter_clean(child_root, rel) and formatter_clean(work_root, rel) is False:
            result.unformatted.append(rel)
    ok = result.same_files and not result.differing and not result.traceback and not result.unformatted
    result.status = "token-equal" if ok else ("error" if result.error and not got else "differs")
    return result


def describe(result: CaseResult) -> str:
    head = f"{result.case:<32} {result.language:<4}"
    if result.recipe is None:
        return f"{head} no recipe"
    timing = f"dry run {result.dry_run_s:.2f} s" if result.dry_run_s is not None else "no dry run"
    if result.passed:
        files = len(result.expected_files)
        return f"{head} token-equal, same {files} file{'s' if files != 1 else ''}, {timing}, {result.recipe_lines} recipe lines"
    reasons = []
    if result.traceback:
        reasons.append("TRACEBACK")
    if result.error:
        reasons.append(result.error)
    if result.missing_files:
        reasons.append("not changed: " + ", ".join(result.missing_files))
    if result.extra_files:
        reasons.append("changed beyond the commit: " + ", ".join(result.extra_files))
    reasons += result.differing[:3]
    if result.unformatted:
        reasons.append("not formatter-clean (rustfmt, clang-format): " + ", ".join(result.unformatted))
    return f"{head} {result.status}, {timing}: " + "; ".join(reasons)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="the replay corpus (default: %(default)s)")
    parser.add_argument(
        "--case", action="append", default=[], help="only this case (repeatable; a prefix such as 07 will do)"
    )
    parser.add_argument("--keep", type=Path, help="unpack into this folder and keep it (e.g. bench/out/replay)")
    parser.add_argument("--json", action="store_true", help="one JSON document instead of the table")
    parser.add_argument(
        "--infer",
        action="store_true",
        help="infer each recipe from the parent and the child instead of reading bench/replay/",
    )
    parser.add_argument("--jobs", type=int, default=2, help="mined corpus: commits at once (at most 2)")
    parser.add_argument("--timeout", type=float, default=600, help="mined corpus: seconds per commit")
    parser.add_argument("--step-timeout", type=float, default=200, help=argparse.SUPPRESS)
    parser.add_argument("--results", type=Path, help="mined corpus: keep each commit's result (JSON) here")
    parser.add_argument(
        "--per-project",
        type=int,
        help="mined corpus: only the first N commits of each project (by sha; a fixed sample where time is short)",
    )
    parser.add_argument(
        "--write", type=Path, help="mined corpus: write the table, by class, to this file (docs/replay-results.md)"
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="mined corpus: table the results --results holds already instead of running those commits again",
    )
    parser.add_argument(
        "--retime",
        action="store_true",
        help="mined corpus: time again, one commit at a time, the dry run of each recipe --results holds "
        "(trees under 100k lines; on a quiet machine), then table as --reuse does",
    )
    parser.add_argument("--one", nargs=4, metavar=("REPO", "SHA", "LANGUAGE", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))
    import _mined

    if args.one:
        repo, sha, language, out = args.one
        return _mined._one_main(repo, sha, language, Path(out), args.step_timeout)
    if not args.corpus.is_dir():
        parser.error(f"no replay corpus at {args.corpus}")
    if _mined.is_mined(args.corpus) and args.retime:
        if args.results is None:
            parser.error("--retime needs --results")
        _mined.retime(args.corpus, args.results, args.case, args.per_project, args.step_timeout)
        args.reuse = True
    if _mined.is_mined(args.corpus):
        return _mined.main_corpus(
            args.corpus,
            args.jobs,
            args.timeout,
            args.case,
            args.results,
            args.json,
            args.reuse,
            args.per_project,
            args.write,
            " ".join(["python bench/replay.py", *(argv or sys.argv[1:])]),
        )
    cases = sorted(p for p in args.corpus.iterdir() if (p / "commit.diff").is_file())
    if args.case:
        cases = [c for c in cases if any(c.name.startswith(want) for want in args.case)]
    results = []
    for case_dir in cases:
        if args.keep:
            scratch = args.keep / case_dir.name
            shutil.rmtree(scratch, ignore_errors=True)
            scratch.mkdir(parents=True)
            results.append(replay(case_dir, scratch, args.infer))
        else:
            with tempfile.TemporaryDirectory(prefix=f"replay-{case_dir.name}-") as tmp:
                results.append(replay(case_dir, Path(tmp), args.infer))
        if not args.json:
            print(describe(results[-1]), flush=True)
    passed = sum(r.passed for r in results)
    if args.json:
        print(
            json.dumps(
                {
                    "cases": [asdict(r) | {"passed": r.passed} for r in results],
                    "token_equal": passed,
                    "total": len(results),
                },
                indent=2,
            )
        )
    else:
        print(f"{passed}/{len(results)} token-equal")
    with_recipe = [r for r in results if r.recipe is not None]
    return 0 if all(r.passed for r in with_recipe) else 1


if __name__ == "__main__":
    sys.exit(main())
