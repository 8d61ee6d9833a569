"""Edits and findings: the two values every operation returns."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Edit:
    """Replace bytes [start, end) of `path` (relative to the root, POSIX) with `replacement`.

    `rule` names the operation that produced it, so that a conflict can name both sides.
    """

    path: str
    start: int
    end: int
    replacement: bytes = b""
    rule: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"bad edit range [{self.start}, {self.end}) in {self.path}")


# Finding severities. A blocking finding stops `apply` from writing anything.
BLOCKING = "error"
NOTE = "note"


@dataclass(frozen=True)
class Finding:
    """Something the user must know about a plan, located at path:line:col (1-based).

    A dangling reference also says how sure the check is (`certainty`:
    definite or possible), what kind of use it is (`reference`: call, import,
    serde default, ...) and how the name resolved (`resolution`).
    """

    path: str
    line: int
    col: int
    code: str
    message: str
    severity: str = BLOCKING
    symbol: str | None = None
    certainty: str | None = None
    reference: str | None = None
    resolution: str | None = None

    @property
    def blocking(self) -> bool:
        return self.severity == BLOCKING

    def render(self) -> str:
        where = f"{self.path}:{self.line}:{self.col}" if self.line else self.path
        return f"{where}: {self.message}"

    def as_json(self) -> dict:
        document = {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "severity": self.severity,
            "symbol": self.symbol,
            "message": self.message,
        }
        if self.certainty is not None:
            document.update(certainty=self.certainty, kind=self.reference, resolution=self.resolution)
        return document


def line_col(source: bytes, offset: int) -> tuple[int, int]:
    """1-based line and 1-based byte column of `offset` in `source`."""
    line = source.count(b"\n", 0, offset) + 1
    line_start = source.rfind(b"\n", 0, offset) + 1
    return line, offset - line_start + 1


def target_not_deleted(path: str, source: bytes, kind: str, name: str,
                       other_kind: str | None = None, other_start: int = 0, label: str = "") -> Finding:
    """Why a deletion target was not deleted: found only as another kind (blocking) or absent (a note)."""
    if other_kind is not None:
        line, col = line_col(source, other_start)
        return Finding(path, line, col, "shape-mismatch",
                       f"{name}: expected a {kind}, found a {other_kind}; not deleted", symbol=name)
    return Finding(path, 0, 0, "not-found", f"{label}{kind} {name} not found (already removed?)",
                   severity=NOTE, symbol=name)
