"""assert_deletes: one helper for inline before/after tests of deletion operations; rustfmt_clean;
the README's rewording example."""

from __future__ import annotations

import os
import re
import subprocess
import textwrap
from pathlib import Path

from codemods.edit.splice import splice
from codemods.parse import CPP, RUST, error_count, parse
from codemods.edit.item_spans import deletion_edits
from codemods.languages.cpp.items import CppTarget, delete_cpp_items
from codemods.languages.python.items import PythonTarget, delete_python_items
from codemods.languages.rust.items import RustTarget, delete_rust_items


def dedent_text(text: str) -> str:
    """An inline test source: `text` dedented, its leading newlines dropped."""
    return textwrap.dedent(text).lstrip("\n")


def dedent(text: str) -> bytes:
    return dedent_text(text).encode()


def run_deletion(language: str, before: bytes, targets: list[tuple[str, str]]):
    """Delete (kind, name) targets from `before`; returns (after, findings)."""
    if language == "rust":
        deletions, _, findings = delete_rust_items("t.rs", before, [RustTarget(k, n) for k, n in targets])
        return splice(before, deletion_edits("t.rs", before, deletions)), findings
    if language == "cpp":
        deletions, _, findings = delete_cpp_items("t.cpp", before, [CppTarget(k, n) for k, n in targets])
        return splice(before, deletion_edits("t.cpp", before, deletions)), findings
    edits, _, findings = delete_python_items("t.py", before, [PythonTarget(k, n) for k, n in targets])
    return splice(before, edits), findings


def assert_deletes(language: str, before: str, targets: list[tuple[str, str]], after: str) -> None:
    """Deleting `targets` from dedented `before` gives exactly dedented `after`, still parsing."""
    source, expected = dedent(before), dedent(after)
    result, findings = run_deletion(language, source, targets)
    assert not [f for f in findings if f.blocking], findings
    assert result.decode() == expected.decode()
    if language in ("rust", "cpp"):
        grammar = RUST if language == "rust" else CPP
        assert error_count(parse(result, grammar)) <= error_count(parse(source, grammar))


def rustfmt_clean(source: bytes) -> bool:
    """Whether rustfmt (edition 2024) leaves `source` exactly as it is."""
    # On stdin rustfmt's "Auto" newline style writes LF: name the file's style.
    style = "Windows" if b"\r\n" in source else "Unix"
    result = subprocess.run(["rustfmt", "--edition", "2024", "--config", f"newline_style={style}", "--emit", "stdout"],
                            input=source, capture_output=True, env={"RUSTUP_TOOLCHAIN": "stable", **os.environ})
    return result.returncode == 0 and result.stdout == source


def readme_rewording_example() -> str:
    """The README's recipe file that extends the bundled recipe with a rewording rule."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    blocks = [textwrap.dedent(b) for b in re.findall(r"```toml\n(.*?)```", readme, flags=re.S)]
    return next(block for block in blocks if block.startswith('extends = "paged-compat-removal"'))
