"""Formatting generated Rust the way rustfmt would, at a given indentation.

Generated statements are wrapped in nested blocks to reach the target
indentation, formatted by rustfmt (when installed) with the target tree's
rustfmt.toml, and unwrapped. Without rustfmt the text is used as written,
which the recipes' templates keep rustfmt-clean for typical widths.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

_INDENT = "    "


def _config_args(root: Path | None) -> list[str]:
    if root is None:
        return []
    for name in ("rustfmt.toml", ".rustfmt.toml"):
        if (root / name).is_file():
            return ["--config-path", str(root / name)]
    return []


def format_statements(text: str, indent: str, root: Path | None = None, edition: str = "2021") -> str:
    """`text` (statements, one per line, unindented) formatted at `indent`; lines end with newlines."""
    return format_statement_groups([(text, indent)], root, edition)[0]


def _plain(text: str, indent: str) -> str:
    return "".join(f"{indent}{line}\n" if line else "\n" for line in text.strip("\n").split("\n"))


def _depth(indent: str) -> int | None:
    depth = len(indent.replace("\t", _INDENT)) // len(_INDENT)
    return depth if depth >= 1 and indent == _INDENT * depth else None


def format_statement_groups(groups: list[tuple[str, str]], root: Path | None = None,
                            edition: str = "2021") -> list[str]:
    """Each (statements, indent) of `groups` formatted as `format_statements` does, with one
    rustfmt run for all of them."""
    plain = [_plain(text, indent) for text, indent in groups]
    rustfmt = shutil.which("rustfmt")
    depths = [_depth(indent) for _, indent in groups]
    if rustfmt is None or not groups or None in depths:
        return plain
    wrapped = ""
    for index, ((text, _), depth) in enumerate(zip(groups, depths)):
        opening = f"fn __codemod_wrapper_{index}() {{\n" + "".join(f"{_INDENT * d}{{\n" for d in range(1, depth))
        closing = "".join(f"{_INDENT * d}}}\n" for d in range(depth - 1, 0, -1)) + "}\n"
        body = "".join(f"{_INDENT * depth}{line}\n" if line else "\n" for line in text.strip("\n").split("\n"))
        wrapped += ("\n" if index else "") + opening + body + closing
    # rustup picks the toolchain the tree pins when run inside it; where that one is not
    # installed, the default toolchain formats the same statements.
    for cwd in (root, Path(tempfile.gettempdir())):
        try:
            result = subprocess.run(
                [rustfmt, "--edition", edition, "--emit", "stdout", *_config_args(root)],
                input=wrapped.encode(), capture_output=True, timeout=30, cwd=cwd,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if result.returncode == 0:
            break
    else:
        return plain
    lines = result.stdout.decode().split("\n")
    formatted = []
    for index, depth in enumerate(depths):
        start = lines.index(f"fn __codemod_wrapper_{index}() {{")
        end = lines.index("}", start)
        formatted.append("".join(f"{line}\n" for line in lines[start + depth : end - depth + 1]))
    return formatted
