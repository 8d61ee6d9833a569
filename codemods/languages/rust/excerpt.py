"""A smaller file for rustfmt to judge an edited file by: the items around the edits, in their modules.

The planner asks rustfmt whether it leaves an edited file as the plan edited it (it nearly
always does: the plan cuts whole items and whole lines). rustfmt formats a file item by item:
an item's layout depends on the item itself, its nesting (the `mod`, `impl`, `trait` and
`extern` blocks around it), the blank lines and comments next to it, and, for `use`, `mod`
and `extern crate` declarations, the run of them it sorts with. So the excerpt holds, for
each edited place:

- the items it touches (or, where an item was cut, the items on each side of the cut), one
  more item on each side, and the comments and attributes that go with them; a run of `use`,
  `mod` or `extern crate` declarations whole;
- inside the blocks that hold them, written with their own first line and closing brace;
- the text around it exactly where it is the start or the end of its block or of the file
  (a blank line left after a `{` is rustfmt's to remove).

Windows of one block are joined by one blank line, which rustfmt leaves as it is. rustfmt
leaving the excerpt as it is means it leaves the edited places as they are (the rest of the
file is as it was read; where that was not rustfmt-clean, the planner keeps the edited text
anyway). Anything else, rustfmt changing the excerpt or failing on it, and the planner
formats the whole file as before. `excerpt` gives None where it cannot build one that says
as much (a syntax error, a `rustfmt::skip`, CRLF line endings, an item sharing its line with
another) or where it would not be much smaller than the file.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

import tree_sitter

from codemods.parse import RUST, reparse

# Items whose body is a block of items: the excerpt keeps their first line and closing brace.
_BLOCKS = frozenset({"mod_item", "impl_item", "trait_item", "foreign_mod_item"})
# Children of a block that go with the item after them (or after which they stand on its line).
_TRIVIA = frozenset({"line_comment", "block_comment", "attribute_item", "inner_attribute_item"})
# Declarations rustfmt sorts as a run.
_SORTED = frozenset({"use_declaration", "extern_crate_declaration"})
# An excerpt of more than this share of the file is not worth a separate rustfmt run.
_WORTH = 0.5


@dataclass
class _Block:
    """One block of the excerpt: its node (the file's root node, or a block item's
    `declaration_list`), the edited ranges at its level, and the children (by index) that are
    blocks holding edits of their own."""

    body: tree_sitter.Node
    ranges: list[tuple[int, int]] = field(default_factory=list)
    inner: dict[int, "_Block"] = field(default_factory=dict)


def excerpt(before: bytes, edits: list[tuple[int, int, bytes]], after: bytes) -> bytes | None:
    """The excerpt of `after` (`before` with `edits` (start, end, replacement) spliced in) that
    rustfmt leaves as it is only if it leaves the edited places as they are; None when there is none."""
    if not edits or b"\r" in after or b"rustfmt::skip" in after or b"rustfmt_skip" in after:
        return None
    ranges, at, placed = [], 0, 0
    for start, end, replacement in sorted(edits):
        kept = before[at:start]
        if start < at or after[placed : placed + len(kept)] != kept:
            return None  # the edits overlap, or do not make `after`: nothing to say about it
        placed += len(kept)
        if after[placed : placed + len(replacement)] != replacement:
            return None
        ranges.append((placed, placed + len(replacement)))
        placed += len(replacement)
        at = end
    if after[placed:] != before[at:]:
        return None
    tree = reparse(before, edits, after, RUST)
    root = tree.root_node
    if root.has_error:
        return None
    block = _Block(root)
    for a, b in ranges:
        _place(block, a, b)
    text = _render(after, block, top=True)
    if text is None or len(text) > _WORTH * len(after):
        return None
    return text


def _body(node: tree_sitter.Node) -> tree_sitter.Node | None:
    if node.type not in _BLOCKS:
        return None
    body = node.child_by_field_name("body")
    return body if body is not None and body.type == "declaration_list" else None


def _place(block: _Block, a: int, b: int) -> None:
    """File the range [a, b) in the innermost block whose inside (between its braces) holds it."""
    for index, child in enumerate(block.body.named_children):
        if child.start_byte <= a and b <= child.end_byte:
            body = _body(child)
            if body is not None and body.start_byte < a and b < body.end_byte:
                inner = block.inner.setdefault(index, _Block(body))
                _place(inner, a, b)
                return
            break
    block.ranges.append((a, b))


def _is_item(node: tree_sitter.Node) -> bool:
    return node.type not in _TRIVIA


def _back(children: list[tree_sitter.Node], index: int) -> int:
    """The item before child `index` (comments and attributes skipped), or -1."""
    index -= 1
    while index >= 0 and not _is_item(children[index]):
        index -= 1
    return index


def _forward(children: list[tree_sitter.Node], index: int) -> int:
    """The item after child `index` (comments and attributes skipped), or len(children)."""
    index += 1
    while index < len(children) and not _is_item(children[index]):
        index += 1
    return index


def _sorted_kind(node: tree_sitter.Node) -> bool:
    return node.type in _SORTED or (node.type == "mod_item" and node.child_by_field_name("body") is None)


def _window(children: list[tree_sitter.Node], starts: list[int], a: int, b: int) -> tuple[int, int]:
    """The children of a block the range [a, b) needs: those it touches and one more item on each
    side, or, where it touches none (a cut between two), the child on each side; with the
    comments and attributes before the first, a comment on the last one's line, and a run of
    sorted declarations whole."""
    touched = _touched(children, starts, a, b)
    if touched:
        # The items it touches and the one on each side.
        lo = max(_back(children, touched[0]), 0)
        hi = min(_forward(children, touched[-1]), len(children) - 1)
    else:
        # Between two children (a cut): the child on each side.
        after = bisect_left(starts, b)
        lo = max(after - 1, 0)
        hi = min(after, len(children) - 1)
        if not _is_item(children[hi]):
            hi = min(_forward(children, hi), len(children) - 1)  # a comment or attribute goes with its item
    while lo > 0 and not _is_item(children[lo - 1]):
        lo -= 1
    # A run of sorted declarations at either end goes in whole (with what stands between them).
    first = _forward(children, lo - 1)
    if first < len(children) and _sorted_kind(children[first]):
        while (before := _back(children, lo)) >= 0 and _sorted_kind(children[before]):
            lo = before
            while lo > 0 and not _is_item(children[lo - 1]):
                lo -= 1
    last = hi if _is_item(children[hi]) else _back(children, hi)
    if last >= 0 and _sorted_kind(children[last]):
        while (after := _forward(children, hi)) < len(children) and _sorted_kind(children[after]):
            hi = after
    if (
        hi + 1 < len(children)
        and not _is_item(children[hi + 1])
        and children[hi + 1].start_point[0] == children[hi].end_point[0]
    ):
        hi += 1  # a comment on the last item's line
    return lo, hi


def _touched(children: list[tree_sitter.Node], starts: list[int], a: int, b: int) -> list[int]:
    """The children (indices, in order) that overlap [a, b) (`starts`: their start offsets):
    children do not overlap, so those from the last that starts before `a` on, while they
    start before `b`."""
    index = max(bisect_right(starts, a) - 1, 0)
    found = []
    while index < len(children) and children[index].start_byte < b:
        if children[index].end_byte > a:
            found.append(index)
        index += 1
    return found


def _line_start(text: bytes, at: int) -> int | None:
    """The start of the line `at` is on, when only spaces stand before it there."""
    start = text.rfind(b"\n", 0, at) + 1
    return start if not text[start:at].strip(b" \t") else None


def _line_end(text: bytes, at: int) -> int | None:
    """Where the line `at` is on ends (before its newline), when only spaces follow `at` there."""
    end = text.find(b"\n", at)
    end = len(text) if end < 0 else end
    return end if not text[at:end].strip(b" \t") else None


def _render(text: bytes, block: _Block, top: bool) -> bytes | None:
    """The excerpt of one block (for a block item: from after its `{` to its `}`): its windows in
    order, one blank line apart; the text before the first and after the last exactly as it
    is where they are the block's first and last children."""
    children = list(block.body.named_children)
    opening = 0 if top else block.body.start_byte + 1
    closing = len(text) if top else block.body.end_byte
    if not children:
        return text[opening:closing]
    starts = [c.start_byte for c in children]
    touched = {i for a, b in block.ranges for i in _touched(children, starts, a, b)}
    windows: list[tuple[int, int]] = []
    spans = sorted([_window(children, starts, a, b) for a, b in block.ranges] + [(i, i) for i in block.inner])
    for lo, hi in spans:
        if windows and lo <= windows[-1][1] + 1:
            windows[-1] = (windows[-1][0], max(hi, windows[-1][1]))
        else:
            windows.append((lo, hi))
    parts, bounds = [], []
    for lo, hi in windows:
        start, end = _line_start(text, children[lo].start_byte), _line_end(text, children[hi].end_byte)
        if start is None or end is None:
            return None
        pieces, at = [], start
        for index in range(lo, hi + 1):
            child = children[index]
            if index in touched:
                continue  # as it is
            if index in block.inner:
                shown = _render_inner(text, child, block.inner[index])
            else:
                shown = _elided(text, child)
            if shown is None:
                return None
            pieces += [text[at : child.start_byte], shown]
            at = child.end_byte
        parts.append(b"".join(pieces) + text[at:end])
        bounds.append((start, end))
    if windows[0][0] == 0:
        head = text[opening : bounds[0][0]]
    else:
        head = b"" if top else b"\n"
    if windows[-1][1] == len(children) - 1:
        tail = text[bounds[-1][1] : closing]
    elif top:
        tail = b"\n"
    else:
        brace = _line_start(text, block.body.end_byte - 1)
        if brace is None:
            return None
        tail = b"\n" + text[brace:closing]
    return head + b"\n\n".join(parts) + tail


def _elided(text: bytes, item: tree_sitter.Node) -> bytes | None:
    """An item the edits do not touch, standing next to them: a block item with only its first
    item inside (rustfmt judges the braces and the blank lines around it the same way); any
    other item as it is."""
    body = _body(item)
    children = list(body.named_children) if body is not None else []
    first = _forward(children, -1)
    if body is None or first >= len(children) - 1:
        return text[item.start_byte : item.end_byte]
    end = _line_end(text, children[first].end_byte)
    brace = _line_start(text, body.end_byte - 1)
    if end is None or brace is None:
        return None
    return text[item.start_byte : end] + b"\n" + text[brace : item.end_byte]


def _render_inner(text: bytes, item: tree_sitter.Node, block: _Block) -> bytes | None:
    """A block item holding edits of its own: its text up to its opening brace, the excerpt of its
    body, its closing brace (and what follows it in the item)."""
    inside = _render(text, block, top=False)
    if inside is None:
        return None
    return text[item.start_byte : block.body.start_byte + 1] + inside + text[block.body.end_byte : item.end_byte]
