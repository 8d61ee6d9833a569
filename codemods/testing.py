"""The test harness for recipes: `assert_recipe(before, recipe, after)`, in the manner of
LibCST's `CodemodTest.assertCodemod`.

A recipe of your own is tested on inline sources, with your test runner (pytest, unittest)::

    from codemods import ItemTarget, Recipe
    from codemods.testing import assert_recipe

    RECIPE = Recipe(id="drop-legacy-merge", summary="", deletions=(
        ItemTarget("src/lib.rs", "rust", "fn", "crate::legacy_merge"),))

    def test_drop_legacy_merge() -> None:
        assert_recipe(
            '''
            pub fn merge() {}

            pub fn legacy_merge() {}
            ''',
            RECIPE,
            '''
            pub fn merge() {}
            ''',
            path="src/lib.rs",
        )

`before` and `after` are one file's text (with `path=`), a mapping of paths to texts, the
whole tree (a file the recipe deletes is left out of `after`), or a folder (a `Path`) holding
the whole tree, read as it is. A text is dedented and its leading blank lines dropped, so that
it can be indented with the test; bytes are taken as they are. The recipe is a `Recipe`, a
bundled recipe's id or a recipe file's path.

It plans the recipe on a fresh folder holding `before` and fails (AssertionError, with a
diff) unless: the tree after the plan is exactly `after`; the plan has no blocking finding but
those of the codes in `blocking` (each of them at least once); no edited file of a parsed
language has more parse errors than before; and planning again on the result changes nothing
(the recipe is idempotent); and, with `formatted` (the default), each edited file that its
language's formatter (rustfmt, clang-format where the tree has a `.clang-format`) left as it
was before is still as the formatter would leave it. Where that formatter is not installed,
the formatting check alone cannot be made: once the rest held, the test is skipped, saying so
(`unittest.SkipTest`, which pytest reports as a skip too); `formatted=False` leaves the check
out. It returns the plan, for further checks of its findings.
"""

from __future__ import annotations

import difflib
import tempfile
import textwrap
import unittest
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from codemods.edit.errors import CodemodError
from codemods.edit.values import Finding
from codemods.core.registry import language_for
from codemods.parse import error_count, parse
from codemods.plan.formatting import formatter_missing
from codemods.config.loader import load_recipe
from codemods.plan.planner import Plan, plan_recipe
from codemods.config.recipe import Recipe

Tree = Mapping[str, "str | bytes"]


def dedented(text: str | bytes) -> bytes:
    """An inline test source as a file's bytes: a text dedented, its leading newlines dropped
    (UTF-8); bytes as they are."""
    if isinstance(text, bytes):
        return text
    return textwrap.dedent(text).lstrip("\n").encode("utf-8")


def _tree(files: str | bytes | Tree | Path, path: str | None, which: str) -> dict[str, bytes]:
    if isinstance(files, Path):
        return {p.relative_to(files).as_posix(): p.read_bytes() for p in sorted(files.rglob("*")) if p.is_file()}
    if isinstance(files, (str, bytes)):
        if path is None:
            raise CodemodError(f"assert_recipe: {which} is one file's text: give its path (path=...)")
        return {path: dedented(files)}
    return {name: dedented(text) for name, text in files.items()}


def _shown(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").splitlines(keepends=True)


def _tree_diff(expected: Mapping[str, bytes], actual: Mapping[str, bytes]) -> str:
    """What differs between two trees, as unified diffs from `expected` to `actual`."""
    parts = []
    for path in sorted(set(expected) | set(actual)):
        if expected.get(path) == actual.get(path):
            continue
        if path not in actual:
            parts.append(f"{path}: expected, but the recipe deleted it or never wrote it\n")
        elif path not in expected:
            parts.append(f"{path}: not expected, but in the tree after the recipe\n")
        else:
            parts.append(
                "".join(
                    difflib.unified_diff(
                        _shown(expected[path]), _shown(actual[path]), f"expected/{path}", f"actual/{path}"
                    )
                )
            )
    return "".join(parts)


def _parse_regressions(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> list[str]:
    """The edited files of a parsed language with more parse errors than before."""
    worse = []
    for path, data in after.items():
        language = language_for(path)
        if language is None or language.grammar is None or before.get(path) in (None, data):
            continue
        if error_count(parse(data, language.name)) > error_count(parse(before[path], language.name)):
            worse.append(path)
    return worse


def _lf(data: bytes | None) -> bytes | None:
    return None if data is None else data.replace(b"\r\n", b"\n")


def _formatting_check(root: Path, plan: Plan) -> tuple[list[str], list[str]]:
    """The edited files that were as their language's formatter leaves them before and are not
    after, and those whose formatter is not installed (where the tree asks for it). Line
    endings are not compared (a formatter reading stdin may write LF for a CRLF file)."""
    unformatted, unchecked = [], []
    for change in plan.changes:
        language = language_for(change.path)
        if change.deleted or change.after == change.before or language is None:
            continue
        format_file, applies = language.operations.format_file, language.operations.formatting_applies
        if format_file is None or (applies is not None and not applies(root, change.path)):
            continue
        if formatter_missing(language):
            unchecked.append(change.path)
        elif _lf(format_file(change.before, root, change.path)) == _lf(change.before) and _lf(
            format_file(change.after, root, change.path)
        ) != _lf(change.after):
            unformatted.append(change.path)
    return unformatted, unchecked


def _written(root: Path, files: Mapping[str, bytes]) -> None:
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)


def _blocking_codes_check(plan: Plan, expected: set[str]) -> str | None:
    """Why the plan's blocking findings are not the expected ones (None when they are)."""
    found: list[Finding] = plan.blocking
    unexpected = [f.render() for f in found if f.code not in expected]
    missing = sorted(expected - {str(f.code) for f in found})
    if unexpected:
        return "blocking findings:\n  " + "\n  ".join(unexpected)
    if missing:
        return f"expected blocking findings of code {', '.join(missing)}, and the plan has none"
    return None


def assert_recipe(
    before: str | bytes | Tree | Path,
    recipe: Recipe | str | Path,
    after: str | bytes | Tree | Path,
    *,
    path: str | None = None,
    blocking: Iterable[str] = (),
    formatted: bool = True,
    **plan_options: Any,
) -> Plan:
    """Plan `recipe` on a fresh tree holding `before` and assert that it gives `after` (see the
    module's docstring). `plan_options` are `plan_recipe`'s (`allow_dangling=True`,
    `options={...}`); `blocking` the codes of the blocking findings the plan must have and may
    have; `formatted` whether to check the edited files against their formatter. Returns the
    plan."""
    files = _tree(before, path, "before")
    expected = _tree(after, path, "after")
    loaded = recipe if isinstance(recipe, Recipe) else load_recipe(str(recipe))
    with tempfile.TemporaryDirectory(prefix="codemod-test-") as folder:
        root = Path(folder)
        _written(root, files)
        plan = plan_recipe(root, loaded, **plan_options)
        problem = _blocking_codes_check(plan, {str(code) for code in blocking})
        if problem is not None:
            raise AssertionError(f"{loaded.id}: {problem}")
        result = dict(files)
        for change in plan.changes:
            if change.deleted:
                result.pop(change.path, None)
            else:
                result[change.path] = change.after
        if result != expected:
            raise AssertionError(
                f"{loaded.id}: the tree after the recipe is not the expected one:\n{_tree_diff(expected, result)}"
            )
        worse = _parse_regressions(files, result)
        if worse:
            raise AssertionError(f"{loaded.id}: more parse errors than before in {', '.join(worse)}")
        unformatted, unchecked = _formatting_check(root, plan) if formatted else ([], [])
        if unformatted:
            raise AssertionError(f"{loaded.id}: no longer as the formatter leaves it: {', '.join(unformatted)}")
        if not plan.blocking:
            for change in plan.changes:
                if change.deleted:
                    (root / change.path).unlink()
                else:
                    (root / change.path).write_bytes(change.after)
            again = plan_recipe(root, loaded, **plan_options)
            if again.changes:
                changed = {c.path: c.after for c in again.changes}
                raise AssertionError(
                    f"{loaded.id}: planning again on the result changes it (not idempotent):\n"
                    f"{_tree_diff({p: result[p] for p in changed if p in result}, changed)}"
                )
    if unchecked:
        raise unittest.SkipTest(
            f"{loaded.id}: the formatter is not installed: the rest held, but whether "
            f"{', '.join(unchecked)} is as the formatter leaves it was not checked"
        )
    return plan


__all__ = ["assert_recipe", "dedented"]
