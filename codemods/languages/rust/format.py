"""Formatting generated Rust the way rustfmt would, at a given indentation.

Generated statements are wrapped in nested blocks (items in nested modules)
to reach the target indentation, formatted by rustfmt (when installed) with
the target tree's rustfmt.toml and its crate's edition, and unwrapped.
Without rustfmt the text is used as written (the callers say so: a note
"unformatted" in the plan), which the recipes' templates keep
rustfmt-clean for typical widths.

rustfmt runs in the target tree, so a toolchain the tree pins is used; where
that toolchain is not installed it runs again on the default one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

from codemods.languages.rust.crates import parse_manifest

_INDENT = "    "


def _config_args(root: Path | None) -> list[str]:
    if root is None:
        return []
    for name in ("rustfmt.toml", ".rustfmt.toml"):
        if (root / name).is_file():
            return ["--config-path", str(root / name)]
    return []


def format_statement_groups(
    groups: list[tuple[str, str]], root: Path | None = None, edition: str = "2021"
) -> tuple[list[str], bool]:
    """Each (statements, indent) of `groups` (statements one per line, unindented) formatted at
    its indent, lines ending with newlines, with one rustfmt run for all of them; and whether
    rustfmt ran. When it did not (not installed, it rejected the text, or an indent is not a
    multiple of four spaces) the statements are returned as written, indented."""
    plain = [
        "".join(f"{indent}{line}\n" if line else "\n" for line in text.strip("\n").split("\n"))
        for text, indent in groups
    ]
    depths = [len(indent.replace("\t", _INDENT)) // len(_INDENT) for _, indent in groups]
    rustfmt = shutil.which("rustfmt")
    if rustfmt is None or any(d < 1 or indent != _INDENT * d for d, (_, indent) in zip(depths, groups)):
        return plain, False
    wrapped = ""
    for index, ((text, _), depth) in enumerate(zip(groups, depths)):
        opening = f"fn __codemod_wrapper_{index}() {{\n" + "".join(f"{_INDENT * d}{{\n" for d in range(1, depth))
        closing = "".join(f"{_INDENT * d}}}\n" for d in range(depth - 1, 0, -1)) + "}\n"
        body = "".join(f"{_INDENT * depth}{line}\n" if line else "\n" for line in text.strip("\n").split("\n"))
        wrapped += ("\n" if index else "") + opening + body + closing
    formatted = _rustfmt(rustfmt, wrapped, root, edition)
    if formatted is None:
        return plain, False
    lines = formatted.split("\n")
    found = []
    for index, depth in enumerate(depths):
        start = lines.index(f"fn __codemod_wrapper_{index}() {{")
        end = lines.index("}", start)
        found.append("".join(f"{line}\n" for line in lines[start + depth : end - depth + 1]))
    return found, True


def format_item(text: str, indent: str, root: Path | None = None, edition: str = "2021") -> str | None:
    """One item (with its doc comment and attributes) formatted at `indent`, lines ending in newlines.

    Returns None when rustfmt is missing, rejects the item, or `indent` is not a
    multiple of four spaces: the caller then reports that it could not format.
    """
    depth = len(indent) // len(_INDENT)
    rustfmt = shutil.which("rustfmt")
    if rustfmt is None or indent != _INDENT * depth:
        return None
    opening = "".join(f"{_INDENT * d}mod __codemod_wrapper {{\n" for d in range(depth))
    closing = "".join(f"{_INDENT * d}}}\n" for d in range(depth - 1, -1, -1))
    body = "".join(f"{indent}{line}\n" if line else "\n" for line in text.strip("\n").split("\n"))
    formatted = _rustfmt(rustfmt, opening + body + closing, root, edition)
    if formatted is None:
        return None
    lines = formatted.rstrip("\n").split("\n")
    inner = lines[depth : len(lines) - depth]
    return "".join(f"{line}\n" for line in inner)


def crate_edition(root: Path, path: str) -> str:
    """The edition of the crate holding `path` (relative to `root`): its nearest Cargo.toml's, else 2021."""
    folder = (root / path).parent
    while True:
        manifest = _manifest(folder / "Cargo.toml")
        package = manifest.get("package") if isinstance(manifest.get("package"), dict) else None
        if package is not None:
            edition = package.get("edition")
            if isinstance(edition, dict) and edition.get("workspace"):
                return _workspace_edition(folder.parent, root) or "2021"
            return edition if isinstance(edition, str) else "2015"
        if folder == root or folder == folder.parent:
            return "2021"
        folder = folder.parent


def _workspace_edition(folder: Path, root: Path) -> str | None:
    while True:
        workspace = _manifest(folder / "Cargo.toml").get("workspace")
        if isinstance(workspace, dict):
            edition = (workspace.get("package") or {}).get("edition")
            return edition if isinstance(edition, str) else None
        if folder == root or folder == folder.parent:
            return None
        folder = folder.parent


def _pinned_toolchain_missing(root: Path | None) -> bool:
    """True when `root` pins a toolchain (rust-toolchain.toml or rust-toolchain, as rustup looks
    for them) that rustup's home does not hold: rustfmt there would only fail, after a
    rustup start-up. False whenever that cannot be told."""
    if root is None or "RUSTUP_TOOLCHAIN" in os.environ:
        return False
    toolchains = Path(os.environ.get("RUSTUP_HOME") or Path.home() / ".rustup") / "toolchains"
    folder = root.resolve()
    while True:
        if (folder / "rust-toolchain.toml").is_file():
            channel = (_manifest(folder / "rust-toolchain.toml").get("toolchain") or {}).get("channel")
            break
        if (folder / "rust-toolchain").is_file():
            try:
                text = (folder / "rust-toolchain").read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return False
            channel = (
                _manifest(folder / "rust-toolchain").get("toolchain", {}).get("channel")
                if "[" in text
                else text.strip()
            )
            break
        if folder == folder.parent:
            return False
        folder = folder.parent
    if not isinstance(channel, str) or not channel or not toolchains.is_dir():
        return False
    return not any(entry.name == channel or entry.name.startswith(channel + "-") for entry in toolchains.iterdir())


def _manifest(path: Path) -> dict[str, Any]:
    """The TOML document at `path` ({} when missing or not TOML), parsed once while the file
    keeps its size and modification time (every edited file asks for its crate's edition)."""
    try:
        status = path.stat()
    except OSError:
        return {}
    return _parsed_manifest(str(path), status.st_mtime_ns, status.st_size)


@lru_cache(maxsize=256)
def _parsed_manifest(path: str, mtime_ns: int, size: int) -> dict[str, Any]:
    try:
        data = Path(path).read_bytes()
    except OSError:
        return {}
    return parse_manifest(data) or {}


@lru_cache(maxsize=None)
def _toolchain_rustfmt(rustfmt: str, root: Path | None, toolchain: str | None, rustup_home: str | None) -> str:
    """The rustfmt binary that `rustfmt` starts in `root` when it is rustup's proxy (asked of
    `rustup which` once per process), else `rustfmt` itself: a plan runs rustfmt a dozen times,
    and each start of the proxy costs more than the formatting (50-100 ms). Where rustup cannot
    tell (a pinned toolchain it does not have), the proxy runs and says why."""
    rustup = shutil.which("rustup")
    if rustup is None or Path(rustfmt).resolve() != Path(rustup).resolve():
        return rustfmt
    env = {**os.environ, "RUSTUP_TOOLCHAIN": toolchain} if toolchain else None
    try:
        result = subprocess.run([rustup, "which", "rustfmt"], capture_output=True, timeout=30, cwd=root, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return rustfmt
    binary = result.stdout.decode("utf-8", "replace").strip()
    return binary if result.returncode == 0 and binary and Path(binary).is_file() else rustfmt


def _rustfmt(rustfmt: str, source: str, root: Path | None, edition: str) -> str | None:
    """rustfmt's output for `source`, run in `root` (its pinned toolchain), else on the default toolchain."""
    arguments = ["--edition", edition, "--emit", "stdout", *_config_args(root)]
    default = {**os.environ, "RUSTUP_TOOLCHAIN": "stable"}
    for env in (default,) if _pinned_toolchain_missing(root) else (None, default):
        toolchain = (env or os.environ).get("RUSTUP_TOOLCHAIN")
        command = [_toolchain_rustfmt(rustfmt, root, toolchain, os.environ.get("RUSTUP_HOME")), *arguments]
        try:
            result = subprocess.run(command, input=source.encode(), capture_output=True, timeout=30,
                                    cwd=root, env=env)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired):
            return None
        if result.returncode == 0:
            return result.stdout.decode()
        if b"toolchain" not in result.stderr:
            return None
    return None


def format_file(source: bytes, root: Path, path: str) -> bytes | None:
    """The whole file formatted by rustfmt (the crate's edition, the tree's rustfmt.toml); None
    when rustfmt is not installed or rejects the file."""
    rustfmt = shutil.which("rustfmt")
    if rustfmt is None:
        return None
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError:
        return None
    formatted = _rustfmt(rustfmt, text, root, crate_edition(root, path))
    return formatted.encode("utf-8") if formatted is not None else None


def prepare_formatting(root: Path) -> None:
    """Ask rustup once, ahead, which rustfmt binary the tree's toolchain runs (see
    _toolchain_rustfmt): the first formatting then starts it directly."""
    rustfmt = shutil.which("rustfmt")
    if rustfmt is not None:
        toolchain = "stable" if _pinned_toolchain_missing(root) else os.environ.get("RUSTUP_TOOLCHAIN")
        _toolchain_rustfmt(rustfmt, root, toolchain, os.environ.get("RUSTUP_HOME"))
