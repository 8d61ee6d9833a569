"""What a change does beyond its deletions, as `[[rewrite]]`, `[[reword]]` and `[[insert]]` rules.

The two texts of a file (as the planned deletions leave it, and as the change left it)
are compared token by token, whitespace aside. A run of changed code tokens becomes a
rewrite of the smallest node that holds it and that a literal pattern finds only
there; the parts of that node the change kept are then generalised to metavariables
(`transpose(a)` -> `a.transpose()` becomes `transpose($X)` -> `$X.transpose()`), kept
only where the general pattern still matches nothing the change left alone. A run of
changed comment tokens becomes a rewording; whole lines added before or after an item,
an insertion. Where indentation is syntax (Python), a rule's lines are written relative to its
first line's, the replacement laid out as the change left it (`_new_layout`), and several whole
statements deleted side by side that no one node holds are one rewrite to nothing each.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from dataclasses import dataclass

import tree_sitter

from codemods.core.registry import LANGUAGES
from codemods.edit.errors import PatternError
from codemods.pattern import Pattern, Rewrite
from codemods.parse import parse
from codemods.plan.infer.tokens import Change, Token, line_of, token_changes, token_lines, tokens

_MARKERS = re.compile(r"^\s*(?://[/!]?|/\*+!?|\*+/?|#)\s?")
# What may stand between a comment block and the item it documents: blanks and attributes.
_ATTRIBUTES_ONLY = re.compile(rb"(?:\s|#!?\[[^\n]*\])*")
_LINE_MARKER = re.compile(rb"//[/!]?")
_META_NAMES = ("X", "Y", "Z", "A", "B", "C", "D", "E", "F", "G", "H")


@dataclass(frozen=True)
class RewriteRule:
    path: str
    language: str
    pattern: str
    replace: str
    item: str | None = None


@dataclass(frozen=True)
class RewordRule:
    path: str
    find: str
    replace: str
    block: bool = False
    item: str | None = None


@dataclass(frozen=True)
class InsertRule:
    path: str
    item: str
    text: str
    position: str = "before"


Rule = RewriteRule | RewordRule | InsertRule


@dataclass
class _Unit:
    """A node of the old text, the changes inside it, and the item (start, end, name) a literal
    pattern of it must be looked for in to find it alone (None: the whole file)."""

    node: tree_sitter.Node
    changes: list[Change]
    item: tuple[int, int, str] | None = None


class FileResidue:
    """The rules that turn `old` (a file as the deletions leave it) into `new`, for one file."""

    def __init__(
        self,
        path: str,
        language: str,
        old: bytes,
        new: bytes,
        items: list[tuple[int, int, str]],
        items_gone: tuple[tuple[int, int, str], ...] = (),
    ) -> None:
        self.path, self.language, self.old, self.new = path, language, old, new
        self.indented = LANGUAGES[language].indented_blocks
        self.r, self.a = tokens(old, language), tokens(new, language)
        self.changes: list[Change] = []
        self.tree = parse(old, language)
        names = Counter(name for _, _, name in items)
        self.items = [i for i in items if names[i[2]] == 1]  # the items a name selects alone
        self.item_starts = {start: name for start, _, name in reversed(self.items)}
        self.item_ends = {end: name for _, end, name in self.items}
        self.items_gone = list(items_gone)
        self.rules: list[Rule] = []
        # (general rule, literal rule, the unit's range, the item its rules are scoped to)
        self.generic: list[tuple[RewriteRule, RewriteRule, tuple[int, int], tuple[int, int, str] | None]] = []
        self.notes: list[str] = []
        self._old_blocks: list[tuple[list[Token], str]] | None = None

    def infer(self) -> None:
        changes = [
            self._slid(c)
            for c in token_changes(
                [t.text for t in self.r],
                [t.text for t in self.a],
                token_lines(self.old, self.r),
                token_lines(self.new, self.a),
            )
        ]
        self.changes = changes
        code: list[Change] = []
        comments: list[Change] = []
        for change in changes:
            involved = self.r[change.r_lo : change.r_hi] + self.a[change.a_lo : change.a_hi]
            if all(t.comment for t in involved) and change.r_hi > change.r_lo:
                comments.append(change)
            elif not self._insertion(change):
                code.append(change)
        units = self._units(code)
        for change in comments:
            lo, hi = self._span(change)
            holder = next((u for u in units if u.node.start_byte <= lo and hi <= u.node.end_byte), None)
            if holder is not None:  # a comment inside rewritten code goes with the rewrite
                holder.changes.append(change)
            else:
                self._reword(change)
        for unit in units:
            self._rewrite(unit)

    def _slid(self, change: Change) -> Change:
        """A pure deletion or insertion moved back over the tokens it repeats, to start a line
        where it can (`"a.h" #include` deleted is `#include "a.h"` deleted)."""
        if (change.r_lo == change.r_hi) == (change.a_lo == change.a_hi):
            return change
        deleting = change.r_lo < change.r_hi
        texts, source = (self.r, self.old) if deleting else (self.a, self.new)
        lo, hi = (change.r_lo, change.r_hi) if deleting else (change.a_lo, change.a_hi)
        for back in range(0, hi - lo):
            if back and not (lo - back >= 0 and texts[lo - back].text == texts[hi - back].text):
                break
            if self._line_start(source, texts[lo - back].start):
                if deleting:
                    return Change(lo - back, hi - back, change.a_lo - back, change.a_hi - back)
                return Change(change.r_lo - back, change.r_hi - back, lo - back, hi - back)
        return change

    # -- insertions ---------------------------------------------------------------------------

    def _line_start(self, source: bytes, offset: int) -> bool:
        before = source[source.rfind(b"\n", 0, offset) + 1 : offset]
        return not before.strip()

    def _insertion(self, change: Change) -> bool:
        """Whole lines added before or after an item: an `[[insert]]` (True when one was made)."""
        if change.r_lo != change.r_hi or change.a_lo == change.a_hi:
            return False
        first, last = self.a[change.a_lo], self.a[change.a_hi - 1]
        following = self.a[change.a_hi] if change.a_hi < len(self.a) else None
        if not self._line_start(self.new, first.start):
            return False
        if following is not None and not self._line_start(self.new, following.start):
            return False
        line_start = self.new.rfind(b"\n", 0, first.start) + 1
        line_end = self.new.find(b"\n", last.end)
        text = textwrap.dedent(self.new[line_start : len(self.new) if line_end < 0 else line_end].decode())
        at = self.r[change.r_lo].start if change.r_lo < len(self.r) else len(self.old)
        if change.r_lo < len(self.r) and at in self.item_starts:
            self.rules.append(InsertRule(self.path, self.item_starts[at], text.rstrip("\n")))
            return True
        end = self.r[change.r_lo - 1].end if change.r_lo > 0 else -1
        if end in self.item_ends:
            self.rules.append(InsertRule(self.path, self.item_ends[end], text.rstrip("\n"), "after"))
            return True
        return False

    # -- rewordings -----------------------------------------------------------------------------

    @staticmethod
    def _prose(source: bytes, comments: list[Token]) -> str:
        lines = []
        for token in comments:
            for line in source[token.start : token.end].decode("utf-8", "replace").splitlines():
                stripped = _MARKERS.sub("", line).removesuffix("*/").strip()
                if stripped:
                    lines.append(stripped)
        return " ".join(lines)

    def _blocks(self, source: bytes, found: list[Token]) -> list[list[Token]]:
        """The comment blocks of `found`, as the rewording rules read them: runs of line comments
        with the same marker (`//`, `///`, `//!`) on consecutive lines at the same indentation; a
        block comment alone."""
        blocks: list[list[Token]] = []
        previous: tuple[bytes, bytes] | None = None  # the last line comment's marker and indentation
        for token in found:
            if not token.comment:
                previous = None
                continue
            text = source[token.start : token.end]
            marker = _LINE_MARKER.match(text)
            line_start = source.rfind(b"\n", 0, token.start) + 1
            key = (marker.group(0), source[line_start : token.start]) if marker is not None else None
            if (
                key is not None
                and previous == key
                and blocks
                and source.count(b"\n", blocks[-1][-1].end, token.start) <= 1
                and not source[blocks[-1][-1].end : token.start].strip()
            ):
                blocks[-1].append(token)
            else:
                blocks.append([token])
            previous = key
        return blocks

    def _reword(self, change: Change) -> None:
        removed, added = self.r[change.r_lo : change.r_hi], self.a[change.a_lo : change.a_hi]
        if self._old_blocks is None:
            self._old_blocks = [(b, self._prose(self.old, b)) for b in self._blocks(self.old, self.r)]
        all_blocks = self._old_blocks
        gone = {t.start for t in removed}
        # Whole blocks removed: each block the change touches lies in it entirely.
        whole = not added and all(
            all(t.start in gone for t in b) for b, _ in all_blocks if any(t.start in gone for t in b)
        )
        removed_blocks = self._blocks(self.old, removed) if whole else [removed]
        for block in removed_blocks:
            line = line_of(self.old, block[0].start)
            find = self._prose(self.old, block)
            if not find:
                self.notes.append(f"{self.path}:{line}: an empty comment changed; not expressible as a rewording")
                continue
            holder = next(b for b, _ in all_blocks if b[0].start <= block[0].start <= b[-1].start)
            if whole:
                # The shortest run of the block's first lines that no other block holds (in the
                # file, else in the innermost item around it).
                for count in range(1, len(block) + 1):
                    head = self._prose(self.old, block[:count])
                    if head and self._scope(head, holder, all_blocks) is not False:
                        find = head
                        break
                replace = ""
            elif (
                not added
                and not self._prose(self.old, removed[:1])
                and self._prose(self.old, removed)
                and self._paragraph_ends(holder, removed[-1])
            ):
                # A blank comment line and the paragraph after it dropped: that paragraph reworded
                # to nothing (it goes with the blank line).
                find, replace = self._prose(self.old, removed), ""
            elif not added:
                # Lines dropped from a block: the block reworded to what stays (a phrase reworded
                # to nothing would leave its comment line behind, empty).
                stays = [t for t in holder if t.start not in gone]
                find, replace = self._prose(self.old, holder), self._prose(self.old, stays)
            else:
                replace = self._prose(self.new, added)
            scope = self._scope(find, holder, all_blocks)
            if scope is False:
                self.notes.append(
                    f"{self.path}:{line}: a comment whose text other comments of the file repeat "
                    f"changed; no rewording names it alone"
                )
                continue
            self.rules.append(
                RewordRule(self.path, find, replace, block=whole, item=scope if isinstance(scope, str) else None)
            )

    def _paragraph_ends(self, holder: list[Token], last: Token) -> bool:
        """Whether the comment line `last` of the block `holder` ends a paragraph: the block's last
        line, or one before a blank comment line."""
        after = [t for t in holder if t.start > last.start]
        return not after or not self._prose(self.old, after[:1])

    def _scope(self, find: str, holder: list[Token], blocks: list[tuple[list[Token], str]]) -> str | bool | None:
        """Where `find` names the comment block `holder` alone: None, in the file; else the name
        of the innermost item around the block (the comments right above it included) where it
        does; False where no item does either."""

        def holding(group: list[tuple[list[Token], str]]) -> int:
            return sum(find in prose for _, prose in group)

        if holding(blocks) == 1:
            return None
        for start, end, name in sorted(self.items, key=lambda i: i[1] - i[0]):
            inside = [
                (b, p)
                for b, p in blocks
                if start <= b[0].start
                and b[-1].end <= end
                or b[-1].end <= start
                and _ATTRIBUTES_ONLY.fullmatch(self.old[b[-1].end : start]) is not None
            ]
            if any(b is holder for b, _ in inside) and holding(inside) == 1:
                return name
        return False

    # -- rewrites -------------------------------------------------------------------------------

    def _leading(self, change: Change) -> bool:
        """Whether a pure insertion is of whole lines before a token that starts its line (it
        then goes with the code after it)."""
        return (
            change.r_lo == change.r_hi
            and change.r_lo < len(self.r)
            and change.a_hi < len(self.a)
            and self._line_start(self.old, self.r[change.r_lo].start)
            and self._line_start(self.new, self.a[change.a_lo].start)
            and self._line_start(self.new, self.a[change.a_hi].start)
        )

    def _inserted(self, change: Change) -> tuple[int, bytes]:
        """Where a pure insertion goes in the old text, and what it inserts (with its blanks)."""
        if self._leading(change) or change.r_lo == 0:
            end = self.a[change.a_hi].start if change.a_hi < len(self.a) else len(self.new)
            point = self.r[change.r_lo].start if change.r_lo < len(self.r) else len(self.old)
            return point, self.new[self.a[change.a_lo].start : end]
        return self.r[change.r_lo - 1].end, self.new[self.a[change.a_lo - 1].end : self.a[change.a_hi - 1].end]

    def _span(self, change: Change) -> tuple[int, int]:
        """The old text's bytes a change covers (with a neighbour or two, for a pure insertion)."""
        if change.r_lo < change.r_hi:
            return self.r[change.r_lo].start, self.r[change.r_hi - 1].end
        if self._leading(change):
            return self.r[change.r_lo].start, self.r[change.r_lo].end
        lo = self.r[change.r_lo - 1].start if change.r_lo > 0 else 0
        hi = self.r[change.r_lo].end if change.r_lo < len(self.r) else len(self.old)
        return lo, hi

    def _touched(self, change: Change) -> tuple[int, int]:
        """The old text's bytes a change replaces ([p, p) for an insertion at p)."""
        if change.r_lo < change.r_hi:
            return self.r[change.r_lo].start, self.r[change.r_hi - 1].end
        point = self._inserted(change)[0]
        return point, point

    def _literal_unit(self, lo: int, hi: int) -> tuple[tree_sitter.Node, tuple[int, int, str] | None] | None:
        """The smallest named node holding [lo, hi) whose text, as a pattern, matches only it: in
        the file, or else in the innermost item around it (returned with it)."""
        node: tree_sitter.Node | None = self.tree.root_node.named_descendant_for_byte_range(lo, hi)
        while node is not None and node.parent is not None:
            text = self.old[node.start_byte : node.end_byte].decode("utf-8", "replace")
            if self.indented:  # later lines relative to the first's, as a pattern is written
                text = _dedent(text, self._indent(node.start_byte))
            # One token is a pattern only as a name (a rename); a lone literal or operator is no rule
            # a person would keep.
            readable = (
                len(tokens(text.encode(), self.language)) > 1
                or re.fullmatch(r"[A-Za-z_]\w*", text) is not None
                or self.indented
                and node.type in LANGUAGES[self.language].string_kinds
                and len(text.split()) > 2
            )
            if node.is_named and node.start_byte <= lo and node.end_byte >= hi and node.type != "ERROR" and readable:
                try:
                    found = [(m.start, m.end) for m in Pattern(text, self.language).find_all(self.old)]
                except PatternError:
                    found = []
                here = (node.start_byte, node.end_byte)
                if found == [here]:
                    return node, None
                item = self._item_around(node)
                if item is not None and [f for f in found if item[0] <= f[0] and f[1] <= item[1]] == [here]:
                    return node, item
            node = node.parent
        return None

    def _item_around(self, node: tree_sitter.Node) -> tuple[int, int, str] | None:
        around = [
            i
            for i in self.items
            if i[0] <= node.start_byte and node.end_byte <= i[1] and (i[0], i[1]) != (node.start_byte, node.end_byte)
        ]
        return min(around, key=lambda i: i[1] - i[0], default=None)

    def _units(self, changes: list[Change]) -> list[_Unit]:
        units: list[_Unit] = []
        pending = list(changes)
        while pending:
            change = pending.pop(0)
            lo, hi = self._span(change)
            merged = [u for u in units if u.node.start_byte < hi and lo < u.node.end_byte]
            group = [change] + [c for u in merged for c in u.changes]
            while True:
                spans = [self._span(c) for c in group]
                lo, hi = min(s[0] for s in spans), max(s[1] for s in spans)
                found = self._literal_unit(lo, hi)
                pieces = self._by_statement(change) if found is None and group == [change] else []
                if pieces:  # whole statements deleted, side by side: each a rewrite to nothing
                    self.changes = [p for c in self.changes for p in (pieces if c == change else [c])]
                    pending[:0] = pieces
                    break
                if found is None:
                    self.notes.append(f"{self.path}:{line_of(self.old, lo)}: {self._unfound(spans)}; edit by hand")
                    units = [u for u in units if u not in merged]
                    break
                node, item = found
                units = [u for u in units if u not in merged]
                overlapping = [
                    u for u in units if u.node.start_byte < node.end_byte and node.start_byte < u.node.end_byte
                ]
                if not overlapping:
                    units.append(_Unit(node, sorted(group, key=lambda c: c.r_lo), item))
                    break
                merged = overlapping
                group = group + [c for u in overlapping for c in u.changes]
        return sorted(units, key=lambda u: u.node.start_byte)

    def _by_statement(self, change: Change) -> list[Change]:
        """A deletion of several whole sibling nodes (statements, `import` lines) that no one node
        holds, split into one deletion per node; [] where it is not that (a comment among them:
        it goes with no statement)."""
        if change.a_lo != change.a_hi or change.r_hi - change.r_lo < 2:
            return []
        lo, hi = self._span(change)
        parent = self.tree.root_node.named_descendant_for_byte_range(lo, hi)
        if parent is None or (parent.start_byte, parent.end_byte) == (lo, hi):
            return []
        kids = [k for k in parent.named_children if k.start_byte < hi and lo < k.end_byte]
        if len(kids) < 2 or any(
            k.type in ("comment", "line_comment", "block_comment") or k.start_byte < lo or hi < k.end_byte for k in kids
        ):
            return []
        pieces: list[Change] = []
        for kid in kids:
            inside = [i for i in range(change.r_lo, change.r_hi) if kid.start_byte <= self.r[i].start < kid.end_byte]
            if not inside:
                return []
            pieces.append(Change(inside[0], inside[-1] + 1, change.a_lo, change.a_lo))
        if sum(p.r_hi - p.r_lo for p in pieces) != change.r_hi - change.r_lo:
            return []  # a token between them (a separator) belongs to none
        return pieces

    def _unfound(self, spans: list[tuple[int, int]]) -> str:
        """Why no pattern finds the code of the changes at `spans` alone."""
        for lo, hi in spans:
            node: tree_sitter.Node | None = self.tree.root_node.descendant_for_byte_range(lo, hi)
            while node is not None:
                if node.type.startswith("preproc_"):
                    return "a preprocessor line changed (`#include`, `#define`, ...), which no pattern matches"
                node = node.parent
        return "code changed where no pattern finds it alone"

    def _new_text(self, unit: _Unit) -> tuple[str, list[Token]]:
        """The unit's text after the change, and the new text's tokens in it. Where indentation is
        syntax, the new file's own text of it, its later lines relative to its first's."""
        if self.indented:
            return self._new_layout(unit)
        start, end = unit.node.start_byte, unit.node.end_byte
        out = self.old[start:end]
        for change in sorted(unit.changes, key=lambda c: c.r_lo, reverse=True):
            if change.r_lo < change.r_hi:
                r_from, r_to = self.r[change.r_lo].start, self.r[change.r_hi - 1].end
                added = (
                    self.new[self.a[change.a_lo].start : self.a[change.a_hi - 1].end]
                    if change.a_lo < change.a_hi
                    else b""
                )
                # The blanks between the changed run and the kept tokens next to it (inside the
                # unit) are the new text's: `f(x)` -> `match x {..}` keeps the blank after `match`.
                left = change.r_lo > 0 and change.a_lo > 0 and self.r[change.r_lo - 1].end >= start
                right = change.r_hi < len(self.r) and change.a_hi < len(self.a) and self.r[change.r_hi].start <= end
                if change.a_lo < change.a_hi and (left or right):
                    a_from, a_to = self.a[change.a_lo].start, self.a[change.a_hi - 1].end
                    if left:
                        r_from, a_from = self.r[change.r_lo - 1].end, self.a[change.a_lo - 1].end
                    if right:
                        r_to, a_to = self.r[change.r_hi].start, self.a[change.a_hi].start
                    added = self.new[a_from:a_to]
            else:
                r_from, added = self._inserted(change)
                r_to = r_from
            out = out[: r_from - start] + added + out[r_to - start :]
        return out.decode("utf-8", "replace"), tokens(out, self.language)

    def _new_layout(self, unit: _Unit) -> tuple[str, list[Token]]:
        """The new file's text of the tokens the unit's node becomes, as the change laid it out."""
        first = next(i for i, t in enumerate(self.r) if t.start >= unit.node.start_byte)
        after = next((i for i, t in enumerate(self.r) if t.start >= unit.node.end_byte), len(self.r))
        own = set(map(id, unit.changes))

        def shift(change: Change) -> int:
            return (change.a_hi - change.a_lo) - (change.r_hi - change.r_lo)

        lo = first + sum(
            shift(c) for c in self.changes if c.r_hi <= first and not (id(c) in own and c.r_lo == c.r_hi == first)
        )
        hi = after + sum(
            shift(c) for c in self.changes if c.r_hi <= after and not (id(c) not in own and c.r_lo == c.r_hi == after)
        )
        if hi <= lo:
            return "", []
        start = self.a[lo].start
        text = _dedent(
            self.new[start : self.a[hi - 1].end].decode("utf-8", "replace"), self._line_indent(self.new, start)
        )
        return text, tokens(text.encode(), self.language)

    @staticmethod
    def _line_indent(source: bytes, offset: int) -> str:
        line = source[source.rfind(b"\n", 0, offset) + 1 : offset].decode("utf-8", "replace")
        return line[: len(line) - len(line.lstrip())]

    def _indent(self, offset: int) -> str:
        line = self.old[self.old.rfind(b"\n", 0, offset) + 1 : offset].decode("utf-8", "replace")
        return line[: len(line) - len(line.lstrip())]

    def _rewrite(self, unit: _Unit) -> None:
        node = unit.node
        held = [what for start, end, what in self.items_gone if node.start_byte <= start and end <= node.end_byte]
        if held:  # a whole item removed goes through `[[delete]]`, never a rewrite of its text
            self.notes.append(
                f"{self.path}:{line_of(self.old, node.start_byte)}: the {held[0]} is gone, and no "
                f"plan deletes it; not rewritten as text"
            )
            return
        pattern = self.old[node.start_byte : node.end_byte].decode("utf-8", "replace")
        replace, new_tokens = self._new_text(unit)
        indent = self._indent(node.start_byte)
        item = unit.item[2] if unit.item else None
        literal = next(
            (
                rule
                for p, r in self._layouts(pattern, replace, indent)
                if self._reproduces(rule := RewriteRule(self.path, self.language, p, r, item), node, new_tokens)
            ),
            None,
        )
        if literal is None:
            self.notes.append(
                f"{self.path}:{line_of(self.old, node.start_byte)}: code changed where its own "
                f"text, as a pattern, does not match it (comments or macros in it); edit by hand"
            )
            return
        general = self._generalised(unit, replace, new_tokens, indent)
        self.generic.append((general or literal, literal, (node.start_byte, node.end_byte), unit.item))

    def _reproduces(self, rule: RewriteRule, node: tree_sitter.Node, new_tokens: list[Token]) -> bool:
        try:
            pattern = Pattern(rule.pattern, self.language)
            if self.indented:
                # The text the rewrite puts there, laid out at the match's depth (a string's lines too).
                made = [
                    e.replacement
                    for e in Rewrite(pattern, rule.replace).edits(self.path, self.old)
                    if e.start <= node.start_byte and node.end_byte <= e.end
                ]
                return len(made) == 1 and [t.text for t in tokens(made[0], self.language)] == [
                    t.text for t in new_tokens
                ]
            found = [m for m in pattern.find_all(self.old) if (m.start, m.end) == (node.start_byte, node.end_byte)]
            return bool(found) and [t.text for t in tokens(found[0].expand(rule.replace).encode(), self.language)] == [
                t.text for t in new_tokens
            ]
        except PatternError:
            return False

    def _generalised(self, unit: _Unit, replace: str, new_tokens: list[Token], indent: str) -> RewriteRule | None:
        """The unit's rewrite with the parts the change kept as metavariables, or None."""
        node = unit.node
        changed = [self._touched(c) for c in unit.changes]
        new_texts = [t.text for t in new_tokens]
        chosen: list[tuple[tree_sitter.Node, int, int]] = []  # node, its tokens' place in new_tokens
        candidates = sorted(
            (d for d in _named_descendants(node) if d is not node), key=lambda d: d.start_byte - d.end_byte
        )
        for candidate in candidates:
            lo, hi = candidate.start_byte, candidate.end_byte
            if any(lo < c_hi and c_lo < hi if c_lo < c_hi else lo < c_lo < hi for c_lo, c_hi in changed) or any(
                lo < c.end_byte and c.start_byte < hi for c, _, _ in chosen
            ):
                continue
            texts = [t.text for t in tokens(self.old[lo:hi], self.language)]
            if len(texts) < 3:
                continue  # a name or a literal reads better as itself
            places = [i for i in range(len(new_texts) - len(texts) + 1) if new_texts[i : i + len(texts)] == texts]
            if len(places) != 1 or any(places[0] < e and s < places[0] + len(texts) for _, s, e in chosen):
                continue
            chosen.append((candidate, places[0], places[0] + len(texts)))
            if len(chosen) == len(_META_NAMES):
                break
        if not chosen:
            return None
        pattern = self.old[node.start_byte : node.end_byte]
        replacement = replace.encode()
        base = new_tokens[0].start if new_tokens else 0
        in_old = sorted(((c.start_byte, c.end_byte, i) for i, (c, _, _) in enumerate(chosen)), reverse=True)
        for start, end, i in in_old:
            pattern = (
                pattern[: start - node.start_byte] + f"${_META_NAMES[i]}".encode() + pattern[end - node.start_byte :]
            )
        in_new = sorted(
            ((new_tokens[s].start - base, new_tokens[e - 1].end - base, i) for i, (_, s, e) in enumerate(chosen)),
            reverse=True,
        )
        replacement = replacement[base:] if base else replacement
        for start, end, i in in_new:
            replacement = replacement[:start] + f"${_META_NAMES[i]}".encode() + replacement[end:]
        for p, r in self._layouts(pattern.decode("utf-8", "replace"), replacement.decode("utf-8", "replace"), indent):
            rule = RewriteRule(self.path, self.language, p, r, unit.item[2] if unit.item else None)
            if self._reproduces(rule, node, new_tokens):
                return rule
        return None

    def _layouts(self, pattern: str, replace: str, indent: str) -> list[tuple[str, str]]:
        """The ways to write a rule's pattern and replacement, the more readable first: on one line
        where they fit, else their later lines relative to the match's line. Where indentation is
        syntax, lines stay lines: the replacement is relative already (`_new_layout`)."""
        if self.indented:
            return [
                (
                    _dedent(pattern, indent) if "\n" in pattern else _spaced(pattern),
                    replace if "\n" in replace else _spaced(replace),
                )
            ]
        return [(_tidy(pattern, indent), _tidy(replace, indent)), (_dedent(pattern, indent), _dedent(replace, indent))]


def _named_descendants(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(c for c in current.named_children if c.type not in ("line_comment", "block_comment", "comment"))
    return out


def _dedent(text: str, indent: str) -> str:
    """Lines after the first relative to the match's line (as a rule's replacement is written)."""
    lines = text.split("\n")
    return "\n".join([lines[0], *(line[len(indent) :] if line.startswith(indent) else line for line in lines[1:])])


def _tidy(text: str, indent: str) -> str:
    """The text on one line where it fits in 100 columns (the formatter lays it out again)."""
    if "//" in text:
        return text
    if "\n" not in text:
        return _spaced(text)
    pieces = [line.strip() for line in text.split("\n")]
    out = pieces[0]
    for piece in pieces[1:]:
        if not piece:
            continue
        glue = (
            "" if out.endswith(("(", "[", "{", "<")) or piece.startswith((")", "]", ".", "?", ",", ";", ">")) else " "
        )
        out += glue + piece
    out = re.sub(r",\s*([)\]])", r"\1", out)
    return _spaced(out) if len(out) <= 100 else _dedent(text, indent)


def _spaced(text: str) -> str:
    """No blank inside brackets (`f( x)` -> `f(x)`), as an edit that dropped an argument leaves it."""
    return re.sub(r"[ \t]+([)\]])", r"\1", re.sub(r"([(\[])[ \t]+", r"\1", text))
