"""Whether one file's planned edits may be written (`check_file`): a file outside ROOT or
binary is not edited, overlapping edits conflict, an edit may not fall in a parse error (unless a
deletion takes the error whole from a closed item, where the language's grammar misreads valid
code), and the result must not parse worse than the file did. Parse errors are asked once per text
(`parse_errors`; `KNOWN_ERRORS` holds those a forked process computed)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from codemods.config.recipe import Recipe, Workspace
from codemods.core.registry import Language, language_for, lex_spans
from codemods.edit.codes import Code
from codemods.edit.splice import (
    FileChange,
    conflicts,
    joined_deletions,
    map_offset,
    resolve_inside,
    splice,
    with_line_endings_of,
)
from codemods.edit.values import Edit, Finding, line_col
from codemods.parse import parse, reparse
from codemods.search.files import in_scope as path_in_scope


# Parse errors computed in a forked process (`_deletions_apart`), by (language, text): the file's
# tree is there, not here. Errors are a function of the language and the text. The text itself is
# the key (this process holds it anyway): an exact match, and no sha256 of each file checked (nor
# hashlib's import, 3-5 ms of a dry run here).
KNOWN_ERRORS: dict[tuple[str, bytes], list[tuple[int, int]]] = {}
KNOWN_KEPT = 256


def parse_errors(path: str, source: bytes, edited: tuple[bytes, list[Edit]] | None = None) -> list[tuple[int, int]]:
    """Byte ranges of parse errors, as the file's language reports them (none for other files).

    `edited` is (original, edits) when `source` is the original with the edits
    spliced in: then tree-sitter re-reads only what the edits touched.
    """
    language = language_for(path)
    if language is None:
        return []
    if KNOWN_ERRORS:
        known = KNOWN_ERRORS.get((language.name, source))
        if known is not None:
            return list(known)
    tree = None
    if language.grammar is not None:
        if edited is not None:
            original, edits = edited
            tree = reparse(original, [(e.start, e.end, e.replacement) for e in edits], source, language.name)
        else:
            tree = parse(source, language.name)
    return language.operations.parse_errors(source, tree)


def unwritable_target(root: Path, path: str, source: bytes) -> Finding | None:
    """Why the file at `path` must not be edited at all, if it must not: it lies outside ROOT
    (through a symlink or ..), or it is binary (holds a NUL byte)."""
    if resolve_inside(root, path) is None:
        return Finding(
            path, 0, 0, Code.SYMLINK_OUTSIDE_ROOT, "resolves outside ROOT (through a symlink or ..); not edited"
        )
    nul = source.find(b"\0")
    if nul >= 0:
        line, col = line_col(source, nul)
        return Finding(path, line, col, Code.BINARY_FILE, "binary file (NUL byte here); not edited")
    return None


@dataclass(frozen=True)
class FileCheck:
    """Whether the planned edits of one file may be written (`check_file`): the findings that say
    why not, else the change (None also when the edits change nothing); and whether the edits
    were converted to the file's CRLF line endings."""

    findings: list[Finding] = field(default_factory=list)
    change: FileChange | None = None
    crlf: bool = False


def check_file(root: Path, recipe: Recipe, workspace: Workspace, path: str) -> FileCheck:
    """Whether the planned edits of one file may be written: the findings that say why not,
    else the change (None also when the edits change nothing); and whether the edits were
    converted to the file's CRLF line endings."""
    edits = joined_deletions(list(workspace.edits[path]))
    source = workspace.read(path)
    if source is None or not edits:
        return FileCheck()
    if recipe.protected and path_in_scope(path, recipe.protected):
        return FileCheck([Finding(path, 0, 0, Code.PROTECTED_PATH, f"{path} is protected; the recipe may not edit it")])
    refusal = unwritable_target(root, path, source)
    if refusal is not None:
        return FileCheck([refusal])
    if any(e.delete_file for e in edits):
        deletion = tuple(e for e in edits if e.delete_file)[:1]
        return FileCheck(change=FileChange(path, source, b"", deletion, deleted=True))
    overlaps = conflicts(edits, source)
    if overlaps:
        return FileCheck(overlaps)
    as_written = with_line_endings_of(source, edits)
    crlf = as_written != edits
    edits = as_written
    errors_before = parse_errors(path, source)
    # Where the language says its grammar misreads valid code of the file (edition 2015 Rust: `try!`),
    # a parse error that a deletion takes out whole stops nothing: the item was located, and the
    # error goes with it.
    language = language_for(path)
    spared = language.operations.parse_errors_deletable if language is not None else None
    deletable = spared is not None and spared(root, path)
    # An error spared goes whole with a deletion whose text is a closed construct (its brackets
    # balance, comments and strings aside): the item around the error was located, not guessed.
    taken = [
        (lo, hi)
        for lo, hi in errors_before
        for e in edits
        if deletable
        and not e.replacement
        and e.start <= lo <= hi <= e.end
        and _balanced(source, e.start, e.end, language)
    ]
    broken = [e for e in edits for lo, hi in errors_before if lo <= e.end and e.start <= hi and (lo, hi) not in taken]
    if broken:
        line, col = line_col(source, errors_before[0][0])
        return FileCheck(
            [
                Finding(
                    path,
                    line,
                    col,
                    Code.UNPARSEABLE_TARGET,
                    "the file does not parse where the recipe edits it (parse error here); not edited",
                )
            ],
            crlf=crlf,
        )
    result = splice(source, edits)
    errors_after = parse_errors(path, result, (source, edits))
    # Each error a deletion took must be gone from the result, and no other one come.
    if len(errors_after) > len(errors_before) - len(set(taken)):
        original = map_offset(edits, errors_after[0][0])
        line, col = line_col(source, original)
        return FileCheck(
            [
                Finding(
                    path,
                    line,
                    col,
                    Code.PARSE_REGRESSION,
                    "the edited file would not parse (new syntax error near here); not edited",
                )
            ],
            crlf=crlf,
        )
    if result == source:
        return FileCheck(crlf=crlf)
    return FileCheck(change=FileChange(path, source, result, tuple(edits)), crlf=crlf)


_OPENING = {ord("("): ord(")"), ord("["): ord("]"), ord("{"): ord("}")}
_CLOSING = set(_OPENING.values())
_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|endif)\b", re.M)


def _balanced(source: bytes, start: int, end: int, language: Language | None) -> bool:
    """Whether the brackets of `source[start:end]` outside comments and strings balance."""
    if language is None or language.lexer is None:
        return False
    spans = lex_spans(source, language.name, end)
    if spans is None:
        return False
    stack: list[int] = []
    for offset in range(start, end):
        byte = source[offset]
        if byte not in _OPENING and byte not in _CLOSING:
            continue
        if spans.kind_at(offset, offset + 1) is not None:
            continue
        if byte in _OPENING:
            stack.append(_OPENING[byte])
        elif not stack or stack.pop() != byte:
            return False
    if stack:
        return False
    # A conditional's lines (`#if` ... `#endif`) pair up inside it too.
    depth = 0
    for directive in _CONDITIONAL.finditer(source, start, end):
        if spans.kind_at(directive.start(1), directive.end(1)) is not None:
            continue
        depth += -1 if directive.group(1) == b"endif" else 1
        if depth < 0:
            return False
    return depth == 0
