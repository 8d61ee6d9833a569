"""Select removal commits from bare mirrors by a rule fixed in advance; write bench/corpus/*.toml.

THE RULE (version 1; bench/corpus/README.md states the same). A commit of HEAD's history is
selected when all hold:

  1. not a merge, and it has a parent;
  2. its subject line (case-insensitive) has a removal verb (a word starting `remov`, `delet`,
     `drop`) and a reason word (REASON below);
  3. at most 10 paths changed, none added, renamed or binary; each is a source file of one of
     our languages (`language_of`: Rust, C/C++, Python) or docs/a manifest (DOC_OR_MANIFEST);
     the source files are all of one language, the commit's language;
  4. the source files lose 3..400 lines in all;
  5. deleted / (added + deleted) lines of the source files >= 0.8;
  6. some changed source file holds an item before that it does not hold after (the project's
     own extraction: rust_items, cpp_items; Python: ast functions and classes);
  7. at most 8 commits per project: the newest that pass 1-6, walking `git log` from HEAD.

Reserved projects are refused. Only repo, sha and language are written; trees stay in the
mirrors.

    python bench/mine.py [--mirrors /work/.mirror] [--out bench/corpus] [OWNER/NAME ...]
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from codemods.core.registry import language_of  # noqa: E402

# --- the rule's constants -------------------------------------------------------------------
VERB = re.compile(r"\b(remov\w*|delet\w*|drop\w*)", re.IGNORECASE)
REASON = re.compile(
    r"\b(unused|dead|obsolete|deprecated|legacy|unnecessary|unneeded|redundant|superfluous"
    r"|stale|outdated|orphaned|no longer used|not used|never used)\b",
    re.IGNORECASE,
)
DOC_OR_MANIFEST = re.compile(
    r"(^|/)(Cargo\.toml|Cargo\.lock|pyproject\.toml|setup\.cfg|CMakeLists\.txt|BUILD|BUILD\.bazel|Makefile"
    r"|meson\.build|CHANGELOG[^/]*)$|\.(md|rst|txt|adoc|cmake|bzl|mk|gn|gni)$"
)
MAX_FILES = 10
MIN_DELETED, MAX_DELETED = 3, 400
MIN_RATIO = 0.8
CAP = 8
RESERVED_NAMES = {
    "ripgrep",
    "uv",
    "wasmtime",
    "hyper",
    "coreutils",
    "re2",
    "rocksdb",
    "duckdb",
    "flask",
    "click",
    "clap",
    "nushell",
    "crossbeam",
    "tokio",
    "rayon",
    "cxx",
    "abseil-cpp",
    "catch2",
    "spdlog",
    "googletest",
    "ruff",
    "alacritty",
    "helix",
    "regex",
    "bat",
    "leveldb",
    "fmt",
    "mio",
}
RESERVED_REPOS = {"nlohmann/json", "serde-rs/json"}
# ---------------------------------------------------------------------------------------------

# The projects mined (their mirrors: /work/.mirror/OWNER+NAME/repo, made with `fetch github:OWNER/NAME`).
PROJECTS = [
    "BurntSushi/xsv",
    "Byron/gitoxide",
    "CLIUtils/CLI11",
    "Kitware/CMake",
    "SerenityOS/serenity",
    "Tencent/rapidjson",
    "Textualize/rich",
    "Textualize/textual",
    "Wilfred/difftastic",
    "aria2/aria2",
    "bevyengine/bevy",
    "ccache/ccache",
    "dandavison/delta",
    "databendlabs/databend",
    "doctest/doctest",
    "dtolnay/syn",
    "emilk/egui",
    "encode/httpx",
    "eza-community/eza",
    "facebook/folly",
    "facebook/watchman",
    "fish-shell/fish-shell",
    "gfx-rs/wgpu",
    "ggerganov/llama.cpp",
    "google/benchmark",
    "google/flatbuffers",
    "google/snappy",
    "iced-rs/iced",
    "image-rs/image",
    "jbeder/yaml-cpp",
    "keepassxreboot/keepassxc",
    "lapce/lapce",
    "mamba-org/mamba",
    "meilisearch/meilisearch",
    "microsoft/GSL",
    "microsoft/terminal",
    "mitmproxy/mitmproxy",
    "ml-explore/mlx",
    "ninja-build/ninja",
    "pallets/jinja",
    "paradigmxyz/reth",
    "protocolbuffers/protobuf",
    "psf/black",
    "psf/requests",
    "pybind/pybind11",
    "pydantic/pydantic",
    "pytest-dev/pytest",
    "python-poetry/poetry",
    "qbittorrent/qBittorrent",
    "rust-lang/cargo",
    "rust-lang/rustlings",
    "rustls/rustls",
    "scrapy/scrapy",
    "serde-rs/serde",
    "servo/rust-url",
    "sharkdp/fd",
    "sharkdp/hyperfine",
    "simdjson/simdjson",
    "sqlalchemy/sqlalchemy",
    "starship/starship",
    "taskflow/taskflow",
    "tesseract-ocr/tesseract",
    "tiangolo/fastapi",
    "tikv/tikv",
    "tokio-rs/tracing",
    "yhirose/cpp-httplib",
    "zellij-org/zellij",
]


def reserved(repo: str) -> bool:
    return repo.lower() in RESERVED_REPOS or repo.split("/")[-1].lower() in RESERVED_NAMES


def git(mirror: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(mirror), *args], capture_output=True, text=True, errors="replace", check=True
    ).stdout


def blob(mirror: Path, rev: str, path: str) -> bytes | None:
    done = subprocess.run(["git", "-C", str(mirror), "cat-file", "blob", f"{rev}:{path}"], capture_output=True)
    return done.stdout if done.returncode == 0 else None


def message_matches(subject: str) -> bool:
    return bool(VERB.search(subject) and REASON.search(subject))


def item_keys(source: bytes | None, language: str) -> set[tuple]:
    """The items of one file by a key stable between versions (the project's extraction)."""
    if not source:
        return set()
    try:
        if language == "rust":
            from codemods.languages.rust.items import rust_items

            return {(i.kind, i.qualified_name, i.impl_header) for i in rust_items(source)}
        if language == "cpp":
            from codemods.languages.cpp.items import cpp_items

            return {(i.kind, i.scope, i.name, getattr(i, "signature", None)) for i in cpp_items(source)}
        if language == "python":
            return _python_items(source)
    except Exception:  # an extraction failure is "no items": the rule then needs another file
        return set()
    return set()


def _python_items(source: bytes) -> set[tuple]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    keys: set[tuple] = set()

    def walk(node: ast.AST, prefix: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                kind = "class" if isinstance(child, ast.ClassDef) else "def"
                keys.add((kind, ".".join((*prefix, child.name))))
                walk(child, (*prefix, child.name))
            else:
                walk(child, prefix)

    walk(tree, ())
    return keys


def judge(mirror: Path, sha: str) -> str | None:
    """The commit's language if it passes rules 3-6, else None."""
    raw = git(mirror, "diff-tree", "-r", "--no-renames", "--raw", "--numstat", "--no-commit-id", f"{sha}^", sha)
    statuses: dict[str, str] = {}
    counts: dict[str, tuple[int, int] | None] = {}
    for line in raw.splitlines():
        if line.startswith(":"):
            meta, path = line.split("\t", 1)
            statuses[path] = meta.split()[-1]
        elif line.strip():
            added, deleted, path = line.split("\t", 2)
            counts[path] = None if added == "-" else (int(added), int(deleted))
    if not statuses or len(statuses) > MAX_FILES:
        return None
    languages = set()
    added_lines = deleted_lines = 0
    sources = []
    for path, status in statuses.items():
        if status not in ("M", "D") or counts.get(path) is None:
            return None
        language = language_of(path)
        if language is None:
            if not DOC_OR_MANIFEST.search(path):
                return None
            continue
        languages.add(language)
        sources.append(path)
        added, deleted = counts[path]  # type: ignore[misc]
        added_lines += added
        deleted_lines += deleted
    if len(languages) != 1:
        return None
    if not MIN_DELETED <= deleted_lines <= MAX_DELETED:
        return None
    if deleted_lines / (added_lines + deleted_lines) < MIN_RATIO:
        return None
    language = languages.pop()
    for path in sources:
        before = item_keys(blob(mirror, f"{sha}^", path), language)
        after = item_keys(blob(mirror, sha, path), language) if statuses[path] == "M" else set()
        if before - after:
            return language
    return None


def mine(repo: str, mirror: Path, cap: int = CAP) -> list[dict[str, str]]:
    log = git(mirror, "log", "--no-merges", "--format=%H%x00%P%x00%s", "HEAD")
    chosen = []
    for line in log.split("\n"):
        if line.count("\x00") < 2:
            continue
        sha, parents, subject = line.split("\x00", 2)
        if not parents or not message_matches(subject):
            continue
        try:
            language = judge(mirror, sha)
        except subprocess.CalledProcessError:
            continue
        if language is not None:
            chosen.append({"repo": repo, "sha": sha, "language": language})
            if len(chosen) >= cap:
                break
    return chosen


def write_lists(out: Path, entries: list[dict[str, str]]) -> None:
    by_language: dict[str, list[dict[str, str]]] = defaultdict(list)
    for entry in entries:
        by_language[entry["language"]].append(entry)
    out.mkdir(parents=True, exist_ok=True)
    for language, listed in sorted(by_language.items()):
        lines = [
            f"# Mined by bench/mine.py (rule version 1, bench/corpus/README.md): {len(listed)} {language} commits "
            f"from {len({e['repo'] for e in listed})} projects.",
            "",
        ]
        for entry in sorted(listed, key=lambda e: (e["repo"].lower(), e["sha"])):
            lines += [
                "[[commit]]",
                f'repo = "{entry["repo"]}"',
                f'sha = "{entry["sha"]}"',
                f'language = "{entry["language"]}"',
                "",
            ]
        (out / f"{language}.toml").write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=HERE / "corpus")
    parser.add_argument("repos", nargs="*", help="OWNER/NAME (default: PROJECTS)")
    args = parser.parse_args(argv)
    repos = args.repos or PROJECTS
    entries: list[dict[str, str]] = []
    for repo in repos:
        if reserved(repo):
            print(f"{repo}: reserved, not mined", file=sys.stderr)
            continue
        mirror = args.mirrors / repo.replace("/", "+", 1) / "repo"
        if not mirror.is_dir():
            print(f"{repo}: no mirror at {mirror}", file=sys.stderr)
            continue
        found = mine(repo, mirror)
        counts = defaultdict(int)
        for entry in found:
            counts[entry["language"]] += 1
        print(f"{repo}: {len(found)} ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})", flush=True)
        entries += found
    write_lists(args.out, entries)
    by_language: dict[str, int] = defaultdict(int)
    for entry in entries:
        by_language[entry["language"]] += 1
    print(
        f"{len(entries)} commits from {len({e['repo'] for e in entries})} projects: "
        + ", ".join(f"{k} {v}" for k, v in sorted(by_language.items()))
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
