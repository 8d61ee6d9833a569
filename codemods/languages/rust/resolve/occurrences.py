"""Occurrences: what a spelling of a name at one place of a file is: a path to resolve (in which
namespaces, from which lexical scope), a name inside a `use` tree, a method call on a receiver,
a name in a macro's tokens (a use only as far as the macro is known to take expressions), a
serde attribute's path string, or nothing to resolve (a declaration, a binding, a comment)."""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from codemods.languages.rust.resolve.scopes import is_binding
from codemods.languages.rust.resolve.syntax import path_segments
from codemods.languages.rust.resolve.values import MACRO, TYPE, VALUE
from codemods.parse import descendants, node_text

# Macros whose arguments are expressions (or format strings and expressions):
# a name inside them resolves as in code.
EXPRESSION_MACROS = frozenset(
    {
        "assert",
        "assert_eq",
        "assert_ne",
        "debug_assert",
        "debug_assert_eq",
        "debug_assert_ne",
        "vec",
        "format",
        "format_args",
        "print",
        "println",
        "eprint",
        "eprintln",
        "write",
        "writeln",
        "panic",
        "unreachable",
        "todo",
        "unimplemented",
        "dbg",
        "anyhow",
        "bail",
        "ensure",
        "json",
        "info",
        "warn",
        "error",
        "debug",
        "trace",
    }
)

# serde attribute keys whose string value is a path to a function (or, for `with`, a module).
SERDE_FUNCTION_KEYS = frozenset({"default", "serialize_with", "deserialize_with", "skip_serializing_if", "getter"})
SERDE_MODULE_KEYS = frozenset({"with"})

# Item nodes whose `name` field declares the name (a use of the name there is not a reference).
_DECLARING = frozenset(
    {
        "function_item",
        "function_signature_item",
        "const_item",
        "static_item",
        "struct_item",
        "enum_item",
        "union_item",
        "trait_item",
        "type_item",
        "mod_item",
        "macro_definition",
        "enum_variant",
        "type_parameter",
        "const_parameter",
        "field_declaration",
        "associated_type",
    }
)


@dataclass(frozen=True)
class Use:
    """What a name at one place is: a path to resolve (in some namespaces) or a member access."""

    kind: str
    segments: tuple[str, ...] = ()
    namespaces: tuple[str, ...] = (VALUE,)
    scope_node: tree_sitter.Node | None = None
    certain: bool = True
    reason: str = ""
    receiver: tree_sitter.Node | None = None


def after_member_access(source: bytes, start: int) -> bool:
    """Whether the word at `start` follows `.` or `::` (blanks between): the only places a method
    or an associated function is named (`x.len()`, `Type::len`, `Self::len`, a serde path string),
    never as a bare word, so a file without such a spelling is not parsed for it."""
    before = source[max(0, start - 256) : start].rstrip()
    return before.endswith(b".") or before.endswith(b"::")


def classify(node: tree_sitter.Node, start: int, end: int, name: str) -> Use | None:
    """What the name at [start, end) is: a use to resolve, a member access, or nothing (a
    declaration, a comment, a string that is not a serde path)."""
    if node.type == "string_content":
        return _serde_use(node, start, name)
    if node.start_byte != start or node.end_byte != end:
        return None
    kind = node.type
    parent = node.parent
    if parent is None:
        return None
    if kind == "field_identifier":
        caller = parent.parent
        if (
            parent.type == "field_expression"
            and parent.child_by_field_name("field") == node
            and caller is not None
            and caller.type == "call_expression"
            and caller.child_by_field_name("function") == parent
        ):
            return Use("method call", receiver=parent.child_by_field_name("value"))
        return None
    if kind == "shorthand_field_identifier":
        return Use("field shorthand", (name,), (VALUE,), node) if parent.type == "field_initializer_list" else None
    if kind not in ("identifier", "type_identifier"):
        return None
    if parent.type in _DECLARING and parent.child_by_field_name("name") == node:
        return None
    if is_binding(node):
        return None
    if parent.type == "token_tree" or _in_macro_definition(node):
        return _token_use(node, name)
    return _code_use(node, name)


def local_macro_path(node: tree_sitter.Node) -> bool:
    """Whether a name in a macro_rules! body heads or ends a path (`Name::f`, `a::Name`), in a macro
    not `#[macro_export]`ed: it expands beside the file's own names, where it is written."""
    following, previous = node.next_sibling, node.prev_sibling
    if not (following is not None and following.type == "::" or previous is not None and previous.type == "::"):
        return False
    current = node.parent
    while current is not None and current.type != "macro_definition":
        current = current.parent
    if current is None:
        return False
    attribute = current.prev_named_sibling
    while attribute is not None and attribute.type in ("attribute_item", "line_comment", "block_comment"):
        if attribute.type == "attribute_item" and b"macro_export" in (attribute.text or b""):
            return False
        attribute = attribute.prev_named_sibling
    return True


def _in_macro_definition(node: tree_sitter.Node) -> bool:
    current = node.parent
    while current is not None:
        if current.type == "macro_definition":
            return True
        current = current.parent
    return False


def _code_use(node: tree_sitter.Node, name: str) -> Use | None:
    """A name in code (not in macro tokens): a segment of a path, an import, or a bare name."""
    use_declaration = _ancestor(node, "use_declaration")
    if use_declaration is not None:
        return _import_use(node, use_declaration)
    segments = _segments_until(node)
    if segments is None:
        return None
    parent = node.parent
    named = parent is not None and parent.type in _SCOPED and parent.child_by_field_name("name") == node
    whole = parent if named and parent is not None else node
    if (
        whole.parent is not None
        and whole.parent.type == "generic_type"
        and whole.parent.child_by_field_name("type") == whole
    ):
        whole = whole.parent
    if whole.parent is not None and whole.parent.type in _SCOPED and whole.parent.child_by_field_name("path") == whole:
        return Use("path", segments, (TYPE,), node)
    outer = _outermost_path(node)
    container = outer.parent
    if (
        container is not None
        and container.type == "macro_invocation"
        and container.child_by_field_name("macro") == outer
    ):
        return Use("macro", segments, (MACRO,), node)
    if container is not None and container.type in ("attribute", "attribute_item", "visibility_modifier"):
        return None
    if node.type == "type_identifier" or outer.type in ("scoped_type_identifier", "generic_type"):
        namespaces: tuple[str, ...] = (TYPE,)
    elif container is not None and container.type in ("struct_expression", "struct_pattern"):
        namespaces = (TYPE,)
    else:
        namespaces = (VALUE,)
    kind = (
        "call"
        if container is not None and container.type == "call_expression"
        else "path"
        if len(segments) > 1
        else "name"
    )
    return Use(kind, segments, namespaces, node)


_SCOPED = ("scoped_identifier", "scoped_type_identifier")
_SEGMENT_NODES = ("identifier", "type_identifier", "crate", "self", "super", "metavariable")


def _import_use(node: tree_sitter.Node, use_declaration: tree_sitter.Node) -> Use | None:
    """A name inside a `use` tree: the path up to it, in every namespace if it is what the
    leaf imports, in the type namespace if it is a module on the way."""
    top = node
    while top.parent is not None and top.parent.type == "scoped_identifier":
        top = top.parent
    leaves = sorted((n for n in descendants(top, named=True) if n.type in _SEGMENT_NODES), key=lambda n: n.start_byte)
    position = next((i for i, n in enumerate(leaves) if n == node), None)
    if position is None:
        return None
    segments = tuple(node_text(n) for n in leaves[: position + 1])
    holder = top.parent
    if holder is not None and holder.type == "use_as_clause" and holder.child_by_field_name("alias") == top:
        return None
    is_last = position == len(leaves) - 1
    if holder is not None and (
        holder.type == "use_wildcard" or holder.type == "scoped_use_list" and holder.child_by_field_name("path") == top
    ):
        is_last = False
    child, current = top, top.parent
    while current is not None and current != use_declaration:
        if current.type == "scoped_use_list" and current.child_by_field_name("list") == child:
            head = current.child_by_field_name("path")
            assert head is not None
            segments = (*(path_segments(head) or ()), *segments)
        child, current = current, current.parent
    namespaces = (VALUE, TYPE, MACRO) if is_last else (TYPE,)
    return Use("import", segments, namespaces, None)


def _ancestor(node: tree_sitter.Node, kind: str) -> tree_sitter.Node | None:
    current = node.parent
    while current is not None:
        if current.type == kind:
            return current
        if current.type in ("block", "source_file", "declaration_list"):
            return None
        current = current.parent
    return None


def _outermost_path(node: tree_sitter.Node) -> tree_sitter.Node:
    current = node
    while current.parent is not None and current.parent.type in (
        "scoped_identifier",
        "scoped_type_identifier",
        "generic_type",
        "generic_function",
    ):
        current = current.parent
    return current


def _segments_until(node: tree_sitter.Node) -> tuple[str, ...] | None:
    """The path segments up to and including `node`: `a::b` for the `b` of `a::b::c`."""
    parent = node.parent
    if parent is not None and parent.type in _SCOPED and parent.child_by_field_name("name") == node:
        return path_segments(parent)
    return (node_text(node),)


def _token_use(node: tree_sitter.Node, name: str) -> Use | None:
    """A name inside a macro invocation's tokens or a macro_rules! body."""
    previous = node.prev_sibling
    if previous is not None and previous.type == ".":
        return Use("method call", receiver=_token_receiver(node, previous))
    segments = [name]
    current = node
    while True:
        separator = current.prev_sibling
        if separator is None or separator.type != "::":
            break
        head = separator.prev_sibling
        if head is None or head.type not in ("identifier", "crate", "self", "super", "metavariable"):
            segments.insert(0, "")
            break
        segments.insert(0, node_text(head))
        current = head
    following = node.next_sibling
    if following is not None and following.type == "!":
        namespaces: tuple[str, ...] = (MACRO,)
    elif following is not None and following.type == "::":
        namespaces = (TYPE,)
    else:
        namespaces = (VALUE, TYPE)
    if _in_macro_definition(node):
        return Use(
            "macro_rules body",
            tuple(segments),
            namespaces,
            node,
            certain=False,
            reason="inside a macro_rules! body (resolved where the macro is defined)",
        )
    outer = node.parent
    assert outer is not None  # a token is inside its token tree
    while outer.parent is not None and outer.parent.type == "token_tree":
        outer = outer.parent
    invocation = outer.parent
    if invocation is None or invocation.type != "macro_invocation":
        return None
    if _closure_parameter_in_tokens(outer, node, name.encode()):
        return None
    macro = node_text(invocation.child_by_field_name("macro")).split("::")[-1]
    if macro in EXPRESSION_MACROS or _whole_argument(outer, current, node):
        return Use("macro argument", tuple(segments), namespaces, invocation)
    return Use(
        "macro argument",
        tuple(segments),
        namespaces,
        invocation,
        certain=False,
        reason=f"inside an invocation of {macro}!, whose arguments may not be expressions",
    )


def _token_receiver(name: tree_sitter.Node, dot: tree_sitter.Node) -> tree_sitter.Node | None:
    """The receiver token of the call `receiver.name(..)` in the arguments of a macro that takes
    expressions, where it is a variable or `self` (not a field `a.b.name()`, a path, a call's
    value): its type is then found as in code, from the token up. None where the call's
    parentheses do not follow, the macro may not take expressions, or its tokens bind the
    variable themselves (a closure parameter, a `let`)."""
    receiver = dot.prev_sibling
    before = receiver.prev_sibling if receiver is not None else None
    call = name.next_sibling
    if (
        receiver is None
        or receiver.type not in ("identifier", "self")
        or before is not None
        and before.type in (".", "::", "$")
        or call is None
        or call.type != "token_tree"
        or not call.children
        or call.children[0].type != "("
        or _in_macro_definition(name)
    ):
        return None
    outer = name.parent
    while outer is not None and outer.parent is not None and outer.parent.type == "token_tree":
        outer = outer.parent
    invocation = outer.parent if outer is not None else None
    if outer is None or invocation is None or invocation.type != "macro_invocation":
        return None
    if node_text(invocation.child_by_field_name("macro")).split("::")[-1] not in EXPRESSION_MACROS:
        return None
    if receiver.type == "identifier" and _closure_parameter_in_tokens(outer, receiver, receiver.text or b""):
        return None
    return receiver


def _whole_argument(tokens: tree_sitter.Node, first: tree_sitter.Node, last: tree_sitter.Node) -> bool:
    """Whether the path from token `first` to token `last` is a whole top-level argument of a macro
    invocation's tokens (`register!(Meter, crate::Gauge)`): a path standing alone there names
    what it resolves to, whatever the macro does with it (a macro that declared an item of that
    name beside the deleted one would not have compiled either)."""
    before, after = first.prev_sibling, last.next_sibling
    return (
        first.parent == tokens
        and last.parent == tokens
        and before is not None
        and after is not None
        and before.type in ("(", "[", "{", ",")
        and after.type in (",", ")", "]", "}")
    )


def _closure_parameter_in_tokens(tokens: tree_sitter.Node, node: tree_sitter.Node, name: bytes) -> bool:
    """Whether a closure parameter list `|..name..|` or a `let name` in the macro's tokens binds
    `name` before `node`."""
    flat: list[tree_sitter.Node] = []
    stack = [tokens]
    while stack:
        current = stack.pop()
        if current.type == "token_tree":
            stack.extend(reversed(current.children))
        else:
            flat.append(current)
    open_bar = None
    for index, token in enumerate(flat):
        if token.start_byte >= node.start_byte:
            break
        if token.type == "|":
            if open_bar is None:
                open_bar = index
            else:
                if any(t.text == name and t.type == "identifier" for t in flat[open_bar + 1 : index]):
                    return True
                open_bar = None
        elif open_bar is not None and token.type not in (
            "identifier",
            ",",
            ":",
            "&",
            "mut",
            "primitive_type",
            "(",
            ")",
            "_",
        ):
            open_bar = None
        if token.type == "let" and index + 1 < len(flat) and flat[index + 1].text == name:
            return True
    return False


def _serde_use(node: tree_sitter.Node, start: int, name: str) -> Use | None:
    """The path in `#[serde(default = "path")]` (and with, serialize_with, ...)."""
    literal = node.parent
    if literal is None or literal.type != "string_literal":
        return None
    tokens = literal.parent
    if tokens is None or tokens.type != "token_tree":
        return None
    attribute: tree_sitter.Node | None = tokens
    while attribute is not None and attribute.type not in ("attribute_item", "inner_attribute_item"):
        attribute = attribute.parent
    if attribute is None:
        return None
    equals = literal.prev_sibling
    key = equals.prev_sibling if equals is not None and equals.type == "=" else None
    if key is None:
        return None
    # `default` is a keyword token in the grammar, the other keys identifiers.
    key_name = node_text(key)
    if key_name not in SERDE_FUNCTION_KEYS | SERDE_MODULE_KEYS:
        return None
    text = node_text(node)
    segments = tuple(text.split("::"))
    offset = start - node.start_byte
    consumed = 0
    for index, segment in enumerate(segments):
        if consumed == offset and segment == name:
            is_last = index == len(segments) - 1
            namespace = VALUE if is_last and key_name in SERDE_FUNCTION_KEYS else TYPE
            return Use(f"serde {key_name}", segments[: index + 1], (namespace,), attribute)
        consumed += len(segment.encode()) + 2
    return None
