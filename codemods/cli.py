"""The `codemod` command: renders results and owns the exit codes.

Exit codes (stable; scripts depend on them):
  0  success, or a clean check
  1  findings: a refused plan, or dead symbols found
  2  usage error: bad flags, a ROOT that is not the recipe's tree, an unknown
     or invalid recipe, an option the recipe does not take; one line,
     `codemod: error: ...` (see _cli_errors)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ._cli_errors import EXIT_USAGE, HELP_OPTIONS, Group, UsageLine

EXIT_OK = 0
EXIT_FINDINGS = 1
USAGE_ERROR_TEXT = "2 usage error (one line, `codemod: error: ...`"
EXIT_CODES = (f"Exit codes: 0 success or clean; 1 findings (a refused plan, or dead symbols found); "
              f"{USAGE_ERROR_TEXT}: bad flags, a ROOT that is not the recipe's tree, an unknown or invalid "
              f"recipe, a recipe input such as --decision).")


def _load(recipe_spec: str):
    from .recipes import RecipeError, load_recipe

    try:
        return load_recipe(recipe_spec)
    except RecipeError as error:
        raise UsageLine(str(error)) from None


def _echo_err(text: str) -> None:
    click.echo(text, err=True)


FORMATS = ("text", "json", "sarif", "github")


def _output_format(output_format: str | None, as_json: bool) -> str:
    """The --format chosen, --json being its alias for json."""
    if as_json and output_format not in (None, "json"):
        raise UsageLine(f"--json and --format {output_format} contradict each other; give one")
    return "json" if as_json else output_format or "text"


@click.group(name="codemod", cls=Group, context_settings=HELP_OPTIONS, epilog=EXIT_CODES)
@click.version_option(package_name="mlxcel-codemods")
def main() -> None:
    """Reviewable, provable codemods for mlxcel's post-epic cleanup (#2230).

    \b
    Typical use:
      codemod apply --dry-run ROOT     review the removal as a diff
      codemod apply ROOT               write it (atomically, all files or none)
      codemod check ROOT               fail if dead symbols came back
    """


@main.command(epilog=f"Exit codes: 0 listed; {USAGE_ERROR_TEXT}).")
@click.option("--json", "as_json", is_flag=True, help="One JSON document on stdout.")
def recipes(as_json: bool) -> None:
    """List the bundled recipes."""
    from .recipes import builtin_recipes

    items = builtin_recipes()
    if as_json:
        click.echo(json.dumps([{"id": r.id, "summary": r.summary} for r in items], indent=2))
        return
    for recipe in items:
        click.echo(f"{recipe.id:24} {recipe.summary}")


def _check_root(root: Path) -> None:
    """A one-line usage error unless ROOT is a folder we can list."""
    import os

    if not root.exists():
        raise UsageLine(f"ROOT {root} does not exist")
    if not root.is_dir():
        raise UsageLine(f"ROOT {root} is not a directory")
    try:
        with os.scandir(root) as entries:
            next(entries, None)
    except OSError as error:
        raise UsageLine(f"cannot read ROOT {root}: {error.strerror or error}") from None


def _diff_stat(diffs: list[tuple[str, str]]) -> list[str]:
    """`git diff --stat`-like lines: each file's added and removed lines, then the totals."""
    rows = []
    for path, diff in diffs:
        lines = diff.splitlines()
        added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
        removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
        rows.append((path, added, removed))
    width = max((len(path) for path, _, _ in rows), default=0)
    out = [f" {path:<{width}} | {click.style(f'+{a}', fg='green')} {click.style(f'-{r}', fg='red')}"
           for path, a, r in rows]
    out.append(f" {len(rows)} file(s) changed, {sum(a for _, a, _ in rows)} insertion(s)(+), "
               f"{sum(r for _, _, r in rows)} deletion(s)(-)")
    return out


def _coloured(diff: str) -> str:
    """A unified diff with git's colours (click strips them when stdout is not a terminal)."""
    out = []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("+++", "---")):
            out.append(click.style(line, bold=True))
        elif line.startswith("@@"):
            out.append(click.style(line, fg="cyan"))
        elif line.startswith("+"):
            out.append(click.style(line, fg="green"))
        elif line.startswith("-"):
            out.append(click.style(line, fg="red"))
        else:
            out.append(line)
    return "".join(out)


def _summary(recipe_id: str, plan, blocking: list, verb: str) -> str:
    """The last line of `apply`: files, findings (blocking or allowed) and notes, counted apart."""
    findings = sum(1 for f in plan.findings if f.blocking)
    notes = len(plan.findings) - findings
    return (f"codemod: {recipe_id}: {verb} {len(plan.changes)} file(s); {findings} finding(s), "
            f"{len(blocking)} blocking" + (f"; {notes} note(s)" if notes else ""))


@main.command(epilog=(f"Exit codes: 0 written (or nothing to do; with --dry-run: the plan is clean); "
                      f"1 refused or failed (nothing changed); {USAGE_ERROR_TEXT}: ROOT is not the recipe's "
                      f"tree, an unknown or invalid recipe, a recipe input such as --decision)."))
@click.argument("root", type=click.Path(path_type=Path))
@click.option("--dry-run", is_flag=True, help="Print the unified diff; write nothing.")
@click.option("--recipe", "recipe_spec", default="paged-compat-removal", show_default=True,
              metavar="ID|PATH", help="A bundled recipe id, or a .py/.toml recipe file (docs/recipes.md).")
@click.option("--allow-dangling", is_flag=True,
              help="Apply even though code still refers to deleted items (fix them by hand from the report).")
@click.option("--allow-unreworded", is_flag=True,
              help="Apply even though comments or strings still name removed symbols.")
@click.option("--strict", is_flag=True,
              help="Also refuse on possible references (method calls on receivers of unknown type, "
                   "names inside macros whose arguments are not known to be expressions).")
@click.option("--format", "output_format", type=click.Choice(FORMATS), default=None,
              help="text (default): the diff, findings on stderr; json: one document; sarif: the findings "
                   "as a SARIF 2.1.0 log; github: the findings as workflow-command annotations.")
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
@click.option("--decision", "decision", type=click.Path(path_type=Path), default=None,
              help="decision.json from `paged-bench report` (only the paged-flag recipe takes it).")
@click.option("-v", "--verbose", is_flag=True, help="Also list each target already absent.")
@click.option("--stat", is_flag=True, help="A per-file summary of added and removed lines instead of the diff.")
@click.option("--no-color", is_flag=True, help="Never colour the diff (it is coloured only on a terminal).")
def apply(root: Path, dry_run: bool, recipe_spec: str, allow_dangling: bool, allow_unreworded: bool,
          strict: bool, output_format: str | None, as_json: bool, decision: Path | None, verbose: bool,
          stat: bool, no_color: bool) -> None:
    """Plan a recipe on ROOT and write it, or with --dry-run only show it.

    The plan is checked before anything is written: code that would still
    refer to a deleted item (names are resolved: a use that only may refer
    to it is listed as possible, and blocks only with --strict), comments
    that still name a removed symbol,
    targets that do not parse or do not have the expected shape, binary
    files, and edits that overlap all block it (exit 1, nothing written)
    unless overridden. ROOT must be the tree's root: a folder that holds
    none of the files the recipe edits is a usage error.

    \b
    With --dry-run: the diff goes to stdout, findings and the summary to stderr.
    Without: files are written all of them or none, the summary goes to
    stderr. --format sarif or github puts the findings on stdout instead, as
    a SARIF 2.1.0 log or as GitHub annotations (no diff). The write is journaled in ROOT/.codemod-journal/: if a run dies
    part way, the next `codemod apply ROOT` first puts the files back (or
    finishes, if all were written) and says so. Two runs on one tree never
    interleave: the second stops at once (exit 1).
    """
    from ._diff import render_text, unified_diff
    from ._plan import OVERRIDABLE, USAGE_ERROR, usage_problem
    from ._run import apply_recipe

    output_format = _output_format(output_format, as_json)
    as_json = output_format == "json"
    _check_root(root)
    if decision is not None and not decision.is_file():
        raise UsageLine(f"decision file {decision} not found")
    recipe = _load(recipe_spec)
    if decision is not None and "decision" not in recipe.parameter_names:
        raise UsageLine(f"--decision: recipe {recipe.id} takes no decision file (the paged-flag recipe does)")
    options = {"decision": decision} if decision is not None else {}
    problem = usage_problem(root, recipe, options)
    if problem is not None:
        raise UsageLine(problem)
    run = apply_recipe(root, recipe, dry_run=dry_run, allow_dangling=allow_dangling,
                       allow_unreworded=allow_unreworded, strict=strict, options=options)
    plan = run.plan
    if plan is not None and any(f.code == USAGE_ERROR for f in plan.findings):
        raise UsageLine(next(f.message for f in plan.findings if f.code == USAGE_ERROR))
    if run.recovery:
        _echo_err(f"codemod: {run.recovery}")
    if plan is None:
        if as_json:
            click.echo(json.dumps({"recipe": recipe.id, "root": str(root), "written": False,
                                   "error": run.error, "exit_code": EXIT_FINDINGS}, indent=2))
        _echo_err(f"codemod: error: {run.error}")
        sys.exit(EXIT_FINDINGS)
    blocking = run.blocking
    shows_diff = as_json or (output_format == "text" and (dry_run or (stat and run.written)))
    diffs = [(c.path, unified_diff(c.path, c.before, c.after, edits=c.edits))
             for c in plan.changes] if shows_diff else []
    exit_code = EXIT_FINDINGS if blocking or run.error else EXIT_OK

    if as_json:
        document = {
            "recipe": recipe.id,
            "root": str(root),
            "dry_run": dry_run,
            "written": run.written,
            "changes": [{"path": p, "diff": render_text(d)} for p, d in diffs],
            "findings": [f.as_json() for f in (*plan.findings, *run.refusals)],
            "blocking": len(blocking),
            "removed_names": list(plan.removed_names),
            "write_error": run.error,
            "recovered": run.recovery,
            "exit_code": exit_code,
        }
        click.echo(json.dumps(document, indent=2))
        sys.exit(exit_code)

    colour = False if no_color else None
    if output_format == "sarif":
        from ._formats import plan_sarif

        click.echo(json.dumps(plan_sarif(root, recipe.id, [*plan.findings, *run.refusals], plan.overrides), indent=2))
    elif output_format == "github":
        from ._formats import plan_github

        for line in plan_github([*plan.findings, *run.refusals], plan.overrides):
            click.echo(line)
    elif stat and (dry_run or run.written):
        for line in _diff_stat(diffs):
            click.echo(line, color=colour)
    elif dry_run:
        for _, diff in diffs:
            click.echo(_coloured(render_text(diff)), nl=False, color=colour)
    absent = [f for f in plan.findings if f.code == "not-found"]
    for finding in (*plan.findings, *run.refusals):
        if finding.code == "not-found" and not verbose:
            continue
        if not finding.blocking:
            _echo_err(f"{finding.render()} ({'possible; --strict blocks it' if finding.certainty == 'possible' else 'note'})")
        elif finding.code in plan.overrides:
            _echo_err(f"{finding.render()} (allowed by {OVERRIDABLE[finding.code]})")
        else:
            _echo_err(finding.render())
    if blocking:
        flags = sorted({OVERRIDABLE[f.code] for f in blocking if f.code in OVERRIDABLE})
        hint = f" (override with {' '.join(flags)})" if flags and len(flags) == len({f.code for f in blocking}) else ""
        if dry_run:
            _echo_err(f"codemod: the plan has {len(blocking)} blocking finding(s): apply would refuse it{hint}")
        else:
            _echo_err(f"codemod: {'write' if run.refusals else 'plan'} refused: {len(blocking)} blocking finding(s); "
                      f"nothing written{hint}")
    elif run.error:
        _echo_err(f"codemod: write failed: {run.error}")
    if absent and not verbose:
        _echo_err(f"codemod: {len(absent)} target(s) of the recipe already absent (--verbose lists them)")
    nothing_to_do = not dry_run and not plan.changes and not blocking
    verb = "changed" if run.written or nothing_to_do else "would change"
    _echo_err(_summary(recipe.id, plan, blocking, verb))
    sys.exit(exit_code)


@main.command(epilog=f"Exit codes: 0 scaled (or shown); 1 refused or failed (nothing changed); {USAGE_ERROR_TEXT}).")
@click.argument("root", type=click.Path(file_okay=False, path_type=Path))
@click.option("--factor", type=float, default=1.01, show_default=True, help="Scale factor for the output.")
@click.option("--function", "function", default="paged_decode_attention_pooled", show_default=True,
              help="The Rust function whose returned array is scaled.")
@click.option("--dry-run", is_flag=True, help="Print the diff; write nothing.")
def perturb(root: Path, factor: float, function: str, dry_run: bool) -> None:
    """Scale the pooled kernel's output in ROOT, for mlxcel #2230's one-off check.

    After `codemod perturb ROOT`, the four pooled tests must fail against
    their oracle; revert with your VCS afterwards. Never commit the result.
    """
    from ._diff import render_text, unified_diff
    from ._plan import usage_problem
    from ._run import apply_recipe
    from .recipes.perturb import perturbation_recipe

    _check_root(root)
    recipe = perturbation_recipe(factor, function)
    problem = usage_problem(root, recipe, {})
    if problem is not None:
        raise UsageLine(problem)
    run = apply_recipe(root, recipe, dry_run=dry_run)
    if run.recovery:
        _echo_err(f"codemod: {run.recovery}")
    if run.plan is None:
        _echo_err(f"codemod: error: {run.error}")
        sys.exit(EXIT_FINDINGS)
    plan = run.plan
    for finding in (*plan.findings, *run.refusals):
        _echo_err(finding.render())
    if run.blocking or run.error:
        if run.error:
            _echo_err(f"codemod: write failed, nothing changed: {run.error}")
        sys.exit(EXIT_FINDINGS)
    if dry_run:
        for change in plan.changes:
            click.echo(render_text(unified_diff(change.path, change.before, change.after)), nl=False)
    elif run.written:
        _echo_err(f"codemod perturb: scaled {function} by {factor} in {len(plan.changes)} file(s); "
                  "revert before committing")
    sys.exit(EXIT_OK)


@main.command(epilog=(f"Exit codes: 0 clean; 1 mentions found; {USAGE_ERROR_TEXT}: bad arguments, a ROOT that "
                      f"does not hold the recipe's scope, an unknown recipe, an invalid pattern) or a file that "
                      f"could not be read."))
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--recipe", "recipe_spec", default="paged-compat-removal", show_default=True,
              metavar="ID|PATH", help="Whose dead-symbol pattern to look for.")
@click.option("--format", "output_format", type=click.Choice(FORMATS), default=None,
              help="text (default): one line per mention; json: one document; sarif: a SARIF 2.1.0 log; "
                   "github: workflow-command annotations.")
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
def check(paths: tuple[str, ...], recipe_spec: str, output_format: str | None, as_json: bool) -> None:
    """Fail (exit 1) if any removed symbol is mentioned again.

    \b
    codemod check [ROOT]      the recipe's scope under ROOT (default: .), as
                              `rg -n PATTERN src/` run in ROOT would search it
                              (hidden and .gitignore'd files skipped)
    codemod check FILE...     exactly these files (as pre-commit passes them),
                              as `rg -n PATTERN -- FILE...` would

    Prints one line per mention, path:line:col: SYMBOL [code|comment|string|unknown]
    (the kind is lexical; unknown: a comment or literal that never ends, or a
    file of another language; it is searched all the same). The set of
    path:line is the set of lines `rg -n` prints. A named binary file with a
    match is reported as rg reports it, without lines. ROOT must hold the
    recipe's scope (src/ for the default recipe): a subfolder of the tree, its
    parent or an empty folder is a usage error, not a clean check.

    \b
    --format sarif   a SARIF 2.1.0 log on stdout for code scanning: a rule per
                     removed-symbol group of the pattern, a result per mention,
                     paths relative to ROOT (or to the working directory)
    --format github  `::error file=...,line=...,col=...::` lines for GitHub Actions
    """
    from ._dead_symbols import DEAD_SYMBOLS
    from .check import check_files, check_tree

    output_format = _output_format(output_format, as_json)

    if recipe_spec in DEAD_SYMBOLS:
        recipe_id, (pattern, scope) = recipe_spec, DEAD_SYMBOLS[recipe_spec]
    else:
        recipe = _load(recipe_spec)
        recipe_id, pattern, scope = recipe.id, recipe.dead_symbol_pattern, recipe.check_scope
    if not pattern:
        raise UsageLine(f"recipe {recipe_id} has no dead-symbol pattern to check")
    folders = [p for p in paths if Path(p).is_dir()]
    if folders and len(paths) > 1:
        raise UsageLine(f"{folders[0]} is a folder: give one ROOT folder, or only FILE arguments")
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        raise UsageLine(f"no such file or folder: {missing[0]}")
    if not paths or folders:
        from ._root import root_problem

        root = Path(paths[0] if paths else ".")
        problem = root_problem(root, scope, f"the scope recipe {recipe_id} checks")
        if problem is not None:
            raise UsageLine(problem)
        result = check_tree(root, pattern, scope)
    else:
        root = Path(".")
        result = check_files(list(paths), pattern)
    if result.bad_pattern:
        raise UsageLine(f"recipe {recipe_id}: rg rejects the pattern: {' '.join(' '.join(result.errors).split())}")
    if not result.clean:
        exit_code = EXIT_FINDINGS
    else:
        exit_code = EXIT_USAGE if result.errors else EXIT_OK
    if output_format in ("sarif", "github"):
        from ._formats import check_github, check_sarif

        if output_format == "sarif":
            click.echo(json.dumps(check_sarif(root, recipe_id, pattern, result.mentions), indent=2))
        elif result.mentions:
            click.echo("\n".join(check_github(result.mentions)).encode("utf-8", "surrogateescape"))
        for message in (*result.binary, *result.errors):
            _echo_err(message)
        sys.exit(exit_code)
    if output_format == "json":
        click.echo(json.dumps({
            "recipe": recipe_id,
            "pattern": pattern,
            "mode": "files" if paths and not folders else "tree",
            "scope": list(scope),
            "mentions": [m.as_json() for m in result.mentions],
            "binary": list(result.binary),
            "errors": list(result.errors),
            "files_with_matches": result.files_with_matches,
            "exit_code": exit_code,
        }, indent=2))
        sys.exit(exit_code)
    if result.mentions:
        # Paths are kept byte for byte (surrogate-escaped), so write bytes.
        click.echo("\n".join(m.render() for m in result.mentions).encode("utf-8", "surrogateescape"))
    for message in (*result.binary, *result.errors):
        _echo_err(message)
    if not result.clean:
        _echo_err(f"codemod check: {len(result.mentions)} mention(s) of removed symbols in "
                  f"{result.files_with_matches} file(s)"
                  + (f", {len(result.binary)} binary file(s) with a match" if result.binary else ""))
    sys.exit(exit_code)
