"""tree-sitter languages, parsing, and parse-error accounting.

Everything here works on bytes: tree-sitter offsets are byte offsets, and a
file is only ever decoded to be printed.
"""

from __future__ import annotations

import importlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from functools import lru_cache, wraps
from typing import TypeVar

import tree_sitter

# The language names and `language_of` live in _languages (the check needs them without
# loading tree-sitter); they are re-exported here for the modules that parse.
from codemods.core.registry import CPP, LANGUAGES, PYTHON, RUST, language_of
from codemods.edit.errors import LanguageError

__all__ = [
    "CPP",
    "PYTHON",
    "RUST",
    "captures",
    "enclosing",
    "error_count",
    "error_nodes",
    "forget",
    "identifier_hits",
    "language_of",
    "once_per_tree",
    "parse",
    "query",
    "reparse",
    "ts_language",
]


@lru_cache(maxsize=None)
def ts_language(name: str) -> tree_sitter.Language:
    """The tree-sitter Language of a registered language with a grammar (its package imported
    lazily: start-up time matters)."""
    language = LANGUAGES.get(name)
    if language is None or language.grammar is None:
        raise LanguageError(f"no tree-sitter grammar for {name!r}")
    return tree_sitter.Language(importlib.import_module(language.grammar).language())


@lru_cache(maxsize=None)
def _parser(name: str) -> tree_sitter.Parser:
    return tree_sitter.Parser(ts_language(name))


# Trees of the sources parsed lately, by (language, bytes): a plan reads the same
# file in several steps (deleting items, rewriting, validating, the closure
# scan), and each gets the one parse. Trees are never edited in place.
# Bounded by count and by the bytes of the sources kept: a tree takes about 25 times its
# source's size, so 24 MiB of sources is well under a GiB of trees.
# An OrderedDict: the oldest goes in O(1) (`next(iter(dict))` walks over every slot deleted before it).
_TREES: OrderedDict[tuple[str, bytes], tree_sitter.Tree] = OrderedDict()
_TREES_KEPT = 512
_TREE_SOURCE_BYTES = 24 * 1024 * 1024
_kept_bytes = [0]
# Values computed once per tree (`once_per_tree`) keep their trees alive: fewer of them.
_VALUES_KEPT = 64


def _remember(key: tuple[str, bytes], tree: tree_sitter.Tree) -> tree_sitter.Tree:
    while _TREES and (len(_TREES) >= _TREES_KEPT or _kept_bytes[0] + len(key[1]) > _TREE_SOURCE_BYTES):
        oldest, _ = _TREES.popitem(last=False)
        _kept_bytes[0] -= len(oldest[1])
    if len(key[1]) <= _TREE_SOURCE_BYTES:
        _TREES[key] = tree
        _kept_bytes[0] += len(key[1])
    return tree


def parse(source: bytes, language: str) -> tree_sitter.Tree:
    """Parse bytes with the grammar of `language` (RUST or CPP); the same bytes are parsed once."""
    key = (language, source)
    tree = _TREES.get(key)
    if tree is None:
        tree = _remember(key, _parser(language).parse(source))
    return tree


def forget(source: bytes, language: str) -> None:
    """Drop the kept tree of `source` (if any), for a caller done with it: a tree takes about 25
    times its source's size, and memory that is never handed back has to be faulted in afresh for
    the next one (page faults, system time). A holder of the tree keeps it valid; parsing the same
    bytes again gives a tree of the same shape."""
    if _TREES.pop((language, source), None) is not None:
        _kept_bytes[0] -= len(source)


def parse_source(source: bytes, language: str) -> tree_sitter.Tree:
    """The tree-sitter tree of a file's bytes in `language` ("rust", "cpp"), as the engine
    parses it (once per source); LanguageError for a language without a grammar. The public
    name of `parse` (`codemods.parse` is this module)."""
    return parse(source, language)


_Value = TypeVar("_Value")


def once_per_tree(function: Callable[[bytes, tree_sitter.Tree], _Value]) -> Callable[[bytes, tree_sitter.Tree], _Value]:
    """Cache `function(source, tree)` by the tree: a tree stands for one source, and steps and
    rules that each ask for the same file's items or comments then share one walk of it.
    The value is shared too: callers must not change it."""
    cache: dict[int, tuple[tree_sitter.Tree, _Value]] = {}

    @wraps(function)
    def cached(source: bytes, tree: tree_sitter.Tree) -> _Value:
        hit = cache.get(id(tree))
        if hit is not None and hit[0] is tree:
            return hit[1]
        value = function(source, tree)
        if len(cache) >= _VALUES_KEPT:
            del cache[next(iter(cache))]
        cache[id(tree)] = (tree, value)  # holding the tree keeps its id from being reused
        return value

    return cached


def _end_point(start: tuple[int, int], inserted: bytes) -> tuple[int, int]:
    newlines = inserted.count(b"\n")
    if not newlines:
        return start[0], start[1] + len(inserted)
    return start[0] + newlines, len(inserted) - (inserted.rfind(b"\n") + 1)


def reparse(before: bytes, edits: list[tuple[int, int, bytes]], after: bytes, language: str) -> tree_sitter.Tree:
    """The tree of `after`, which is `before` with the non-overlapping `edits`
    (start, end, replacement) spliced in, re-reading only what they touch.

    tree-sitter's incremental parse reuses every subtree of `before`'s tree
    that the edits leave alone. Should the result hold a syntax error, `after`
    is parsed afresh, so that an error count never depends on the route taken.
    """
    key = (language, after)
    tree = _TREES.get(key)
    if tree is not None:
        return tree
    old = parse(before, language).copy()
    located = []
    row, at = 0, 0
    for start, end, replacement in sorted(edits):
        row += before.count(b"\n", at, start)
        start_point = (row, start - (before.rfind(b"\n", 0, start) + 1))
        end_row = row + before.count(b"\n", start, end)
        located.append((start, end, replacement, start_point, (end_row, end - (before.rfind(b"\n", 0, end) + 1))))
        row, at = end_row, end
    # Last edit first: the offsets and points of the edits before it stay those of `before`.
    for start, end, replacement, start_point, end_point in reversed(located):
        old.edit(start, end, start + len(replacement), start_point, end_point, _end_point(start_point, replacement))
    tree = _parser(language).parse(after, old)
    if tree.root_node.has_error:
        tree = _parser(language).parse(after)
    return _remember(key, tree)


def error_nodes(tree: tree_sitter.Tree) -> list[tree_sitter.Node]:
    """ERROR and MISSING nodes of a tree, outermost first, in source order."""
    found: list[tree_sitter.Node] = []
    if not tree.root_node.has_error:
        return found
    cursor = tree.walk()
    visited_children = False
    while True:
        node = cursor.node
        if node is None:  # a cursor made from a tree always stands on a node
            break
        if not visited_children:
            if node.is_error or node.is_missing:
                found.append(node)
                descend = False
            else:
                descend = node.has_error
            if descend and cursor.goto_first_child():
                continue
            visited_children = True
        if cursor.goto_next_sibling():
            visited_children = False
            continue
        if not cursor.goto_parent():
            break
    return found


def error_count(tree: tree_sitter.Tree) -> int:
    """How many ERROR/MISSING nodes a tree has (0 for a clean parse)."""
    return len(error_nodes(tree))


def descendants(node: tree_sitter.Node, named: bool = False) -> Iterator[tree_sitter.Node]:
    """`node` and every node below it (only named ones below it with `named`), in source order
    (pre-order)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.named_children if named else current.children))


def enclosing(root: tree_sitter.Node, offset: int, types: tuple[str, ...]) -> tree_sitter.Node | None:
    """The innermost node of one of `types` holding byte `offset` below `root` (None if none does)."""
    node: tree_sitter.Node | None = root.descendant_for_byte_range(offset, offset)
    while node is not None and node.type not in types:
        node = node.parent
    return node


def node_text(node: tree_sitter.Node | None) -> str:
    """The source text of a node ("" for None), undecodable bytes replaced."""
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


@lru_cache(maxsize=None)
def query(language: str, source: str) -> tree_sitter.Query:
    """A compiled query, cached by language and source text."""
    return tree_sitter.Query(ts_language(language), source)


def captures(language: str, query_source: str, node: tree_sitter.Node) -> dict[str, list[tree_sitter.Node]]:
    """Run a query over `node` and return its captures by name."""
    return tree_sitter.QueryCursor(query(language, query_source)).captures(node)


def identifier_hits(
    tree: tree_sitter.Tree, hits: list[tuple[int, int, str]], kinds: frozenset[str]
) -> list[tuple[int, int, str]]:
    """Of (start, end, name) hits, those that span exactly one node of `kinds` (identifiers)."""
    found = []
    for start, end, name in hits:
        node = tree.root_node.descendant_for_byte_range(start, end)
        if node is not None and node.type in kinds and node.start_byte == start and node.end_byte == end:
            found.append((start, end, name))
    return found
