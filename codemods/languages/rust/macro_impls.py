"""Trait impls a `macro_rules!` writes: a method of a deleted trait method's name in the body of
an `impl Trait for ...` that a macro's transcriber spells is defined for a trait that no longer
declares it (rustc: "method is not a member of trait"), wherever the macro is expanded. The
tokens are read as the macro writes them: `impl`, a path ending in the trait's name, then
`for`, then the impl's braces, where `fn NAME` stands."""

from __future__ import annotations

import tree_sitter

from codemods.languages.resolution import DEFINITE, Reference
from codemods.languages.rust.resolve.values import DeletedRustItem
from codemods.parse import RUST, descendants, node_text, parse


def macro_impl_methods(path: str, text: bytes, deleted: list[DeletedRustItem]) -> list[Reference]:
    """Each `fn NAME` inside an `impl Trait for ..` a macro body of `text` writes, where `NAME` is
    a method `Trait` declares and the plan deletes."""
    wanted: set[tuple[str | None, str]] = {(i.owner, i.name) for i in deleted if i.in_trait and i.owner}
    if not wanted or b"macro_rules" not in text or not any(name.encode() in text for _, name in wanted):
        return []
    found: list[Reference] = []
    tree = parse(text, RUST)
    for body in descendants(tree.root_node, named=True):
        if body.type != "token_tree" or body.parent is None or body.parent.type != "macro_rule":
            continue
        found += _impls_in(path, body, wanted)
    return found


def _impls_in(path: str, tree: tree_sitter.Node, wanted: set[tuple[str | None, str]]) -> list[Reference]:
    found: list[Reference] = []
    children = tree.children
    for index, child in enumerate(children):
        if child.type == "token_tree":
            found += _impls_in(path, child, wanted)
            continue
        if node_text(child) != "impl":
            continue
        trait: str | None = None
        last: str | None = None  # the last identifier before `for`: the trait path's last segment
        for after in children[index + 1 :]:
            if after.type == "token_tree":
                if node_text(after).startswith("{"):
                    if trait is not None:
                        found += _methods(path, after, trait, wanted)
                    break  # the impl's braces (an inherent impl's, without `for`)
                continue  # a `(...)` or `[...]` group in the header
            spelled = node_text(after)
            if spelled == "for" and trait is None:
                trait = last
                if trait is None:
                    break
            elif trait is None and after.type == "identifier":
                last = spelled
    return found


def _methods(path: str, body: tree_sitter.Node, trait: str, wanted: set[tuple[str | None, str]]) -> list[Reference]:
    found = []
    tokens = body.children
    for index, token in enumerate(tokens[:-1]):
        name = tokens[index + 1]
        if node_text(token) == "fn" and name.type == "identifier" and (trait, node_text(name)) in wanted:
            found.append(
                Reference(
                    path,
                    name.start_byte,
                    name.end_byte,
                    node_text(name),
                    DEFINITE,
                    "trait impl method",
                    f"a macro writes `impl {trait} for ..` with `fn {node_text(name)}`, which the trait no "
                    "longer declares once the plan deletes it",
                )
            )
    return found
