"""Helpers of the codemod tests: assert_deletes (one file's deletion, on top of the public
harness `codemods.testing.assert_recipe`), the inline-source dedent, rustfmt_clean, the
in-process CLI, and the README's rewording example."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import textwrap
from pathlib import Path

from codemods import ItemTarget, Recipe, plan_recipe, testing


def run_codemod(*args: str, color: bool = False):
    """`codemod ARGS...` in-process (click's runner): never a traceback, only SystemExit."""
    from click.testing import CliRunner

    from codemods.cli.main import main

    result = CliRunner().invoke(main, list(args), color=color)
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def dedent_text(text: str) -> str:
    """An inline test source: `text` dedented, its leading newlines dropped."""
    return textwrap.dedent(text).lstrip("\n")


def dedent(text: str) -> bytes:
    return dedent_text(text).encode()


_SUFFIX = {"rust": ".rs", "cpp": ".cpp", "python": ".py"}


def run_deletion(language: str, before: bytes, targets: list[tuple[str, str]]):
    """Plan the deletion of (kind, name) targets from one file `before`; returns (after, findings)."""
    path = f"t{_SUFFIX[language]}"
    recipe = Recipe(id="delete", summary="", deletions=tuple(ItemTarget(path, language, k, n) for k, n in targets))
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / path).write_bytes(before)
        plan = plan_recipe(Path(folder), recipe, allow_dangling=True, allow_unreworded=True)
    findings = [f for f in plan.findings if f.code != "dangling-reference"]
    return (plan.changes[0].after if plan.changes else before), findings


def assert_deletes(
    language: str, before: str, targets: list[tuple[str, str]], after: str, planned: bool = True
) -> None:
    """Deleting `targets` from the one file dedented `before` gives exactly dedented `after` (see
    codemods.testing.assert_recipe; uses of the deleted items left in the file are allowed). With `planned`
    False, only the language plug-in's `delete_items` runs, without the planner's gate (for a
    source tree-sitter cannot parse cleanly, which the planner refuses to edit near)."""
    path = f"t{_SUFFIX[language]}"
    targets_ = tuple(ItemTarget(path, language, k, n) for k, n in targets)
    if planned:
        recipe = Recipe(id="delete", summary="", deletions=targets_)
        testing.assert_recipe(
            {path: dedent(before)}, recipe, {path: dedent(after)}, allow_dangling=True, allow_unreworded=True
        )
        return
    from codemods.edit.splice import splice
    from codemods.core.registry import LANGUAGES
    from codemods.plan.references import DeletedNames

    source = dedent(before)
    deletions = LANGUAGES[language].operations.delete_items(
        path, source, list(targets_), "delete", None, DeletedNames()
    )
    assert not [f for f in deletions.findings if f.blocking], deletions.findings
    assert splice(source, list(deletions.edits)).decode() == dedent_text(after)


def rustfmt_clean(source: bytes) -> bool:
    """Whether rustfmt (edition 2024) leaves `source` exactly as it is."""
    # On stdin rustfmt's "Auto" newline style writes LF: name the file's style.
    style = "Windows" if b"\r\n" in source else "Unix"
    result = subprocess.run(
        ["rustfmt", "--edition", "2024", "--config", f"newline_style={style}", "--emit", "stdout"],
        input=source,
        capture_output=True,
        env={"RUSTUP_TOOLCHAIN": "stable", **os.environ},
    )
    return result.returncode == 0 and result.stdout == source


def readme_rewording_example() -> str:
    """docs/mlxcel.md's recipe file that extends the bundled recipe with a rewording rule."""
    readme = (Path(__file__).resolve().parents[1] / "docs" / "mlxcel.md").read_text()
    blocks = [textwrap.dedent(b) for b in re.findall(r"```toml\n(.*?)```", readme, flags=re.S)]
    return next(block for block in blocks if block.startswith('extends = "paged-compat-removal"'))


def formatted_texts(monkeypatch) -> list[bytes]:
    """The texts the planner hands its formatter from now on (the list fills as plans run)."""
    from codemods.plan import formatting

    texts: list[bytes] = []
    real = formatting.format_job

    def counting(path: str):
        job = real(path)
        return None if job is None else (lambda source, root, where: texts.append(source) or job(source, root, where))

    monkeypatch.setattr(formatting, "format_job", counting)
    return texts
