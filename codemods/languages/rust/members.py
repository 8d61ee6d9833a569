"""Rust targets that are parts of items, not items: an enum variant (with the match arms and
patterns that only name it), a struct field, one entry of a `use` declaration, an attribute, a
macro invocation standing alone as a statement or item, one match arm.

Each returns the deletions (whole lines where nothing else shares them), the
edits that reshape what is left (a `use` group, an `A | B` pattern), and the
findings; names are spelt as for items (`crate::Enum::Variant`,
`crate::Struct::field`), a `use` entry by its path as written
(`lexopt::Arg`, `self::socket::Socket`), an attribute by its text
(`feature(unicode)`, or `#![feature(unicode)]` to say which form).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

import tree_sitter

from codemods.edit.codes import Code
from codemods.edit.item_spans import Deletion, whole_lines
from codemods.edit.values import Edit, Finding, line_col, missing_target
from codemods.languages.rust.imports import UseEntry, removal_edits, use_entries
from codemods.languages.rust.items import (
    RustItem,
    RustTarget,
    leading_trivia,
    matches_name,
    numbered_name,
    rust_items,
    split_path,
)
from codemods.parse import RUST, descendants, node_text, parse

MEMBER_KINDS = ("variant", "field", "use", "attribute", "macro_call", "match_arm")


@dataclass(frozen=True)
class MemberDeletions:
    """What deleting a file's member targets takes: the deletions, the edits that reshape what is
    left, the names made unavailable, and the findings."""

    deletions: list[Deletion]
    reshaped: list[Edit]
    names: list[str]
    findings: list[Finding]


@dataclass(frozen=True)
class _MemberFile:
    """The file whose member targets are deleted: its text, tree and items, the origin of the
    edits, the recipe's test of whether a missing target is already gone, and the findings so far."""

    path: str
    source: bytes
    tree: tree_sitter.Tree
    items: list[RustItem]
    origin: str
    absent: Callable[[], bool] | None
    findings: list[Finding]


@dataclass(frozen=True)
class _Removal:
    """What deleting one member target takes: deletions, reshaping edits, names made unavailable."""

    deletions: list[Deletion] = field(default_factory=list)
    reshaped: list[Edit] = field(default_factory=list)
    names: list[str] = field(default_factory=list)


def _with_comma(source: bytes, node: tree_sitter.Node, start: int) -> tuple[int, int]:
    """[start, end) of a list member with its trailing comma, widened to whole lines where it
    stands alone on them. A member sharing its line keeps one separator between its
    neighbours: `A, B, C` loses `B, `, `Io, Disk` loses `, Disk`, `{ Disk }` becomes `{}`."""
    end = node.end_byte
    after = node.next_sibling
    comma = False
    if after is not None and after.type == ",":
        comma, end = True, after.end_byte
    # A match arm holds its own comma.
    comma = comma or source[node.end_byte - 1 : node.end_byte] == b","
    lo, hi = whole_lines(source, start, end, (b"//",))
    if (lo, hi) != (start, end):
        return lo, hi
    before = _blanks_before(source, lo)
    past = _blanks_after(source, hi)
    if comma:
        return lo, past
    if source[before - 1 : before] == b",":
        return before - 1, hi
    if source[before - 1 : before] in (b"{", b"(") and source[past : past + 1] in (b"}", b")"):
        return before, past
    return before, hi


def _blanks_before(source: bytes, at: int) -> int:
    while at > 0 and source[at - 1] in b" \t":
        at -= 1
    return at


def _blanks_after(source: bytes, at: int) -> int:
    while at < len(source) and source[at] in b" \t":
        at += 1
    return at


def _owner(file: _MemberFile, owner_name: str, kinds: set[str], what: str, name: str) -> RustItem | None:
    owners = [i for i in file.items if i.kind in kinds and matches_name(i, owner_name)]
    if len(owners) != 1:
        if not owners:
            file.findings.append(missing_target(file.path, what, name, [], file.absent))
        else:
            line, col = line_col(file.source, owners[1].node.start_byte)
            file.findings.append(
                Finding(
                    file.path,
                    line,
                    col,
                    Code.AMBIGUOUS,
                    f"{owner_name} names {len(owners)} items; name one exactly",
                    symbol=name,
                )
            )
        return None
    return owners[0]


def _member_name(name: str) -> tuple[str, str] | None:
    parts = split_path(name)
    if len(parts) < 2:
        return None
    return "::".join(parts[:-1]), parts[-1]


# -- enum variants -------------------------------------------------------------------------------


def _pattern_path(pattern: tree_sitter.Node) -> tuple[str, ...] | None:
    """The path a pattern names a variant through (`Self::V(..)`, `E::V { .. }`, `a::E::V`)."""
    if pattern.type in ("tuple_struct_pattern", "struct_pattern"):
        named = pattern.child_by_field_name("type")
        if named is None:
            return None
        pattern = named
    if pattern.type in ("scoped_identifier", "scoped_type_identifier"):
        return tuple(p.strip() for p in node_text(pattern).split("::"))
    return None


def self_type(node: tree_sitter.Node) -> str | None:
    """The base name of the type of the impl block around `node` (what `Self` is there)."""
    impl: tree_sitter.Node | None = node
    while impl is not None and impl.type != "impl_item":
        impl = impl.parent
    if impl is None:
        return None
    return node_text(impl.child_by_field_name("type")).split("<", 1)[0].split("::")[-1].strip()


def _names_variant(pattern: tree_sitter.Node, enum: str, variant: str) -> bool:
    bare = _bare_pattern_name(pattern)
    if bare is not None:
        return bare == variant and variant_imported(pattern, enum, variant)
    path = _pattern_path(pattern)
    if path is None or len(path) < 2 or path[-1] != variant:
        return False
    return path[-2] == enum or path[-2] == "Self" and self_type(pattern) == enum


def _bare_pattern_name(pattern: tree_sitter.Node) -> str | None:
    """The one-segment name a pattern starts with (`Gloomy`, `Gloomy(d)`, `Gloomy { .. }`)."""
    named: tree_sitter.Node | None = pattern
    if pattern.type in ("tuple_struct_pattern", "struct_pattern"):
        named = pattern.child_by_field_name("type")
    if named is not None and named.type in ("identifier", "type_identifier"):
        return node_text(named)
    return None


def variant_imported(place: tree_sitter.Node, enum: str, variant: str) -> bool:
    """Whether a `use` of a block or module around `place` brings the variant in by its bare name
    (`use E::*;`, `use E::V;`, `use E::{V, ..};`): without one, a bare pattern is a binding."""
    imports = re.compile(
        r"(?:^|::)"
        + re.escape(enum)
        + r"::(?:\*|"
        + re.escape(variant)
        + r"|\{(?:[^{}]*,)?"
        + re.escape(variant)
        + r"(?:,[^{}]*)?\})$"
    )
    current = place.parent
    while current is not None:
        if current.type in ("block", "declaration_list", "source_file"):
            for child in current.named_children:
                argument = child.child_by_field_name("argument") if child.type == "use_declaration" else None
                if argument is not None and imports.search(re.sub(r"\s+", "", node_text(argument))):
                    return True
        if current.type == "mod_item":
            return False
        current = current.parent
    return False


def _alternatives(pattern: tree_sitter.Node) -> list[tree_sitter.Node]:
    if pattern.type == "or_pattern":
        return [a for child in pattern.named_children for a in _alternatives(child)]
    if pattern.type == "match_pattern" and pattern.named_children:
        return _alternatives(pattern.named_children[0])
    return [pattern]


def variant_uses(
    source: bytes, path: str, tree: tree_sitter.Tree, enum: str, variant: str, origin: str
) -> tuple[list[Deletion], list[Edit]]:
    """Match arms that only name the variant (deleted) and `A | B` alternatives naming it (trimmed)."""
    deletions: list[Deletion] = []
    edits: list[Edit] = []
    for node in descendants(tree.root_node, named=True):
        if node.type != "match_arm":
            continue
        pattern = node.child_by_field_name("pattern")
        if pattern is None:
            continue
        alternatives = _alternatives(pattern)
        naming = [a for a in alternatives if _names_variant(a, enum, variant)]
        if not naming:
            continue
        if len(naming) == len(alternatives):
            start, _ = leading_trivia(source, node)
            deletions.append(Deletion(*_with_comma(source, node, start), f"{origin}:match-arm"))
            continue
        for alternative in naming:
            before, after = alternative.prev_sibling, alternative.next_sibling
            if after is not None and after.type == "|":
                edits.append(Edit(path, alternative.start_byte, _skip_spaces(source, after.end_byte), b"", origin))
            elif before is not None and before.type == "|":
                edits.append(Edit(path, _back_spaces(source, before.start_byte), alternative.end_byte, b"", origin))
    return deletions, edits


def _skip_spaces(source: bytes, offset: int) -> int:
    while offset < len(source) and source[offset : offset + 1] in (b" ", b"\t"):
        offset += 1
    return offset


def _back_spaces(source: bytes, offset: int) -> int:
    while offset > 0 and source[offset - 1 : offset] in (b" ", b"\t"):
        offset -= 1
    return offset


def _delete_variant(file: _MemberFile, name: str) -> _Removal:
    split = _member_name(name)
    if split is None:
        file.findings.append(missing_target(file.path, "variant", name, [], file.absent))
        return _Removal()
    enum = _owner(file, split[0], {"enum"}, "variant", name)
    if enum is None:
        return _Removal()
    body = enum.node.child_by_field_name("body")
    variants = [
        v
        for v in (body.named_children if body is not None else [])
        if v.type == "enum_variant" and node_text(v.child_by_field_name("name")) == split[1]
    ]
    if not variants:
        candidates = [
            f"{split[0]}::{node_text(v.child_by_field_name('name'))}"
            for v in (body.named_children if body is not None else [])
            if v.type == "enum_variant"
        ]
        file.findings.append(missing_target(file.path, "variant", name, candidates, file.absent))
        return _Removal()
    variant = variants[0]
    start, _ = leading_trivia(file.source, variant)
    deletions = [Deletion(*_with_comma(file.source, variant, start), f"{file.origin}:variant:{name}")]
    arms, edits = variant_uses(file.source, file.path, file.tree, enum.name, split[1], f"{file.origin}:variant:{name}")
    return _Removal(deletions + arms, edits)


# -- struct fields -------------------------------------------------------------------------------


def _delete_field(file: _MemberFile, name: str) -> _Removal:
    split = _member_name(name)
    if split is None:
        file.findings.append(missing_target(file.path, "field", name, [], file.absent))
        return _Removal()
    owner = _owner(file, split[0], {"struct", "union"}, "field", name)
    if owner is None:
        return _Removal()
    body = owner.node.child_by_field_name("body")
    fields = [
        f
        for f in (body.named_children if body is not None else [])
        if f.type == "field_declaration" and node_text(f.child_by_field_name("name")) == split[1]
    ]
    if not fields:
        file.findings.append(missing_target(file.path, "field", name, [], file.absent))
        return _Removal()
    start, _ = leading_trivia(file.source, fields[0])
    return _Removal([Deletion(*_with_comma(file.source, fields[0], start), f"{file.origin}:field:{name}")])


# -- use entries and attributes ------------------------------------------------------------------


def entry_path(leaf: tree_sitter.Node) -> str:
    """The full path a leaf of a use tree imports, as written (`a::b::{c as d}` -> `a::b::c`)."""
    text = node_text(leaf.child_by_field_name("path")) if leaf.type == "use_as_clause" else node_text(leaf)
    node = leaf.parent
    while node is not None and node.type != "use_declaration":
        if node.type == "scoped_use_list":
            prefix = node.child_by_field_name("path")
            if prefix is not None:
                text = f"{node_text(prefix)}::{text}" if text != "self" else node_text(prefix)
        node = node.parent
    return "".join(text.split())


def _use_entry(file: _MemberFile, name: str) -> UseEntry | None:
    """The one `use` entry of the file importing `name` (None, with a finding, where none or several do)."""
    wanted = "".join(name.split())
    entries = [e for e in use_entries(file.tree) if entry_path(e.node) == wanted]
    if len(entries) != 1:
        if entries:
            line, col = line_col(file.source, entries[1].node.start_byte)
            file.findings.append(
                Finding(
                    file.path,
                    line,
                    col,
                    Code.AMBIGUOUS,
                    f"{name} is imported by {len(entries)} `use` entries; not deleted",
                    symbol=name,
                )
            )
        else:
            candidates = [entry_path(e.node) for e in use_entries(file.tree)]
            file.findings.append(missing_target(file.path, "use", name, candidates, file.absent))
        return None
    return entries[0]


def _delete_uses(file: _MemberFile, names: list[str]) -> list[Edit]:
    """The edits deleting the `use` entries `names`: one per declaration, whatever number of its
    entries go (each entry alone would reshape the same list: edits that overlap). An edit that
    several entries share has their origins joined by `+`."""
    found = [(name, entry) for name in names if (entry := _use_entry(file, name)) is not None]
    by_declaration: dict[int, list[tuple[str, UseEntry]]] = {}
    for name, entry in found:
        by_declaration.setdefault(entry.declaration.start_byte, []).append((name, entry))
    edits = []
    for group in by_declaration.values():
        origin = "+".join(dict.fromkeys(f"{file.origin}:use:{name}" for name, _ in group))
        edits += removal_edits(file.path, file.source, [entry for _, entry in group], origin)
    return edits


def _attribute_key(text: str) -> str:
    return "".join(text.split())


def _delete_attribute(file: _MemberFile, name: str) -> _Removal:
    wanted = _attribute_key(name)
    form = None
    if wanted.startswith("#![") or wanted.startswith("#["):
        form = "inner_attribute_item" if wanted.startswith("#!") else "attribute_item"
        wanted = wanted[wanted.index("[") + 1 : -1]
    found = []
    for node in descendants(file.tree.root_node, named=True):
        if node.type in ("attribute_item", "inner_attribute_item") and (form is None or node.type == form):
            inner = next((c for c in node.named_children if c.type == "attribute"), None)
            if inner is not None and _attribute_key(node_text(inner)) == wanted:
                found.append(node)
    if len(found) != 1:
        if found:
            line, col = line_col(file.source, found[1].start_byte)
            file.findings.append(
                Finding(
                    file.path,
                    line,
                    col,
                    Code.AMBIGUOUS,
                    f"{name} is written {len(found)} times in the file; not deleted",
                    symbol=name,
                )
            )
        else:
            file.findings.append(missing_target(file.path, "attribute", name, [], file.absent))
        return _Removal()
    return _Removal(
        [
            Deletion(
                *whole_lines(file.source, found[0].start_byte, found[0].end_byte, (b"//",)),
                f"{file.origin}:attribute:{name}",
            )
        ]
    )


# -- macro invocations and match arms: code inside items, named by its text -----------------------


def _squeezed(node: tree_sitter.Node | str | None) -> str:
    text = node if isinstance(node, str) else node_text(node)
    return "".join(text.split())


def _one_of(
    file: _MemberFile, kind: str, name: str, found: list[tuple[tree_sitter.Node, str]], ordinal: int | None
) -> tree_sitter.Node | None:
    """The one node of `found` ((node, the name that selects it)) a target names: the `ordinal`th
    when given; several without one are refused, listing each with its line."""
    if ordinal is not None:
        found = found[ordinal - 1 : ordinal]
    if not found:
        file.findings.append(missing_target(file.path, kind, name, [], file.absent))
        return None
    if len(found) > 1:
        listed = ", ".join(
            f"{spelling}#{index} (line {line_col(file.source, node.start_byte)[0]})"
            for index, (node, spelling) in enumerate(found, 1)
        )
        line, col = line_col(file.source, found[1][0].start_byte)
        file.findings.append(
            Finding(
                file.path,
                line,
                col,
                Code.AMBIGUOUS,
                f"{name} names {len(found)} {kind}s; name one exactly: {listed}",
                symbol=name,
            )
        )
        return None
    return found[0][0]


def macro_statement(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The statement or item a macro invocation is, alone (`register!(Dial);` in a module or a
    block), or None for an invocation inside an expression."""
    parent = node.parent
    if parent is not None and parent.type == "expression_statement" and parent.named_child_count == 1:
        return parent
    if parent is not None and parent.type in ("source_file", "declaration_list", "block"):
        return node
    return None


# An element of a token tree (see `_token_elements`): its kind, and its text, name or elements.
_TokenElement = tuple[str, "str | list[_TokenElement]"]


def _token_elements(tokens: tree_sitter.Node, pattern: bool) -> list[_TokenElement]:
    """A token tree's children as ("leaf", text) and ("tree", elements); in a pattern, `$$$NAME`
    is ("many", NAME) and `$NAME` ("one", NAME)."""
    children = tokens.children
    elements: list[_TokenElement] = []
    index = 0
    while index < len(children):
        child = children[index]
        dollars = 0
        while pattern and index + dollars < len(children) and children[index + dollars].type == "$":
            dollars += 1
        if dollars in (1, 3) and index + dollars < len(children) and children[index + dollars].type == "identifier":
            elements.append(("many" if dollars == 3 else "one", node_text(children[index + dollars])))
            index += dollars + 1
            continue
        elements.append(
            ("tree", _token_elements(child, pattern)) if child.type == "token_tree" else ("leaf", node_text(child))
        )
        index += 1
    return elements


def _tokens_match(wanted: list[_TokenElement], have: list[_TokenElement], bound: dict[str, str]) -> bool:
    """Whether the token elements `have` match the pattern elements `wanted` (a metavariable used
    twice matches equal tokens; `$$$X` takes as few elements as lets the rest match)."""
    if not wanted:
        return not have
    (kind, value), rest = wanted[0], wanted[1:]
    if kind == "many" and isinstance(value, str):
        for count in range(len(have) + 1):
            text = repr(have[:count])
            if bound.get(value, text) == text and _tokens_match(rest, have[count:], {**bound, value: text}):
                return True
        return False
    if not have:
        return False
    if kind == "one" and isinstance(value, str):
        text = repr(have[0])
        return bound.get(value, text) == text and _tokens_match(rest, have[1:], {**bound, value: text})
    if kind == "tree" and isinstance(value, list):
        inner = have[0][1]
        return (
            isinstance(inner, list)
            and have[0][0] == "tree"
            and _tokens_match(value, inner, bound)
            and _tokens_match(rest, have[1:], bound)
        )
    return have[0] == (kind, value) and _tokens_match(rest, have[1:], bound)


def _arguments_pattern(arguments: str) -> list[_TokenElement] | None:
    """The pattern elements of a `macro_call` target's arguments (`(Dial, $$$REST)`), or None when
    they do not parse as a token tree."""
    probe = parse(f"probe!{arguments};".encode(), RUST)
    invocation = next((n for n in descendants(probe.root_node, named=True) if n.type == "macro_invocation"), None)
    tokens = next((c for c in invocation.named_children if c.type == "token_tree"), None) if invocation else None
    if tokens is None or probe.root_node.has_error:
        return None
    return _token_elements(tokens, pattern=True)


def _delete_macro_call(file: _MemberFile, name: str) -> _Removal:
    """`register!(Dial, Meter)` (its tokens, layout aside; `$X` matches one token or bracketed
    group, `$$$XS` any run of them) or `register!` (each invocation of it): an invocation standing
    alone as a statement or item, with its `;`, attributes and comments."""
    wanted, ordinal = numbered_name(name)
    macro, bang, arguments = wanted.partition("!")
    pattern = _arguments_pattern(arguments) if arguments.strip() else None
    if not bang or not macro.strip() or arguments.strip() and pattern is None:
        file.findings.append(missing_target(file.path, "macro_call", name, [], file.absent))
        return _Removal()
    found = []
    for node in descendants(file.tree.root_node, named=True):
        if node.type != "macro_invocation" or macro_statement(node) is None:
            continue
        called = _squeezed(node.child_by_field_name("macro"))
        tokens = next((c for c in node.named_children if c.type == "token_tree"), None)
        if (
            called == _squeezed(macro)
            and tokens is not None
            and (pattern is None or _tokens_match(pattern, _token_elements(tokens, pattern=False), {}))
        ):
            found.append((node, f"{called}!{_squeezed(tokens)}"))
    chosen = _one_of(file, "macro_call", name, found, ordinal)
    statement = macro_statement(chosen) if chosen is not None else None
    if statement is None:  # none chosen (`found` holds only invocations standing alone)
        return _Removal()
    end = statement.end_byte
    following = statement.next_sibling
    if statement is chosen and following is not None and following.type == "empty_statement":
        end = following.end_byte  # an item-level `name!(..);` parses as the invocation and an empty `;`
    start, _ = leading_trivia(file.source, statement)
    return _Removal([Deletion(*whole_lines(file.source, start, end, (b"//",)), f"{file.origin}:macro_call:{name}")])


def _catch_all(arm: tree_sitter.Node) -> bool:
    """Whether a match arm takes every value (`_`, or a plain binding, without a guard)."""
    pattern = arm.child_by_field_name("pattern")
    if pattern is None or pattern.child_by_field_name("condition") is not None:
        return False
    inner = pattern.named_children[0] if pattern.named_child_count == 1 else None
    if pattern.named_child_count == 0:
        return node_text(pattern).strip() == "_"
    return inner is not None and inner.type == "identifier" and not node_text(inner)[:1].isupper()


def _delete_match_arm(file: _MemberFile, name: str) -> _Removal:
    """`crate::describe => Kind::Idle` (an arm of a match in that item, by its pattern, whitespace
    aside) or `Kind::Idle` (in any item of the file). An arm without a guard goes only where a
    catch-all arm stays after it, so that the match stays exhaustive."""
    wanted, ordinal = numbered_name(name)
    item_name, arrow, pattern = wanted.rpartition("=>")
    pattern = pattern if arrow else wanted
    scopes = [file.tree.root_node]
    if arrow:
        owner = _owner(
            file, item_name.strip(), {i.kind for i in file.items if i.kind not in ("impl", "use")}, "match_arm", name
        )
        if owner is None:
            return _Removal()
        scopes = [owner.node]
    found = []
    for scope in scopes:
        for node in descendants(scope, named=True):
            arm_pattern = node.child_by_field_name("pattern") if node.type == "match_arm" else None
            if arm_pattern is not None and _squeezed(arm_pattern) == _squeezed(pattern):
                found.append((node, _squeezed(arm_pattern)))
    arm = _one_of(file, "match_arm", name, found, ordinal)
    if arm is None:
        return _Removal()
    chosen_pattern = arm.child_by_field_name("pattern")  # `found` holds only arms with a pattern
    guarded = chosen_pattern is not None and chosen_pattern.child_by_field_name("condition") is not None
    later = []
    sibling = arm.next_named_sibling
    while sibling is not None:
        later.append(sibling)
        sibling = sibling.next_named_sibling
    if not guarded and not any(a.type == "match_arm" and _catch_all(a) for a in later):
        line, col = line_col(file.source, arm.start_byte)
        file.findings.append(
            Finding(
                file.path,
                line,
                col,
                Code.NON_EXHAUSTIVE_MATCH,
                f"{name}: no catch-all arm (`_ =>`) follows, so the match may no longer be "
                f"exhaustive; delete the variant it matches (kind variant) instead; not deleted",
                symbol=name,
            )
        )
        return _Removal()
    start, _ = leading_trivia(file.source, arm)
    return _Removal([Deletion(*_with_comma(file.source, arm, start), f"{file.origin}:match_arm:{name}")])


_OPERATIONS = {
    "variant": _delete_variant,
    "field": _delete_field,
    "attribute": _delete_attribute,
    "macro_call": _delete_macro_call,
    "match_arm": _delete_match_arm,
}


def delete_members(
    path: str, source: bytes, targets: list[RustTarget], origin: str, absent: Callable[[], bool] | None
) -> MemberDeletions:
    """What deleting the member targets (`kind` in MEMBER_KINDS, `name`) of one Rust file takes."""
    tree = parse(source, RUST)
    file = _MemberFile(path, source, tree, rust_items(source, tree), origin, absent, [])
    result = MemberDeletions([], [], [], file.findings)
    uses = [t.name for t in targets if t.kind == "use"]
    if uses:
        result.reshaped.extend(_delete_uses(file, uses))
    for target in targets:
        if target.kind == "use":
            continue
        removal = _OPERATIONS[target.kind](file, target.name)
        result.deletions.extend(removal.deletions)
        result.reshaped.extend(removal.reshaped)
        result.names.extend(removal.names)
    return result
