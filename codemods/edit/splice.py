"""Edits to bytes, without touching the disk: what the planner and the writer share.

`splice` turns a file's edits into its new bytes (call `conflicts` first to
refuse overlaps; `apply_edits` does both), `map_offset` maps an offset of the result back to the
source, `with_line_endings_of` makes inserted text use the file's line
ending, `resolve_inside` says which real file a planned path names, and
`FileChange` records what was read and what will be written.
"""

from __future__ import annotations

from collections.abc import Sequence
import os
from dataclasses import dataclass, replace
from pathlib import Path

from codemods.edit.codes import Code
from codemods.edit.errors import EditError
from codemods.edit.values import Edit, Finding, line_col


def digest(data: bytes) -> str:
    import hashlib  # here: `codemod check` and a dry run import this module but hash nothing

    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FileChange:
    """One file's planned change: the bytes read (and their hash), the bytes to write,
    and the edits that make the one from the other (for the diff; may be empty)."""

    path: str
    before: bytes
    after: bytes
    edits: tuple[Edit, ...] = ()
    deleted: bool = False  # the file is deleted (`after` is empty)

    @property
    def before_digest(self) -> str:
        return digest(self.before)

    @property
    def after_digest(self) -> str:
        return digest(self.after)


def conflicts(edits: list[Edit], source: bytes) -> list[Finding]:
    """Overlapping edits of one file, each reported naming both origins."""
    findings = []
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for first, second in zip(ordered, ordered[1:]):
        overlap = second.start < first.end
        same_point = first.start == first.end == second.start == second.end
        if overlap or same_point:
            line, col = line_col(source, second.start)
            findings.append(
                Finding(
                    first.path,
                    line,
                    col,
                    Code.OVERLAPPING_EDITS,
                    f"edits overlap: {first.origin or 'an edit'} and {second.origin or 'an edit'} change "
                    f"the same text; nothing written in this file",
                )
            )
    return findings


def joined_deletions(edits: list[Edit]) -> list[Edit]:
    """`edits` with each run of overlapping deletions (edits that replace text by nothing: an item
    deleted, a comment block dropped) made one deletion of their union: both remove the text they
    share, so they do not conflict; an edit lying inside such a deletion goes (its text goes with
    the deletion's). Other edits are left as they are, for `conflicts` to judge."""
    kept = [e for e in edits if e.replacement or e.start == e.end or e.delete_file]
    runs: list[Edit] = []
    for edit in sorted(
        (e for e in edits if not (e.replacement or e.start == e.end or e.delete_file)), key=lambda e: (e.start, e.end)
    ):
        last = runs[-1] if runs else None
        if last is not None and edit.start < last.end:
            origin = " and ".join(o for o in dict.fromkeys((last.origin, edit.origin)) if o)
            runs[-1] = replace(last, end=max(last.end, edit.end), origin=origin)
        else:
            runs.append(edit)
    # An edit whose text a deletion takes whole (a rename inside a deleted function) is moot.
    moot = [
        e
        for e in kept
        if not e.delete_file
        and any(
            run.start < e.start
            and e.end < run.end
            or run.start <= e.start < e.end <= run.end
            and (e.start, e.end) != (run.start, run.end)
            for run in runs
        )
    ]
    if moot:
        kept = [e for e in kept if e not in moot]
        return kept + runs
    return kept + runs if len(runs) < len(edits) - len(kept) else list(edits)


def splice(source: bytes, edits: list[Edit]) -> bytes:
    """Apply non-overlapping edits to `source` (call `conflicts` first)."""
    out = bytearray()
    cursor = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        out += source[cursor : edit.start]
        out += edit.replacement
        cursor = edit.end
    out += source[cursor:]
    return bytes(out)


def apply_edits(source: bytes, edits: list[Edit]) -> bytes:
    """`source` with `edits` (of one file, e.g. what `Rewrite.edits` returns) applied; EditError
    (a ValueError) naming both edits when two overlap, or for a source that is not bytes. The
    public form of `splice`."""
    if not isinstance(source, (bytes, bytearray)):
        raise EditError(f"the source must be the file's bytes (Path.read_bytes()), not {type(source).__name__}")
    overlaps = conflicts(list(edits), source)
    if overlaps:
        raise EditError("; ".join(f.render() for f in overlaps))
    return splice(source, list(edits))


def map_offset(edits: list[Edit], after_offset: int) -> int:
    """The offset in the original source of `after_offset` in the spliced result.

    An offset inside a replacement maps to that edit's start.
    """
    delta = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        new_start = edit.start + delta
        new_end = new_start + len(edit.replacement)
        if after_offset < new_start:
            break
        if after_offset < new_end:
            return edit.start
        delta += len(edit.replacement) - (edit.end - edit.start)
    return after_offset - delta


def line_ending(source: bytes) -> bytes:
    """The file's dominant line ending: CRLF if most of its line breaks are CRLF, else LF."""
    if b"\r" not in source:
        return b"\n"
    crlf = source.count(b"\r\n")
    return b"\r\n" if crlf > source.count(b"\n") - crlf else b"\n"


def _common_affixes(old: bytes, new: bytes) -> tuple[int, int]:
    """Lengths of the longest common prefix and (not overlapping it) suffix of `old` and `new`."""
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    if suffix and new[len(new) - suffix] == 0x0A and old[len(old) - suffix - 1 : len(old) - suffix] == b"\r":
        # The common suffix would split the old CRLF from the new bare LF: that LF is inserted.
        suffix -= 1
    return prefix, suffix


def edit_through(original: bytes, prior: Sequence[Edit], edit: Edit, edited: bytes | None = None) -> list[Edit] | None:
    """`edit`, made on the text `prior` edits leave of `original`, as edits of `original` that
    leave each prior edit whole: the part of its replacement that differs from the text it
    replaces, on the bytes of `original` that text came from (the first piece takes the new
    text, the others go; a deletion between them stays the prior edit's). None where that part
    would rewrite text a prior edit wrote. `edited` is that text where the caller has it."""
    ordered = sorted(prior, key=lambda e: (e.start, e.end))
    if edited is None:
        edited = splice(original, ordered)
    old = edited[edit.start : edit.end]
    prefix, suffix = _common_affixes(old, edit.replacement)
    start, end = edit.start + prefix, edit.end - suffix
    text = edit.replacement[prefix : len(edit.replacement) - suffix]
    if start == end and not text:
        return []
    # The edited text as runs: (start, end) in it, and the original offset of a run read from the
    # original (None: text a prior edit wrote).
    runs: list[tuple[int, int, int | None]] = []
    at_original = at_edited = 0
    for prior_edit in ordered:
        kept = prior_edit.start - at_original
        if kept > 0:
            runs.append((at_edited, at_edited + kept, at_original))
            at_edited += kept
        if prior_edit.replacement:
            runs.append((at_edited, at_edited + len(prior_edit.replacement), None))
            at_edited += len(prior_edit.replacement)
        at_original = prior_edit.end
    runs.append((at_edited, at_edited + len(original) - at_original, at_original))
    if start == end:
        if any(origin is None and low < start < high for low, high, origin in runs):
            return None
        low, origin = next((r[0], r[2]) for r in runs if r[2] is not None and r[0] <= start <= r[1])
        at = (origin or 0) + start - low
        return [replace(edit, start=at, end=at, replacement=text)]
    if any(origin is None and low < end and start < high for low, high, origin in runs):
        return None
    pieces = [
        (origin + max(start, low) - low, origin + min(end, high) - low)
        for low, high, origin in runs
        if origin is not None and low < end and start < high
    ]
    return [
        replace(edit, start=a, end=b, replacement=text if index == 0 else b"") for index, (a, b) in enumerate(pieces)
    ]


def with_line_endings_of(source: bytes, edits: list[Edit]) -> list[Edit]:
    """`edits` with the bare LFs they insert turned into CRLF when `source` is mostly CRLF.

    Only the text an edit really inserts is touched: the part of its
    replacement that differs from the bytes it replaces (so a whole-file
    rewrite keeps every untouched line, whatever its ending). Files that are
    mostly LF are left as they are.
    """
    if line_ending(source) != b"\r\n":
        return list(edits)
    adjusted = []
    for edit in edits:
        old = source[edit.start : edit.end]
        prefix, suffix = _common_affixes(old, edit.replacement)
        middle = edit.replacement[prefix : len(edit.replacement) - suffix]
        if b"\n" not in middle:
            adjusted.append(edit)
            continue
        previous = edit.replacement[prefix - 1 : prefix] if prefix else source[edit.start - 1 : edit.start]
        converted = bytearray()
        for byte in middle:
            if byte == 0x0A and previous != b"\r":
                converted += b"\r"
            converted.append(byte)
            previous = bytes((byte,))
        replacement = edit.replacement[:prefix] + bytes(converted) + edit.replacement[len(edit.replacement) - suffix :]
        adjusted.append(replace(edit, replacement=replacement))
    return adjusted


def resolve_inside(root: Path, path: str) -> Path | None:
    """The real file `path` (relative to `root`) names, following symlinks; None if outside `root`."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, path))
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        return None
    return Path(real)


__all__ = [
    "FileChange",
    "apply_edits",
    "conflicts",
    "digest",
    "line_ending",
    "map_offset",
    "resolve_inside",
    "splice",
    "with_line_endings_of",
]
