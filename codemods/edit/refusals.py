"""The refusals of a write: raised before anything was written, each carrying the findings that
say why. They are `CodemodError`s like the rest of the family (edit/errors.py), kept apart because
they hold `Finding`s, which errors.py, importing nothing, cannot name."""

from __future__ import annotations

from collections.abc import Sequence

from codemods.edit.errors import CodemodError
from codemods.edit.values import Finding


class WriteRefused(CodemodError):
    """A write was refused before anything was written (or after undoing it); `findings` say why
    (their codes: docs/findings.md)."""

    def __init__(self, findings: Sequence[Finding]) -> None:
        super().__init__("; ".join(f.render() for f in findings))
        self.findings = list(findings)


class PlanRefused(WriteRefused):
    """`write_plan` of a plan with blocking findings (its `findings`): nothing was written. Plan
    with the overrides that let them through, or pass `allow_blocking=True` to write anyway."""
