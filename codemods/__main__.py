"""`python -m codemods`: the `codemod` command."""

from .cli import main

main()
