"""The stages of a plan, each a `Workspace -> StepResult` like a recipe's own steps.

`DeleteItems` deletes the recipe's `[[delete]]` targets through each file's
language plug-in, `Rewrite` applies its `[[rewrite]]` rules, `Reword` its
`[[reword]]` rules. The planner (`planner.py`) runs them in order with the
recipe's steps between the deletions and the rewrites; none of them writes,
and none knows a language: each asks the registry.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Callable, Mapping, Sequence

import tree_sitter

from codemods.edit.codes import Code
from codemods.edit.item_spans import Deletion, deletion_edits, whole_lines
from codemods.edit.splice import conflicts, edit_through, splice
from codemods.edit.errors import LanguageError, RecipeError
from codemods.edit.values import Edit, Finding, ItemTarget, line_col
from codemods.core.registry import FILE_KIND, LANGUAGES, PlanState, language_of, parsed_languages
from codemods.languages.resolution import DeletedItem
from codemods.languages.scope import item_scopes
from codemods.parse import parse
from codemods.pattern import Pattern, PatternError
from codemods.pattern import Rewrite as PatternRewriter
from codemods.config.recipe import TEXT, Insertion, PatternRewrite, Recipe, Rewording, StepResult, Workspace
from codemods.plan.references import RESOLVE_LIMIT, DeletedNames
from codemods.plan.reword import (
    PROSE_SUFFIXES,
    already_reworded,
    is_prose,
    prose_blocks,
    reword_phrase,
    reword_sentences,
    reworded_in_file,
    rule_blocks,
)
from codemods.search.mentions import COMMENT, STRING, compile_pattern, mentions_in_source
from codemods.search.files import files_with_words
from codemods.words import whole_line_occurrences


def already_absent(recipe: Recipe, path: str, source: bytes) -> Callable[[], bool] | None:
    """For targets not found in `path`: whether the recipe's dead-symbol pattern shows no
    mention left in the file's code (prose in comments and strings says nothing about whether
    an item is there). Searched only when a target is missing; None without a pattern."""
    if not recipe.dead_symbol_pattern:
        return None
    pattern = recipe.dead_symbol_pattern

    @functools.cache
    def no_code_mention_left() -> bool:
        mentions = mentions_in_source(path, source, compile_pattern(pattern))
        return all(m.kind in (COMMENT, STRING) for m in mentions)

    return no_code_mention_left


def targets_by_file(recipe: Recipe) -> dict[str, list[ItemTarget]]:
    by_file: dict[str, list[ItemTarget]] = {}
    for target in recipe.deletions:
        by_file.setdefault(target.path, []).append(target)
    return by_file


@dataclass(frozen=True)
class FileDeletions:
    """What `delete_in_file` gives for one file: the edits, what they delete, the findings."""

    edits: list[Edit]
    deleted: DeletedNames
    findings: list[Finding]


def delete_in_file(recipe: Recipe, path: str, source: bytes, targets: list[ItemTarget]) -> FileDeletions:
    """One file's `[[delete]]` targets, each by its language's `delete_items`: the edits, what
    they delete, and the findings."""
    absent = already_absent(recipe, path, source)
    edits: list[Edit] = []
    deleted = DeletedNames()
    findings: list[Finding] = []
    for name, language in LANGUAGES.items():
        wanted = [t for t in targets if t.language == name]
        whole = [t for t in wanted if t.kind == FILE_KIND]
        if whole:
            # The whole file goes (its other targets with it), in the write that deletes a
            # module's file; its language records what goes with it for the reference check.
            record = language.operations.file_deleted
            notes = record(path, source, deleted) if record is not None else []
            findings += [replace(n, target=n.target or whole[0]) for n in notes]
            edits.append(Edit(path, 0, len(source), b"", f"{recipe.id}:file:{path}", delete_file=True))
            continue
        if wanted:
            deletions = language.operations.delete_items(path, source, wanted, recipe.id, absent, deleted)
            edits += deletions.edits
            findings += [_about_target(finding, wanted, source) for finding in deletions.findings]
    return FileDeletions(edits, deleted, findings)


def _named_by(finding: Finding, target: ItemTarget) -> bool:
    """Whether a deletion's finding names `target`: its symbol is the target's name, or the last
    part of it (a language reports the item as the file spells it)."""
    name = target.name.split("(")[0]
    return finding.symbol is not None and finding.symbol in (target.name, name, re.split(r"::|\.", name)[-1])


def _about_target(finding: Finding, targets: list[ItemTarget], source: bytes) -> Finding:
    """`finding` linked to the one target of `targets` it names (left unlinked when it names none
    or several). A `no-such-item` finding is placed at the closest-named item of the file (its
    first candidate), where the misspelt name is most likely to be corrected; without one, at the
    file's first line (it always has a place to open)."""
    named = [t for t in targets if _named_by(finding, t)]
    linked = finding
    if finding.target is None and len(named) == 1:
        linked = replace(finding, target=named[0])
        if finding.code == Code.NO_SUCH_ITEM and finding.candidates and not finding.line:
            language = LANGUAGES[named[0].language]
            if language.grammar is not None:
                scopes = item_scopes(language.name, source, parse(source, language.name), finding.candidates[0])
                if scopes:
                    line, col = line_col(source, min(s.node.start_byte for s in scopes))
                    linked = replace(linked, line=line, col=col)
    if linked.code == Code.NO_SUCH_ITEM and not linked.line:
        linked = replace(linked, line=1, col=1)
    return linked


@dataclass(frozen=True)
class DeletionsApart:
    """The deletions of `paths`, computed in another process (planner._deletions_apart):
    `result()` waits for {path: what delete_in_file gives}, or None where that failed."""

    paths: frozenset[str]
    result: Callable[[], Mapping[str, FileDeletions] | None]


@dataclass(frozen=True)
class DeleteItems:
    """The recipe's `[[delete]]` targets, file by file, each by its language's `delete_items`.
    With `apart`, its files' deletions come from the other process, asked for once this one
    has done the rest; the same values, so the same step (a file it failed on is done here)."""

    recipe: Recipe
    apart: DeletionsApart | None = None

    def __call__(self, workspace: Workspace) -> StepResult:
        by_file = targets_by_file(self.recipe)
        edits: list[Edit] = []
        deleted = DeletedNames()
        findings: list[Finding] = []
        done: dict[str, FileDeletions] = {}
        if self.apart is not None:
            for path, targets in by_file.items():
                source = workspace.read(path)
                if source is not None and path not in self.apart.paths:
                    done[path] = delete_in_file(self.recipe, path, source, targets)
            got = self.apart.result() or {}
            done.update((path, got[path]) for path in self.apart.paths if path in got)
        for path, targets in by_file.items():
            source = workspace.read(path)
            if source is None:
                if path in workspace.unreadable:
                    continue  # the plan reports it once, as unreadable
                findings.append(
                    Finding(
                        path,
                        0,
                        0,
                        Code.MISSING_FILE,
                        f"file not found; {len(targets)} item(s) of the recipe not looked for",
                        severity="note",
                    )
                )
                continue
            file_deletions = done[path] if path in done else delete_in_file(self.recipe, path, source, targets)
            edits += file_deletions.edits
            deleted.merge(file_deletions.deleted)
            findings += file_deletions.findings
        return StepResult(
            tuple(edits),
            tuple(findings),
            removed_names=tuple(deleted.spelled),
            deleted=MappingProxyType({k: tuple(v) for k, v in deleted.items.items()}),
        )


@dataclass(frozen=True)
class Reword:
    """Edits of the recipe's rewording rules (those its `select_rewordings` picks for the tree). A
    rule that matches nothing blocks the plan (`--allow-unmatched`), unless it is `optional` or
    its replacement is there already (a finished run).

    Two rules that reword the same text: a rule of a recipe that extends another replaces the
    extended recipe's rule (the later wins, as in a configuration that overrides a default);
    two rules of the same recipe clash, one blocking finding naming both.
    """

    recipe: Recipe

    def __call__(self, workspace: Workspace) -> StepResult:
        findings: list[Finding] = []
        rules = self.recipe.rewordings
        if self.recipe.select_rewordings is not None:
            rules, said = self.recipe.select_rewordings(workspace, rules)
            findings += said
        planned: list[tuple[Rewording, Edit]] = []
        trees: dict[str, tree_sitter.Tree] = {}
        for rewording in rules:
            found, notes = self._reword(workspace, rewording, trees)
            findings += notes
            for edit in found:
                overlapping = [
                    p for p in planned if p[1].path == edit.path and p[1].start < edit.end and edit.start < p[1].end
                ]
                clash = next((rule for rule, _ in overlapping if rule.source == rewording.source), None)
                if clash is not None:
                    # The rule's file was read to find the edit: the workspace reads it again.
                    line, col = line_col(
                        workspace.read(edit.path) or b"", max(edit.start, min(e.start for _, e in overlapping))
                    )
                    findings.append(
                        Finding(
                            edit.path,
                            line,
                            col,
                            Code.REWORD_CLASH,
                            f"{clash.label()} and {rewording.label()} reword the same text; keep one of them",
                        )
                    )
                    continue
                planned = [p for p in planned if not any(p is o for o in overlapping)] + [(rewording, edit)]
        return StepResult(tuple(e for _, e in planned), tuple(findings))

    def _unmatched(self, rewording: Rewording, message: str) -> list[Finding]:
        return [
            Finding(
                rewording.path,
                0,
                0,
                Code.REWORDING_NOT_FOUND,
                message,
                severity="note" if rewording.optional else "error",
            )
        ]

    def _reword(
        self, workspace: Workspace, rewording: Rewording, trees: dict[str, tree_sitter.Tree]
    ) -> tuple[list[Edit], list[Finding]]:
        """One rule's edits (none when it matches nothing) and its findings."""
        source = workspace.read(rewording.path)
        if source is None:
            if rewording.path in workspace.unreadable:
                return [], []  # the plan reports it once, as unreadable
            return [], [
                Finding(
                    rewording.path,
                    0,
                    0,
                    Code.MISSING_FILE,
                    "file not found; its rewording rule was not applied",
                    severity="note",
                )
            ]
        language = language_of(rewording.path)
        origin = f"{self.recipe.id}:reword" if not rewording.rule else rewording.label()
        if language is None or language not in parsed_languages():
            if not is_prose(rewording.path):
                return [], self._unmatched(
                    rewording,
                    f"rewording rule not applied: {rewording.path} is neither a "
                    f"file patterns can parse nor a prose file "
                    f"({', '.join(s for s in PROSE_SUFFIXES if s)})",
                )
            if rewording.item is not None or rewording.strings:
                return [], self._unmatched(
                    rewording,
                    f"rewording rule not applied: {rewording.path} is prose, "
                    f"which has no items or string literals (leave out "
                    f"`item` and `strings`)",
                )
            blocks = prose_blocks(source)
        else:
            if rewording.path not in trees:
                trees[rewording.path] = parse(source, language)
            if rewording.strings:
                found, finding = _reword_strings(self.recipe.id, rewording, language, source, trees[rewording.path])
                return found, [finding] if finding is not None else []
            scoped = rule_blocks(language, source, trees[rewording.path], rewording.item)
            if scoped is None:
                if reworded_in_file(language, source, trees[rewording.path], rewording.replace):
                    return [], []
                return [], self._unmatched(rewording, f"rewording rule did not match: no item {rewording.item}")
            blocks = scoped
        if rewording.block:
            whole = next(
                (
                    b
                    for b in blocks
                    if (
                        reword_sentences(b, rewording.symbols, "", rewording.sentences)
                        if rewording.symbols
                        else reword_phrase(b, rewording.find, "")
                    )
                    is not None
                ),
                None,
            )
            if whole is None:
                return [], self._unmatched(rewording, f"rewording rule did not match: {rewording.describe()}")
            return deletion_edits(
                rewording.path, source, [Deletion(*whole_lines(source, whole.start, whole.end, ()), origin)]
            ), []
        edit = None
        for block in blocks:
            if rewording.symbols:
                edit = reword_sentences(block, rewording.symbols, rewording.replace, rewording.sentences)
            else:
                edit = reword_phrase(block, rewording.find, rewording.replace)
            if edit is not None:
                break
        if edit is None:
            if already_reworded(blocks, rewording.replace):
                return [], []
            return [], self._unmatched(rewording, f"rewording rule did not match: {rewording.describe()}")
        if not edit.text.strip() and language not in parsed_languages():
            # A prose line left with nothing goes, and the blank lines around it are settled.
            return deletion_edits(
                rewording.path, source, [Deletion(*whole_lines(source, edit.start, edit.end, ()), origin)]
            ), []
        return [Edit(rewording.path, edit.start, edit.end, edit.text.encode("utf-8"), origin)], []


def _reword_strings(
    recipe_id: str, rewording: Rewording, language: str, source: bytes, tree: tree_sitter.Tree
) -> tuple[list[Edit], Finding | None]:
    """Edits replacing `find` by `replace` in the string literals of the rule's scope (every
    occurrence, as written in the source: escapes are the user's); a finding when there is none."""
    kinds = {k for k in LANGUAGES[language].string_kinds if k.endswith("literal")}
    if rewording.item is None:
        roots = [tree.root_node]
    else:
        roots = [s.node for s in item_scopes(language, source, tree, rewording.item)]
    find, replace = rewording.find.encode("utf-8"), rewording.replace.encode("utf-8")
    edits: list[Edit] = []
    present = False
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node.type in kinds:
            text = source[node.start_byte : node.end_byte]
            present = present or bool(replace) and replace in text
            at = text.find(find)
            while at >= 0:
                start = node.start_byte + at
                edits.append(Edit(rewording.path, start, start + len(find), replace, f"{recipe_id}:reword-string"))
                at = text.find(find, at + len(find))
            continue
        stack.extend(node.children)
    if edits or present:
        return edits, None
    return [], Finding(
        rewording.path,
        0,
        0,
        Code.REWORDING_NOT_FOUND,
        f"rewording rule did not match: {rewording.find[:60]!r} in the strings"
        f"{f' of {rewording.item}' if rewording.item else ''}",
        severity="note" if rewording.optional else "error",
    )


@dataclass(frozen=True)
class Rewrite:
    """Edits of the recipe's structural rewrite rules; a rule that matches nothing blocks the plan
    (`--allow-unmatched`)."""

    recipe: Recipe

    def __call__(self, workspace: Workspace) -> StepResult:
        findings: list[Finding] = []
        planned: list[Edit] = []
        for rule in self.recipe.rewrites:
            if rule.file_language() == TEXT:
                self._text(rule, workspace, planned, findings)
                continue
            try:
                pattern = Pattern(rule.pattern, rule.file_language())
                rewrite = PatternRewriter(pattern, rule.replace, {name: frozenset(texts) for name, texts in rule.where})
            except PatternError as error:
                findings.append(Finding(rule.path, 0, 0, Code.BAD_PATTERN, f"rewrite rule not applied: {error}"))
                continue
            language = pattern.language
            try:
                result_pattern = Pattern(rule.replace, language)
            except PatternError:
                result_pattern = None
            matched = scoped = read = applied = False
            for path in workspace.files(rule.path, language):
                source = workspace.read(path)
                if source is None:
                    continue
                read = True
                tree = parse(source, language)
                scopes = (
                    [tree.root_node]
                    if rule.item is None
                    else [s.node for s in item_scopes(language, source, tree, rule.item)]
                )
                scoped = scoped or bool(scopes)
                edits = [e for node in scopes for e in rewrite.edits(path, source, node, f"{self.recipe.id}:rewrite")]
                prior = workspace.planned(path)
                if prior and (not edits or any(_straddles(e, prior) for e in edits)):
                    # No place in the file as read, or one across a deletion's edge: the file as
                    # the deletions leave it is asked (a match inside a deletion goes with it).
                    edits = self._through_planned(rule, rewrite, workspace, path, source) or edits
                matched = matched or bool(edits)
                planned += edits
                if not matched and not applied and result_pattern is not None:
                    applied = any(True for node in scopes for _ in result_pattern.find_all(source, node))
            if read and not matched:
                missing = f" (no item {rule.item})" if rule.item is not None and not scoped else ""
                # A rule whose result is there already is a finished run's: a note; else it blocks.
                findings.append(
                    Finding(
                        rule.path,
                        0,
                        0,
                        Code.REWRITE_NOT_FOUND,
                        f"rewrite rule did not match: {rule.describe()}{missing}",
                        severity="note" if applied or rule.optional else "error",
                    )
                )
        return StepResult(tuple(planned), tuple(findings))

    def _through_planned(
        self, rule: PatternRewrite, rewrite: PatternRewriter, workspace: Workspace, path: str, source: bytes
    ) -> list[Edit]:
        """The rule applied to the file as the stages before leave it (what a deletion leaves: an
        emptied body, a shortened list), where the file as read has no place for it or only one
        across a deletion's edge. Each match's change goes on the bytes it came from, the earlier
        edits left whole; none at all where a match would change text an earlier stage wrote."""
        prior = list(workspace.planned(path))
        if conflicts(prior, source):
            return []
        language = rewrite.pattern.language
        edited = splice(source, sorted(prior, key=lambda e: (e.start, e.end)))
        tree = parse(edited, language)
        scopes = (
            [tree.root_node] if rule.item is None else [s.node for s in item_scopes(language, edited, tree, rule.item)]
        )
        found = [e for node in scopes for e in rewrite.edits(path, edited, node, f"{self.recipe.id}:rewrite")]
        placed = [edit_through(source, prior, e, edited) for e in found]
        return [] if any(p is None for p in placed) else [e for p in placed if p is not None for e in p]

    def _text(self, rule: PatternRewrite, workspace: Workspace, planned: list[Edit], findings: list[Finding]) -> None:
        """A literal rewrite: each place the pattern's lines stand whole, verbatim, replaced."""
        wanted = rule.pattern.encode("utf-8")
        replacement = rule.replace.encode("utf-8")
        matched = read = applied = False
        for path in workspace.files(rule.path, TEXT):
            source = workspace.read(path)
            if source is None or b"\0" in source[:8192]:
                continue
            read = True
            for start in whole_line_occurrences(source, wanted):
                matched = True
                planned.append(Edit(path, start, start + len(wanted), replacement, f"{self.recipe.id}:rewrite"))
            applied = applied or bool(replacement and whole_line_occurrences(source, replacement))
        if read and not matched:
            findings.append(
                Finding(
                    rule.path,
                    0,
                    0,
                    Code.REWRITE_NOT_FOUND,
                    f"rewrite rule did not match: {rule.describe()}",
                    severity="note" if applied or rule.optional else "error",
                )
            )


def _straddles(edit: Edit, prior: Sequence[Edit]) -> bool:
    """Whether `edit` overlaps one of `prior` without lying inside it."""
    return any(
        p.start < edit.end and edit.start < p.end and not (p.start <= edit.start and edit.end <= p.end) for p in prior
    )


@dataclass(frozen=True)
class RemoveImports:
    """Imports the plan leaves naming a deleted item or used by nothing, removed by each
    language's `imports_left_unused` (a language without it keeps its imports). Looks at the
    edited files and at the files that spell a deleted name."""

    recipe: Recipe
    deleted: DeletedNames
    # The files that spell a deleted name, when the planner has searched for them already.
    spelling: Callable[[], list[str]] | None = None
    # The plug-ins' state for the whole plan (their resolvers), when the planner keeps it for the
    # reference check after this stage.
    shared: PlanState | None = None
    # Told each file's import edits as soon as they are known (the stage is the plan's last to
    # edit: the planner starts formatting the file's final text meanwhile).
    on_file: Callable[[str, list[Edit]], None] | None = None

    def __call__(self, workspace: Workspace) -> StepResult:
        names = self.deleted.all_names()
        spelled = (
            (self.spelling() if self.spelling is not None else files_with_words(workspace.root, names)) if names else []
        )
        candidates = set(workspace.edits) | set(spelled)
        shared = (
            self.shared
            if self.shared is not None
            else PlanState(
                workspace.root, workspace.read, workspace.planned, keep_unused_imports=self.recipe.keeps_unused_imports
            )
        )
        by_language: dict[str, list[tuple[str, bytes]]] = {}
        for path in sorted(candidates):
            source = workspace.read(path)
            if source is not None and len(source) <= RESOLVE_LIMIT:
                by_language.setdefault(language_of(path) or "", []).append((path, source))
                # A file the stages edit is checked as they leave it, unless its imports change
                # too: resolved ahead that way as well (the checks then find it done).
                after = _as_planned(source, list(workspace.planned(path)))
                if after is not None and after != source and len(after) <= RESOLVE_LIMIT:
                    by_language[language_of(path) or ""].append((path, after))
        for name, files in by_language.items():
            ahead = LANGUAGES[name].operations.resolve_ahead if name in LANGUAGES else None
            if ahead is not None:
                ahead(files, self.deleted, shared)
        edits: list[Edit] = []
        for path in sorted(candidates):
            language = LANGUAGES.get(language_of(path) or "")
            remove = language.operations.imports_left_unused if language is not None else None
            source = workspace.read(path)
            found: list[Edit] = []
            # A file too large to parse keeps its imports (its uses are found lexically).
            if remove is not None and source is not None and (len(source) <= RESOLVE_LIMIT or path in workspace.edits):
                found = list(
                    remove(
                        path,
                        source,
                        list(workspace.planned(path)),
                        self.deleted,
                        shared,
                        f"{self.recipe.id}:unused-import",
                    )
                )
            edits += found
            if self.on_file is not None:
                self.on_file(path, found)
        return StepResult(tuple(edits))


def _as_planned(source: bytes, edits: list[Edit]) -> bytes | None:
    """`source` with `edits` made (None where they conflict: the plan refuses them elsewhere)."""
    if not edits:
        return source
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    return None if conflicts(ordered, source) else splice(source, ordered)


def _parseable_reads(workspace: Workspace) -> Callable[[str], bytes | None]:
    """`workspace.read`, but None for a file too large to parse (RESOLVE_LIMIT) that the plan
    does not edit: work that would parse every file naming something is not done there."""

    def read(path: str) -> bytes | None:
        data = workspace.read(path)
        return None if data is not None and len(data) > RESOLVE_LIMIT and path not in workspace.edits else data

    return read


@dataclass(frozen=True)
class DeleteModuleFiles:
    """What goes in other files with what `deleted` holds (a Rust `mod foo;` takes `foo.rs`, a
    trait method its impls' methods), by each language's `files_deleted_with`, in the same
    write; the items deleted with them count as deleted."""

    recipe: Recipe
    deleted: DeletedNames

    def __call__(self, workspace: Workspace) -> StepResult:
        edits: list[Edit] = []
        findings: list[Finding] = []
        items: dict[str, tuple[DeletedItem, ...]] = {}
        for name, language in LANGUAGES.items():
            targets = [t for t in self.recipe.deletions if t.language == name]
            if not self.deleted.of(name) and not targets:
                continue  # (before its plug-in is imported: a Rust plan need not load the C++ one)
            follow = language.operations.files_deleted_with
            if follow is None:
                continue
            going = follow(
                self.deleted, _parseable_reads(workspace), f"{self.recipe.id}:delete", workspace.root, targets
            )
            edits += going.edits
            findings += going.findings
            if going.items:
                items[name] = going.items
        return StepResult(tuple(edits), tuple(findings), deleted=MappingProxyType(items))


def _written_at(source: bytes, lines: list[bytes], place: tuple[int, int], position: str, wanted: list[bytes]) -> bool:
    """Whether an insert rule's lines (`wanted`, stripped; `lines`: the file's, stripped) are
    there already at one place: the lines just before the place's first line or its own first
    lines (before), the lines just after its last line or its own last lines (after)."""
    if not wanted:
        return True
    count = len(wanted)
    first = source.count(b"\n", 0, place[0])
    last = source.count(b"\n", 0, max(place[1] - 1, place[0]))
    if position == "before":
        windows = (lines[max(first - count, 0) : first], lines[first : first + count])
    else:
        windows = (lines[last + 1 : last + 1 + count], lines[max(last - count + 1, 0) : last + 1])
    return any(window == wanted for window in windows)


@dataclass(frozen=True)
class Insert:
    """Edits of the recipe's insert rules: text on its own lines before or after an item or each
    match of a pattern, at its indentation (see `Insertion`)."""

    recipe: Recipe

    def __call__(self, workspace: Workspace) -> StepResult:
        edits: list[Edit] = []
        findings: list[Finding] = []
        for rule in self.recipe.insertions:
            source = workspace.read(rule.path)
            if source is None:
                findings.append(
                    Finding(
                        rule.path,
                        0,
                        0,
                        Code.MISSING_FILE,
                        "file not found; its insert rule was not applied",
                        severity="note",
                    )
                )
                continue
            language = rule.language or language_of(rule.path)
            if language is None:
                raise LanguageError(f"no tree-sitter grammar for {language!r}")  # as `parse` says of it
            tree = parse(source, language)
            if rule.item is not None:
                scopes = item_scopes(language, source, tree, rule.item)[:1]
                places = [(s.start, s.end) for s in scopes]
            elif rule.pattern is not None:
                places = [
                    (m.node.start_byte, m.node.end_byte)
                    for m in Pattern(rule.pattern, language).find_all(source, tree.root_node)
                ]
            else:  # the loader refuses such a rule; one made in Python is refused here
                raise RecipeError(f"insert entry in {rule.path}: give either item or pattern")
            wanted = [line.strip().encode("utf-8") for line in rule.text.split("\n") if line.strip()]
            lines = [line.strip() for line in source.split(b"\n")]
            absent = [p for p in places if not _written_at(source, lines, p, rule.position, wanted)]
            if places and not absent:
                findings.append(
                    Finding(
                        rule.path,
                        0,
                        0,
                        Code.INSERT_PRESENT,
                        f"insert rule: its text is there already ({self._place(rule)})",
                        severity="note",
                    )
                )
                continue
            if not places:
                findings.append(
                    Finding(
                        rule.path,
                        0,
                        0,
                        Code.INSERT_NOT_FOUND,
                        f"insert rule found no place: {self._place(rule)}",
                        severity="note" if rule.optional else "error",
                    )
                )
                continue
            for start, end in absent:
                line_start = source.rfind(b"\n", 0, start) + 1
                indent = source[line_start:start]
                indent = indent if not indent.strip() else b""
                # Only the text's own final line end goes: a blank line it ends with (or holds) is kept.
                text = b"".join(
                    indent + line.encode("utf-8") + b"\n" if line.strip() else b"\n"
                    for line in rule.text.removesuffix("\n").split("\n")
                )
                if rule.position == "before":
                    edits.append(Edit(rule.path, line_start, line_start, text, f"{self.recipe.id}:insert"))
                else:
                    line_end = source.find(b"\n", end)
                    at = len(source) if line_end < 0 else line_end + 1
                    edits.append(Edit(rule.path, at, at, text, f"{self.recipe.id}:insert"))
        return StepResult(tuple(edits), tuple(findings))

    @staticmethod
    def _place(rule: Insertion) -> str:
        return f"{rule.position} {f'item {rule.item}' if rule.item is not None else repr(rule.pattern)}"
