"""Running a recipe: from a tree and a recipe to a Plan (changes + findings).

The same code path serves `--dry-run` and `apply`; only the last step,
writing, differs. Nothing here writes or raises on user input.
"""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from codemods.edit.splice import FileChange, conflicts, map_offset, resolve_inside, splice, with_line_endings_of
from codemods.edit.values import Edit, Finding, line_col
from codemods.languages.registry import language_for
from codemods.parse import parse, reparse
from codemods.plan.fork import Worker
from codemods.plan.recipe import Recipe, RecipeInputError, StepResult, Workspace
from codemods.plan.references import DANGLING, DeletedNames, dangling_references, planned_file
from codemods.plan.stages import (DeleteItems, DeleteModuleFiles, Insert, RemoveImports, Reword, Rewrite,
                                  delete_in_file, targets_by_file)
from codemods.search.files import FileSearch, rg_installed, start_files_matching, start_files_with_words
from codemods.search.files import in_scope as path_in_scope
from codemods.search.mentions import CODE, compile_pattern, mentions_in_source

# A plan that could not start: the root, the recipe or its options are wrong (the CLI's exit 2).
USAGE_ERROR = "usage-error"

# Finding codes that an explicit override lets through.
UNREWORDED = "unreworded-mention"
UNMATCHED = ("rewrite-not-found", "rewording-not-found")
OVERRIDABLE = {DANGLING: "--allow-dangling", UNREWORDED: "--allow-unreworded",
               **{code: "--allow-unmatched" for code in UNMATCHED}}


@dataclass(frozen=True)
class Plan:
    """What a recipe would do to a tree: file changes, findings, and the names it removes.

    `crlf_files` are the files whose planned text was given CRLF line ends, as
    the file's own (see `with_line_endings_of`); each change's `edits` are the
    edits as written, after that conversion.
    """

    root: Path
    recipe_id: str
    changes: tuple[FileChange, ...]
    findings: tuple[Finding, ...]
    removed_names: tuple[str, ...] = ()
    overrides: frozenset[str] = field(default_factory=frozenset)
    crlf_files: tuple[str, ...] = ()

    @property
    def blocking(self) -> list[Finding]:
        """Findings that stop the plan from being written, given the overrides passed."""
        return [f for f in self.findings if f.blocking and f.code not in self.overrides]


_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _whole_words(source: bytes, names: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, name) of each occurrence of a name as a whole word (as regex `\\b` sees words),
    in order. A substring search per name: much faster than one regex alternation."""
    hits = []
    for name in names:
        needle = name.encode()
        start = source.find(needle)
        while start >= 0:
            end = start + len(needle)
            if (start == 0 or source[start - 1] not in _WORD_BYTES) and (
                    end == len(source) or source[end] not in _WORD_BYTES):
                hits.append((start, end, name))
            start = source.find(needle, start + 1)
    hits.sort()
    return hits


def _identifier_offsets(path: str, source: bytes, names: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, name) of code identifiers in `source` that spell one of `names`."""
    hits = _whole_words(source, names)
    language = language_for(path)
    if not hits or language is None:
        return []
    return language.operations.identifiers(source, parse(source, language.name) if language.grammar else None, hits)


def _parse_errors(path: str, source: bytes, edited: tuple[bytes, list[Edit]] | None = None) -> list[tuple[int, int]]:
    """Byte ranges of parse errors, as the file's language reports them (none for other files).

    `edited` is (original, edits) when `source` is the original with the edits
    spliced in: then tree-sitter re-reads only what the edits touched.
    """
    language = language_for(path)
    if language is None:
        return []
    tree = None
    if language.grammar is not None:
        if edited is not None:
            original, edits = edited
            tree = reparse(original, [(e.start, e.end, e.replacement) for e in edits], source, language.name)
        else:
            tree = parse(source, language.name)
    return language.operations.parse_errors(source, tree)


# The files a plan deletes from in the languages other than its main one go to a forked
# process (`_fork`) when they are this big together: their parse then runs beside the
# others' on the other CPU.
FORK_BYTES = 64 * 1024


def _forked_paths(workspace: Workspace, recipe: Recipe) -> list[str]:
    """The files whose deletions and parse checks a child process takes (see FORK_BYTES): those
    whose targets are all of one language other than the one with the most bytes to delete
    from (its files are the ones the recipe's steps and rules most likely read too)."""
    by_file = targets_by_file(recipe)
    sources = {path: workspace.read(path) for path in by_file}
    languages = {p: {t.language for t in targets} for p, targets in by_file.items() if sources[p] is not None}
    sizes: dict[str, int] = {}
    for path, names in languages.items():
        if len(names) == 1:
            name = next(iter(names))
            sizes[name] = sizes.get(name, 0) + len(sources[path])
    if len(sizes) < 2:
        return []
    kept = max(sizes, key=lambda name: sizes[name])
    forked = [p for p, names in languages.items() if len(names) == 1 and kept not in names]
    return forked if sum(len(sources[p]) for p in forked) >= FORK_BYTES else []


def _start_worker(workspace: Workspace, recipe: Recipe, forked: list[str]) -> Worker:
    """A child process deleting from the `forked` files, and later checking their parse
    errors, while this process works on the rest."""
    by_file = targets_by_file(recipe)
    sources = {path: workspace.read(path) for path in forked}

    def delete(path: str) -> Callable[[], object]:
        return lambda: delete_in_file(recipe, path, sources[path], by_file[path])

    def parse_errors(request: tuple[str, list[Edit]]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        path, edits = request
        source = workspace.read(path)
        return _parse_errors(path, source), _parse_errors(path, splice(source, edits), (source, edits))

    return Worker([(("delete", p), delete(p)) for p in forked], parse_errors)


def _surviving_mentions(workspace: Workspace, recipe: Recipe, changes: dict[str, FileChange],
                        dangling: list[Finding], mentioning: FileSearch | None) -> list[Finding]:
    """Mentions of the dead-symbol pattern left in scope after the plan: prose is unreworded,
    code not already reported by the dangling-reference check is dangling. `mentioning` is the
    search for files in scope that match the pattern before the plan."""
    if mentioning is None:
        return []
    pattern = compile_pattern(recipe.dead_symbol_pattern)
    scope_hits = set(mentioning.result())
    in_scope = {p for p in changes if path_in_scope(p, recipe.check_scope)}
    reported = {(f.path, f.line) for f in dangling}
    findings = []
    for path in sorted(scope_hits | in_scope):
        planned = planned_file(workspace, changes, path)
        if planned is None:
            continue
        for mention in mentions_in_source(path, planned.text, pattern):
            line, col = planned.line_col(mention.start)
            if mention.kind == CODE:
                if (path, line) in reported:
                    continue
                findings.append(Finding(path, line, col, DANGLING,
                                        f"{mention.symbol}: code still names a removed symbol", symbol=mention.symbol))
            else:
                findings.append(Finding(path, line, col, UNREWORDED,
                                        f"unreworded mention of {mention.symbol} [{mention.kind}]", symbol=mention.symbol))
    return findings


def _unwritable_target(root: Path, path: str, source: bytes) -> Finding | None:
    """Why the file at `path` must not be edited at all, if it must not: it lies outside ROOT
    (through a symlink or ..), or it is binary (holds a NUL byte)."""
    if resolve_inside(root, path) is None:
        return Finding(path, 0, 0, "symlink-outside-root",
                       "resolves outside ROOT (through a symlink or ..); not edited")
    nul = source.find(b"\0")
    if nul >= 0:
        line, col = line_col(source, nul)
        return Finding(path, line, col, "binary-file", "binary file (NUL byte here); not edited")
    return None


def _check_file(root: Path, recipe: Recipe, workspace: Workspace, path: str, worker: Worker | None,
                asked: list[Edit] | None) -> tuple[list[Finding], FileChange | None, bool]:
    """Whether the planned edits of one file may be written: the findings that say why not,
    else the change (None also when the edits change nothing); and whether the edits were
    converted to the file's CRLF line endings. `worker` was `asked` about the file's parse
    errors for those edits."""
    edits = list(workspace.edits[path])
    source = workspace.read(path)
    if source is None or not edits:
        return [], None, False
    if recipe.protected and path_in_scope(path, recipe.protected):
        return [Finding(path, 0, 0, "protected-path", f"{path} is protected; the recipe may not edit it")], None, False
    refusal = _unwritable_target(root, path, source)
    if refusal is not None:
        return [refusal], None, False
    if any(e.delete_file for e in edits):
        return [], FileChange(path, source, b"", tuple(e for e in edits if e.delete_file)[:1], deleted=True), False
    overlaps = conflicts(edits, source)
    if overlaps:
        return overlaps, None, False
    as_written = with_line_endings_of(source, edits)
    crlf = as_written != edits
    edits = as_written
    checked = worker.result(("errors", path), lambda: None) if worker is not None and asked == edits else None
    errors_before = _parse_errors(path, source) if checked is None else checked[0]
    broken = [e for e in edits for lo, hi in errors_before if lo <= e.end and e.start <= hi]
    if broken:
        line, col = line_col(source, errors_before[0][0])
        return [Finding(path, line, col, "unparseable-target",
                        "the file does not parse where the recipe edits it (parse error here); not edited")], None, crlf
    result = splice(source, edits)
    errors_after = _parse_errors(path, result, (source, edits)) if checked is None else checked[1]
    if len(errors_after) > len(errors_before):
        original = map_offset(edits, errors_after[0][0])
        line, col = line_col(source, original)
        return [Finding(path, line, col, "parse-regression",
                        "the edited file would not parse (new syntax error near here); not edited")], None, crlf
    if result == source:
        return [], None, crlf
    return [], FileChange(path, source, result, tuple(edits)), crlf


def _formatted(root: Path, changes: dict[str, FileChange]) -> tuple[dict[str, FileChange], list[Finding]]:
    """Each change run through its language's formatter where the file was clean by it before
    (so that only what the plan edited changes; the formatters run side by side); a note for
    each file left as edited because the formatter is missing (where the plug-in's optional
    `formatting_applies(root, path)` says the tree asks for it)."""
    def formatter(path: str):
        language = language_for(path)
        return getattr(language.operations, "format_file", None) if language is not None else None

    wanted = {p: c for p, c in changes.items() if not c.deleted and formatter(p) is not None}
    if not wanted:
        return changes, []
    notes = []
    for path in sorted(wanted):
        language = language_for(path)
        applies = getattr(language.operations, "formatting_applies", None)
        if language.formatter and shutil.which(language.formatter) is None:
            del wanted[path]
            if applies is not None and not applies(root, path):
                continue
            notes.append(Finding(path, 0, 0, "unformatted", f"{language.formatter} is not installed: {path} "
                                 f"is written as edited, not formatted", severity="note"))
    with ThreadPoolExecutor(max_workers=4) as pool:
        before = dict(zip(wanted, pool.map(lambda p: formatter(p)(wanted[p].before, root, p), wanted)))
        clean = [p for p in wanted if before[p] == wanted[p].before]
        after = dict(zip(clean, pool.map(lambda p: formatter(p)(wanted[p].after, root, p), clean)))
    out = dict(changes)
    for path, formatted in after.items():
        change = wanted[path]
        if formatted is not None and formatted != change.after:
            out[path] = FileChange(path, change.before, formatted, (_one_edit(path, change.before, formatted),))
    return out, notes


def _one_edit(path: str, before: bytes, after: bytes) -> Edit:
    """The one edit that turns `before` into `after` (their common head and tail kept)."""
    head = 0
    limit = min(len(before), len(after))
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[len(before) - 1 - tail] == after[len(after) - 1 - tail]:
        tail += 1
    return Edit(path, head, len(before) - tail, after[head:len(after) - tail], "format")


def usage_problem(root: Path, recipe: Recipe, options: dict) -> str | None:
    """Why `recipe` cannot be planned on `root` with `options` at all (None if it can).

    The recipe's data is invalid, an option is one the recipe does not take, or
    ROOT is not a folder holding any path the recipe looks at.
    """
    from codemods.plan.root import root_problem
    from codemods.plan.loader import RecipeError, validate_recipe

    try:
        validate_recipe(recipe, f"recipe {recipe.id}")
    except RecipeError as error:
        return str(error)
    unknown = sorted(set(options) - set(recipe.parameter_names))
    if unknown:
        takes = ", ".join(recipe.parameter_names) or "none"
        return f"recipe {recipe.id} takes no option {unknown[0]!r} (options it takes: {takes})"
    return root_problem(root, recipe.footprint(), f"the paths recipe {recipe.id} works on")


def plan_recipe(root: Path, recipe: Recipe, *, allow_dangling: bool = False,
                allow_unreworded: bool = False, strict: bool = False, options: dict | None = None,
                allow_unmatched: bool = False) -> Plan:
    """Everything `recipe` would change under `root`, and every reason not to.

    A root, recipe or option that makes planning pointless (see `usage_problem`)
    gives a plan with no changes and one blocking finding of code "usage-error".
    With `strict`, a use that may refer to a deleted item (a method call on a
    receiver of unknown type, a name inside an unknown macro) blocks the plan
    like one that does. With `allow_unmatched`, a rewrite or rewording rule that matches
    nothing does not block.
    """
    root = Path(root)
    problem = usage_problem(root, recipe, dict(options or {}))
    if problem is not None:
        return Plan(root, recipe.id, (), (Finding("", 0, 0, USAGE_ERROR, problem),))
    try:
        loaded = recipe.load_options(dict(options or {}))
    except RecipeInputError as error:
        return Plan(root, recipe.id, (), (Finding("", 0, 0, USAGE_ERROR, str(error)),))
    workspace = Workspace(root=root, options=loaded)
    with ExitStack() as searches:
        # ripgrep looks for mentions and for references to the deleted items while the plan is made.
        mentioning = (searches.enter_context(start_files_matching(root, recipe.dead_symbol_pattern,
                                                                  recipe.check_scope))
                      if recipe.dead_symbol_pattern else None)
        findings: list[Finding] = []

        deleted = DeletedNames()
        referring: list[FileSearch] = []

        def take(result: StepResult) -> None:
            """Every stage hands its edits, findings and deleted names back here, the one place they
            are planned: the next stage gets a new workspace holding them, and the word search for
            uses of newly deleted names starts at once (it runs while the next stages plan)."""
            nonlocal workspace
            workspace = workspace.with_edits(result.edits)
            findings.extend(result.findings)
            searched = deleted.all_names()
            deleted.merge(DeletedNames({k: list(v) for k, v in result.deleted.items()}, list(result.removed_names)))
            added = [n for n in deleted.all_names() if n not in searched]
            if added:
                referring.append(searches.enter_context(start_files_with_words(root, added)))

        forked = _forked_paths(workspace, recipe)
        worker = searches.enter_context(_start_worker(workspace, recipe, forked)) if forked else None
        stages = (DeleteItems(recipe, worker), DeleteModuleFiles(recipe, deleted), *recipe.steps, Rewrite(recipe),
                  Reword(recipe), Insert(recipe))
        for stage in stages:
            try:
                take(stage(workspace))
            except RecipeInputError as error:
                return Plan(root, recipe.id, (), (Finding("", 0, 0, USAGE_ERROR, str(error)),))
        take(RemoveImports(recipe, deleted)(workspace))
        if not rg_installed() and (mentioning is not None or deleted.all_names()):
            findings.append(Finding("", 0, 0, "searched-without-rg",
                                    "ripgrep is not installed: files were found by walking the tree, which does "
                                    "not read .gitignore (ignored files were searched too)", severity="note"))

        # The child checks its files' parse errors meanwhile, for the edits as they will be written;
        # this process checks the child's files last, and takes the results in path order.
        asked = {}
        for path in forked:
            if workspace.edits.get(path):
                asked[path] = with_line_endings_of(workspace.read(path), list(workspace.edits[path]))
                worker.ask(("errors", path), (path, asked[path]))
        checks = {path: _check_file(root, recipe, workspace, path, worker if path in asked else None, asked.get(path))
                  for path in sorted(workspace.edits, key=lambda p: (p in asked, p))}
        written: dict[str, FileChange] = {}
        crlf: list[str] = []
        for path in sorted(checks):
            file_findings, change, converted = checks[path]
            findings += file_findings
            if converted:
                crlf.append(path)
            if change is not None:
                written[path] = change
        written, notes = _formatted(root, written)
        findings += [n for n in notes if not any((f.path, f.code) == (n.path, n.code) for f in findings)]

        refused = {f.path for f in findings if f.blocking and f.path in workspace.edits}
        dangling = dangling_references(workspace, deleted, written, refused, _identifier_offsets, strict=strict,
                                       referring=referring)
        findings += dangling
        findings += _surviving_mentions(workspace, recipe, written, dangling, mentioning)
    findings += [Finding(path, 0, 0, "unreadable-file", f"cannot be read ({why}); the recipe needs it")
                 for path, why in sorted(workspace.unreadable.items())]
    overrides = set()
    if allow_dangling:
        overrides.add(DANGLING)
    if allow_unreworded:
        overrides.add(UNREWORDED)
    if allow_unmatched:
        overrides.update(UNMATCHED)
    return Plan(root, recipe.id, tuple(written.values()), tuple(findings), tuple(deleted.all_names()),
                frozenset(overrides), tuple(crlf))
