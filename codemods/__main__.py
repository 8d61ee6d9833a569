"""`python -m codemods`: the `codemod` command."""

from codemods.cli.main import main

main()
