"""tree-sitter languages, parsing, and parse-error accounting.

Everything here works on bytes: tree-sitter offsets are byte offsets, and a
file is only ever decoded to be printed.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import PurePosixPath

import tree_sitter

RUST = "rust"
CPP = "cpp"
PYTHON = "python"

_SUFFIX_LANGUAGE = {
    ".rs": RUST,
    ".cpp": CPP,
    ".cc": CPP,
    ".cxx": CPP,
    ".c": CPP,
    ".h": CPP,
    ".hh": CPP,
    ".hpp": CPP,
    ".hxx": CPP,
    ".cu": CPP,
    ".cuh": CPP,
    ".mm": CPP,
    ".metal": CPP,
    ".py": PYTHON,
}


def language_of(path: str | PurePosixPath) -> str | None:
    """The language a file is parsed as, from its suffix; None if not a source file."""
    return _SUFFIX_LANGUAGE.get(PurePosixPath(str(path)).suffix.lower())


@lru_cache(maxsize=None)
def ts_language(name: str) -> tree_sitter.Language:
    """The tree-sitter Language for RUST or CPP (imported lazily: start-up time matters)."""
    if name == RUST:
        import tree_sitter_rust

        return tree_sitter.Language(tree_sitter_rust.language())
    if name == CPP:
        import tree_sitter_cpp

        return tree_sitter.Language(tree_sitter_cpp.language())
    raise ValueError(f"no tree-sitter grammar for {name!r}")


@lru_cache(maxsize=None)
def _parser(name: str) -> tree_sitter.Parser:
    return tree_sitter.Parser(ts_language(name))


# The last trees parsed, by (language, source): a plan parses the same text for
# several purposes (deleting items, parse-error accounting, resolving names).
_RECENT_TREES: dict[tuple[str, bytes], tree_sitter.Tree] = {}
_RECENT_LIMIT = 64


def parse(source: bytes, language: str) -> tree_sitter.Tree:
    """Parse bytes with the grammar of `language` (RUST or CPP); the same text is parsed once."""
    key = (language, source)
    tree = _RECENT_TREES.get(key)
    if tree is None:
        tree = _parser(language).parse(source)
        if len(_RECENT_TREES) >= _RECENT_LIMIT:
            del _RECENT_TREES[next(iter(_RECENT_TREES))]
        _RECENT_TREES[key] = tree
    return tree


def error_nodes(tree: tree_sitter.Tree) -> list[tree_sitter.Node]:
    """ERROR and MISSING nodes of a tree, outermost first, in source order."""
    found: list[tree_sitter.Node] = []
    if not tree.root_node.has_error:
        return found
    cursor = tree.walk()
    visited_children = False
    while True:
        node = cursor.node
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


@lru_cache(maxsize=None)
def query(language: str, source: str) -> tree_sitter.Query:
    """A compiled query, cached by language and source text."""
    return tree_sitter.Query(ts_language(language), source)


def captures(language: str, query_source: str, node: tree_sitter.Node) -> dict[str, list[tree_sitter.Node]]:
    """Run a query over `node` and return its captures by name."""
    return tree_sitter.QueryCursor(query(language, query_source)).captures(node)
