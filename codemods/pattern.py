"""Structural patterns: code with metavariables, matched on the tree-sitter tree.

A pattern is a piece of Rust, C++ or Python in which `$NAME` stands for any one node
and `$$$NAME` for any sequence of sibling nodes (possibly empty), as ast-grep
writes them; `$_` and `$$$` match without capturing. A metavariable used twice
must match equal code (the same tokens, whatever the whitespace and comments
between them)::

    call = Pattern("crate::layers::$F(&$Q, $$$REST)", "rust")
    for match in call.find_all(source, tree.root_node):
        print(match.text("F"), match.text("REST"))

    rename = Rewrite(Pattern("old($$$ARGS)", "rust"), "new($$$ARGS)")
    edits = rename.edits("src/lib.rs", source, tree.root_node)

Without a node, the source is parsed here (`call.find_all(source)`).

Patterns are compiled once and then applied to any number of trees; matching
is a pure function of the source bytes and their tree (the one the engine has
already parsed). Comments are skipped on both sides, and a trailing comma
before a closing bracket is optional, so rustfmt's vertical layouts match
their one-line forms. tree-sitter-rust leaves macro arguments as token trees;
where a pattern's macro call meets one in the code, both argument lists are
parsed as expressions in place, so `vec![$X as *const $T]` matches by
structure too. Code inside macro arguments is matched only through such an
enclosing macro pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

import tree_sitter

from codemods.edit.values import Edit
from codemods.edit.errors import PatternError
from codemods.core.registry import LANGUAGES as REGISTERED
from codemods.core.registry import parsed_languages
from codemods.parse import query, ts_language
from codemods.parse import parse as _parse
from codemods.edit.splice import apply_edits

# Metavariables are spelled with an identifier character so that the pattern
# parses as ordinary code: `$X` becomes `µX`, `$$$XS` becomes `µµµXS`.
_EXPANDO = "µ"
_METAVARIABLE = re.compile(r"\$\$\$([A-Z_][A-Z0-9_]*)?|\$([A-Z_][A-Z0-9_]*)")
_COMMENT_TYPES = {kind for language in REGISTERED.values() for kind in language.comment_kinds}
_CLOSERS = {")", "]", "}", ">"}


@dataclass(frozen=True)
class _Metavariable:
    name: str
    sequence: bool

    @property
    def captures(self) -> bool:
        return not self.name.startswith("_")


def _descendants(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(current.children)
    return out


def _require_bytes(source: object) -> None:
    """Refuse a `str` source: offsets are bytes of the file as read, which a decoded text does
    not keep (its encoding, its line ends)."""
    if not isinstance(source, (bytes, bytearray)):
        raise PatternError(f"the source must be the file's bytes (Path.read_bytes()), not {type(source).__name__}")


def metavariables(text: str) -> set[str]:
    """The names of the capturing metavariables in a pattern or replacement text."""
    return {
        name for m in _METAVARIABLE.finditer(text) if (name := m.group(1) or m.group(2)) and not name.startswith("_")
    }


def _encode(pattern: str) -> str:
    def spell(m: re.Match[str]) -> str:
        if m.group(0).startswith("$$$"):
            return _EXPANDO * 3 + (m.group(1) or "_")
        return _EXPANDO + m.group(2)

    return _METAVARIABLE.sub(spell, pattern)


def _metavariable(node: tree_sitter.Node) -> _Metavariable | None:
    text = node.text.decode("utf-8", "replace") if node.text is not None else ""
    if not text.startswith(_EXPANDO):
        return None
    if text.startswith(_EXPANDO * 3):
        name = text[3:]
        sequence = True
    else:
        name = text[1:]
        sequence = False
    if not name or not all(c.isupper() or c.isdigit() or c == "_" for c in name):
        return None
    return _Metavariable(name, sequence)


_WORD = re.compile(rb"\w{3,}")


def _literal_words(root: tree_sitter.Node) -> tuple[bytes, ...]:
    """The words (three or more word characters) that leaves of a pattern spell, metavariables
    and comments aside: a leaf matches only a leaf of the same text, inside the matched node, so
    a node whose text lacks one of them cannot match."""
    words: set[bytes] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in _COMMENT_TYPES or _metavariable(node) is not None:
            continue
        if node.child_count == 0:
            text = node.text or b""
            if _WORD.fullmatch(text):
                words.add(text)
        else:
            stack.extend(node.children)
    return tuple(sorted(words, key=len, reverse=True))


def _children(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The children that take part in matching: no comments, no trailing comma before a closer."""
    kids = [c for c in node.children if c.type not in _COMMENT_TYPES]
    if len(kids) >= 2 and kids[-2].type == "," and kids[-1].type in _CLOSERS:
        del kids[-2]
    return kids


def _tokens(nodes: tuple[tree_sitter.Node, ...]) -> list[bytes]:
    found: list[bytes] = []
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        if node.type in _COMMENT_TYPES:
            continue
        if node.child_count == 0:
            found.append(node.text or b"")
        else:
            stack.extend(reversed(node.children))
    return found


def same_code(a: tuple[tree_sitter.Node, ...], b: tuple[tree_sitter.Node, ...]) -> bool:
    """Whether two node sequences spell the same tokens (layout and comments aside)."""
    return _tokens(a) == _tokens(b)


@lru_cache(maxsize=4)
def _range_parser(language: str) -> tree_sitter.Parser:
    return tree_sitter.Parser(ts_language(language))


def _macro_arguments(source: bytes, token_tree: tree_sitter.Node, language: str) -> tree_sitter.Node | None:
    """A macro's token tree parsed in place as an expression (same byte offsets), or None."""
    parser = _range_parser(language)
    parser.included_ranges = [
        tree_sitter.Range(token_tree.start_point, token_tree.end_point, token_tree.start_byte, token_tree.end_byte)
    ]
    try:
        tree = parser.parse(source)
    finally:
        parser.included_ranges = []
    node = tree.root_node.descendant_for_byte_range(token_tree.start_byte, token_tree.end_byte)
    if (
        node is None
        or node.has_error
        or (node.start_byte, node.end_byte) != (token_tree.start_byte, token_tree.end_byte)
    ):
        return None
    return node


Env = Mapping[str, tuple[tree_sitter.Node, ...]]


@dataclass(frozen=True)
class Match:
    """One match: the node matched and what each metavariable captured.

    A `$X` capture is one node, a `$$$XS` capture a tuple of sibling nodes
    (punctuation such as separating commas included; `named` leaves it out).
    """

    node: tree_sitter.Node
    captures: Mapping[str, tuple[tree_sitter.Node, ...]]
    source: bytes = field(repr=False)
    # Whether indentation is syntax in the language (Python): `expand` then re-indents the later
    # lines of a multi-line capture to the depth it lands at.
    indented: bool = field(default=False, repr=False)

    @property
    def start(self) -> int:
        return self.node.start_byte

    @property
    def end(self) -> int:
        return self.node.end_byte

    def __getitem__(self, name: str) -> tree_sitter.Node:
        nodes = self.captures[name]
        if len(nodes) != 1:
            raise PatternError(f"${name} captured {len(nodes)} nodes; use nodes({name!r})")
        return nodes[0]

    def __contains__(self, name: str) -> bool:
        return name in self.captures

    def nodes(self, name: str) -> tuple[tree_sitter.Node, ...]:
        return self.captures[name]

    def named(self, name: str) -> tuple[tree_sitter.Node, ...]:
        """The named nodes of a capture (for `$$$ARGS`: the arguments, without the commas)."""
        return tuple(n for n in self.captures[name] if n.is_named and n.type not in _COMMENT_TYPES)

    def text(self, name: str | None = None) -> str:
        """The source text of a capture (of the whole match without a name); "" for an empty one."""
        if name is None:
            return self.source[self.start : self.end].decode("utf-8", "replace")
        nodes = self.captures[name]
        if not nodes:
            return ""
        return self.source[nodes[0].start_byte : nodes[-1].end_byte].decode("utf-8", "replace")

    def expand(self, template: str) -> str:
        """`template` with every `$X` / `$$$XS` replaced by the text it captured."""

        out: list[str] = []
        at = 0
        for m in _METAVARIABLE.finditer(template):
            name = m.group(1) or m.group(2)
            if name is None or name not in self.captures:
                raise PatternError(f"the replacement names {m.group(0)}, which the pattern does not capture")
            out.append(template[at : m.start()])
            text = self.text(name)
            if self.indented and "\n" in text:
                so_far = "".join(out)
                if "\n" in so_far:
                    line = so_far[so_far.rfind("\n") + 1 :]
                else:  # the template's first line: at the match's place in its line
                    line = self.source[self.source.rfind(b"\n", 0, self.start) + 1 : self.start].decode(
                        "utf-8", "replace"
                    )
                text = self._reindented(name, line[: len(line) - len(line.lstrip())])
            out.append(text)
            at = m.end()
        out.append(template[at:])
        return "".join(out)

    def _reindented(self, name: str, indent: str) -> str:
        """A multi-line capture's text with its later lines moved from the indentation of the line
        it starts on to `indent` (lines inside a string literal, and lines less indented, as they
        are)."""
        nodes = self.captures[name]
        start, end = nodes[0].start_byte, nodes[-1].end_byte
        line_start = self.source.rfind(b"\n", 0, start) + 1
        line = self.source[line_start:start]
        was = line[: len(line) - len(line.lstrip())]
        now = indent.encode("utf-8")
        if was == now:
            return self.text(name)
        strings = [
            (d.start_byte, d.end_byte)
            for n in nodes
            for d in _descendants(n)
            if d.type == "string" and d.start_byte < d.end_byte
        ]
        pieces = self.source[start:end].split(b"\n")
        offset = start + len(pieces[0]) + 1
        out = [pieces[0]]
        for piece in pieces[1:]:
            inside = any(s < offset < e for s, e in strings)
            out.append(now + piece[len(was) :] if not inside and piece.startswith(was) and piece.strip() else piece)
            offset += len(piece) + 1
        return b"\n".join(out).decode("utf-8", "replace")


class Pattern:
    """A compiled structural pattern of one language (RUST, CPP or PYTHON).

    Raises PatternError when the text does not parse as one piece of code, or `language` is
    not one patterns work on (None: a file of no known language).
    """

    def __init__(self, text: str, language: str | None) -> None:
        if language is None or language not in parsed_languages():
            raise PatternError(f"patterns are for {', '.join(parsed_languages())}, not {language!r}")
        self.text = text
        self.language = language
        self._indented = REGISTERED[language].indented_blocks
        encoded = _encode(text.strip())
        self._source, self.root = self._compile(encoded)
        self._macro_cache: dict[tuple[int, int], tree_sitter.Node | None] = {}
        # The metavariable each node of the pattern (its trees are kept here) spells, by node id:
        # the matcher asks it of the same nodes at every candidate.
        self._variables: dict[int, _Metavariable | None] = {}
        self._words = _literal_words(self.root)

    def __repr__(self) -> str:
        return f"Pattern({self.text!r}, {self.language!r})"

    def _compile(self, encoded: str) -> tuple[bytes, tree_sitter.Node]:
        body = encoded.encode("utf-8")
        for candidate in (body, body + b";"):
            tree = _parse(candidate, self.language)
            if tree.root_node.has_error:
                continue
            node = tree.root_node.descendant_for_byte_range(0, len(body))
            while node is not None and (node.start_byte, node.end_byte) != (0, len(body)) and node.parent is not None:
                node = node.parent
            if node is None or node.type in ("source_file", "translation_unit", "module"):
                named = [c for c in tree.root_node.named_children if c.type not in _COMMENT_TYPES]
                if len(named) != 1:
                    raise PatternError(f"pattern {self.text!r} is {len(named)} pieces of code; give one")
                node = named[0]
            return candidate, node
        raise PatternError(f"pattern {self.text!r} does not parse as {self.language}")

    # -- matching -----------------------------------------------------------------

    def match(self, source: bytes, node: tree_sitter.Node) -> Match | None:
        """The match of the pattern at exactly `node`, or None. PatternError for a source that is
        not bytes."""
        _require_bytes(source)
        env = _Matcher(self, source).node(self.root, node, MappingProxyType({}))
        if env is None:
            return None
        return Match(node, MappingProxyType({k: v for k, v in env.items()}), source, self._indented)

    def find_all(self, source: bytes, node: tree_sitter.Node | None = None) -> list[Match]:
        """Every match inside `node` (itself included; the whole file parsed here when None), in
        source order; nested matches included. PatternError for a source that is not bytes."""
        _require_bytes(source)
        if node is None:
            node = _parse(source, self.language).root_node
        matcher = _Matcher(self, source)
        found = []
        words = self._words
        for candidate in self._candidates(node):
            start, end = candidate.start_byte, candidate.end_byte
            if words and not all(source.find(word, start, end) >= 0 for word in words):
                continue  # a word the pattern spells is not in the node's text: no match there
            env = matcher.node(self.root, candidate, MappingProxyType({}))
            if env is not None:
                found.append(Match(candidate, MappingProxyType(dict(env)), source, self._indented))
        return found

    def find(self, source: bytes, node: tree_sitter.Node | None = None) -> Match | None:
        """The first match inside `node` (the whole file when None), or None."""
        matches = self.find_all(source, node)
        return matches[0] if matches else None

    def _candidates(self, node: tree_sitter.Node) -> list[tree_sitter.Node]:
        if _metavariable(self.root) is None and self.root.is_named:
            captured = tree_sitter.QueryCursor(query(self.language, f"({self.root.type}) @node")).captures(node)
            nodes = captured.get("node", [])
        else:
            nodes = []
            stack = [node]
            while stack:
                current = stack.pop()
                if current.is_named and current.type not in _COMMENT_TYPES:
                    nodes.append(current)
                stack.extend(current.children)
        return sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte))


class _Matcher:
    """One pattern against one source: the recursive comparison, with macro arguments parsed once."""

    def __init__(self, pattern: Pattern, source: bytes) -> None:
        self.pattern = pattern
        self.source = source
        self._parsed: dict[tuple[int, int], tree_sitter.Node | None] = {}

    def _arguments(self, token_tree: tree_sitter.Node, in_pattern: bool) -> tree_sitter.Node | None:
        if in_pattern:
            key = (token_tree.start_byte, token_tree.end_byte)
            cache = self.pattern._macro_cache
            if key not in cache:
                cache[key] = _macro_arguments(self.pattern._source, token_tree, self.pattern.language)
            return cache[key]
        key = (token_tree.start_byte, token_tree.end_byte)
        if key not in self._parsed:
            self._parsed[key] = _macro_arguments(self.source, token_tree, self.pattern.language)
        return self._parsed[key]

    @staticmethod
    def _bind(env: Env, variable: _Metavariable, nodes: tuple[tree_sitter.Node, ...]) -> Env | None:
        if not variable.captures:
            return env
        if variable.name in env:
            return env if same_code(env[variable.name], nodes) else None
        bound = dict(env)
        bound[variable.name] = nodes
        return MappingProxyType(bound)

    def _variable(self, p: tree_sitter.Node) -> _Metavariable | None:
        """`_metavariable(p)` of a node of the pattern, read once per node."""
        known = self.pattern._variables
        if p.id not in known:
            known[p.id] = _metavariable(p)
        return known[p.id]

    def node(self, p: tree_sitter.Node, t: tree_sitter.Node, env: Env) -> Env | None:
        variable = self._variable(p)
        if variable is not None and not variable.sequence:
            if not t.is_named or t.type in _COMMENT_TYPES:
                return None
            return self._bind(env, variable, (t,))
        if p.type != t.type:
            return None
        if p.child_count == 0:
            return env if (p.text or b"") == (t.text or b"") else None
        if p.type == "token_tree" and p.parent is not None and p.parent.type == "macro_invocation":
            p_args = self._arguments(p, in_pattern=True)
            t_args = self._arguments(t, in_pattern=False)
            if p_args is not None and t_args is not None:
                return self.node(p_args, t_args, env)
        return self.sequence(_children(p), _children(t), env)

    def sequence(self, ps: list[tree_sitter.Node], ts: list[tree_sitter.Node], env: Env) -> Env | None:
        """Match the pattern nodes `ps` against the nodes `ts`, in order. Node by node in a loop
        (a pattern of a thousand statements must not recurse a thousand deep); a `$$$` variable
        tries each length it may bind, the rest matched after it."""
        i = j = 0
        while i < len(ps):
            variable = self._variable(ps[i])
            if variable is not None and variable.sequence:
                rest = ps[i + 1 :]
                for stop in range(j, len(ts) + 1):
                    bound = self._bind(env, variable, tuple(ts[j:stop]))
                    if bound is None:
                        continue
                    matched = self.sequence(rest, ts[stop:], bound)
                    if matched is not None:
                        return matched
                return None
            if j >= len(ts):
                return None
            bound = self.node(ps[i], ts[j], env)
            if bound is None:
                return None
            env, i, j = bound, i + 1, j + 1
        return env if j == len(ts) else None


@dataclass(frozen=True)
class Rewrite:
    """Replace each match of `pattern` by `template` with its captures filled in.

    `where` constrains metavariables: a match is rewritten only when each named
    capture's text (comments and layout aside) is one of the texts given.
    """

    pattern: Pattern
    template: str
    where: Mapping[str, frozenset[str]] = field(default_factory=lambda: MappingProxyType({}))

    def accepts(self, match: Match) -> bool:
        return all(
            b"".join(_tokens(match.nodes(name))).decode("utf-8", "replace") in {"".join(t.split()) for t in texts}
            for name, texts in self.where.items()
        )

    def edits(
        self, path: str, source: bytes, node: tree_sitter.Node | None = None, origin: str = "rewrite"
    ) -> list[Edit]:
        """One edit per outermost match inside `node` (the whole file when None; a match inside
        another is left to it). PatternError for a source that is not bytes, or for a
        replacement naming a metavariable the pattern does not capture."""
        edits: list[Edit] = []
        for match in self.pattern.find_all(source, node):
            if edits and match.start < edits[-1].end or not self.accepts(match):
                continue
            template = _indented_to(self.template, source, match.start, self.pattern._indented)
            replacement = match.expand(template).encode("utf-8")
            if replacement.strip():
                edits.append(Edit(path, match.start, match.end, replacement, origin))
            else:
                edits.append(Edit(path, *_own_lines(source, match.start, match.end), b"", origin))
        return edits


def _own_lines(source: bytes, start: int, end: int) -> tuple[int, int]:
    """The whole lines of a match rewritten to nothing where it stands alone on them (a statement
    removed leaves no blank line behind); else the match itself."""
    line_start = source.rfind(b"\n", 0, start) + 1
    line_end = source.find(b"\n", end)
    line_end = len(source) if line_end < 0 else line_end + 1
    if source[line_start:start].strip() or source[end:line_end].strip():
        return start, end
    return line_start, line_end


def _indented_to(template: str, source: bytes, start: int, indented: bool = False) -> str:
    """A multi-line `template` with its second and later lines indented like the line of the site at
    byte `start` (a template written from column 0 lands at the site's depth; one whose later lines
    carry that indentation already is left as written, except where indentation is syntax:
    `indented`, the template is then always relative to the site). Captures keep their own layout."""
    if "\n" not in template:
        return template
    line_start = source.rfind(b"\n", 0, start) + 1
    line = source[line_start:start]
    indent = line[: len(line) - len(line.lstrip())].decode("utf-8", "replace")
    first, *rest = template.split("\n")
    if not indent or not indented and all(r.startswith(indent) or not r.strip() for r in rest):
        return template
    return "\n".join([first, *(indent + r if r.strip() else r for r in rest)])


def replace_all(source: bytes, tree: tree_sitter.Tree | None, pattern: Pattern, template: str) -> bytes:
    """`source` with every outermost match of `pattern` replaced by `template` (a convenience).

    `tree` is a tree-sitter parse of `source`, or None to have it parsed here (as `find_all`
    and `Rewrite.edits` do)."""
    return apply_edits(source, Rewrite(pattern, template).edits("", source, tree.root_node if tree else None))


__all__ = ["Match", "Pattern", "PatternError", "Rewrite", "metavariables", "replace_all", "same_code"]
