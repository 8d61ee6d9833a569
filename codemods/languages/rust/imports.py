"""Rust `use` entries a plan leaves pointing at nothing or used by nothing, and their removal.

A `use` declaration is a tree of entries (`a::{b, c::{self, d as e}}`); each
leaf entry binds one name. After a plan, an entry goes when

- its path names a deleted item (the resolver's definite references inside
  the declaration: `use crate::util::transpose` once `mod util` is deleted), or
- it is private and its name was used in the file's code before the plan and
  is used nowhere in it after (the plan deleted or rewrote every use). A name
  the file never spelt (a trait imported for its methods) is left alone.

The declaration is reshaped as rustfmt would: an entry alone on its line goes
with its line, one sharing a line goes with its comma, a group left with one
entry loses its braces (`a::{b}` is `a::b`, `a::{self}` is `a`), and a
declaration left with no entry goes with its lines.
"""

from __future__ import annotations

import re

from bisect import bisect_right
from dataclasses import dataclass
from typing import Callable

import tree_sitter

from codemods.edit.item_spans import whole_lines
from codemods.edit.splice import splice
from codemods.edit.values import Edit
from codemods.languages.rust.items import leading_trivia
from codemods.parse import RUST, node_text, parse, reparse
from codemods.words import keyword_offsets, whole_word_hits

# Leaf entries of a use tree: each binds one name.
_LEAVES = ("identifier", "scoped_identifier", "use_as_clause", "self", "crate", "super", "metavariable")
# Identifiers that name something in code (field and method names are not uses of an import).
_NAME_NODES = ("identifier", "type_identifier")


@dataclass(frozen=True)
class UseEntry:
    """One leaf of a `use` tree: its node, the declaration holding it and the name it binds."""

    node: tree_sitter.Node
    declaration: tree_sitter.Node
    binding: str | None

    @property
    def public(self) -> bool:
        return any(c.type == "visibility_modifier" for c in self.declaration.children)


def _binding(leaf: tree_sitter.Node) -> str | None:
    """The name a leaf entry brings into scope (None: `_`, or nothing nameable)."""
    if leaf.type == "use_as_clause":
        alias = node_text(leaf.child_by_field_name("alias"))
        return None if alias == "_" else alias
    if leaf.type == "identifier":
        return node_text(leaf)
    if leaf.type == "scoped_identifier":
        name = leaf.child_by_field_name("name")
        if name is not None and name.type == "self":
            path = leaf.child_by_field_name("path")
            return _binding(path) if path is not None else None
        return node_text(name)
    if leaf.type == "self" and leaf.parent is not None and leaf.parent.type == "use_list":
        owner = leaf.parent.parent
        if owner is not None and owner.type == "scoped_use_list":
            path = owner.child_by_field_name("path")
            return _binding(path) if path is not None else None
    return None


def use_declarations(tree: tree_sitter.Tree) -> list[tree_sitter.Node]:
    """The `use` declarations of a file in source order, found where the source spells `use` (the
    keyword is a child of each; nested ones cannot occur): a query walks every node, and a
    file has a few dozen `use`s among hundreds of thousands of nodes."""
    root = tree.root_node
    base = root.start_byte  # the root starts at the file's first token, after leading blank lines
    found = []
    for start in keyword_offsets(root.text or b"", b"use"):
        node = root.descendant_for_byte_range(base + start, base + start + 3)
        if (
            node is not None
            and node.type == "use"
            and node.parent is not None
            and node.parent.type == "use_declaration"
        ):
            found.append(node.parent)
    return found


def use_entries(tree: tree_sitter.Tree) -> list[UseEntry]:
    """Every leaf entry of every `use` declaration of a file (any depth: modules, functions)."""
    found: list[UseEntry] = []

    def leaves(node: tree_sitter.Node, declaration: tree_sitter.Node) -> None:
        if node.type == "use_list":
            for child in node.named_children:
                leaves(child, declaration)
        elif node.type == "scoped_use_list":
            inner = node.child_by_field_name("list")
            if inner is not None:
                leaves(inner, declaration)
        elif node.type in _LEAVES:
            found.append(UseEntry(node, declaration, _binding(node)))

    for node in use_declarations(tree):
        argument = node.child_by_field_name("argument")
        if argument is not None:
            leaves(argument, node)
    return found


def name_uses(tree: tree_sitter.Tree, names: set[str], through_paths: bool = True) -> dict[str, int]:
    """How often each of `names` is spelt in the file's code outside `use` declarations
    (`name_use_offsets`)."""
    counts = dict.fromkeys(names, 0)
    for _, name in name_use_offsets(tree, names, through_paths):
        counts[name] += 1
    return counts


def name_use_offsets(tree: tree_sitter.Tree, names: set[str], through_paths: bool = True) -> list[tuple[int, str]]:
    """(offset in the file, name) of each place one of `names` is spelt in the file's code
    outside `use` declarations (macro bodies included; field and method names are not uses).

    Only the places where a name is spelt as a whole word are looked at (the node there, and its
    ancestors up to a `use` declaration), not every node of the tree. Without `through_paths`, a
    name behind another path (`fmt::Result`) is no use: the question is this file's import's
    uses, not a re-export's, which other crates reach by path."""
    found: list[tuple[int, str]] = []
    root = tree.root_node
    text = root.text or b""
    base = root.start_byte  # the root starts at the file's first token, after leading blank lines
    # A node lies inside a `use` declaration exactly when its bytes lie inside the declaration's
    # (they cannot nest): looked up among their ranges, not by climbing the node's ancestors.
    declarations = [(d.start_byte, d.end_byte) for d in use_declarations(tree)]
    starts = [start for start, _ in declarations]
    for start, end, name in whole_word_hits(text, names):
        node = root.descendant_for_byte_range(base + start, base + end)
        if node is not None and node.type == "doc_comment" and _doc_link_target(text, start, end, through_paths):
            found.append((base + start, name))  # rustdoc resolves `[Name]` through the file's imports
            continue
        if (
            node is None
            or node.type not in _NAME_NODES
            or node.child_count
            or (node.start_byte, node.end_byte) != (base + start, base + end)
        ):
            continue
        if not through_paths and _qualified(node):
            continue  # `other::Name` resolves through its path, not through this file's import of Name
        at = bisect_right(starts, node.start_byte) - 1
        if at < 0 or node.end_byte > declarations[at][1]:
            found.append((base + start, name))
    return found


def _qualified(node: tree_sitter.Node) -> bool:
    """Whether `node` is the last name of a path with a prefix (`anyhow::Result`, `a::b::f`), not `self::`."""
    parent = node.parent
    if parent is None or parent.type not in ("scoped_identifier", "scoped_type_identifier"):
        return False
    path = parent.child_by_field_name("path")
    # `self::Name` reaches the module's own names, imports among them.
    return path is not None and path.text != b"self" and parent.child_by_field_name("name") == node


# What may stand between a doc link's opening (`[`, `](`) and the name it resolves, and what may follow it.
_LINK_PREFIXES = (b"", b"crate::", b"self::", b"super::")
_LINK_ENDS = b"`]:(<!)"


def _doc_link_target(text: bytes, start: int, end: int, through_paths: bool = True) -> bool:
    """Whether the word at [start, end) of a doc comment is the first name of an intra-doc link's
    path: `[Name]`, `` [`Name`] ``, `` [`Name::method`] ``, `[text](Name)`, `[`name()`]` (not
    the text of a link given a target, `[Name](path)`, `[Name][label]`). Without `through_paths`,
    a name behind `crate::` or `super::` is none: it is not reached through an import."""
    if end >= len(text) or text[end : end + 1] not in [bytes([c]) for c in _LINK_ENDS]:
        return False
    head = text[max(0, start - 12) : start]
    for prefix in _LINK_PREFIXES if through_paths else (b"", b"self::"):
        if not head.endswith(prefix):
            continue
        opening = head[: len(head) - len(prefix)]
        if opening.endswith((b"](", b"](`")):
            return True
        if opening.endswith((b"[", b"[`")):
            # `[Name](target)` and `[Name][label]`: the text of a link with a target of its own.
            close = text.find(b"]", end, end + 200)
            return close < 0 or text[close + 1 : close + 2] not in (b"(", b"[")
    return False


def _inside(node: tree_sitter.Node, edits: list[Edit]) -> bool:
    return any(e.start < node.end_byte and node.start_byte < e.end for e in edits)


def unused_entries(
    source: bytes,
    planned: list[Edit],
    dangling_starts: set[int],
    reexport_unused: Callable[[str], bool],
    keep_unused: bool = False,
) -> list[UseEntry]:
    """The entries of a file to remove after `planned` edits (see the module docstring).

    `dangling_starts`: start offsets of definite references to deleted items in
    `source`. An entry is removed only when its name is used nowhere in the file
    after the plan, so that the uses left are reported rather than silenced; a
    public entry (a re-export) naming a deleted item also needs
    `reexport_unused(name)`: no other file uses the name after the plan. With
    `keep_unused` (a recipe's `unused_imports = "keep"`), only entries naming a
    deleted item go: one the plan merely leaves unused stays.
    """
    tree = parse(source, RUST)
    entries = [e for e in use_entries(tree) if not _inside(e.declaration, planned)]
    if not entries:
        return []
    dangling = [e for e in entries if any(e.node.start_byte <= s < e.node.end_byte for s in dangling_starts)]
    # An entry the plan can leave unused names a deleted item, or is spelt in the text it removes.
    removed_text = b" ".join(source[e.start : e.end] for e in planned)
    names = {
        e.binding
        for e in entries
        if e.binding and (e in dangling or not keep_unused and whole_word_hits(removed_text, {e.binding}))
    }
    if not names:
        return []
    before = name_uses(tree, names, through_paths=False)
    after = (
        name_uses(
            reparse(
                source,
                [(e.start, e.end, e.replacement) for e in sorted(planned, key=lambda e: e.start)],
                splice(source, planned),
                RUST,
            ),
            names,
            through_paths=False,
        )
        if planned
        else before
    )
    removed = []
    for entry in entries:
        if entry.binding not in names or after[entry.binding]:
            continue
        if entry in dangling:
            if not entry.public or reexport_unused(entry.binding):
                removed.append(entry)
        elif not keep_unused and not entry.public and before[entry.binding]:
            removed.append(entry)
    return removed


def _remove_from_list(
    source: bytes, use_list: tree_sitter.Node, removed_children: list[tree_sitter.Node], replaced: dict[int, str]
) -> str:
    """The text of a `{...}` list without `removed_children` (with their commas or lines),
    children in `replaced` (by start byte) given new text."""
    base = use_list.start_byte
    text = source[use_list.start_byte : use_list.end_byte]
    spans: list[tuple[int, int, bytes]] = []
    removed = {c.start_byte for c in removed_children}
    for child in use_list.named_children:
        if child.start_byte in replaced:
            spans.append((child.start_byte, child.end_byte, replaced[child.start_byte].encode()))
        if child.start_byte not in removed:
            continue
        start, end = child.start_byte, child.end_byte
        after = child.next_sibling
        if after is not None and after.type == ",":
            end = after.end_byte
        line_start = source.rfind(b"\n", 0, start) + 1
        line_end = source.find(b"\n", end)
        # An entry alone on its line of a multi-line group goes with its line.
        own_line = (
            line_start > use_list.start_byte
            and line_end != -1
            and not source[line_start:start].strip()
            and not source[end:line_end].strip()
        )
        if own_line:
            start, end = line_start, line_end + 1
        elif after is not None and after.type == ",":
            while end < use_list.end_byte and source[end : end + 1] in (b" ", b"\t"):
                end += 1
        else:
            previous = child.prev_sibling
            if previous is not None and previous.type == ",":
                start = previous.start_byte
        spans.append((start, end, b""))
    out = bytearray()
    cursor = 0
    for start, end, replacement in sorted(spans):
        out += text[cursor : start - base] + replacement
        cursor = end - base
    out += text[cursor:]
    # An entry taken from the end of a line leaves no blanks before the line's end.
    return re.sub(rb"[ \t]+\n", b"\n", bytes(out)).decode("utf-8", "replace")


def _render(source: bytes, node: tree_sitter.Node, removed: set[int]) -> str | None:
    """`node` (a use tree) without the leaves whose start bytes are in `removed`; None when
    nothing of it is left."""
    if node.type in _LEAVES:
        return None if node.start_byte in removed else node_text(node)
    if node.type == "scoped_use_list":
        inner = node.child_by_field_name("list")
        path = node.child_by_field_name("path")
        rendered = _render_list(source, inner, removed) if inner is not None else None
        if inner is None or rendered is None:
            return None
        kind, text = rendered
        if kind == "single":
            return node_text(path) if text == "self" else f"{node_text(path)}::{text}"
        if text == node_text(inner):
            return node_text(node)
        return source[node.start_byte : inner.start_byte].decode("utf-8", "replace") + text
    if node.type == "use_list":
        rendered = _render_list(source, node, removed)
        if rendered is None:
            return None
        return rendered[1]
    return node_text(node)


def _render_list(source: bytes, use_list: tree_sitter.Node, removed: set[int]) -> tuple[str, str] | None:
    """("single", text) when one entry is left, ("list", text) for a list, None when none is."""
    kept: list[tuple[tree_sitter.Node, str]] = []
    gone: list[tree_sitter.Node] = []
    replaced: dict[int, str] = {}
    for child in use_list.named_children:
        text = _render(source, child, removed)
        if text is None:
            gone.append(child)
            continue
        kept.append((child, text))
        if text != node_text(child):
            replaced[child.start_byte] = text
    if not kept:
        return None
    if len(kept) == 1 and gone:
        return "single", kept[0][1]
    return "list", _remove_from_list(source, use_list, gone, replaced)


def removal_edits(path: str, source: bytes, entries: list[UseEntry], origin: str) -> list[Edit]:
    """Edits that remove `entries`, one per declaration touched (see the module docstring)."""
    removed = {e.node.start_byte for e in entries}
    edits = []
    for declaration in {e.declaration.start_byte: e.declaration for e in entries}.values():
        argument = declaration.child_by_field_name("argument")
        if argument is None:  # a `use` declaration always has one (the entries are its leaves)
            continue
        text = _render(source, argument, removed)
        if text is None:
            first, _ = leading_trivia(source, declaration)
            start, end = whole_lines(source, first, declaration.end_byte, (b"//",))
            edits.append(Edit(path, start, end, b"", origin))
            continue
        edits.append(Edit(path, argument.start_byte, argument.end_byte, text.encode("utf-8"), origin))
    return edits
