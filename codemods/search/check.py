"""The dead-symbol check: every mention of a recipe's pattern, with its kind.

Used as a pre-commit hook, so it has to be fast: ripgrep (when installed)
finds the files and lines, and only files with a match are read again, up to
their last match, to classify each mention as code, comment or string by a
lexical scan (`mentions.classify_spans`; no parse unless the scan cannot
delimit a comment or literal).

Its set of path:line equals what `rg -n PATTERN` prints for the same files,
because rg does the matching:

- tree mode (`check_tree`): `rg -n PATTERN SCOPE...` run from ROOT, so rg's
  rules decide which files are searched: hidden files and folders and
  .gitignore'd files are skipped, binary files (a NUL byte) are searched only
  up to the first NUL;
- file mode (`check_files`): `rg -n PATTERN -- FILE...`, every named file is
  searched, hidden or ignored or not; for a named binary file rg prints
  "binary file matches" instead of lines, and so does the check (a note that
  fails the check, since rg printed something).

Lines end at "\\n" (CRLF files keep "\\r" in the line), invalid UTF-8 is
searched as bytes, and each match on a line is its own mention (a line with
several matches prints several mentions, one per column).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from codemods.search.files import GrepResult, LineMatch, grep_matches, scope_targets
from codemods.search.mentions import Mention, Spot, classify_spans, mention


@dataclass(frozen=True)
class CheckResult:
    """What a check found.

    `mentions` sorted by path, line and column (rg's own order varies: it searches in parallel); `binary` holds rg's notes for binary files
    with a match (no line numbers); `errors` holds files rg could not read;
    `bad_pattern` says the pattern itself was rejected.
    """

    mentions: tuple[Mention, ...]
    files_with_matches: int
    binary: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    bad_pattern: bool = False

    @property
    def clean(self) -> bool:
        """True when nothing of the pattern was found (errors are judged separately)."""
        return not self.mentions and not self.binary


def _line_offsets(source: bytes, wanted: set[int]) -> dict[int, int]:
    """Byte offset of the start of each wanted 1-based line."""
    offsets = {}
    last = max(wanted)
    position = 0
    line = 1
    while line <= last:
        if line in wanted:
            offsets[line] = position
        newline = source.find(b"\n", position)
        if newline < 0:
            break
        position = newline + 1
        line += 1
    return offsets


def _classify(base: Path, path: str, hits: list[LineMatch]) -> tuple[list[Mention], str | None]:
    """Mentions of one file from rg's matches, or an error if the file cannot be read back."""
    try:
        source = (base / path).read_bytes()
    except OSError as error:
        return [], f"{path}: {error.strerror}"
    offsets = _line_offsets(source, {hit.line for hit in hits})
    spans = []
    for hit in hits:
        start = offsets.get(hit.line, len(source)) + hit.col - 1
        spans.append((start, start + len(hit.text)))
    kinds = classify_spans(path, source, spans)
    mentions = [
        mention(path, source, Spot(start, end, hit.line, hit.col), kind)
        for hit, (start, end), kind in zip(hits, spans, kinds)
    ]
    return mentions, None


def _result(base: Path, grep: GrepResult) -> CheckResult:
    by_path: dict[str, list[LineMatch]] = {}
    for hit in grep.matches:
        by_path.setdefault(hit.path, []).append(hit)
    mentions: list[Mention] = []
    errors = list(grep.errors)
    for path in sorted(by_path):
        found, error = _classify(base, path, by_path[path])
        mentions += found
        if error:
            errors.append(error)
    return CheckResult(tuple(mentions), len(by_path), tuple(sorted(grep.binary)), tuple(errors), grep.bad_pattern)


def check_tree(root: Path, pattern: str, scope: tuple[str, ...]) -> CheckResult:
    """Mentions of `pattern` in the `scope` folders of `root` (as `rg -n PATTERN SCOPE...` from `root`).

    Paths are relative to `root`; scope entries that do not exist are ignored; an empty scope is
    all of `root`.
    """
    targets = scope_targets(root, scope)
    if not targets:
        return CheckResult((), 0)
    return _result(root, grep_matches(root, pattern, targets, explicit=False))


def check_files(files: list[str], pattern: str) -> CheckResult:
    """Mentions of `pattern` in exactly these files (as `rg -n PATTERN -- FILE...`), paths as given."""
    if not files:
        return CheckResult((), 0)
    return _result(Path("."), grep_matches(Path("."), pattern, files, explicit=True))


def without_files(result: CheckResult, root: Path, excluded: tuple[Path, ...]) -> CheckResult:
    """`result` without the mentions in the `excluded` files (resolved paths): a recipe file kept in
    the tree names what it removes by design."""
    if not excluded:
        return result
    kept = tuple(m for m in result.mentions if (root / m.path).resolve() not in excluded)
    return dataclasses.replace(result, mentions=kept, files_with_matches=len({m.path for m in kept}))
