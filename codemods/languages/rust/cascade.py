"""What a plan's Rust deletions take with them in other files: the files of the out-of-line
modules it deletes, the methods of other files' impls of a trait whose method declaration it
deletes, and the match arms that name only a variant it deletes; and the methods it takes out
of a trait impl it keeps that the trait still requires (a finding)."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

from codemods.core.registry import FILE_KIND, RUST, DeletedWith
from codemods.edit.codes import Code
from codemods.edit.item_spans import Deletion, deletion_edits, whole_lines
from codemods.edit.values import Edit, Finding, ItemTarget, line_col
from codemods.languages.resolution import DeletedRecord
from codemods.languages.rust.items import (
    DeletedItem,
    RustTarget,
    attribute_path,
    attribute_string_value,
    leading_trivia,
    rust_items,
    split_path,
    without_arguments,
)
from codemods.languages.rust.members import variant_uses
from codemods.languages.rust.modules import module_candidates, module_files
from codemods.languages.rust.resolve import DeletedRustItem, RustResolver, deleted_rust_items
from codemods.parse import enclosing, node_text, parse
from codemods.search.files import files_with_words


# Where a file of the tree is read from (None: it cannot be read).
_Read = Callable[[str], bytes | None]


def _deleted_rust(deleted: DeletedRecord) -> list[DeletedRustItem]:
    """The plan's deleted Rust items (the Rust plug-in records each as a DeletedRustItem)."""
    return [i for i in deleted.of(RUST) if isinstance(i, DeletedRustItem)]


def files_deleted_with(
    deleted: DeletedRecord, read: _Read, origin: str, root: Path | None = None, targets: Sequence[ItemTarget] = ()
) -> DeletedWith:
    """What goes with the plan's deletions in other files: the files of the out-of-line
    modules (`mod foo;`) it deletes (`foo.rs` or `foo/mod.rs` beside the declaring file, or
    its `#[path]`, with their own modules' files), the methods of other files' impls of a
    trait whose method declaration it deletes, and the match arms of other files that name
    only a variant it deletes (`targets`: the recipe's Rust targets). Returns the edits,
    findings and the items deleted with them (for the reference check)."""
    edits: list[Edit] = []
    findings: list[Finding] = []
    items: list[DeletedRustItem] = []
    seen: set[str] = set()
    for module in [i for i in _deleted_rust(deleted) if i.kind == "mod"]:
        for path, source, resolved in module_files(module.path, module.module, module.start, read, origin):
            if path in seen:
                continue
            seen.add(path)
            edits.append(Edit(path, 0, len(source), b"", f"{origin}:mod-file", delete_file=True))
            items += deleted_rust_items(path, resolved)
    if root is not None:
        findings += _files_still_modules(deleted, read, root, [t.path for t in targets if t.kind == FILE_KIND])
        more, gone = _trait_method_impls(deleted, read, root, seen, origin)
        edits += more
        items += gone
        edits += _variant_arms_elsewhere(targets, read, root, seen, origin)
        findings += _methods_traits_require(_deleted_rust(deleted) + items, read, root)
    return DeletedWith(tuple(edits), tuple(findings), tuple(items))


def _files_still_modules(deleted: DeletedRecord, read: _Read, root: Path, paths: list[str]) -> list[Finding]:
    """A file the recipe deletes whole (kind `file`) that a `mod` the plan keeps still declares:
    refused at the declaration, which the `mod` kind deletes with its file. A file no `mod`
    declares (a crate root, a test, an example) just goes."""
    if not paths:
        return []
    gone = {(i.path, i.start) for i in _deleted_rust(deleted) if i.kind == "mod"}
    words = sorted(
        {PurePosixPath(p).parent.name if PurePosixPath(p).name == "mod.rs" else PurePosixPath(p).stem for p in paths}
        - {""}
    )
    findings: list[Finding] = []
    for declaring in files_with_words(root, words) if words else []:
        source = read(declaring) if declaring.endswith(".rs") and declaring not in paths else None
        if source is None:
            continue
        for item in rust_items(source, parse(source, RUST)):
            if (
                item.kind != "mod"
                or item.node.child_by_field_name("body") is not None
                or (declaring, item.node.start_byte) in gone
            ):
                continue
            _, attributes = leading_trivia(source, item.node)
            attribute = next((attribute_string_value(a) for a in attributes if attribute_path(a) == "path"), None)
            declared = {
                posixpath.normpath(c) for c in module_candidates(declaring, item.module_path, item.name, attribute)
            }
            for path in [p for p in paths if p in declared]:
                line, col = line_col(source, item.node.start_byte)
                name = "::".join(("crate", *item.module_path, item.name))
                findings.append(
                    Finding(
                        declaring,
                        line,
                        col,
                        Code.DANGLING_REFERENCE,
                        f"{item.name}: `mod {item.name};` still declares {path}, a file the recipe "
                        f"deletes; delete the module instead ([[delete]] path = {declaring!r}, kind "
                        f"= 'mod', name = {name!r}), which takes its file",
                        symbol=item.name,
                        certainty="definite",
                        reference_kind="mod",
                        resolution=f"the module's file is {path}",
                    )
                )
    return findings


def _methods_traits_require(deleted: list[DeletedRustItem], read: _Read, root: Path) -> list[Finding]:
    """A method the plan takes out of a trait impl it keeps, where the trait (resolved through
    the tree, wherever it is defined) declares it without a default body: the impl would no
    longer compile. Where the trait is not defined in the tree, its items are not known: the
    deletion is refused only when it leaves the impl empty."""
    taken = [i for i in deleted if i.left_impl and i.kind in ("fn", "test")]
    if not taken:
        return []
    resolver = RustResolver(root, read)
    gone = {(i.path, i.start) for i in deleted}
    findings: list[Finding] = []
    for item in taken:
        parsed = resolver.declared_tree(item.path)
        node = enclosing(parsed[1].root_node, item.start, ("impl_item",)) if parsed else None
        trait = node.child_by_field_name("trait") if node is not None else None
        if parsed is None or node is None or trait is None:
            continue
        spelled = " ".join(node_text(trait).split())
        owner = " ".join(node_text(node.child_by_field_name("type")).split())
        declarations = resolver.trait_declarations(item.path, trait)
        line, col = line_col(parsed[0], item.start)
        if declarations is None:
            body = node.child_by_field_name("body")
            kept = (
                [
                    c
                    for c in body.named_children
                    if c.type in ("function_item", "const_item", "type_item") and (item.path, c.start_byte) not in gone
                ]
                if body is not None
                else []
            )
            if not kept:
                findings.append(
                    Finding(
                        item.path,
                        line,
                        col,
                        Code.REQUIRED_METHOD,
                        f"<{owner} as {spelled}>::{item.name}: the impl would be left empty, and "
                        f"{spelled} is not defined in the tree (whether it requires {item.name} is "
                        f"not known); delete the impl (kind impl) instead",
                        symbol=item.name,
                    )
                )
            continue
        for file, start in declarations:
            required = _required_methods(resolver, file, start)
            if item.name in required and (file, required[item.name]) not in gone:
                trait_line = line_col(_declared_source(resolver, file), start)[0]
                findings.append(
                    Finding(
                        item.path,
                        line,
                        col,
                        Code.REQUIRED_METHOD,
                        f"<{owner} as {spelled}>::{item.name}: trait {spelled} ({file}:{trait_line}) "
                        f"declares {item.name} without a default, so the impl would no longer compile; delete "
                        f"the declaration (kind trait_method) or the impl (kind impl) instead",
                        symbol=item.name,
                    )
                )
                break
    return findings


def _required_methods(resolver: RustResolver, file: str, start: int) -> dict[str, int]:
    """The methods the trait item at `start` of `file` declares without a default body, with
    the start of each declaration."""
    parsed = resolver.declared_tree(file)
    node = enclosing(parsed[1].root_node, start, ("trait_item",)) if parsed else None
    body = node.child_by_field_name("body") if node is not None else None
    return {
        node_text(c.child_by_field_name("name")): c.start_byte
        for c in (body.named_children if body is not None else [])
        if c.type == "function_signature_item"
    }


def _declared_source(resolver: RustResolver, file: str) -> bytes:
    """The file of a trait the resolver found (so it was read) as read."""
    parsed = resolver.declared_tree(file)
    if parsed is None:
        raise ValueError(f"{file}: a trait was found in it, yet it cannot be read")
    return parsed[0]


def _variant_arms_elsewhere(
    targets: Sequence[ItemTarget], read: _Read, root: Path, skipped: set[str], origin: str
) -> list[Edit]:
    """The match arms (and `A | B` alternatives) naming only a deleted variant, in the files
    other than the enum's (its own file's go with the variant)."""
    variants = [
        (t.path, *split_path(t.name)[-2:]) for t in targets if t.kind == "variant" and len(split_path(t.name)) >= 2
    ]
    edits: list[Edit] = []
    for home, enum, variant in variants:
        for path in files_with_words(root, [variant]):
            if path == home or path in skipped or not path.endswith(".rs"):
                continue
            source = read(path)
            if source is None:
                continue
            deletions, reshaped = variant_uses(
                source, path, parse(source, RUST), enum, variant, f"{origin}:variant:{enum}::{variant}"
            )
            edits += deletion_edits(path, source, deletions) + reshaped
    return edits


def _trait_method_impls(
    deleted: DeletedRecord, read: _Read, root: Path, skipped: set[str], origin: str
) -> tuple[list[Edit], list[DeletedRustItem]]:
    """The methods, in other files than the trait's, of impls of a trait whose method
    declaration the plan deletes (`impl Float for f32 { fn is_sign_negative .. }`)."""
    declared: dict[tuple[str, str], str] = {}  # (trait, method) -> the trait's file
    for item in _deleted_rust(deleted):
        if item.owner is None or item.kind not in ("fn", "fn_signature"):
            continue
        source = read(item.path)
        node = enclosing(parse(source, RUST).root_node, item.start, ("trait_item", "impl_item")) if source else None
        if node is not None and node.type == "trait_item":
            declared[(item.owner, item.name)] = item.path
    if not declared:
        return [], []
    already = {(i.path, i.start) for i in _deleted_rust(deleted)}
    edits: list[Edit] = []
    gone: list[DeletedRustItem] = []
    for path in files_with_words(root, sorted({method for _, method in declared})):
        if path in skipped or not path.endswith(".rs"):
            continue
        source = read(path)
        if source is None:
            continue
        chosen = [
            i
            for i in rust_items(source, parse(source, RUST))
            if i.impl_header is not None
            and i.impl_header[1] is not None
            and i.kind != "impl"
            and (without_arguments(i.impl_header[1]).split("::")[-1], i.name) in declared
            and (path, i.node.start_byte) not in already
        ]
        if not chosen:
            continue
        deletions = [
            Deletion(*whole_lines(source, i.start, i.end, (b"//",)), f"{origin}:trait-method-impl") for i in chosen
        ]
        edits += deletion_edits(path, source, deletions)
        gone += deleted_rust_items(path, [DeletedItem(RustTarget("fn", i.name), (i,), ()) for i in chosen])
    return edits, gone
