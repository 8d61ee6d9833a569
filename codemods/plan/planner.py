"""Running a recipe: from a tree and a recipe to a Plan (changes + findings).

The same code path serves `--dry-run` and `apply`; only the last step,
writing, differs. Nothing here writes or raises on user input.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, cast

from codemods.edit.codes import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Code
from codemods.edit.diff import render_text, unified_diff
from codemods.edit.splice import FileChange, conflicts, splice, with_line_endings_of
from codemods.edit.values import Edit, Finding, ItemTarget
from codemods.core.parallel import Forked, forked_call
from codemods.core.registry import Language, PlanState, language_for
from codemods.parse import parse
from codemods.edit.errors import RecipeError, RecipeInputError
from codemods.plan.changes import chosen_stages, item_changes
from codemods.plan.file_check import KNOWN_ERRORS, KNOWN_KEPT, check_file, parse_errors
from codemods.plan.formatting import Jobs, format_ahead, formatter_missing, start_formatting
from codemods.config.loader import validate_recipe
from codemods.config.recipe import Recipe, Step, StepResult, Workspace
from codemods.plan.linking import linked_to_targets
from codemods.plan.root import root_problem
from codemods.plan.references import DANGLING, AfterPlan, DeletedNames, dangling_references, planned_file
from codemods.plan.stages import (
    DeleteItems,
    DeleteModuleFiles,
    DeletionsApart,
    FileDeletions,
    Insert,
    RemoveImports,
    Reword,
    Rewrite,
    delete_in_file,
    targets_by_file,
)
from codemods.search.files import FileSearch, FoundFiles, rg_installed, start_files_matching, start_files_with_words
from codemods.search.files import in_scope as path_in_scope
from codemods.search.mentions import CODE, compile_pattern, mentions_in_source
from codemods.words import whole_word_hits

# A plan that could not start: the root, the recipe or its options are wrong (the CLI's exit 2).
USAGE_ERROR = Code.USAGE_ERROR

# Finding codes that an explicit override lets through (the flags: report/base.py).
UNREWORDED = Code.UNREWORDED_MENTION
UNMATCHED = (Code.REWRITE_NOT_FOUND, Code.REWORDING_NOT_FOUND)


@dataclass(frozen=True)
class PlanBasis:
    """What a plan was made from, kept so that a subset of its edits can be checked again
    (plan/subset.py) on the same snapshot: the recipe and options, the workspace before any
    stage (`start`), each stage's result in order (`stages`; the first is `DeleteItems`'), and
    the files the plan's searches found (naming the dead-symbol pattern, naming a deleted name).

    A script reads `recipe`, `start` and `stages`; the searches, `recheck` and `settle` are the
    package's own (`changes_of` and `plan_subset` use them)."""

    recipe: Recipe
    start: Workspace
    stages: tuple[StepResult, ...]
    mentioning: SettledSearch | None
    referring: SettledSearch

    @property
    def chosen_stages(self) -> range:
        """The indices of the stages whose edits are a reviewer's choices (`changes.chosen_stages`)."""
        return chosen_stages(self.stages)

    def recheck(self, staged: Staged, settings: PlanSettings, *, kept: frozenset[str] = frozenset()) -> Plan:
        """The plan of the edits `staged.workspace` holds (a subset of this plan's, on its snapshot),
        after every check a whole plan gets (see `checked_plan`)."""
        return checked_plan(self, staged, settings, kept=kept)

    def settle(self) -> None:
        """Wait for the searches, so that their files stay known once their processes are gone."""
        for search in (self.mentioning, self.referring):
            if search is not None:
                search.result()


class SettledSearch:
    """File searches whose files, once found, are kept: `result()` is the union, sorted."""

    def __init__(self, *searches: FoundFiles) -> None:
        self._searches = searches
        self._files: list[str] | None = None

    @property
    def searches(self) -> tuple[FoundFiles, ...]:
        return self._searches

    def result(self) -> list[str]:
        if self._files is None:
            self._files = sorted({path for search in self._searches for path in search.result()})
        return list(self._files)


@dataclass(frozen=True)
class PlanSettings:
    """The overrides a plan is made under, chosen once (from the flags of `codemod apply`) and kept
    on the plan, so that a subset of it (`plan_subset`, `--accept/--skip/--interactive`) is checked
    and written under the same ones.

    `allow_dangling`, `allow_unreworded` and `allow_unmatched` let their findings through (they
    are still reported); `strict` makes a use that only may refer to a deleted item block.
    """

    allow_dangling: bool = False
    allow_unreworded: bool = False
    allow_unmatched: bool = False
    strict: bool = False

    @property
    def let_through(self) -> frozenset[str]:
        """The finding codes that do not block under these settings."""
        codes = {DANGLING} if self.allow_dangling else set()
        if self.allow_unreworded:
            codes.add(UNREWORDED)
        if self.allow_unmatched:
            codes.update(UNMATCHED)
        return frozenset(codes)

    @classmethod
    def given(cls, settings: "PlanSettings | None", **flags: bool) -> "PlanSettings":
        """The settings a caller gave: `settings` (default: none), with each keyword flag that is
        true set too (an override given either way holds)."""
        return replace(settings or cls(), **{name: True for name, value in flags.items() if value})


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
    settings: PlanSettings = field(default_factory=PlanSettings)
    crlf_files: tuple[str, ...] = ()
    basis: PlanBasis | None = field(default=None, compare=False, repr=False)

    @property
    def overrides(self) -> frozenset[str]:
        """The finding codes its settings let through."""
        return self.settings.let_through

    @property
    def blocking(self) -> list[Finding]:
        """Findings that stop the plan from being written, given the overrides passed."""
        return [f for f in self.findings if f.blocking and f.code not in self.overrides]

    @property
    def exit_code(self) -> int:
        """What `codemod apply` exits with for this plan, by the CLI's table: 2 for a usage error,
        1 when findings block it, else 0."""
        if any(f.code == USAGE_ERROR for f in self.findings):
            return EXIT_USAGE
        return EXIT_FINDINGS if self.blocking else EXIT_OK

    def to_dict(self) -> dict[str, Any]:
        """The plan as one JSON-ready document: the recipe and root, each file change as its
        unified diff, the item-level changes (`changes_of`: the ids `--accept/--skip` and
        `plan_subset` take), every finding (`Finding.as_json`, codes from docs/findings.md), how
        many block under the overrides, the overrides, the names it removes and the exit code.
        `codemod apply --json` prints this with what the run did added (`RunResult.to_dict`)."""
        basis = self.basis
        items = item_changes(basis.recipe, basis.start, basis.stages) if basis is not None else ()
        return {
            "recipe": self.recipe_id,
            "root": str(self.root),
            "changes": [
                {"path": c.path, "diff": render_text(unified_diff(c.path, c.before, c.after, edits=c.edits))}
                for c in self.changes
            ],
            "items": [
                {"id": c.id, "path": c.path, "origins": list(c.origins), "item": c.item, "removes": list(c.removes)}
                for c in items
            ],
            "findings": [f.as_json() for f in self.findings],
            "blocking": len(self.blocking),
            "overrides": sorted(str(code) for code in self.overrides),
            "removed_names": list(self.removed_names),
            "exit_code": self.exit_code,
        }

    def to_json(self) -> str:
        """`to_dict()` as JSON text (indented; `json.loads` gives the dict back)."""
        return json.dumps(self.to_dict(), indent=2)


def _identifier_offsets(path: str, source: bytes, names: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, name) of code identifiers in `source` that spell one of `names`."""
    hits = whole_word_hits(source, names)
    language = language_for(path)
    if not hits or language is None:
        return []
    return language.operations.identifiers(source, parse(source, language.name) if language.grammar else None, hits)


def _surviving_mentions(
    after: AfterPlan,
    recipe: Recipe,
    dangling: list[Finding],
    mentioning: FoundFiles | None,
    kept: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Mentions of the dead-symbol pattern left in scope after the plan: prose is unreworded,
    code not already reported by the dangling-reference check is dangling. `mentioning` is the
    search for files in scope that match the pattern before the plan. A refused file is left
    out: its own finding says why nothing in it changes, and every mention it keeps would only
    repeat that. A name in `kept` names an item that is still there: its mentions are none."""
    workspace, changes, refused = after.workspace, after.changes, after.refused
    if mentioning is None or recipe.dead_symbol_pattern is None:
        return []
    pattern = compile_pattern(recipe.dead_symbol_pattern)
    scope_hits = set(mentioning.result())
    in_scope = {p for p in changes if path_in_scope(p, recipe.check_scope)}
    reported = {(f.path, f.line) for f in dangling}
    findings = []
    for path in sorted((scope_hits | in_scope) - refused):
        if recipe.sources and str((workspace.root / path).resolve()) in recipe.sources:
            continue  # the recipe's own file names what it removes
        planned = planned_file(workspace, changes, path)
        if planned is None:
            continue
        for mention in mentions_in_source(path, planned.text, pattern):
            if mention.symbol in kept:
                continue
            line, col = planned.line_col(mention.start)
            if mention.kind == CODE:
                if (path, line) in reported:
                    continue
                findings.append(
                    Finding(
                        path,
                        line,
                        col,
                        DANGLING,
                        f"{mention.symbol}: code still names a removed symbol",
                        symbol=mention.symbol,
                    )
                )
            else:
                findings.append(
                    Finding(
                        path,
                        line,
                        col,
                        UNREWORDED,
                        f"unreworded mention of {mention.symbol} [{mention.kind}]",
                        symbol=mention.symbol,
                    )
                )
    return findings


def _named_by_missing_targets(findings: Iterable[Finding], deleted: DeletedNames) -> frozenset[str]:
    """The names that `[[delete]]` targets not found stand for: each one's own, and the closest
    name of its file (its first "did you mean"), unless the plan deletes an item of that name.
    Their items are all still there: their mentions name no removed symbol, and the target's one
    finding (which always blocks) says what to correct."""
    names = {
        _last_part(name)
        for f in findings
        if f.code == Code.NO_SUCH_ITEM and f.blocking
        for name in (f.symbol, *f.candidates[:1])
        if name
    }
    return frozenset(names - set(deleted.all_names()))


def _last_part(name: str) -> str:
    """The name an item is spelt by in code: `a::b::f` and `C.f` are `f`, `f(int)` is `f`."""
    return re.split(r"::|\.", name.split("(")[0])[-1]


_Apart = tuple[dict[str, FileDeletions], dict[tuple[str, bytes], list[tuple[int, int]]]]


def _holding_after(root: Path, workspace: Workspace, findings: list[Finding]) -> list[Finding]:
    """Of the stages' `findings`, those that hold on the files as `workspace` holds them (each
    language's `holds_after`; a finding of a file no language asks about holds)."""
    kept = []
    texts: dict[str, bytes | None] = {}
    for finding in findings:
        language = language_for(finding.path) if finding.path else None
        holds = language.operations.holds_after if language is not None else None
        if holds is not None and finding.path not in texts:
            source, edits = workspace.read(finding.path), list(workspace.planned(finding.path))
            # Edits that overlap are the file gate's to refuse: the finding stands.
            texts[finding.path] = (
                None if source is None or conflicts(edits, source) else splice(source, sorted(edits, key=_span))
            )
        text = texts.get(finding.path)
        if holds is None or text is None or holds(root, finding.path, text, finding):
            kept.append(finding)
    return kept


def _span(edit: Edit) -> tuple[int, int]:
    return edit.start, edit.end


def _deletions_apart(recipe: Recipe, workspace: Workspace) -> tuple[DeletionsApart, Forked[_Apart]] | None:
    """Start the deletions in the files whose language deletes apart (`deletes_apart`: C++)
    in a forked process, with the parse errors the check will ask of those files as read and
    as the deletions leave them, while this process deletes in the others (Rust): None where
    there are no such files, no others, or no fork (core/parallel.py)."""
    by_file = targets_by_file(recipe)
    apart: dict[str, tuple[bytes, list[ItemTarget]]] = {}
    for path, targets in by_file.items():
        language = language_for(path)
        source = workspace.read(path)
        if language is not None and language.operations.deletes_apart and source is not None:
            apart[path] = (source, targets)
    if not apart or len(apart) == len(by_file):
        return None

    def task() -> _Apart:
        deletions: dict[str, FileDeletions] = {}
        errors: dict[tuple[str, bytes], list[tuple[int, int]]] = {}
        for path, (source, targets) in apart.items():
            deletions[path] = delete_in_file(recipe, path, source, targets)
            name = cast(Language, language_for(path)).name
            errors[(name, source)] = parse_errors(path, source)
            edits = deletions[path].edits
            if edits and not any(e.delete_file for e in edits) and not conflicts(edits, source):
                written = with_line_endings_of(source, edits)
                after = splice(source, written)
                errors[(name, after)] = parse_errors(path, after, (source, written))
        return deletions, errors

    forked = forked_call(task)
    if forked is None:
        return None

    def result() -> dict[str, FileDeletions] | None:
        value = forked.result()
        if value is None:
            return None
        deletions, errors = value
        while len(KNOWN_ERRORS) + len(errors) > KNOWN_KEPT and KNOWN_ERRORS:
            del KNOWN_ERRORS[next(iter(KNOWN_ERRORS))]
        KNOWN_ERRORS.update(errors)
        return deletions

    return DeletionsApart(frozenset(apart), result), forked


def usage_problem(root: Path, recipe: Recipe, options: Mapping[str, object]) -> str | None:
    """Why `recipe` cannot be planned on `root` with `options` at all (None if it can).

    The recipe's data is invalid, an option is one the recipe does not take, or
    ROOT is not a folder holding any path the recipe looks at.
    """
    try:
        validate_recipe(recipe, f"recipe {recipe.id}")
    except RecipeError as error:
        return str(error)
    unknown = sorted(set(options) - set(recipe.parameter_names))
    if unknown:
        takes = ", ".join(recipe.parameter_names) or "none"
        return f"recipe {recipe.id} takes no option {unknown[0]!r} (options it takes: {takes})"
    return root_problem(root, recipe.footprint(), f"the paths recipe {recipe.id} works on")


def _stage_name(stage: object) -> str:
    return {
        DeleteItems: "deleting items",
        DeleteModuleFiles: "deleting what goes with the items in other files",
        Rewrite: "rewriting by pattern",
        Reword: "rewording",
        Insert: "inserting",
    }.get(type(stage), f"step {getattr(stage, '__name__', type(stage).__name__)}")


def plan_recipe(
    root: Path,
    recipe: Recipe,
    *,
    allow_dangling: bool = False,
    allow_unreworded: bool = False,
    strict: bool = False,
    options: Mapping[str, object] | None = None,
    allow_unmatched: bool = False,
    progress: Callable[[str], None] | None = None,
    settings: PlanSettings | None = None,
) -> Plan:
    """Everything `recipe` would change under `root`, and every reason not to.

    `progress`, when given, is told what the plan is doing as each long step starts (the CLI
    shows it on a terminal).

    A root, recipe or option that makes planning pointless (see `usage_problem`)
    gives a plan with no changes and one blocking finding of code `usage-error`, and a
    recipe step that raises one of code `step-failed` (docs/findings.md): it raises
    nothing on its caller's input. The overrides are `settings` (a `PlanSettings`), or the
    keyword flags that make one (not both): with `strict`, a use that may refer to a deleted item (a method call on a
    receiver of unknown type, a name inside an unknown macro) blocks the plan
    like one that does; with `allow_unmatched`, a rewrite or rewording rule that matches
    nothing does not block. The plan keeps them (`Plan.settings`) for its subsets and its write.
    """
    root = Path(root)
    settings = PlanSettings.given(
        settings,
        allow_dangling=allow_dangling,
        allow_unreworded=allow_unreworded,
        allow_unmatched=allow_unmatched,
        strict=strict,
    )
    if options is not None and not isinstance(options, Mapping):
        return Plan(
            root,
            recipe.id,
            (),
            (
                Finding(
                    "",
                    0,
                    0,
                    USAGE_ERROR,
                    f"options must be a mapping of option names to values, not {type(options).__name__}",
                ),
            ),
            settings=settings,
        )
    problem = usage_problem(root, recipe, dict(options or {}))
    if problem is not None:
        return Plan(root, recipe.id, (), (Finding("", 0, 0, USAGE_ERROR, problem),), settings=settings)
    try:
        loaded = recipe.load_options(dict(options or {}))
    except RecipeInputError as error:
        return Plan(root, recipe.id, (), (Finding("", 0, 0, USAGE_ERROR, str(error)),), settings=settings)
    workspace = start = Workspace(root=root, options=loaded)
    results: list[StepResult] = []
    with ExitStack() as searches:
        # Forked first, before this plan starts threads of its own.
        forking = _deletions_apart(recipe, workspace)
        if forking is not None:
            searches.callback(forking[1].close)
        # The formatter runs in this pool's threads (other processes) while the plan is checked;
        # finding it (rustup's answer) starts now.
        pool = searches.enter_context(ThreadPoolExecutor(max_workers=2))
        early = PlanState(root, workspace.read)
        searches.callback(early.close)
        for language in dict.fromkeys(language_for(t.path) for t in recipe.deletions):
            if language is not None and language.operations.start_searches is not None:
                language.operations.start_searches(
                    early, [t.path for t in recipe.deletions if language_for(t.path) is language]
                )
            prepare = language.operations.prepare_formatting if language is not None else None
            if prepare is not None and language is not None and language.formatter and not formatter_missing(language):
                pool.submit(prepare, root)
        # ripgrep looks for mentions and for references to the deleted items while the plan is made.
        mentioning = (
            searches.enter_context(start_files_matching(root, recipe.dead_symbol_pattern, recipe.check_scope))
            if recipe.dead_symbol_pattern
            else None
        )
        findings: list[Finding] = []
        formatting: Jobs = {}
        originals: Jobs = {}

        deleted = DeletedNames()
        referring: list[FileSearch] = []

        def take(result: StepResult) -> None:
            """Every stage hands its edits, findings and deleted names back here, the one place they
            are planned: the next stage gets a new workspace holding them, and the word search for
            uses of newly deleted names starts at once (it runs while the next stages plan)."""
            nonlocal workspace
            results.append(result)
            workspace = workspace.with_edits(result.edits)
            findings.extend(result.findings)
            searched = deleted.search_words()
            deleted.merge(DeletedNames({k: list(v) for k, v in result.deleted.items()}, list(result.removed_names)))
            added = [n for n in deleted.search_words() if n not in searched]
            if added:
                referring.append(searches.enter_context(start_files_with_words(root, added)))

        stages: tuple[Step, ...] = (
            DeleteItems(recipe, forking[0] if forking else None),
            DeleteModuleFiles(recipe, deleted),
            *recipe.steps,
            Rewrite(recipe),
            Reword(recipe),
            Insert(recipe),
        )
        say = progress or (lambda _message: None)
        for stage in stages:
            say(_stage_name(stage))
            try:
                take(stage(workspace))
            except RecipeInputError as error:
                return Plan(root, recipe.id, (), (Finding("", 0, 0, USAGE_ERROR, str(error)),), settings=settings)
            except Exception as error:
                if stage not in recipe.steps:
                    raise  # a stage of the engine: a bug of codemod, reported as one
                return Plan(
                    root,
                    recipe.id,
                    (),
                    (
                        Finding(
                            "",
                            0,
                            0,
                            Code.STEP_FAILED,
                            f"{_stage_name(stage)} raised {type(error).__name__}: {error}; nothing planned",
                        ),
                    ),
                    settings=settings,
                )
        # A stage's finding may not hold once the later stages' edits are made (a rewrite takes
        # away the last use of an import the recipe deletes): asked again on the files as they stand.
        findings[:] = _holding_after(root, workspace, findings)
        say("removing the imports left unused")
        # The files as the stages leave them start formatting now, while the import stage resolves
        # (often for seconds, in other processes): a file that stage does not edit keeps its job.
        format_ahead(root, workspace, pool, workspace.edits, formatting, originals)
        referring_search = SettledSearch(*referring)
        # The plug-ins' state (their resolvers) is kept from the import stage for the reference check.
        shared = PlanState(
            root, workspace.read, workspace.planned, carried=early, keep_unused_imports=recipe.keeps_unused_imports
        )
        before_imports = workspace

        def final(path: str, edits: list[Edit]) -> None:
            """Start formatting `path` as the plan leaves it (its import edits are its last)."""
            if path in before_imports.edits or edits:
                format_ahead(root, before_imports.with_edits(edits), pool, [path], formatting, originals)

        take(RemoveImports(recipe, deleted, referring_search.result, shared, final)(workspace))
        if not rg_installed() and (mentioning is not None or deleted.all_names()):
            findings.append(
                Finding(
                    "",
                    0,
                    0,
                    Code.SEARCHED_WITHOUT_RG,
                    "ripgrep is not installed: files were found by walking the tree, which does "
                    "not read .gitignore (ignored files were searched too)",
                    severity="note",
                )
            )
        basis = PlanBasis(
            recipe,
            start,
            tuple(results),
            SettledSearch(mentioning) if mentioning else None,
            SettledSearch(referring_search, *referring[len(referring_search.searches) :]),
        )
        plan = checked_plan(
            basis,
            Staged(workspace, deleted, findings),
            settings,
            underway=Underway(progress, pool, formatting, originals, shared),
        )
        basis.settle()
    return plan


@dataclass(frozen=True)
class Staged:
    """What the stages leave to the checks: the snapshot holding their edits, what they delete,
    and their own findings."""

    workspace: Workspace
    deleted: DeletedNames
    findings: list[Finding]


@dataclass(frozen=True)
class Underway:
    """What the planner started that the checks take over (`checked_plan`): `progress` is told
    as each check starts; `pool` runs the formatter (one of its own when None), and `ahead`
    holds the formatting jobs the planner started (`format_ahead`; `originals` those of files
    as read); `shared` is the plug-ins' state kept from the stages (see
    references.dangling_references)."""

    progress: Callable[[str], None] | None = None
    pool: ThreadPoolExecutor | None = None
    ahead: Jobs | None = None
    originals: Jobs | None = None
    shared: PlanState | None = None


def checked_plan(
    basis: PlanBasis,
    staged: Staged,
    settings: PlanSettings,
    *,
    kept: frozenset[str] = frozenset(),
    underway: Underway = Underway(),
) -> Plan:
    """The plan of the edits `staged.workspace` holds, after the checks: each file's gate (protected,
    outside ROOT, binary, overlapping edits, parse errors before and after), the references
    left to what it deletes, and the dead-symbol mentions left (not of the names in `kept`: items
    a subset keeps, which the whole plan deletes). Its findings are the stages' own."""
    root, recipe = basis.start.root, basis.recipe
    workspace, deleted = staged.workspace, staged.deleted
    progress, pool, ahead, originals, shared = (
        underway.progress,
        underway.pool,
        underway.ahead,
        underway.originals,
        underway.shared,
    )
    findings = list(staged.findings)
    kept = kept | _named_by_missing_targets(findings, deleted)
    say = progress or (lambda _message: None)
    say(f"checking that {len(workspace.edits)} edited file(s) still parse")
    checks = {path: check_file(root, recipe, workspace, path) for path in sorted(workspace.edits)}
    written: dict[str, FileChange] = {}
    crlf: list[str] = []
    # The files the gate refuses: the plan cannot write their edits, so their items stay. Only
    # these are left out of the checks below; a finding of a stage or rule (a rewording that
    # matched nothing, a target not found) leaves the file's other edits planned, and every
    # check runs on them: an override lets that finding through, never what it would hide.
    refused: set[str] = set()
    for path in sorted(checks):
        check = checks[path]
        findings += check.findings
        if any(f.blocking for f in check.findings):
            refused.add(path)
        if check.crlf:
            crlf.append(path)
        if check.change is not None:
            written[path] = check.change
    # The formatter runs meanwhile (other processes): formatting moves no name, so the checks below
    # read the edited text, and their lines are those of the file as read either way.
    own_pool = pool is None
    pool = pool if pool is not None else ThreadPoolExecutor(max_workers=4)
    formatted = start_formatting(root, written, pool, ahead, originals)

    say("looking for uses of what the plan deletes")
    after = AfterPlan(workspace, written, refused)
    dangling = dangling_references(
        after, deleted, _identifier_offsets, strict=settings.strict, referring=[basis.referring], shared=shared
    )
    dangling = linked_to_targets(dangling, recipe.deletions, [i for items in deleted.items.values() for i in items])
    findings += dangling
    say("looking for mentions of removed symbols")
    findings += _surviving_mentions(after, recipe, dangling, basis.mentioning, kept)
    say("formatting the edited files")
    try:
        written, notes = formatted()
    finally:
        if own_pool:
            pool.shutdown()
    findings += [n for n in notes if not any((f.path, f.code) == (n.path, n.code) for f in findings)]
    findings += [
        Finding(path, 0, 0, Code.UNREADABLE_FILE, f"cannot be read ({why}); the recipe needs it")
        for path, why in sorted(workspace.unreadable.items())
    ]
    return Plan(
        root,
        recipe.id,
        tuple(written.values()),
        tuple(findings),
        tuple(deleted.all_names()),
        settings,
        tuple(crlf),
        basis,
    )
