"""What the C preprocessor does to C++ items, as far as the codemods need it.

* **Conditional branches.** tree-sitter-cpp keeps `#if`/`#ifdef`/`#elif`/
  `#else` blocks in the tree, with the items of each branch inside. An item's
  `Branch`es are the branches around it, outermost first, each with the
  condition under which its code is compiled (`defined(__APPLE__)`,
  `!defined(__APPLE__)` for the `#else`, `0`). An include guard (`#ifndef X`
  whose first line is `#define X`) is no branch. A branch whose condition is `0`
  (or the `#else` of `#if 1`) is inactive: its code is never compiled.
* **Namespaces opened by macros.** `FMT_BEGIN_NAMESPACE` ... `FMT_END_NAMESPACE`
  opens and closes a namespace that tree-sitter cannot see (it reads the macro
  as a type and the rest as garbage). `masked_namespace_macros` blanks such
  macro lines out (same length, same lines, so every offset stays valid) and
  returns the regions they delimit with the namespace each opens: from a
  recipe's `namespace_macros` (`{"FMT_BEGIN_NAMESPACE": "fmt"}`), or, without
  it, the common pairs `X_BEGIN_NAMESPACE`/`X_END_NAMESPACE`,
  `X_NAMESPACE_BEGIN`/`X_NAMESPACE_END`, `BEGIN_NAMESPACE_X`/`END_NAMESPACE_X`
  (namespace `x`, the macro's prefix in lower case) and
  `BEGIN_NAMESPACE(ns)`/`END_NAMESPACE(ns)`; a `#define` of the macro in the
  file says better (the namespaces its body opens, an `inline namespace`
  adding none), and such a macro used inside `namespace x {` already opens
  none (`X_NAMESPACE_BEGIN` that only opens a version's inline namespace).
  Other macro pairs alone on their
  lines, `X_BEGIN_Y`/`X_END_Y` (`FMT_BEGIN_EXPORT`), are blanked out too,
  opening no namespace.
* **Export and visibility macros.** `class MYLIB_EXPORT Name {` and
  `MYLIB_API void f();` put an upper-case macro where C++ has no name
  (tree-sitter reads the first as a function named `Name`, the second with a
  syntax error). Such a macro is blanked out too: between `class`/`struct`/
  `union` and the name a `{`, `:` or `final` follows, and at the start of a
  declaration before its type and name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

import tree_sitter

from codemods.parse import node_text

# The node kinds of a conditional's head and of its later branches.
CONDITIONAL_HEADS = ("preproc_if", "preproc_ifdef")
LATER_BRANCHES = ("preproc_elif", "preproc_elifdef", "preproc_else")
BRANCH_KINDS = CONDITIONAL_HEADS + LATER_BRANCHES

# A macro alone on its line (optionally with one argument and a `;`): what opens or closes a namespace.
_MACRO_LINE = re.compile(
    rb"^[ \t]*([A-Za-z_]\w*)(?:[ \t]*\([ \t]*([A-Za-z_][\w:]*)?[ \t]*\))?[ \t]*;?[ \t]*"
    rb"(?=//|/\*|\r?$)",
    re.M,
)
# The common spellings of macro pairs that open and close a namespace (the namespace is group "ns").
_OPENING = (
    re.compile(r"(?P<ns>[A-Za-z]\w*?)_(?:BEGIN_NAMESPACE|NAMESPACE_BEGIN|NAMESPACE_OPEN|OPEN_NAMESPACE)"),
    re.compile(r"(?:BEGIN|OPEN)_NAMESPACE_(?P<ns>\w+)"),
)
_CLOSING_WORDS = (("BEGIN", "END"), ("OPEN", "CLOSE"))
# An object-like macro's `#define` (group 1: its name, group 2: its body, continued lines too).
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])((?:[^\n]*\\\r?\n)*[^\n]*)", re.M)
# A namespace a macro body opens (group 1: `inline` or nothing, group 2: its name).
_NAMESPACE_OPENING = re.compile(rb"(inline[ \t]+)?namespace[ \t]+([A-Za-z_][\w:]*)[ \t\\\r\n]*\{")
# An upper-case macro (group "macro") between a class key and the class's name.
_CLASS_EXPORT = re.compile(
    rb"\b(?:class|struct|union)[ \t]+(?:alignas\([^)]*\)[ \t]*)?(?P<macro>[A-Z][A-Z0-9_]*)"
    rb"(?:\([^()\n]*\))?[ \t]+(?=[A-Za-z_]\w*(?:[ \t]+final)?[ \t]*(?:\{|:(?!:)|\r?$))",
    re.M,
)
# An upper-case macro with an underscore (group "macro") opening a declaration line, before a
# type that is not upper-case itself and a function's name and `(`.
_DECLARATION_EXPORT = re.compile(
    rb"^[ \t]*(?:(?:static|inline|extern|virtual|constexpr)[ \t]+)*(?P<macro>[A-Z][A-Z0-9]*_[A-Z0-9_]*)"
    rb"(?:\([^()\n]*\))?[ \t]+(?=(?:const[ \t]+)?(?:[a-z_]|[A-Z]\w*[a-z])[\w:<>, \t]*[\s*&]+~?[A-Za-z_][\w:]*[ \t]*\()",
    re.M,
)


@dataclass(frozen=True)
class Branch:
    """One branch of a conditional that an item sits in: the condition under which it is
    compiled, the line of its directive (1-based), and whether it is never compiled."""

    condition: str
    line: int
    inactive: bool


@dataclass(frozen=True)
class NamespaceRegion:
    """Bytes [start, end) that a macro pair wraps in the namespace `names` (() for a macro that
    opens none, e.g. a recipe's `"QT_BEGIN_NAMESPACE" = ""`); `macro` is the opening macro, and
    `guessed` says that neither the recipe nor a `#define` in the file says what it opens (the
    namespace is read from its name)."""

    start: int
    end: int
    names: tuple[str, ...]
    macro: str = ""
    guessed: bool = False


def _closing_name(opening: str) -> str | None:
    for begin, end in _CLOSING_WORDS:
        if begin in opening:
            return opening.replace(begin, end, 1)
    return None


def _opened_namespace(name: str, argument: str | None, macros: dict[str, str]) -> str | None:
    """The namespace the macro `name` opens (None when it opens none we know of)."""
    if name in macros:
        return macros[name]
    if name == "BEGIN_NAMESPACE" and argument:
        return argument
    for pattern in _OPENING:
        match = pattern.fullmatch(name)
        if match:
            return match.group("ns").lower()
    return None


def _defined_namespaces(source: bytes) -> dict[str, str]:
    """The namespace each object-like macro of a BEGIN/END (OPEN/CLOSE) pair `#define`d in
    `source` opens, for the macros whose body opens namespaces or is empty: `#define GEO_BEGIN namespace geo { namespace v2 {` opens
    `geo::v2`; an `inline namespace` adds nothing (its names are found without it), and an empty
    body opens none."""
    found = {}
    for match in _DEFINE.finditer(source):
        if _closing_name(match.group(1).decode("ascii")) is None:
            continue  # not a macro of a BEGIN/END (OPEN/CLOSE) pair
        body = match.group(2).strip()
        opened = _NAMESPACE_OPENING.findall(body)
        if body and not opened:
            continue
        found[match.group(1).decode("ascii")] = "::".join(
            name.decode("ascii") for inline, name in opened if not inline.strip()
        )
    return found


def _inside_namespace(source: bytes, offset: int, namespace: str) -> bool:
    """Whether `offset` lies inside a `namespace NAME {` block of `source` (braces counted as
    text): a macro used there opens no second namespace of that name."""
    last = None
    for match in re.finditer(rb"\bnamespace[ \t]+" + re.escape(namespace.encode()) + rb"[ \t\r\n]*\{", source[:offset]):
        last = match
    if last is None:
        return False
    between = source[last.end() : offset]
    return between.count(b"{") >= between.count(b"}")


def masked_namespace_macros(
    source: bytes, macros: Iterable[tuple[str, str]] = ()
) -> tuple[bytes, tuple[NamespaceRegion, ...]]:
    """`source` with the lines of namespace-opening and -closing macro pairs blanked out, and the
    regions they delimit: `_masked_namespace_macros`, computed once per source and macros (the
    item walk, the deletion and the reference check each ask for the same file's; a file over
    4 MiB is not kept)."""
    if len(source) > _KEPT_SOURCE_BYTES:
        return _masked_namespace_macros.__wrapped__(source, tuple(macros))
    return _masked_namespace_macros(source, tuple(macros))


_KEPT_SOURCE_BYTES = 4 * 1024 * 1024


@lru_cache(maxsize=16)
def _masked_namespace_macros(
    source: bytes, macros: tuple[tuple[str, str], ...]
) -> tuple[bytes, tuple[NamespaceRegion, ...]]:
    """`source` with the lines of namespace-opening and -closing macro pairs blanked out, and the
    regions they delimit (see the module doc). A macro opening a namespace counts only where its
    closing macro follows in the file. Any other macro line whose name has BEGIN (OPEN) and that
    the same name with END (CLOSE) follows is such a pair too, opening no namespace
    (`FMT_BEGIN_EXPORT`, or a recipe's own macro where the syntax check does not know it)."""
    source = _masked_export_macros(source)
    known = {**_defined_namespaces(source), **dict(macros)} if b"define" in source else dict(macros)
    stated = set(known)  # what the recipe or the file says; the others are read from their names
    lines = list(_MACRO_LINE.finditer(source))
    names = [m.group(1).decode("ascii") for m in lines]
    known.update(
        (n, "")
        for n in names
        if n not in known
        and _opened_namespace(n, None, known) is None
        and (closing := _closing_name(n)) is not None
        and closing in names
    )
    if not any(_opened_namespace(n, None, known) is not None or n == "BEGIN_NAMESPACE" for n in names):
        return source, ()
    masked = bytearray(source)
    regions: list[NamespaceRegion] = []
    stack: list[tuple[str, int, tuple[str, ...], str]] = []
    for match, name in zip(lines, names):
        argument = match.group(2).decode("ascii") if match.group(2) else None
        open_at = next((i for i in range(len(stack) - 1, -1, -1) if stack[i][0] == name), None)
        if open_at is not None:
            closing, start, opened, opening = stack.pop(open_at)
            regions.append(
                NamespaceRegion(
                    start, match.end(), opened, opening, opening not in stated and opening != "BEGIN_NAMESPACE"
                )
            )
            masked[match.start() : match.end()] = b" " * (match.end() - match.start())
            continue
        namespace = _opened_namespace(name, argument, known)
        closing = _closing_name(name)
        if namespace is None or closing is None or closing.encode() not in source[match.end() :]:
            continue
        if name not in known and namespace and _inside_namespace(source, match.start(), namespace):
            namespace = ""  # `X_NAMESPACE_BEGIN` inside `namespace x {`: a versioning or export macro
        stack.append((closing, match.start(), tuple(p for p in namespace.split("::") if p), name))
        masked[match.start() : match.end()] = b" " * (match.end() - match.start())
    regions += [
        NamespaceRegion(start, len(source), opened, opening, opening not in stated and opening != "BEGIN_NAMESPACE")
        for _, start, opened, opening in stack
    ]
    return bytes(masked), tuple(regions)


def _masked_export_macros(source: bytes) -> bytes:
    """`source` with its export and visibility macros blanked out (see the module doc)."""
    spans = [
        m.span("macro")
        for pattern in (_CLASS_EXPORT, _DECLARATION_EXPORT)
        for m in pattern.finditer(source)
        if m.group("macro") not in _NOT_MACROS
    ]
    if not spans:
        return source
    masked = bytearray(source)
    for start, end in spans:
        stop = end
        if source[end : end + 1] == b"(":
            stop = source.index(b")", end) + 1
        masked[start:stop] = b" " * (stop - start)
    return bytes(masked)


# Upper-case words that are types, not macros, where an export macro would stand.
_NOT_MACROS = frozenset({b"FILE", b"DIR", b"BOOL", b"HANDLE", b"DWORD", b"UINT", b"HRESULT"})


def _text(node: tree_sitter.Node | None) -> str:
    return " ".join(node_text(node).split())


def _own_condition(node: tree_sitter.Node) -> str:
    """The condition written on a head or `#elif` directive (`defined(X)` for `#ifdef X`)."""
    if node.type in ("preproc_ifdef", "preproc_elifdef"):
        name = _text(node.child_by_field_name("name"))
        negated = node.children and node.children[0].type in ("#ifndef", "#elifndef")
        return f"!defined({name})" if negated else f"defined({name})"
    return _text(node.child_by_field_name("condition"))


def negation(condition: str) -> str:
    """`!condition`, written simply: `!defined(X)` for `defined(X)` and back, `!(a && b)` otherwise."""
    if condition.startswith("!") and re.fullmatch(r"!(defined\(\w+\)|\w+)", condition):
        return condition[1:]
    if re.fullmatch(r"defined\(\w+\)|\w+", condition):
        return f"!{condition}"
    return f"!({condition})"


def _never(condition: str) -> bool:
    return condition in ("0", "false")


def _branch(node: tree_sitter.Node) -> Branch:
    """The branch `node` (a head, `#elif` or `#else`) opens: for a later branch, its condition
    with the negations of the ones before it."""
    earlier: list[str] = []
    current = node
    while (
        current.parent is not None
        and current.parent.type in BRANCH_KINDS
        and current.parent.child_by_field_name("alternative") == current
    ):
        current = current.parent
        earlier.insert(0, _own_condition(current))
    parts = [negation(c) for c in earlier if not _never(c)]
    if node.type != "preproc_else":
        parts.append(_own_condition(node))
    condition = " && ".join(parts) if parts else "1"
    inactive = (node.type != "preproc_else" and _never(_own_condition(node))) or (
        node.type == "preproc_else" and any(c in ("1", "true") for c in earlier)
    )
    return Branch(condition, node.start_point.row + 1, inactive)


def is_include_guard(node: tree_sitter.Node) -> bool:
    """Whether `node` is a header's include guard: an `#ifndef X` whose first directive is
    `#define X`, with no `#else` (nested ones too: an amalgamated header holds one per header)."""
    if (
        node.type != "preproc_ifdef"
        or not node.children
        or node.children[0].type != "#ifndef"
        or node.child_by_field_name("alternative")
    ):
        return False
    name = node.child_by_field_name("name")
    first = next((c for c in node.named_children if c != name and c.type != "comment"), None)
    return (
        first is not None
        and first.type == "preproc_def"
        and name is not None
        and _text(first.child_by_field_name("name")) == _text(name)
    )


def branches(node: tree_sitter.Node) -> tuple[Branch, ...]:
    """The conditional branches `node` sits in, outermost first (an include guard is none)."""
    found: list[Branch] = []
    child, parent = node, node.parent
    while parent is not None:
        if (
            parent.type in BRANCH_KINDS
            and parent.child_by_field_name("alternative") != child
            and not is_include_guard(parent)
        ):
            found.insert(0, _branch(parent))
        child, parent = parent, parent.parent
    return tuple(found)


def in_inactive_branch(node: tree_sitter.Node) -> bool:
    """Whether `node` sits in code the preprocessor never compiles (`#if 0`, the `#else` of `#if 1`)."""
    return any(b.inactive for b in branches(node))


def branch_condition(found: tuple[Branch, ...]) -> str:
    """The condition under which code in the branches `found` is compiled ("" outside any)."""
    return " && ".join(b.condition for b in found)


def same_condition(a: str, b: str) -> bool:
    """Whether two conditions are the same text, whitespace aside."""
    return "".join(a.split()) == "".join(b.split())
