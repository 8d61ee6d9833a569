"""The `codemod` command: parses options, runs the library, hands the result to a reporter, and
owns the exit codes.

Exit codes (stable; scripts depend on them):
  0  success, or a clean check
  1  findings: a refused plan, or dead symbols found; or an --interactive
     review quit without writing
  2  usage error: bad flags, a ROOT that is not the recipe's tree, an unknown
     or invalid recipe, an option the recipe does not take; one line,
     `codemod: error: ...` (cli/style.py)
  3  internal error: a bug of codemod, never of the input; one line naming the
     file being read and asking for a report (never a traceback)
"""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from codemods.cli.style import EXIT_USAGE, HELP_OPTIONS, Group, UsageLine, report_error, wants_json
from codemods.edit.codes import EXIT_FINDINGS, EXIT_OK
from codemods.report.base import ApplyReport, CheckReport, FORMATS, reporter, tool_version
from codemods.edit.errors import RecipeError

# A run is short and keeps most of what it allocates (sources, trees, the plan) to its end: the
# cyclic collector, run every 700 allocations by default, spent about 35 ms of a dry run on the
# real tree it was tested on scanning objects that all survive; every 50,000 it runs rarely (peak memory is
# the same). Set here, not in the package `cli/`, whose `style` the house's other commands import.
gc.set_threshold(50_000, 20, 20)

if TYPE_CHECKING:  # the recipe and output types, for annotations only (the CLI imports the engine lazily)
    from codemods.config.recipe import Recipe
    from codemods.report.base import Output

EXIT_INTERNAL = 3

EXIT_INTERRUPTED = 130
USAGE_ERROR_TEXT = "2 usage error (one line, `codemod: error: ...`"
EXIT_CODES = (
    f"Exit codes: 0 success or clean; 1 findings (a refused plan, or dead symbols found); "
    f"{USAGE_ERROR_TEXT}: bad flags, a ROOT that is not the recipe's tree, an unknown or invalid "
    f"recipe, a recipe input such as an option's file); 3 internal error (one line naming the file being read: "
    f"please report it)."
)


def _load(recipe_spec: str) -> Recipe:
    # here: `codemod check` and the CLI's start do not load the recipe loader
    from codemods.config.loader import RecipeError, load_recipe

    try:
        return load_recipe(recipe_spec)
    except RecipeError as error:
        raise UsageLine(str(error)) from None


def _echo_err(text: str) -> None:
    click.echo(text, err=True)


def _output_format(output_format: str | None, as_json: bool) -> str:
    """The --format chosen, --json being its alias for json."""
    if as_json and output_format not in (None, "json"):
        raise UsageLine(f"--json and --format {output_format} contradict each other; give one")
    return "json" if as_json else output_format or "text"


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"codemod, version {tool_version()}")
        ctx.exit()


def _echo(output: Output, colour: bool | None = None) -> None:
    """Print a reporter's Output: its stdout chunks, then its stderr lines."""
    for chunk in output.stdout:
        click.echo(chunk, nl=False, color=colour)
    for line in output.stderr:
        click.echo(line, err=True)


# Names under which the engine's functions hold the file they work on (a path relative to the
# root, or a Path): what an internal error reports as the file being read.
_FILE_LOCALS = ("path", "rel", "relative", "file", "filename", "manifest_path", "directory")


def _file_being_read(error: BaseException) -> str | None:
    """The file the innermost engine frame of `error`'s traceback was working on, if it says."""
    frames = []
    trace = error.__traceback__
    while trace is not None:
        frames.append(trace.tb_frame)
        trace = trace.tb_next
    for frame in reversed(frames):
        if not frame.f_globals.get("__name__", "").startswith("codemods."):
            continue
        for name in _FILE_LOCALS:
            value = frame.f_locals.get(name)
            if isinstance(value, (str, Path)) and str(value) and "\n" not in str(value) and len(str(value)) < 500:
                return str(value)
    return None


class _CodemodGroup(Group):
    """The `codemod` group: an exception that escapes a command is a bug of codemod, reported as
    one line (exit 3) that names the file being read, never as a traceback or a refused plan's 1."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        argv = list(sys.argv[1:] if args is None else args)
        try:
            return super().main(argv, prog_name, complete_var, standalone_mode, **extra)
        except Exception as error:
            where = _file_being_read(error)
            detail = " ".join(f"{type(error).__name__}: {error}".split())[:300]
            message = (
                f"internal error{f' while reading {where}' if where else ''}: {detail}; "
                f"this is a bug of codemod, not of your tree: please report it with this line "
                f"and the command that gave it"
            )
            report_error(prog_name or self.name or "codemod", message, wants_json(argv), EXIT_INTERNAL)
            sys.exit(EXIT_INTERNAL)


@click.group(name="codemod", cls=_CodemodGroup, context_settings=HELP_OPTIONS, epilog=EXIT_CODES)
@click.option(
    "--version", is_flag=True, expose_value=False, is_eager=True, callback=_version, help="Show the version and exit."
)
def main() -> None:
    """Reviewable, provable codemods: delete items with everything attached to them, rewrite
    code by structural pattern, reword prose, and check that removed symbols stay removed.

    \b
    Typical use:
      codemod recipes               the bundled recipes and the options they take
      codemod apply --dry-run ROOT  review a recipe's plan as a diff
      codemod apply ROOT            write it (atomically, all files or none)
      codemod check ROOT            fail if dead symbols came back
      codemod infer --commit REV    the recipe that reproduces a commit
    """


@main.command(epilog=f"Exit codes: 0 listed; {USAGE_ERROR_TEXT}).")
@click.option("--json", "as_json", is_flag=True, help="One JSON document on stdout.")
def recipes(as_json: bool) -> None:
    """List the bundled recipes and the options (--param NAME=VALUE, or the flag a recipe declares
    for one) each takes."""
    # here: `codemod check` and the CLI's start do not load the recipe loader
    from codemods.config.loader import bundled_recipes

    items = bundled_recipes()
    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "id": r.id,
                        "summary": r.summary,
                        "parameters": [
                            {
                                "name": p.name,
                                "default": p.default,
                                "help": p.help,
                                "flag": p.flag,
                                "file": p.file,
                                "required": p.default is None and p.missing is not None,
                            }
                            for p in r.parameters
                        ],
                    }
                    for r in items
                ],
                indent=2,
            )
        )
        return
    for recipe in items:
        click.echo(f"{recipe.id:24} {recipe.summary}")
        for parameter in recipe.parameters:
            default = (
                f" (default {parameter.default})"
                if parameter.default is not None
                else (" (required)" if parameter.missing else "")
            )
            given = (
                f"{parameter.flag} {'FILE' if parameter.file else 'VALUE'}"
                if parameter.flag
                else f"--param{'-file' if parameter.file else ''} {parameter.name}=..."
            )
            click.echo(f"{'':24}   {given}{default}" + (f": {parameter.help}" if parameter.help else ""))


@main.command(
    epilog=f"Exit codes: 0 inferred, every change expressed; 1 inferred, with what it cannot express "
    f"named in comments; {USAGE_ERROR_TEXT}: bad arguments, not a git work tree, an unknown REV)."
)
@click.argument("trees", nargs=-1, type=click.Path(exists=True, file_okay=False), metavar="BEFORE AFTER | [ROOT]")
@click.option(
    "--commit",
    "rev",
    metavar="REV",
    help="Infer from this commit of the git work tree ROOT (default: "
    "the working directory): its parent's files against its own, for the files it changes.",
)
@click.option("--id", "recipe_id", default=None, help="The recipe's id (default: inferred, or commit-SHA).")
@click.option("--json", "as_json", is_flag=True, help="One JSON document: the recipe and what it cannot express.")
def infer(trees: tuple[str, ...], rev: str | None, recipe_id: str | None, as_json: bool) -> None:
    """Print the recipe that turns BEFORE into AFTER (two trees), or a commit's parent into it.

    Each item the change removes is a [[delete]] by kind and exact name; code it edits
    beyond them a [[rewrite]], comments a [[reword]], lines it adds an [[insert]]; what
    the engine does by itself (imports left unused, formatting, a module's file) is
    not repeated. What no rule can say is a `#` comment naming the file and line.
    """
    # here: tempfile loads random and shutil, which the CLI's start does not need
    import tempfile

    # here: inference loads the parsers (tree-sitter), which the CLI's start does not need
    from codemods.plan.infer import infer_recipe
    from codemods.plan.infer.commit import CommitError, commit_trees

    if rev is None and len(trees) != 2:
        raise UsageLine("give two trees, BEFORE AFTER, or --commit REV [ROOT]")
    if rev is not None and len(trees) > 1:
        raise UsageLine("--commit REV takes one ROOT (a git work tree), not two trees")
    with tempfile.TemporaryDirectory(prefix="codemod-infer-") as scratch:
        if rev is not None:
            try:
                before, after, short = commit_trees(Path(trees[0] if trees else "."), rev, Path(scratch))
            except CommitError as error:
                raise UsageLine(f"--commit {rev}: {error}") from None
            recipe_id = recipe_id or f"commit-{short}"
        else:
            before, after = Path(trees[0]), Path(trees[1])
        inferred = infer_recipe(before, after, recipe_id=recipe_id or "inferred")
    if as_json:
        click.echo(json.dumps({"recipe": inferred.toml, "unexpressed": list(inferred.unexpressed)}, indent=2))
    else:
        click.echo(inferred.toml, nl=False)
    sys.exit(EXIT_FINDINGS if inferred.unexpressed else EXIT_OK)


def _root_problem(root: Path, expected: tuple[str, ...] = (), whose: str = "") -> None:
    """A one-line usage error unless ROOT is a folder holding any of `expected`."""
    # here: the CLI's start loads no command's modules (rg's search, the tree's config, the journal)
    from codemods.plan.root import root_problem

    problem = root_problem(root, expected, whose)
    if problem is not None:
        raise UsageLine(problem)


def _recipe_spec(recipe_spec: str | None, root: Path) -> str:
    """The recipe to run: --recipe, else the one the tree's config names; a usage error saying how
    to name one when there is neither."""
    # here: the CLI's start loads no command's modules (rg's search, the tree's config, the journal)
    from codemods.config.tree_config import NO_RECIPE, configured_recipe

    if recipe_spec is not None:
        return recipe_spec
    try:
        configured = configured_recipe(root)
    except RecipeError as error:
        raise UsageLine(str(error)) from None
    if configured is None:
        raise UsageLine(NO_RECIPE)
    return configured


def _root_and_recipe_flags(tokens: tuple[str, ...]) -> tuple[Path, list[tuple[str, str | None]]]:
    """ROOT and the options a recipe declares for itself (`--NAME VALUE` or `--NAME=VALUE`), from
    what click left: the arguments that are not options of `apply`."""
    positional: list[str] = []
    flags: list[tuple[str, str | None]] = []
    rest = list(tokens)
    took_next = False
    while rest:
        token = rest.pop(0)
        if token == "--":
            positional += rest
            break
        if token.startswith("--") and len(token) > 2:
            name, sep, value = token.partition("=")
            took_next = not sep and bool(rest)
            flags.append((name, value if sep else rest.pop(0) if rest else None))
        elif token.startswith("-") and token != "-":
            raise UsageLine(f"No such option: {token}")
        else:
            positional.append(token)
    if not positional and took_next and flags[-1][1] is not None:
        # `--flag ROOT`: the last word is ROOT, and the flag is left without a value (the recipe
        # says whether it has one).
        positional.append(flags[-1][1])
        flags[-1] = (flags[-1][0], None)
    if not positional:
        raise UsageLine("Missing argument 'ROOT'")
    if len(positional) > 1:
        raise UsageLine(f"Got unexpected extra argument ({' '.join(positional[1:])})")
    return Path(positional[0]), flags


def _options(
    params: tuple[str, ...], param_files: tuple[str, ...], recipe: Recipe, flags: Sequence[tuple[str, str | None]] = ()
) -> dict[str, object]:
    """The recipe options given on the command line: --param NAME=VALUE (a string),
    --param-file NAME=PATH (a path that must exist), and the flags `recipe` declares for its
    parameters (`Parameter.flag`: its value a string, or a path that must exist for a `file` one)."""
    options: dict[str, object] = {}

    def split(flag: str, given: str) -> tuple[str, str]:
        name, sep, value = given.partition("=")
        if not sep or not name.strip():
            raise UsageLine(f"{flag} {given!r}: give NAME=VALUE")
        if name in options:
            raise UsageLine(f"{flag} {name}: option {name!r} given twice")
        return name.strip(), value

    for given in params:
        name, value = split("--param", given)
        options[name] = value
    files = [split("--param-file", given) for given in param_files]
    declared = {p.flag: p for p in recipe.parameters if p.flag}
    for flag, flag_value in flags:
        parameter = declared.get(flag)
        if parameter is None:
            takes = f"; recipe {recipe.id} declares {', '.join(sorted(declared))}" if declared else ""
            raise UsageLine(f"No such option: {flag}{takes}")
        if flag_value is None:
            raise UsageLine(f"{flag} needs a value ({flag} {'FILE' if parameter.file else 'VALUE'})")
        if parameter.file:
            files.append((parameter.name, flag_value))
        elif parameter.name in options:
            raise UsageLine(f"option {parameter.name!r} given twice")
        else:
            options[parameter.name] = flag_value
    for name, value in files:
        if name in options:
            raise UsageLine(f"option {name!r} given twice")
        if not Path(value).exists():
            raise UsageLine(f"{name} file {value} not found")
        options[name] = Path(value)
    return options


# Options click does not know are left to the recipe, which may declare its own (Parameter.flag).
@main.command(
    context_settings={"ignore_unknown_options": True},
    epilog=(
        f"Exit codes: 0 written (or nothing to do; with --dry-run: the plan is clean); "
        f"1 refused, failed or an --interactive review quit without writing (nothing changed); "
        f"{USAGE_ERROR_TEXT}: ROOT is not the recipe's "
        f"tree, an unknown or invalid recipe, an option it does not take or rejects, --verify "
        f"without a check to run); "
        f"130 interrupted (Ctrl-C)."
    ),
)
@click.argument("tokens", nargs=-1, type=click.UNPROCESSED, metavar="ROOT")
@click.option("--dry-run", is_flag=True, help="Print the unified diff; write nothing.")
@click.option(
    "--recipe",
    "recipe_spec",
    default=None,
    metavar="ID|PATH",
    help="A bundled recipe id (`codemod recipes`), or a .py/.toml recipe file "
    "(docs/recipes.md). Default: the recipe ROOT's .codemod.toml or "
    "pyproject.toml [tool.codemod] names.",
)
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="NAME=VALUE",
    help="An option the recipe declares (`codemod recipes` lists them); repeatable.",
)
@click.option(
    "--param-file",
    "param_files",
    multiple=True,
    metavar="NAME=PATH",
    help="An option the recipe declares whose value is a file; repeatable.",
)
@click.option(
    "--allow-dangling",
    is_flag=True,
    help="Apply even though code still refers to deleted items (fix them by hand from the report).",
)
@click.option(
    "--allow-unreworded", is_flag=True, help="Apply even though comments or strings still name removed symbols."
)
@click.option(
    "--allow-unmatched", is_flag=True, help="Apply even though a rewrite or reword rule of the recipe matches nothing."
)
@click.option(
    "--strict",
    is_flag=True,
    help="Also refuse on possible references (method calls on receivers of unknown type, "
    "names inside macros whose arguments are not known to be expressions).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default=None,
    help="text (default): the diff, findings on stderr; json: one document; sarif: the findings "
    "as a SARIF 2.1.0 log; github: the findings as workflow-command annotations.",
)
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Also list each target already absent, and each possible use of a name that has several.",
)
@click.option(
    "--stat", is_flag=True, help="A per-file summary of added and removed lines instead of the diff (text format only)."
)
@click.option("--no-color", is_flag=True, help="Never colour the diff (it is coloured only on a terminal).")
@click.option(
    "-i",
    "--interactive",
    is_flag=True,
    help="Review the plan change by change on the terminal and write only what you accept.",
)
@click.option(
    "--accept",
    "accept",
    multiple=True,
    metavar="ORIGIN",
    help="Write only the changes this names (an id or origin as --json lists them); repeatable.",
)
@click.option(
    "--skip", "skip", multiple=True, metavar="ORIGIN", help="Write the plan without the changes this names; repeatable."
)
@click.option(
    "--verify",
    "verify",
    multiple=True,
    is_flag=False,
    flag_value="",
    metavar="[CMD]",
    help="Build the planned tree in a scratch copy first and refuse it on a new error: with CMD "
    "(--verify=CMD; repeatable) that shell command, else the recipe's `verify`, else the "
    "check detected (cargo check, compile_commands.json, Python). docs/verify.md.",
)
@click.option(
    "--trust-build",
    is_flag=True,
    help="With --verify: a dangling reference in a file the clean build compiled is a note, not a "
    "refusal (true only for the configurations built).",
)
def apply(
    tokens: tuple[str, ...],
    dry_run: bool,
    recipe_spec: str | None,
    params: tuple[str, ...],
    param_files: tuple[str, ...],
    allow_dangling: bool,
    allow_unreworded: bool,
    allow_unmatched: bool,
    strict: bool,
    output_format: str | None,
    as_json: bool,
    verbose: bool,
    stat: bool,
    no_color: bool,
    interactive: bool,
    accept: tuple[str, ...],
    skip: tuple[str, ...],
    verify: tuple[str, ...],
    trust_build: bool,
) -> None:
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
    Without: files are written all of them or none, the summary goes to stderr.
    --format sarif or github puts the findings on stdout instead, as a SARIF
    2.1.0 log or as GitHub annotations (no diff).

    \b
    --interactive (-i) shows each item-level change (an item deleted, a test
    rewritten, a comment reworded) as a diff and asks
    [y]es / [n]o / [a]ll remaining / [q]uit / [?] (e: show it in $EDITOR);
    skipping a change that accepted ones need names them and offers to skip
    them too; only changes shown and accepted are written; q checks what the
    accepted ones give, then writes them after one confirmation, or goes
    back, or writes nothing (exit 1); Ctrl-C writes nothing (exit 130).
    --accept/--skip ORIGIN choose without asking (the ids `--json` lists
    under "items", or an origin they share). What is kept is
    checked again and refused if it has a blocking finding the whole plan
    did not have.

    The write is journaled (in ROOT/.git/codemod/ when ROOT is a git work
    tree, else in ROOT/.codemod-journal/): if a run dies part way, the next
    `codemod apply ROOT` first puts the files back (or finishes, if all were
    written) and says so; `codemod check ROOT` warns while a journal waits.
    Two runs on one tree never interleave: the second stops at once (exit 1).
    Ctrl-C during the write puts back what was written (exit 130).

    \b
    --verify builds what would be written in a scratch copy outside ROOT and
    refuses the write on an error the tree as it is does not have (finding
    build-error, at the compiler's place); progress on stderr. See
    docs/verify.md for the checks detected and the limits of --trust-build.
    """
    # here: the planner loads the parsers (tree-sitter), which `codemod check` and the CLI's start do not need
    from codemods.plan.planner import USAGE_ERROR, PlanSettings
    from codemods.write.run import run_recipe, verifier

    output_format = _output_format(output_format, as_json)
    if stat and output_format != "text":
        raise UsageLine(f"--stat shows the text diff's summary; it does not go with --format {output_format}")
    # `--verify ROOT`: click took ROOT for the optional CMD; a folder is never a command.
    tokens = (*(v for v in verify if v and Path(v).is_dir()), *tokens)
    verify = tuple("" if v and Path(v).is_dir() else v for v in verify)
    if trust_build and not verify:
        raise UsageLine("--trust-build trusts what --verify builds: give --verify too")
    root, flags = _root_and_recipe_flags(tokens)
    _root_problem(root)
    recipe = _load(_recipe_spec(recipe_spec, root))
    options = _options(params, param_files, recipe, flags)
    # The overrides, made once: the whole plan, a chosen subset and the write all use these.
    settings = PlanSettings(
        allow_dangling=allow_dangling, allow_unreworded=allow_unreworded, allow_unmatched=allow_unmatched, strict=strict
    )
    if interactive or accept or skip:
        # here: the interactive walk loads the planner, the parsers and termios
        from codemods.cli.interactive import apply_chosen

        sys.exit(
            apply_chosen(
                root,
                recipe,
                interactive=interactive,
                accept=accept,
                skip=skip,
                dry_run=dry_run,
                output_format=output_format,
                colour=False if no_color else None,
                verbose=verbose,
                stat=stat,
                settings=settings,
                options=options,
                verify=verifier(tuple(filter(None, verify)) or bool(verify), trust_build, _echo_verify),
            )
        )
    progress = _Progress() if sys.stderr.isatty() else None

    def say_verify(message: str) -> None:
        if progress is not None:
            progress.clear()
        _echo_verify(message)

    try:
        run, _ = run_recipe(
            root,
            recipe,
            settings,
            dry_run=dry_run,
            options=options,
            progress=progress,
            verify=verifier(tuple(filter(None, verify)) or bool(verify), trust_build, say_verify),
        )
    except KeyboardInterrupt:
        if progress is not None:
            progress.clear()
        _interrupted(root)
    if progress is not None:
        progress.clear()
    plan = run.plan
    if plan is not None and any(f.code == USAGE_ERROR for f in plan.findings):
        raise UsageLine(next(f.message for f in plan.findings if f.code == USAGE_ERROR))
    if plan is None:
        if output_format == "json":
            click.echo(json.dumps({"recipe": recipe.id, **run.to_dict()}, indent=2))
        if run.recovery:
            _echo_err(f"codemod: {run.recovery}")
        _echo_err(f"codemod: error: {run.error}")
        sys.exit(EXIT_FINDINGS)
    report = ApplyReport(root, recipe.id, run, dry_run, verbose=verbose, stat=stat, colour=False if no_color else None)
    _echo(reporter(output_format).render_apply(report), report.colour)
    sys.exit(report.exit_code)


def _echo_verify(message: str) -> None:
    """A line of --verify's progress on stderr (which check, how long)."""
    _echo_err(f"codemod: {message}")


class _Progress:
    """What a long `apply` is doing, on one line of a terminal's stderr, rewritten as it goes and
    cleared before the report (never on a pipe or file: the CLI passes none there)."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, message: str) -> None:
        sys.stderr.write(f"\r\x1b[Kcodemod: {message}...")
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = False


def _interrupted(root: Path) -> None:
    """Ctrl-C during `apply`: say what state the tree is in (never that files changed), exit 130."""
    # here: the CLI's start loads no command's modules (rg's search, the tree's config, the journal)
    from codemods.write.journal import journal_path, journal_present

    if journal_present(root):
        state = f"the write stopped part way; `codemod apply {root}` puts the files back from {journal_path(root)}/"
    else:
        state = "no file is half written (a write in progress was put back)"
    _echo_err(f"codemod: interrupted (Ctrl-C); {state}")
    sys.exit(EXIT_INTERRUPTED)


def _pending_journal(root: Path) -> str | None:
    """The warning `check` prints while an interrupted apply's journal waits in ROOT."""
    # here: the CLI's start loads no command's modules (rg's search, the tree's config, the journal)
    from codemods.write.journal import journal_path, journal_present

    if not journal_present(root):
        return None
    return (
        f"codemod check: warning: {journal_path(root)}/ is left from an interrupted `codemod apply`: "
        f"files may be half written; `codemod apply {root}` recovers them"
    )


@main.command(
    epilog=(
        f"Exit codes: 0 clean; 1 mentions found; {USAGE_ERROR_TEXT}: bad arguments, a ROOT that "
        f"does not hold the recipe's scope, an unknown recipe, an invalid pattern) or a file that "
        f"could not be read."
    )
)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--recipe",
    "recipe_spec",
    default=None,
    metavar="ID|PATH",
    help="Whose dead-symbol pattern to look for. Default: the recipe the tree's .codemod.toml or "
    "pyproject.toml [tool.codemod] names (the tree: ROOT, or with FILE... the working "
    "directory).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default=None,
    help="text (default): one line per mention; json: one document; sarif: a SARIF 2.1.0 log; "
    "github: workflow-command annotations.",
)
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
@click.option(
    "--in-scope",
    "in_scope",
    is_flag=True,
    help="With FILE...: check only those in the recipe's check_scope (the pre-commit hook passes "
    "every file and this, so that the recipe sets the hook's scope).",
)
def check(
    paths: tuple[str, ...], recipe_spec: str | None, output_format: str | None, as_json: bool, in_scope: bool
) -> None:
    """Fail (exit 1) if any removed symbol is mentioned again.

    \b
    codemod check [ROOT]      the recipe's scope under ROOT (default: .), as
                              `rg -n PATTERN SCOPE...` run in ROOT would search it
                              (hidden and .gitignore'd files skipped)
    codemod check FILE...     exactly these files (as pre-commit passes them),
                              as `rg -n PATTERN -- FILE...` would; with
                              --in-scope, those of them in the recipe's scope

    The recipe is --recipe, else the one the tree's config names (ROOT's, or
    with FILE... the working directory's: .codemod.toml or pyproject.toml).

    Prints one line per mention, path:line:col: SYMBOL [code|comment|string|unknown]
    (the kind is lexical; unknown: a comment or literal that never ends, or a
    file of another language; it is searched all the same). The set of
    path:line is the set of lines `rg -n` prints; then, on stderr, the recipe
    that removed the symbols (id and summary) and why they must stay gone. A
    named binary file with a
    match is reported as rg reports it, without lines. ROOT must hold the
    recipe's scope (its check_scope, if it has one): a subfolder of the tree, its
    parent or an empty folder is a usage error, not a clean check.

    \b
    --format sarif   a SARIF 2.1.0 log on stdout for code scanning: a rule per
                     removed-symbol group of the pattern, a result per mention,
                     paths relative to ROOT (or to the working directory)
    --format github  `::error file=...,line=...,col=...::` lines for GitHub
                     Actions
    """
    # here: the CLI's start loads no command's modules (rg's search, the tree's config, the journal)
    from codemods.config.catalog import recipe_files
    from codemods.config.settings import dead_symbol_settings
    from codemods.search.check import check_files, check_tree, without_files

    output_format = _output_format(output_format, as_json)
    folders = [p for p in paths if Path(p).is_dir()]
    if folders and len(paths) > 1:
        raise UsageLine(f"{folders[0]} is a folder: give one ROOT folder, or only FILE arguments")
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        raise UsageLine(f"no such file or folder: {missing[0]}")
    tree_mode = not paths or bool(folders)
    if in_scope and tree_mode:
        raise UsageLine("--in-scope chooses among FILE arguments; a ROOT is checked in its scope anyway")
    root = Path(paths[0] if paths and tree_mode else ".")
    try:
        spec = _recipe_spec(recipe_spec, root)
        settings = dead_symbol_settings(spec)
        recipe_id, pattern, scope = settings.id, settings.pattern, settings.scope
    except RecipeError as error:
        raise UsageLine(str(error)) from None
    if not pattern:
        raise UsageLine(f"recipe {recipe_id} has no dead-symbol pattern to check")
    if tree_mode:
        _root_problem(root, scope, f"the scope recipe {recipe_id} checks")
        result = without_files(check_tree(root, pattern, scope), root, recipe_files(spec))
    else:
        # here: the CLI's start loads no command's modules (rg's search, the tree's config, the journal)
        from codemods.search.files import in_scope as path_in_scope

        own = recipe_files(spec)
        files = [
            p
            for p in paths
            if (not in_scope or path_in_scope(Path(p).as_posix().removeprefix("./"), scope))
            and Path(p).resolve() not in own
        ]
        result = check_files(files, pattern)
    if result.bad_pattern:
        raise UsageLine(f"recipe {recipe_id}: rg rejects the pattern: {' '.join(' '.join(result.errors).split())}")
    if not result.clean:
        exit_code = EXIT_FINDINGS
    else:
        exit_code = EXIT_USAGE if result.errors else EXIT_OK
    report = CheckReport(
        root, recipe_id, pattern, scope, "tree" if tree_mode else "files", result, exit_code, settings.summary
    )
    _echo(reporter(output_format).render_check(report))
    warning = _pending_journal(root)
    if warning is not None:
        _echo_err(warning)
    sys.exit(exit_code)
