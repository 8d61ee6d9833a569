"""C++'s operations for the language registry (core/registry.py): deleting items, rule scopes,
identifiers and parse errors of C++, CUDA and Metal files."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import tree_sitter

from codemods.edit.values import Edit, Finding, ItemTarget
from codemods.core.registry import (
    CPP,
    LANGUAGES,
    DeletedWith,
    Deletions,
    LanguageOperations,
    PlanState,
    References,
    language_of,
)
from codemods.parse import error_nodes, identifier_hits, parse
from codemods.languages.resolution import DEFINITE, DeletedFile, DeletedRecord, Reference, deleted_file
from codemods.languages.scope import Scope, after_previous_sibling
from codemods.edit.item_spans import deletion_edits
from codemods.languages.cpp.deletion import delete_cpp_items, delete_members_of
from codemods.languages.cpp.items import (
    CppItem,
    CppTarget,
    cpp_items,
    is_annotation_macro_semicolon,
    is_grammar_gap,
    is_forward_declaration,
)
from codemods.languages.cpp.includes import included_files, include_lines, resolve_include
from codemods.languages.cpp.preprocessor import masked_namespace_macros
from codemods.languages.cpp.deleted import HEADER_SUFFIXES, DeletedCppItem, deleted_cpp_items, is_member
from codemods.languages.cpp.inherited import without_redeclarations
from codemods.languages.cpp.resolve import Includes, cpp_references
from codemods.search.files import files_with_words
from codemods.languages.cpp.format import clang_format, style_file


def parse_errors(source: bytes, tree: tree_sitter.Tree) -> list[tuple[int, int]]:
    """Syntax errors, less the `;` tree-sitter-cpp misses after an annotation macro line and what
    it wants where valid C++11 leaves nothing (items.is_grammar_gap), with the namespace macro
    pairs read as the namespaces they open (preprocessor.py; a recipe's own macros are such pairs
    too)."""
    masked, _ = masked_namespace_macros(source)
    if masked != source:
        tree = parse(masked, CPP)
    return [
        (n.start_byte, n.end_byte)
        for n in error_nodes(tree)
        if not is_annotation_macro_semicolon(source, n) and not is_grammar_gap(n)
    ]


def identifiers(source: bytes, tree: tree_sitter.Tree, hits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    return identifier_hits(tree, hits, LANGUAGES[CPP].identifier_kinds)


def delete_items(
    path: str,
    source: bytes,
    targets: Sequence[ItemTarget],
    origin: str,
    absent: Callable[[], bool] | None,
    deleted: DeletedRecord,
) -> Deletions:
    cpp_targets = [CppTarget(t.kind, t.name, t.branch) for t in targets]
    macros = next((tuple(t.namespace_macros) for t in targets if t.namespace_macros), ())
    taken = delete_cpp_items(path, source, cpp_targets, origin, absent, macros)
    kept = [i for i in cpp_items(source, namespace_macros=macros) if i not in taken.gone]
    deleted.add(CPP, deleted_cpp_items(path, taken.gone, macros, kept))
    return Deletions(tuple(deletion_edits(path, source, taken.taken)), tuple(taken.findings))


def files_deleted_with(
    deleted: DeletedRecord,
    read: Callable[[str], bytes | None],
    origin: str,
    root: Path | None = None,
    targets: Sequence[ItemTarget] = (),
) -> DeletedWith:
    """What goes with the plan's deletions in the tree's other C++ files: the out-of-line member
    definitions (`void Klass::f() {...}` in a .cc file) of the classes it deletes, and those of
    the static data members it deletes (`int Klass::count = 0;`), with the namespaces and
    conditionals they leave empty. Returns the edits, no findings, and the items deleted with
    them (for the reference check)."""
    owners = [i for i in _deleted_cpp(deleted) if i.kind in ("class", "struct", "union", "field") and not i.forward]
    if not owners or root is None:
        return DeletedWith()
    macros = next((o.namespace_macros for o in owners if o.namespace_macros), ())
    edits: list[Edit] = []
    gone: list[DeletedCppItem] = []
    for path in files_with_words(root, sorted({o.name for o in owners})):
        # An owner's own file had its members deleted with it (delete_cpp_items).
        elsewhere = [(*o.visible_namespace, o.name) for o in owners if o.path != path]
        source = read(path) if elsewhere and language_of(path) == CPP else None
        if source is None:
            continue
        deletions, members = delete_members_of(source, elsewhere, origin, macros)
        if deletions:
            edits += deletion_edits(path, source, deletions)
            kept = [i for i in cpp_items(source, namespace_macros=macros) if i not in members]
            gone += deleted_cpp_items(path, members, macros, kept)
    return DeletedWith(tuple(edits), (), tuple(gone))


def file_deleted(path: str, source: bytes, deleted: DeletedRecord) -> list[Finding]:
    """A recipe deletes the whole file `path`: the file is recorded, for the `#include` lines that
    still read it, and a header's own items at namespace scope (its classes, functions, types and
    variables), for the code of the files that include it, which uses them. A source file's
    definitions (and its forward declarations) are reached through the declarations other files
    keep, so its items are not recorded one by one: a file split in two keeps each name's
    declaration."""
    deleted.add(CPP, [deleted_file(path)])
    if path.endswith(HEADER_SUFFIXES):
        items = [
            i
            for i in cpp_items(source)
            if i.kind in _HEADER_ITEM_KINDS and not is_member(i) and not is_forward_declaration(i)
        ]
        deleted.add(CPP, deleted_cpp_items(path, items))
    return []


# What a deleted header's includers may use of it by name.
_HEADER_ITEM_KINDS = ("class", "struct", "union", "enum", "type", "function", "declaration", "variable")


def _include_references(
    path: str, text: bytes, files: list[DeletedFile], exists: Callable[[str], bool]
) -> list[Reference]:
    """The `#include` lines of `text` (the file `path`) that read one of the deleted `files`."""
    gone = {f.path for f in files}
    found = []
    for start, end, written in include_lines(text):
        # Another file of the same name found once the deleted one is gone is what it reads then.
        if resolve_include(path, written, lambda p: p not in gone and exists(p)) is not None:
            continue
        read = resolve_include(path, written, exists)
        if read in gone:
            found.append(
                Reference(
                    path, start, end, written, DEFINITE, "include", f"#include of {read}, a file the recipe deletes"
                )
            )
    return found


def item_scopes(source: bytes, tree: tree_sitter.Tree, name: str) -> list[Scope]:
    wanted = tuple(name.split("::"))
    return [
        Scope(name, item.start, item.end, after_previous_sibling(item.node), item.node)
        for item in cpp_items(source, tree)
        if (*item.scope, item.name)[-len(wanted) :] == wanted
    ]


def named_items(source: bytes, tree: tree_sitter.Tree) -> list[tuple[int, int, str]]:
    """(start, end, qualified name) of the file's items (functions, classes, ...; see items.py)."""
    return [(item.start, item.end, "::".join((*item.scope, item.name))) for item in cpp_items(source, tree)]


def references(path: str, text: bytes, deleted: DeletedRecord, shared: PlanState) -> References:
    """Uses in a C++ file that resolve, or may resolve, to a deleted C++ item (the files it
    includes, read once per plan where asked, make the `static` functions of those files
    visible; a file it does not include is hidden by its own `static` function; their items
    type the receivers of member calls)."""
    closures: dict[str, set[str]] = shared.memo("cpp_included_files", dict)

    def includes_of(other: str) -> set[str]:
        if other not in closures:
            closures[other] = included_files(other, shared.read)
        return closures[other]

    def included() -> set[str]:
        return includes_of(path)

    items = _deleted_cpp(deleted)
    macros = next((i.namespace_macros for i in items if i.namespace_macros), ())
    headers: dict[str, list[CppItem]] = shared.memo("cpp_included_items", dict)

    def items_of(header: str) -> list[CppItem]:
        if header not in headers:
            source = shared.read(header) if language_of(header) == CPP else None
            headers[header] = cpp_items(source, namespace_macros=macros) if source is not None else []
        return headers[header]

    items = without_redeclarations(items, includes_of, items_of, shared.memo("cpp_redeclared_members", dict))

    def included_items() -> list[CppItem]:
        return [i for header in sorted(included()) for i in items_of(header)]

    files = [i for i in deleted.of(CPP) if isinstance(i, DeletedFile)]
    includes = _include_references(path, text, files, lambda p: shared.read(p) is not None) if files else []
    seen = Includes(included, included_items, includes_of, items_of)
    return References((*includes, *cpp_references(path, text, items, seen)))


def _deleted_cpp(deleted: DeletedRecord) -> list[DeletedCppItem]:
    """The plan's deleted C++ items (`delete_items` and `files_deleted_with` record them)."""
    return [i for i in deleted.of(CPP) if isinstance(i, DeletedCppItem)]


def format_item(text: str, indent: str, root: Path, path: str) -> None:
    """Generated C++ text is inserted as written (an edited file is formatted whole: format_file)."""
    return None


def format_file(source: bytes, root: Path, path: str) -> bytes | None:
    """The whole file formatted by clang-format where the tree has a `.clang-format` (format.py);
    None without one, without clang-format, or when it fails."""
    return clang_format(source, root, path)


def formatting_applies(root: Path, path: str) -> bool:
    """Whether the tree asks for clang-format on `path` (a style file in its folder or above)."""
    return style_file(root, path) is not None


def parse_errors_deletable(root: Path, path: str) -> bool:
    """Always: the grammar reads without a preprocessor, and valid code misreads where a macro
    stands for syntax (an attribute macro before a declaration, `#ifdef` inside an expression).
    An item around such an error, located and closed (the planner checks its brackets balance and
    that the error goes with it, no other coming), may be deleted whole."""
    return True


class CppOperations(LanguageOperations):
    """C++'s `LanguageOperations`: the functions of this module."""

    parse_errors = staticmethod(parse_errors)
    identifiers = staticmethod(identifiers)
    delete_items = staticmethod(delete_items)
    item_scopes = staticmethod(item_scopes)
    named_items = staticmethod(named_items)
    references = staticmethod(references)
    format_item = staticmethod(format_item)
    format_file = staticmethod(format_file)
    formatting_applies = staticmethod(formatting_applies)
    files_deleted_with = staticmethod(files_deleted_with)
    file_deleted = staticmethod(file_deleted)
    parse_errors_deletable = staticmethod(parse_errors_deletable)
    # Its deletion runs beside the Rust files' in a plan that edits both (a cxx bridge's two sides).
    deletes_apart = True


OPERATIONS = CppOperations()
