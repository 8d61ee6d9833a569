"""`python -m codemods`: the `codemod` command."""

from codemods.cli.entry import run

run()
