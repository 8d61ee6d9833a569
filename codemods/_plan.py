"""Running a recipe: from a tree and a recipe to a Plan (changes + findings).

The same code path serves `--dry-run` and `apply`; only the last step,
writing, differs. Nothing here writes or raises on user input.
"""

from __future__ import annotations

import functools
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ._splice import FileChange, conflicts, map_offset, resolve_inside, splice, with_line_endings_of
from ._edit import Edit, Finding, line_col
from ._files import FileSearch, rg_installed, start_files_matching, start_files_with_words
from ._fork import Worker
from ._languages import LANGUAGES, language_for, language_of, parsed_languages
from ._parse import parse, reparse
from ._references import DANGLING, DeletedNames, dangling_references, planned_file
from ._reword import already_reworded, reword_phrase, reword_sentences, reworded_in_file, rule_blocks
from ._scope import item_scopes
from .pattern import Pattern, PatternError, Rewrite
from .mentions import CODE, COMMENT, STRING, compile_pattern, mentions_in_source
from .recipes._model import Recipe, RecipeInputError, StepResult, Workspace

# A plan that could not start: the root, the recipe or its options are wrong (the CLI's exit 2).
USAGE_ERROR = "usage-error"

# Finding codes that an explicit override lets through.
UNREWORDED = "unreworded-mention"
OVERRIDABLE = {DANGLING: "--allow-dangling", UNREWORDED: "--allow-unreworded"}


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


def _already_absent(recipe: Recipe, path: str, source: bytes) -> Callable[[], bool] | None:
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


def _targets_by_file(recipe: Recipe) -> dict[str, list]:
    by_file: dict[str, list] = {}
    for target in recipe.deletions:
        by_file.setdefault(target.path, []).append(target)
    return by_file


def _delete_in_file(recipe: Recipe, path: str, source: bytes, targets: list) -> tuple[list[Edit], DeletedNames,
                                                                                      list[Finding]]:
    """One file's `[[delete]]` targets, each by its language's `delete_items`: the edits, what
    they delete, and the findings."""
    absent = _already_absent(recipe, path, source)
    edits: list[Edit] = []
    deleted = DeletedNames()
    findings: list[Finding] = []
    for name, language in LANGUAGES.items():
        wanted = [t for t in targets if t.language == name]
        if wanted:
            found, notes = language.operations.delete_items(path, source, wanted, recipe.id, absent, deleted)
            edits += found
            findings += notes
    return edits, deleted, findings


# The files a plan deletes from in the languages other than its main one go to a forked
# process (`_fork`) when they are this big together: their parse then runs beside the
# others' on the other CPU.
FORK_BYTES = 64 * 1024


def _forked_paths(workspace: Workspace, recipe: Recipe) -> list[str]:
    """The files whose deletions and parse checks a child process takes (see FORK_BYTES): those
    whose targets are all of one language other than the one with the most bytes to delete
    from (its files are the ones the recipe's steps and rules read too, in mlxcel's C++ bridge
    and Rust crate: the Rust files)."""
    by_file = _targets_by_file(recipe)
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
    by_file = _targets_by_file(recipe)
    sources = {path: workspace.read(path) for path in forked}

    def delete(path: str) -> Callable[[], object]:
        return lambda: _delete_in_file(recipe, path, sources[path], by_file[path])

    def parse_errors(request: tuple[str, list[Edit]]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        path, edits = request
        source = workspace.read(path)
        return _parse_errors(path, source), _parse_errors(path, splice(source, edits), (source, edits))

    return Worker([(("delete", p), delete(p)) for p in forked], parse_errors)


def _delete_items(workspace: Workspace, recipe: Recipe, worker: Worker | None) -> tuple[StepResult, DeletedNames]:
    """The recipe's `[[delete]]` targets, file by file (the `worker`'s files by the child)."""
    by_file = _targets_by_file(recipe)
    done = {}
    for path, targets in by_file.items():
        source = workspace.read(path)
        if source is not None and (worker is None or not worker.owns(("delete", path))):
            done[path] = _delete_in_file(recipe, path, source, targets)
    edits: list[Edit] = []
    deleted = DeletedNames()
    findings: list[Finding] = []
    for path, targets in by_file.items():
        source = workspace.read(path)
        if source is None:
            findings.append(Finding(path, 0, 0, "missing-file",
                                    f"file not found; {len(targets)} item(s) of the recipe not looked for",
                                    severity="note"))
            continue
        if path in done:
            file_edits, file_deleted, notes = done[path]
        else:
            file_edits, file_deleted, notes = worker.result(
                ("delete", path), lambda: _delete_in_file(recipe, path, source, targets))
        edits += file_edits
        deleted.rust += file_deleted.rust
        deleted.cpp += file_deleted.cpp
        deleted.python += file_deleted.python
        findings += notes
    return StepResult(tuple(edits), tuple(findings)), deleted


def _reword(workspace: Workspace, recipe: Recipe) -> StepResult:
    """Edits of the recipe's rewording rules; a rule that matches nothing is a note."""
    findings = []
    edits = []
    trees: dict[str, object] = {}
    for rewording in recipe.rewordings:
        source = workspace.read(rewording.path)
        if source is None:
            findings.append(Finding(rewording.path, 0, 0, "missing-file",
                                    "file not found; its rewording rule was not applied", severity="note"))
            continue
        language = language_of(rewording.path)
        if language not in parsed_languages():
            findings.append(Finding(rewording.path, 0, 0, "rewording-not-found",
                                    f"rewording rule skipped: {rewording.path} is not a Rust or C++ file",
                                    severity="note"))
            continue
        if rewording.path not in trees:
            trees[rewording.path] = parse(source, language)
        blocks = rule_blocks(language, source, trees[rewording.path], rewording.item)
        if blocks is None:
            if reworded_in_file(language, source, trees[rewording.path], rewording.replace):
                continue
            findings.append(Finding(rewording.path, 0, 0, "rewording-not-found",
                                    f"rewording rule did not match: no item {rewording.item}", severity="note"))
            continue
        edit = None
        for block in blocks:
            if rewording.symbols:
                edit = reword_sentences(block, rewording.symbols, rewording.replace, rewording.sentences)
            else:
                edit = reword_phrase(block, rewording.find, rewording.replace)
            if edit is not None:
                break
        if edit is None:
            if not already_reworded(blocks, rewording.replace):
                findings.append(Finding(rewording.path, 0, 0, "rewording-not-found",
                                        f"rewording rule did not match: {rewording.describe()}", severity="note"))
            continue
        edits.append(Edit(rewording.path, edit.start, edit.end, edit.text.encode("utf-8"), f"{recipe.id}:reword"))
    return StepResult(tuple(edits), tuple(findings))


def _rewrite(workspace: Workspace, recipe: Recipe) -> StepResult:
    """Edits of the recipe's structural rewrite rules; a rule that matches nothing is a note."""
    findings = []
    planned: list[Edit] = []
    for rule in recipe.rewrites:
        language = rule.file_language()
        try:
            rewrite = Rewrite(Pattern(rule.pattern, language), rule.replace,
                              {name: frozenset(texts) for name, texts in rule.where})
        except PatternError as error:
            findings.append(Finding(rule.path, 0, 0, "bad-pattern", f"rewrite rule not applied: {error}"))
            continue
        matched = scoped = read = False
        for path in workspace.files(rule.path, language):
            source = workspace.read(path)
            if source is None:
                continue
            read = True
            tree = parse(source, language)
            scopes = [tree.root_node] if rule.item is None else \
                [s.node for s in item_scopes(language, source, tree, rule.item)]
            scoped = scoped or bool(scopes)
            edits = [e for node in scopes for e in rewrite.edits(path, source, node, f"{recipe.id}:rewrite")]
            matched = matched or bool(edits)
            planned += edits
        if read and not matched:
            missing = f" (no item {rule.item})" if rule.item is not None and not scoped else ""
            findings.append(Finding(rule.path, 0, 0, "rewrite-not-found",
                                    f"rewrite rule did not match: {rule.describe()}{missing}", severity="note"))
    return StepResult(tuple(planned), tuple(findings))


def _surviving_mentions(workspace: Workspace, recipe: Recipe, changes: dict[str, FileChange],
                        dangling: list[Finding], mentioning: FileSearch | None) -> list[Finding]:
    """Mentions of the dead-symbol pattern left in scope after the plan: prose is unreworded,
    code not already reported by the dangling-reference check is dangling. `mentioning` is the
    search for files in scope that match the pattern before the plan."""
    if mentioning is None:
        return []
    pattern = compile_pattern(recipe.dead_symbol_pattern)
    scope_hits = set(mentioning.result())
    in_scope = {p for p in changes if any(p == s or p.startswith(s.rstrip("/") + "/") for s in recipe.check_scope)}
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
    if any(path == p or path.startswith(p.rstrip("/") + "/") for p in recipe.protected):
        return [Finding(path, 0, 0, "protected-path", f"{path} is protected; the recipe may not edit it")], None, False
    refusal = _unwritable_target(root, path, source)
    if refusal is not None:
        return [refusal], None, False
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


def usage_problem(root: Path, recipe: Recipe, options: dict) -> str | None:
    """Why `recipe` cannot be planned on `root` with `options` at all (None if it can).

    The recipe's data is invalid, an option is one the recipe does not take, or
    ROOT is not a folder holding any path the recipe looks at.
    """
    from ._root import root_problem
    from .recipes import RecipeError, validate_recipe

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
                allow_unreworded: bool = False, strict: bool = False, options: dict | None = None) -> Plan:
    """Everything `recipe` would change under `root`, and every reason not to.

    A root, recipe or option that makes planning pointless (see `usage_problem`)
    gives a plan with no changes and one blocking finding of code "usage-error".
    With `strict`, a use that may refer to a deleted item (a method call on a
    receiver of unknown type, a name inside an unknown macro) blocks the plan
    like one that does.
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

        def take(result: StepResult) -> None:
            """Every stage hands its edits and findings back here, the one place they are planned:
            the next stage gets a new workspace holding them."""
            nonlocal workspace
            workspace = workspace.with_edits(result.edits)
            findings.extend(result.findings)

        forked = _forked_paths(workspace, recipe)
        worker = searches.enter_context(_start_worker(workspace, recipe, forked)) if forked else None
        deletions, deleted = _delete_items(workspace, recipe, worker)
        take(deletions)
        searched = deleted.all_names()
        referring = [searches.enter_context(start_files_with_words(root, searched))]
        for step in recipe.steps:
            try:
                result: StepResult = step(workspace)
            except RecipeInputError as error:
                return Plan(root, recipe.id, (), (Finding("", 0, 0, USAGE_ERROR, str(error)),))
            take(result)
            deleted.other += [n for n in result.removed_names if n not in deleted.all_names()]
        added = [n for n in deleted.all_names() if n not in searched]
        if added:
            referring.append(searches.enter_context(start_files_with_words(root, added)))
        take(_rewrite(workspace, recipe))
        take(_reword(workspace, recipe))
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
    return Plan(root, recipe.id, tuple(written.values()), tuple(findings), tuple(deleted.all_names()),
                frozenset(overrides), tuple(crlf))
