"""One error style for every console script of the distribution: the `codemod` command's own
(`codemods/cli/style.py`, where it is described), one implementation, named here so that
`paged-bench`, `ssm-diff` and `ssm-generations` (`analysis`, `kernels`) import no module of the
engine but through this package."""

from __future__ import annotations

from codemods.cli.style import EXIT_USAGE, HELP_OPTIONS, Command, Group, UsageLine, report_error, wants_json

__all__ = ["EXIT_USAGE", "HELP_OPTIONS", "Command", "Group", "UsageLine", "report_error", "wants_json"]
