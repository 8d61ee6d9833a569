"""The items of one file, by the kind and exact name a `[[delete]]` table gives them.

An inventory maps a key (stable between two versions of the file) to an `Entry`:
the kind and name to write in the recipe, the byte range of the item (its trivia
included) and, for C++, the branch that selects it. Items found in the file before
a change and not after are what the change deleted.
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from dataclasses import dataclass, replace

import tree_sitter

from codemods.languages.cpp.items import cpp_items
from codemods.languages.rust.imports import use_entries
from codemods.languages.rust.items import RustItem, exact_spelling, leading_trivia, rust_items
from codemods.languages.rust.members import entry_path, macro_statement
from codemods.parse import RUST, descendants, parse

# The kinds that name code inside items (by its text): what the plan refuses of them, a rewrite
# may still say.
MEMBER_KINDS = ("use", "attribute", "macro_call", "match_arm")


@dataclass(frozen=True)
class Entry:
    """One item as a `[[delete]]` names it: `kind`, `name` (and `branch` for C++), its bytes
    [start, end) in the file, and `secondary` for an item the engine may delete itself with
    another one (an impl, a trait impl's method, a `use` entry): asked for only where a plan
    of the others leaves it."""

    kind: str
    name: str
    start: int
    end: int
    branch: str | None = None
    secondary: bool = False
    ident: tuple[str, ...] = ()  # C++: the key, spelling aside (a name's signature shows only among overloads)
    # Code known by its text that the file writes more than once: there (so not gone from a file
    # that writes it once), but never deleted by that text (it does not say which).
    ambiguous: bool = False


# Rust item kinds (of rust_items) -> the `[[delete]]` kind that names them.
_RUST_KINDS = {
    "fn": "fn",
    "test": "test",
    "struct": "struct",
    "enum": "enum",
    "union": "type",
    "type_alias": "type",
    "trait": "trait",
    "impl": "impl",
    "mod": "mod",
    "const": "const",
    "static": "static",
    "macro": "macro",
    "bridge_fn": "bridge_fn",
    "bridge_type": "bridge_type",
}


@functools.lru_cache(maxsize=32)
def inventory(source: bytes, language: str) -> dict[tuple[str, ...], Entry]:
    """Every deletable item of `source` in `language` ("rust", "cpp", "python"), by key (kept
    for the last files asked: a file is asked again after each plan; do not change the dict)."""
    if language == "rust":
        return _rust(source)
    if language == "cpp":
        return _cpp(source)
    if language == "python":
        return _python(source)
    return {}


def _rust(source: bytes) -> dict[tuple[str, ...], Entry]:
    tree = parse(source, RUST)
    found: dict[tuple[str, ...], Entry] = {}
    items = rust_items(source, tree)
    impl_names = Counter(exact_spelling(i) for i in items if i.kind == "impl")
    impl_seen: Counter[str] = Counter()
    for item in items:
        if item.kind == "fn_signature":
            parent = item.node.parent.parent if item.node.parent is not None else None
            kind = "trait_method" if parent is not None and parent.type == "trait_item" else "fn"
        else:
            kind = _RUST_KINDS.get(item.kind, "")
        if not kind:
            continue
        name = exact_spelling(item)
        if kind == "fn" and item.impl_header is None and item.module_path and _in_trait(item.node):
            kind = "trait_method"  # a provided method of a trait: its impls' overrides go with it
        key: tuple[str, ...] = (kind, name)
        if kind == "impl":
            impl_seen[name] += 1
            members = ",".join(
                sorted(
                    i.name
                    for i in items
                    if i.impl_header == item.impl_header
                    and i.kind != "impl"
                    and item.node.start_byte <= i.node.start_byte < item.end
                )
            )
            key = (kind, name, members)
            if impl_names[name] > 1:
                name = f"{name}#{impl_seen[name]}"
        # A method of a trait impl goes with the trait's declaration: asked only if it stays.
        secondary = kind == "impl" or (item.impl_header is not None and item.impl_header[1] is not None)
        found.setdefault(key, Entry(kind, name, item.start, item.end, secondary=secondary))
        if item.kind in ("struct", "enum", "union"):
            _rust_members(item, name, found)
    for entry in use_entries(tree):
        path = entry_path(entry.node)
        found.setdefault(("use", path), Entry("use", path, entry.node.start_byte, entry.node.end_byte, secondary=True))
    _code_by_text(source, tree, items, found)
    return found


def _words(node: tree_sitter.Node) -> str:
    return " ".join((node.text or b"").decode("utf-8", "replace").split())


def _code_by_text(
    source: bytes, tree: tree_sitter.Tree, items: list[RustItem], found: dict[tuple[str, ...], Entry]
) -> None:
    """Attributes, macro invocations standing alone and match arms, each by the text that names
    it; one whose text the file writes twice is `ambiguous` (the residue's rewrite says it)."""
    named: list[tuple[tuple[str, ...], Entry]] = []
    for node in descendants(tree.root_node, named=True):
        if node.type in ("attribute_item", "inner_attribute_item"):
            start, end = node.start_byte, node.end_byte
            named.append((("attribute", _words(node)), Entry("attribute", _words(node), start, end)))
        elif node.type == "macro_invocation" and (statement := macro_statement(node)) is not None:
            start, _ = leading_trivia(source, statement)
            named.append((("macro_call", _words(node)), Entry("macro_call", _words(node), start, statement.end_byte)))
        elif node.type == "match_arm" and (pattern := node.child_by_field_name("pattern")) is not None:
            owner = min(
                (
                    i
                    for i in items
                    if i.kind not in ("impl", "use", "mod")
                    and i.node.start_byte <= node.start_byte
                    and node.end_byte <= i.end
                ),
                key=lambda i: i.end - i.node.start_byte,
                default=None,
            )
            name = f"{exact_spelling(owner)} => {_words(pattern)}" if owner is not None else _words(pattern)
            start, _ = leading_trivia(source, node)
            named.append((("match_arm", name), Entry("match_arm", name, start, node.end_byte, secondary=True)))
    twice = {key for key, count in Counter(key for key, _ in named).items() if count > 1}
    for key, entry in named:
        found.setdefault(key, replace(entry, ambiguous=True) if key in twice else entry)


def _in_trait(node: tree_sitter.Node) -> bool:
    container = node.parent.parent if node.parent is not None else None
    return container is not None and container.type == "trait_item"


def _rust_members(item: RustItem, name: str, found: dict[tuple[str, ...], Entry]) -> None:
    """The variants of an enum and the named fields of a struct, as `crate::Type::member`."""
    body = item.node.child_by_field_name("body")
    if body is None:
        return
    kind = "variant" if item.kind == "enum" else "field"
    wanted = "enum_variant" if kind == "variant" else "field_declaration"
    for child in body.named_children:
        member = child.child_by_field_name("name")
        if child.type == wanted and member is not None and member.text is not None:
            qualified = f"{name}::{member.text.decode()}"
            found.setdefault((kind, qualified), Entry(kind, qualified, child.start_byte, child.end_byte))


def _cpp(source: bytes) -> dict[tuple[str, ...], Entry]:
    items = [i for i in cpp_items(source) if i.kind != "any"]
    # A name with several signatures is spelled with its own; the same one in several branches is not.
    overloads = Counter(name for name, _ in {(i.qualified_name, i.signature) for i in items if i.function})
    spots = Counter((i.kind, i.qualified_name, i.signature) for i in items)
    found: dict[tuple[str, ...], Entry] = {}
    keys = [
        (item.kind, item.qualified_name, "" if item.signature is None else ",".join(item.signature), item.condition)
        for item in items
    ]
    # The same variable twice under one condition is no item a name tells apart (a macro read as a
    # declaration, `EXPORT_DEPRECATED(...)` on every line it annotates): the residue says it.
    # (A class declared ahead and then defined, or a function declared and defined, is one item.)
    twice = {key for key, count in Counter(keys).items() if count > 1 and key[0] in ("variable", "field")}
    for item, key in zip(items, keys):
        if key in twice:
            continue
        qualified = item.qualified_name
        name = item.spelled(qualified=True) if item.function and overloads[qualified] > 1 else qualified
        branch = item.condition if spots[(item.kind, qualified, item.signature)] > 1 else None
        found.setdefault(key, Entry(item.kind, name, item.start, item.end, branch, ident=key))
    return found


def _python(source: bytes) -> dict[tuple[str, ...], Entry]:
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    found: dict[tuple[str, ...], Entry] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        # A name assigned once in a body, by a statement alone on its lines, is an item (`variable`).
        assigned = Counter(name for node in body if (name := _assigned(node)) is not None)
        for node in body:
            name = _assigned(node)
            if (
                name is not None
                and assigned[name] == 1
                and not any(
                    other is not node
                    and other.lineno <= (node.end_lineno or node.lineno)
                    and node.lineno <= (other.end_lineno or other.lineno)
                    for other in body
                )
            ):
                end = offsets[min(node.end_lineno or node.lineno, len(lines))]
                found.setdefault(
                    ("variable", f"{prefix}{name}"), Entry("variable", f"{prefix}{name}", offsets[node.lineno - 1], end)
                )
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                kind = "class" if isinstance(node, ast.ClassDef) else "function"
                name = f"{prefix}{node.name}"
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                end = offsets[min(node.end_lineno or node.lineno, len(lines))]
                found.setdefault((kind, name), Entry(kind, name, offsets[first - 1], end))
                if isinstance(node, ast.ClassDef):
                    visit(node.body, f"{name}.")

    visit(module.body, "")
    return found


def _assigned(node: ast.stmt) -> str | None:
    """The plain name one assignment statement binds (`NAME = ...`, `NAME: T = ...`), else None."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id
    return None
