"""rustfmt judges a large edited file by an excerpt: the items around the edits, in their blocks
(codemods/languages/rust/excerpt.py). The excerpt rustfmt leaves as it is stands for the file
left as edited; wherever the whole file would change, the excerpt changes too; and the plan
is the one the whole file's formatting gives. bench/excerpt_check.py checks the same on real
crates."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from codemods import ItemTarget, PatternRewrite, Recipe, plan_recipe
from codemods.languages.rust.excerpt import excerpt

from codemod_helpers import formatted_texts

needs_rustfmt = pytest.mark.skipif(shutil.which("rustfmt") is None, reason="rustfmt is not installed")

# Filler that rustfmt leaves as it is, so that the excerpt is a small part of the file.
FILLER = "".join(
    f"""
/// Glazes batch {i}.
pub fn glaze_batch_{i}(pots: &[u32]) -> u32 {{
    pots.iter().map(|p| p * {i}).sum()
}}
"""
    for i in range(40)
)

SOURCE = f"""use std::collections::BTreeMap;
use std::fmt;

/// A kiln's firing log.
pub struct FiringLog {{
    entries: BTreeMap<u32, String>,
}}
{FILLER}
impl FiringLog {{
    pub fn new() -> Self {{
        Self {{
            entries: BTreeMap::new(),
        }}
    }}

    /// Drops every entry.
    pub fn clear_all(&mut self) {{
        self.entries.clear();
    }}

    pub fn len(&self) -> usize {{
        self.entries.len()
    }}
}}

impl fmt::Display for FiringLog {{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{
        write!(f, "{{}} entries", self.entries.len())
    }}
}}

pub struct Shelf;

fn kiln_report() -> u32 {{
    let glaze = firing_schedule(
        cone_temperature_reading,
        humidity_of_the_kiln_room,
        very_long_name_of_the_old_input,
    );
    glaze
}}

impl Shelf {{
    pub fn stack(&self) {{}}
}}

#[cfg(test)]
mod tests {{
    use super::*;
{FILLER.replace(chr(10), chr(10) + "    ").replace("    " + chr(10), chr(10)).rstrip(" ")}
    #[test]
    fn clears() {{
        let mut log = FiringLog::new();
        log.clear_all();
        assert_eq!(log.len(), 0);
    }}

    #[test]
    fn counts() {{
        assert_eq!(FiringLog::new().len(), 0);
    }}
}}
"""


def _rustfmt(text: bytes) -> bytes | None:
    result = subprocess.run(
        ["rustfmt", "--edition", "2021", "--emit", "stdout"], input=text, capture_output=True, timeout=60
    )
    return result.stdout if result.returncode == 0 else None


def _cut(source: bytes, *spans: tuple[bytes, bytes]) -> tuple[list[tuple[int, int, bytes]], bytes]:
    """Edits replacing each `old` (found once) with `new`, and the text they make."""
    edits, after = [], source
    for old, new in spans:
        assert source.count(old) == 1, old
        start = source.index(old)
        edits.append((start, start + len(old), new))
    for start, end, new in sorted(edits, reverse=True):
        after = after[:start] + new + after[end:]
    return edits, after


def _between(source: str, start: str, end: str) -> bytes:
    """The lines from the one starting with `start` to the line before the one starting with `end`."""
    lines = source.splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.lstrip().startswith(start))
    last = next(i for i in range(first + 1, len(lines)) if lines[i].lstrip().startswith(end))
    return "".join(lines[first:last]).encode()


@needs_rustfmt
def test_the_file_is_clean_to_begin_with() -> None:
    assert _rustfmt(SOURCE.encode()) == SOURCE.encode()


@needs_rustfmt
def test_a_cut_method_and_a_cut_test_give_a_small_excerpt_in_their_blocks_that_rustfmt_leaves() -> None:
    source = SOURCE.encode()
    edits, after = _cut(
        source,
        (_between(SOURCE, "/// Drops every entry.", "pub fn len"), b""),
        (
            _between(SOURCE, "fn clears", "fn counts").replace(b"    #[test]\n", b"", 1).join((b"    #[test]\n", b"")),
            b"",
        ),
    )
    small = excerpt(source, edits, after)
    assert small is not None and len(small) < len(after) / 4
    assert b"impl FiringLog {\n" in small and b"pub fn len" in small and b"mod tests {\n" in small
    assert b"fn counts" in small and b"glaze_batch_7" not in small
    assert _rustfmt(small) == small
    assert _rustfmt(after) == after


@needs_rustfmt
@pytest.mark.parametrize("case", ["only method", "blank line after brace", "use list entry", "two blank lines"])
def test_where_the_whole_file_would_change_the_excerpt_changes_too(case: str) -> None:
    source = SOURCE.encode()
    cut = {
        # impl Shelf { } : rustfmt writes `impl Shelf {}`.
        "only method": (b"    pub fn stack(&self) {}\n", b""),
        # The first method cut, its blank line left after the brace.
        "blank line after brace": (
            _between(SOURCE, "pub fn new()", "/// Drops every entry.").rstrip(b"\n") + b"\n",
            b"",
        ),
        # use std::{fmt}; would be written `use std::fmt;`.
        "use list entry": (b"use std::fmt;\n", b"use std::{fmt};\n"),
        # A cut that leaves two blank lines between items.
        "two blank lines": (b"pub struct Shelf;\n", b"\n"),
    }[case]
    edits, after = _cut(source, cut)
    small = excerpt(source, edits, after)
    assert small is not None and len(small) < len(after) / 2
    assert _rustfmt(after) != after
    assert _rustfmt(small) != small


@pytest.mark.parametrize("case", ["syntax error", "rustfmt skip", "crlf", "edits that do not make the text"])
def test_no_excerpt_where_it_could_not_say_as_much(case: str) -> None:
    source = SOURCE.encode()
    old = b"    pub fn stack(&self) {}\n"
    at = source.index(old)
    edits, after = [(at, at + len(old), b"")], source.replace(old, b"")
    if case == "syntax error":
        after = after.replace(b"pub struct Shelf;", b"pub struct Shelf")
        edits = [(at, at + len(old), b"")]
        assert excerpt(source, edits, after) is None
        return
    if case == "rustfmt skip":
        source, after = (
            source.replace(b"#[cfg(test)]", b"#[rustfmt::skip]"),
            after.replace(b"#[cfg(test)]", b"#[rustfmt::skip]"),
        )
    elif case == "crlf":
        source, after = source.replace(b"\n", b"\r\n"), after.replace(b"\n", b"\r\n")
    else:
        after = after.replace(b"glaze_batch_3(", b"glaze_batch_x(")
    assert excerpt(source, edits, after) is None


def _plan(tmp_path, text: str, target: ItemTarget):
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / "lib.rs").write_text(text)
    return plan_recipe(tmp_path, Recipe(id="cut", summary="", deletions=(target,), check_scope=(), protected=()))


@needs_rustfmt
def test_the_plan_formats_the_excerpt_only_where_rustfmt_leaves_it(tmp_path, monkeypatch) -> None:
    texts = formatted_texts(monkeypatch)
    plan = _plan(tmp_path, SOURCE, ItemTarget("src/lib.rs", "rust", "fn", "FiringLog::clear_all"))
    after = plan.changes[0].after
    assert b"pub fn clear_all" not in after and after == SOURCE.encode().replace(
        _between(SOURCE, "/// Drops every entry.", "pub fn len"), b""
    )
    assert len(texts) == 1 and len(texts[0]) < len(after) / 4  # only the excerpt went to rustfmt


@needs_rustfmt
def test_where_rustfmt_changes_the_excerpt_the_whole_file_is_formatted_as_before(tmp_path, monkeypatch) -> None:
    texts = formatted_texts(monkeypatch)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text(SOURCE)
    plan = plan_recipe(
        tmp_path,
        Recipe(
            id="shorten",
            summary="",
            rewrites=(PatternRewrite("src/lib.rs", "very_long_name_of_the_old_input", "x"),),
            check_scope=(),
            protected=(),
        ),
    )
    # The shorter argument lets rustfmt join the call onto one line; the file was clean, so that is taken.
    assert (
        b"    let glaze = firing_schedule(cone_temperature_reading, humidity_of_the_kiln_room, x);\n"
        in plan.changes[0].after
    )
    assert [len(t) < len(SOURCE) / 2 for t in texts] == [True, False, False]  # excerpt, file as edited, as read
