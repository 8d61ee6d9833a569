"""One error style for every console script of the distribution: `codemod`'s own, which the
house's other console scripts take through `interchange.cli_style`.

Each answers a usage
error with exactly one line on stderr, `PROG: error: MESSAGE`, and exit 2;
with `--json` (or `--format json`) on the command line the same error is also
one JSON document on stdout, `{"error": MESSAGE, "exit_code": 2}`. Click's own
parse errors (unknown option, missing argument) get the same line, with a
pointer to the command's `--help` instead of click's usage block.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import click

from codemods.edit.codes import EXIT_USAGE

HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}


class UsageLine(click.ClickException):
    """A usage error shown as one line, `PROG: error: MESSAGE`, exit 2."""

    exit_code = EXIT_USAGE


def wants_json(args: list[str]) -> bool:
    """Whether the command line asks for JSON output (`--json`, `--format json`, `--format=json`)."""
    return (
        "--json" in args
        or "--format=json" in args
        or any(a == "--format" and b == "json" for a, b in zip(args, args[1:]))
    )


def _message(error: click.ClickException) -> str:
    if isinstance(error, click.UsageError) and not isinstance(error, UsageLine) and error.ctx is not None:
        return f"{error.format_message()} (see `{error.ctx.command_path} --help`)"
    return error.format_message()


def report_error(prog: str, message: str, as_json: bool, exit_code: int = EXIT_USAGE) -> None:
    """Print one error the distribution's way: a stderr line, and a JSON document if asked."""
    if as_json:
        click.echo(json.dumps({"error": message, "exit_code": exit_code}, indent=2))
    click.echo(f"{prog}: error: {message}", err=True)


class _OneLineErrors(click.Command):
    """Base of click commands and groups: every ClickException as one line (see the module)."""

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
        prog = prog_name or self.name or ""
        try:
            result = super().main(argv, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as error:
            # A group called without a command: name the commands, not the whole help.
            command, help_hint = error.ctx.command, f"see `{error.ctx.command_path} --help`"
            if isinstance(command, click.Group):
                message = f"no command given (one of: {', '.join(command.list_commands(error.ctx))}; {help_hint})"
            else:
                message = f"no arguments given ({help_hint})"
            report_error(prog, message, wants_json(argv))
            sys.exit(EXIT_USAGE)
        except click.ClickException as error:
            report_error(prog, _message(error), wants_json(argv), error.exit_code)
            sys.exit(error.exit_code)
        except click.Abort:
            click.echo(f"{prog}: interrupted", err=True)
            sys.exit(130)
        sys.exit(result if isinstance(result, int) else 0)


class Command(_OneLineErrors, click.Command):
    """A click command with the one-line error style and `-h`."""


class Group(_OneLineErrors, click.Group):
    """A click group with the one-line error style and `-h` (for it and its commands)."""


__all__ = ["EXIT_USAGE", "HELP_OPTIONS", "Command", "Group", "UsageLine", "report_error", "wants_json"]
