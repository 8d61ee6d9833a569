"""The language registry: every language the codemods read, by name and by file suffix.

A `Language` is data: its suffixes, its tree-sitter grammar package (None for
a language not parsed by tree-sitter), the node kinds of its identifiers,
comments and string literals, its `lexer` (a typed `Lexer`: how `codemod
check` tells code from comments and strings without a parse), the item kinds a recipe may delete, its
formatter, and `operations`: the object its plug-in module exports as
`OPERATIONS`, of the typed protocol `LanguageOperations`, what differs per
language with one interface (its results with more than one part are small
frozen values: `Deletions`, `References`, `DeletedWith`).
That module is imported on first use, so this one loads no parser: `codemod
check` imports it for the suffixes and the lexers alone (they live beside it,
in core/). Rust, C++ and Python register here;
a new language is one `register` call and one plug-in module whose
`OPERATIONS` satisfies `LanguageOperations`.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Protocol, TypeVar, cast, runtime_checkable

from codemods.core import cpp_lexer, python_lexer, rust_lexer
from codemods.core.lexer import Lexer, Spans
from codemods.edit.errors import LanguageError
from codemods.edit.values import Edit, Finding, ItemTarget

RUST = "rust"
CPP = "cpp"
PYTHON = "python"

# The `[[delete]]` kind of a whole file (no `name`): the planner deletes the file, and the
# language's `file_deleted` records what goes with it (plan/stages.py).
FILE_KIND = "file"

# A plug-in's optional `format_file(source, root, path)`: the file formatted, or None.
FormatFile = Callable[[bytes, Path, str], "bytes | None"]

_Memo = TypeVar("_Memo")


class PlanState:
    """What the plug-ins share over one plan: its root, how to read a file of its snapshot and
    the edits planned in a file so far, a memo per plug-in (a resolver built once), and whether
    the recipe keeps the imports the plan leaves unused (its `unused_imports = "keep"`: the
    import stage then removes only those naming a deleted item)."""

    def __init__(
        self,
        root: Path,
        read: Callable[[str], "bytes | None"],
        planned: Callable[[str], Sequence[Edit]] = lambda _path: (),
        carried: "PlanState | None" = None,
        keep_unused_imports: bool = False,
    ) -> None:
        self.root = root
        self.read = read
        self.planned = planned
        self.keep_unused_imports = keep_unused_imports
        # The memos of `carried` (the plan's state at its start, where searches began) are these too.
        self._memos: dict[str, object] = carried._memos if carried is not None else {}

    def memo(self, key: str, make: Callable[[], _Memo]) -> _Memo:
        """The value kept under `key` for this plan, made by `make()` on first use."""
        if key not in self._memos:
            self._memos[key] = make()
        return cast(_Memo, self._memos[key])

    def close(self) -> None:
        """The plan is over: each memo with a `close()` (a search still running) is closed."""
        for value in self._memos.values():
            close = getattr(value, "close", None)
            if callable(close):
                close()


@dataclass(frozen=True)
class Deletions:
    """What a plug-in's `delete_items` returns: the byte-range `edits` deleting the targets of one
    file, and the `findings` (a target not found, one it will not delete)."""

    edits: tuple[Edit, ...] = ()
    findings: tuple[Finding, ...] = ()


@dataclass(frozen=True)
class References:
    """What a plug-in's `references` returns for one file: the `uses` (each a
    `languages.resolution.Reference`) that resolve, or may resolve, to what the plan deletes, and
    the deleted names the planner is to match `by_spelling` in the file instead."""

    uses: tuple[Any, ...] = ()
    by_spelling: tuple[str, ...] = ()


@dataclass(frozen=True)
class DeletedWith:
    """What a plug-in's `files_deleted_with` returns: the `edits` in other files that go with the
    plan's deletions (a deleted module's file), the `findings`, and the `items` those edits delete
    (each a deleted item of the plug-in's own type), which the reference check counts as deleted."""

    edits: tuple[Edit, ...] = ()
    findings: tuple[Finding, ...] = ()
    items: tuple[Any, ...] = ()


@runtime_checkable
class LanguageOperations(Protocol):
    """What a language plug-in implements: its module's `OPERATIONS`, an object of this protocol.

    A plug-in's class may subclass `LanguageOperations` to take its defaults (each optional
    operation None, `deletable_kinds` empty, `deletes_apart` False); mypy then checks each of
    its members against the ones below. For files of its language, the methods, which the
    planner calls with positional arguments (the bundled plug-ins bind their module's functions
    with `staticmethod`):

    - `parse_errors(source, tree) -> [(start, end)]`: byte ranges of syntax
      errors (`tree` is the tree-sitter tree, None without a grammar);
    - `identifiers(source, tree, hits) -> hits`: of (start, end, name) whole-word
      hits, those that are identifiers in code;
    - `delete_items(path, source, targets, origin, absent, deleted) -> Deletions`:
      byte-range edits deleting recipe `[[delete]]` targets (with the comments and
      attributes attached to them), and findings, recording what was deleted in `deleted`;
    - `item_scopes(source, tree, name) -> [Scope]`: the items a rule scoped to
      `name` applies to (with their leading comments);
    - `references(path, text, deleted, state) -> References`: the uses
      in a file of what the plan deletes that resolve (or may) to it, and the
      names to match by spelling instead (`state`: the plan's `PlanState`);
    - `format_item(text, indent, root, path) -> str | None`: generated item text
      formatted by the language's formatter at `indent` for the file `path` under
      `root`, or None when it has none, it is not installed, or it rejected the text.

    and, where the language has them, the optional operations, attributes that are a function
    or None (None: the planner does without):

    - `format_file(source, root, path) -> bytes | None`: the whole file formatted;
    - `formatting_applies(root, path) -> bool`: whether the tree asks for the
      formatter on the file (else a missing formatter is not worth a note);
    - `parse_errors_deletable(root, path) -> bool`: whether a parse error lying
      wholly inside a deleted item of `path` may go with it;
    - `imports_left_unused(path, source, planned, deleted, state, origin) -> [Edit]`:
      edits removing the imports the plan leaves naming a deleted item or unused;
    - `files_deleted_with(deleted, read, origin, root, targets) -> DeletedWith`:
      what goes in other files with the deleted items (a module's file);
    - `resolve_ahead(files, deleted, state)`: resolve the uses in `files` ((path, text as
      read)) at once (in parallel processes), before `references` asks file by file;
    - `prepare_formatting(root)`: what finding the formatter takes (rustfmt through rustup
      asks which binary once), done in a thread as a plan that edits the language's files
      starts, while the plan is made;
    - `start_searches(state, paths)`: searches of the tree the plug-in will want, started as a
      plan that deletes in its files `paths` starts (in threads or other processes, not waited for) and kept
      in `state`'s memos, which the plan's later state carries;
    - `named_items(source, tree) -> [(start, end, name)]`: the items of the file a change can be
      said to be in (functions, types, modules, nested ones too), each from its docs and
      attributes to its end, named as a recipe names it (`tests::check`, `ns::Klass::f`);
    - `file_deleted(path, source, deleted) -> [Finding]`: a recipe deletes the whole file
      `path` (kind `file`): what goes with it recorded in `deleted` (its items, the file
      itself for the uses that name it: an `#include`, an `import`);
    - `format_excerpt(before, edits, after) -> bytes | None`: a smaller file of `after` (`before`
      with the (start, end, replacement) `edits`) that the formatter leaves as it is only if it
      leaves the edited places of `after` as they are: the planner formats it first, and the
      whole file only where the formatter changes it (None: no such file, format the whole);
    - `holds_after(root, path, text, finding) -> bool`: whether a finding `delete_items` made of
      the file still holds on `text`, the file as every stage of the plan leaves it (a rewrite
      may take away the last use of an import the recipe deletes): the planner drops the others.

    `deletable_kinds` are the item kinds a recipe may delete. `deletes_apart` says that
    `delete_items` may run in a forked process, beside the plan's other files (its values
    are plain data, and the plan asks nothing more of the file's tree than its parse
    errors, which that process computes too): a language whose later steps read the tree
    (Rust: imports, references) leaves it False.

    (`deleted` is the plan's `languages.resolution.DeletedRecord`, `tree` a tree-sitter tree or
    None, a `Scope` is `languages.scope.Scope`: types of the layer above, hence `Any` here.)
    """

    deletable_kinds: tuple[str, ...] = ()
    deletes_apart: bool = False
    format_file: FormatFile | None = None
    formatting_applies: Callable[[Path, str], bool] | None = None
    parse_errors_deletable: Callable[[Path, str], bool] | None = None
    imports_left_unused: Callable[[str, bytes, list[Edit], Any, PlanState, str], list[Edit]] | None = None
    files_deleted_with: (
        Callable[[Any, Callable[[str], "bytes | None"], str, Path, list[ItemTarget]], DeletedWith] | None
    ) = None
    resolve_ahead: Callable[[list[tuple[str, bytes]], Any, PlanState], None] | None = None
    prepare_formatting: Callable[[Path], None] | None = None
    format_excerpt: Callable[[bytes, list[tuple[int, int, bytes]], bytes], "bytes | None"] | None = None
    start_searches: Callable[[PlanState, list[str]], None] | None = None
    named_items: Callable[[bytes, Any], list[tuple[int, int, str]]] | None = None
    file_deleted: Callable[[str, bytes, Any], list[Finding]] | None = None
    holds_after: Callable[[Path, str, bytes, Finding], bool] | None = None

    def parse_errors(self, source: bytes, tree: Any, /) -> list[tuple[int, int]]:
        """Byte ranges of the file's syntax errors."""
        ...

    def identifiers(self, source: bytes, tree: Any, hits: list[tuple[int, int, str]], /) -> list[tuple[int, int, str]]:
        """Of the (start, end, name) whole-word `hits`, those that are identifiers in code."""
        ...

    def delete_items(
        self,
        path: str,
        source: bytes,
        targets: list[ItemTarget],
        origin: str,
        absent: Callable[[], bool] | None,
        deleted: Any,
        /,
    ) -> Deletions:
        """The edits deleting `targets` from the file, and the findings; what goes is recorded in `deleted`."""
        ...

    def item_scopes(self, source: bytes, tree: Any, name: str, /) -> list[Any]:
        """The items a rule scoped to `name` applies to."""
        ...

    def references(self, path: str, text: bytes, deleted: Any, state: PlanState, /) -> References:
        """The uses in the file of what the plan deletes, and the names to match by spelling."""
        ...

    def format_item(self, text: str, indent: str, root: Path, path: str, /) -> str | None:
        """Generated item text formatted at `indent`, or None."""
        ...


@dataclass(frozen=True)
class Language:
    """One language: what the planner, the patterns and the recipe loader ask of it: data, and
    `operations_module`, the plug-in module whose `OPERATIONS` (a `LanguageOperations`)
    implements what differs per language, imported on first use."""

    name: str
    suffixes: tuple[str, ...]
    operations_module: str
    grammar: str | None = None
    identifier_kinds: frozenset[str] = frozenset()
    comment_kinds: frozenset[str] = frozenset()
    string_kinds: frozenset[str] = frozenset()
    deletable_kinds: tuple[str, ...] = ()
    formatter: str | None = None
    # How its comments are written, for rewording the prose in them (plan/reword.py): the markers
    # that start a line comment, and the (opener, closer) pairs of its block comments.
    line_comment_markers: tuple[str, ...] = ()
    block_comment_markers: tuple[tuple[str, str], ...] = ()
    lexer: Lexer | None = None
    # Whether indentation is syntax (Python): a rewrite moving a multi-line capture to another
    # depth re-indents its lines by the difference (pattern.py).
    indented_blocks: bool = False
    # The engine that deletes its items, where not the tree-sitter grammar (docs/kinds.md says it).
    deleter: str | None = None

    @property
    def item_kinds(self) -> tuple[str, ...]:
        """The item kinds a recipe may delete: `deletable_kinds`, else the plug-in's (a plug-in
        that describes its kinds in code says them once), and `file` (the whole file), which
        every language has."""
        return (*(self.deletable_kinds or self.operations.deletable_kinds), FILE_KIND)

    @functools.cached_property
    def operations(self) -> LanguageOperations:
        """The plug-in module's `OPERATIONS`, imported and checked on first use."""
        operations = getattr(importlib.import_module(self.operations_module), "OPERATIONS", None)
        if not isinstance(operations, LanguageOperations):
            raise LanguageError(
                f"{self.operations_module} defines no OPERATIONS (a LanguageOperations) for the language {self.name!r}"
            )
        return operations


LANGUAGES: dict[str, Language] = {}
_BY_SUFFIX: dict[str, Language] = {}


def source_globs() -> tuple[str, ...]:
    """`*.SUFFIX` for every suffix of every registered language (what a word search reads)."""
    return tuple(f"*{suffix}" for language in LANGUAGES.values() for suffix in language.suffixes)


def unregister(name: str) -> None:
    """Remove a language registered with `register` (a test's toy language, say)."""
    language = LANGUAGES.pop(name)
    for suffix in language.suffixes:
        _BY_SUFFIX.pop(suffix, None)


def register(language: Language) -> Language:
    """Add `language` to the registry (its suffixes must be new)."""
    taken = [s for s in language.suffixes if s in _BY_SUFFIX]
    if language.name in LANGUAGES or taken:
        raise LanguageError(f"language {language.name!r} or suffixes {taken} already registered")
    LANGUAGES[language.name] = language
    _BY_SUFFIX.update({suffix: language for suffix in language.suffixes})
    return language


def language_for(path: str | PurePosixPath) -> Language | None:
    """The registered language of a file, from its suffix; None if not a source file."""
    text = str(path)
    name = text.rpartition("/")[2]
    if name in ("", ".", ".."):  # `dir/`, `dir/.`: the path's own rules say which name is last
        return _BY_SUFFIX.get(PurePosixPath(text).suffix.lower())
    # PurePosixPath's suffix, without building the path (a plan asks for thousands): a name whose
    # only dot leads it (`.rs`) or ends it has none.
    dot = name.rfind(".")
    if dot <= 0 or dot == len(name) - 1:
        return None
    return _BY_SUFFIX.get(name[dot:].lower())


def language_of(path: str | PurePosixPath) -> str | None:
    """The name of the language a file is parsed as, from its suffix; None if not a source file."""
    language = language_for(path)
    return language.name if language is not None else None


def lex_spans(source: bytes, language: str, stop: int | None = None) -> Spans | None:
    """The comment and string spans of `source` in `language` (its registered `lexer`), or None
    where the scan cannot delimit them (an unterminated comment or literal).

    With `stop`, only spans that start before that offset are needed: the
    scan may end there (the span it is in, if any, is still complete).
    """
    registered = LANGUAGES.get(language)
    if registered is None or registered.lexer is None:
        raise LanguageError(f"no lexer for {language!r}")
    return registered.lexer(source, len(source) if stop is None else min(stop, len(source)))


def parsed_languages() -> tuple[str, ...]:
    """The names of the languages with a tree-sitter grammar (the ones patterns work on)."""
    return tuple(name for name, language in LANGUAGES.items() if language.grammar is not None)


register(
    Language(
        RUST,
        (".rs",),
        "codemods.languages.rust.language",
        grammar="tree_sitter_rust",
        identifier_kinds=frozenset({"identifier", "type_identifier", "field_identifier", "shorthand_field_identifier"}),
        comment_kinds=frozenset({"line_comment", "block_comment"}),
        string_kinds=frozenset({"string_literal", "raw_string_literal", "char_literal", "string_content"}),
        formatter="rustfmt",
        line_comment_markers=("///", "//!", "//"),
        block_comment_markers=(("/*!", "*/"), ("/**", "*/"), ("/*", "*/")),
        lexer=rust_lexer.spans,
    )
)
register(
    Language(
        CPP,
        (".cpp", ".cc", ".cxx", ".c", ".h", ".hh", ".hpp", ".hxx", ".cu", ".cuh", ".mm", ".metal"),
        "codemods.languages.cpp.language",
        grammar="tree_sitter_cpp",
        identifier_kinds=frozenset({"identifier", "type_identifier", "field_identifier", "namespace_identifier"}),
        comment_kinds=frozenset({"comment"}),
        string_kinds=frozenset(
            {
                "string_literal",
                "raw_string_literal",
                "char_literal",
                "concatenated_string",
                "system_lib_string",
                "string_content",
            }
        ),
        deletable_kinds=(
            "function",
            "declaration",
            "class",
            "struct",
            "union",
            "enum",
            "type",
            "variable",
            "field",
            "any",
        ),
        formatter="clang-format",
        line_comment_markers=("///", "//!", "//"),
        block_comment_markers=(("/*!", "*/"), ("/**", "*/"), ("/*", "*/")),
        lexer=cpp_lexer.spans,
    )
)
register(
    Language(
        PYTHON,
        (".py",),
        "codemods.languages.python.language",
        grammar="tree_sitter_python",
        identifier_kinds=frozenset({"identifier"}),
        comment_kinds=frozenset({"comment"}),
        string_kinds=frozenset({"string", "concatenated_string", "string_content"}),
        deletable_kinds=("function", "class", "variable"),
        line_comment_markers=("#",),
        lexer=python_lexer.spans,
        indented_blocks=True,
        deleter="libcst",
    )
)
