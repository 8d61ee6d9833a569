"""Rewrites of literal text, inferred for the files no grammar reads (a manifest, a lock file, a
build script): each changed run of lines becomes a `[[rewrite]]` with `language = "text"`, its
pattern widened by the lines around it until it stands once in the file."""

from __future__ import annotations

from collections.abc import Callable
from difflib import SequenceMatcher

from codemods.config.recipe import TEXT
from codemods.plan.infer.residue import RewriteRule
from codemods.words import whole_line_occurrences

# Build scripts whose suffix reads as prose (`.txt`), rewritten as text, never reworded.
BUILD_FILES = ("CMakeLists.txt",)


def is_text_rewritten(path: str) -> bool:
    """Whether a changed file of no supported language is rewritten as literal text rather than
    reworded as prose (see reword.is_prose): a build script named as prose is."""
    return path.rsplit("/", 1)[-1] in BUILD_FILES


def text_rules(
    path: str, old: bytes, new: bytes, original: bytes | None = None, widen: bool = False
) -> list[RewriteRule] | None:
    """The literal rewrites that turn `old` into `new`; None where the text is not UTF-8 or a
    change cannot be made to stand once in the file. With `original` (the file as read, of which
    `old` is what the plan's deletions leave), each rule's pattern is the original's lines that
    hold it, the deleted lines inside it too: rewrites match the file as read, and a deletion
    inside a rewritten run goes with it. A run whose first or last line the plan changed gives
    None, unless `widen` (for a caller that plans the result and keeps it only where it does
    not block: a widened run may take in part of an item the plan deletes)."""
    try:
        a = old.decode("utf-8").splitlines(keepends=True)
        b = new.decode("utf-8").splitlines(keepends=True)
        first = original.decode("utf-8").splitlines(keepends=True) if original is not None else None
    except UnicodeDecodeError:
        return None
    if first is None or first == a:
        rules = _rules(path, a, b)
        return None if rules is None else [RewriteRule(path, TEXT, "".join(a[lo:hi]), r) for lo, hi, r in rules]
    where = _line_map(first, a)
    # With `widen`, a run whose first or last line the plan changed (not removed: the import stage
    # reshaping a `use` declaration the change reshapes too) is widened to lines the original holds
    # as they are: its pattern is then the original's lines, the plan's changed ones inside.
    # (A run from the file's first line starts where the original does; one to its last, ends there.)
    if widen:
        rules = _rules(
            path,
            a,
            b,
            lambda lo, hi: (where[lo] is not None or lo == 0) and (where[hi - 1] is not None or hi == len(a)),
        )
    else:
        rules = _rules(path, a, b)
    if rules is None:
        return None
    text = "".join(first).encode("utf-8")
    remapped = []
    for lo, hi, replacement in rules:
        start = 0 if widen and lo == 0 and where[lo] is None else where[lo]
        end = len(first) - 1 if widen and hi == len(a) and where[hi - 1] is None else where[hi - 1]
        if start is None or end is None:
            return None  # no line of the original holds its ends
        pattern = "".join(first[start : end + 1])
        if len(whole_line_occurrences(text, pattern.encode(), overlapping=True)) != 1:
            return None
        remapped.append(RewriteRule(path, TEXT, pattern, replacement))
    return remapped


def _line_map(first: list[str], a: list[str]) -> list[int | None]:
    """For each line of `a` (the original `first` with lines removed), its line in `first`; None
    for a line not in it as it is."""
    where: list[int | None] = [None] * len(a)
    for tag, i1, _i2, j1, j2 in SequenceMatcher(None, first, a, autojunk=False).get_opcodes():
        if tag == "equal":
            for k in range(j2 - j1):
                where[j1 + k] = i1 + k
    return where


def _rules(
    path: str, a: list[str], b: list[str], anchored: Callable[[int, int], bool] = lambda _lo, _hi: True
) -> list[tuple[int, int, str]] | None:
    """(first line, end line) of `a` and the replacement text of each widened changed run, each
    widened until its lines are `anchored` too (`anchored(first line, end line)`)."""
    blocks = [
        [i1, i2, j1, j2]
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        if tag != "equal"
    ]
    text = "".join(a).encode("utf-8")
    while True:
        found = [_unique(a, block, text, anchored) for block in blocks]
        widened = [block for block in found if block is not None]
        if len(widened) < len(found):
            return None
        merged: list[list[int]] = []
        for block in widened:
            if merged and block[0] <= merged[-1][1]:  # their lines touch: one rule over both
                merged[-1] = [merged[-1][0], max(merged[-1][1], block[1]), merged[-1][2], max(merged[-1][3], block[3])]
            else:
                merged.append(block)
        if merged == widened:
            break
        blocks = merged
    return [(lo, hi, "".join(b[jlo:jhi])) for lo, hi, jlo, jhi in widened]


def _unique(a: list[str], block: list[int], text: bytes, anchored: Callable[[int, int], bool]) -> list[int] | None:
    """The block widened by equal lines on both sides until its old lines stand once in the file
    and are `anchored`."""
    lo, hi, jlo, jhi = block
    while True:
        pattern = "".join(a[lo:hi])
        if (
            pattern.strip()
            and len(whole_line_occurrences(text, pattern.encode(), overlapping=True)) == 1
            and anchored(lo, hi)
        ):
            return [lo, hi, jlo, jhi]
        if lo == 0 and hi == len(a):
            return None
        if lo > 0:
            lo, jlo = lo - 1, jlo - 1
        if hi < len(a):
            hi, jhi = hi + 1, jhi + 1
