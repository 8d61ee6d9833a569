"""decision.json: the paged-flag decision as typed values, and its one loader.

``paged-bench report`` (analysis) writes the file and ``paged-bench decide
--json`` prints it; the ``paged-flag`` codemod recipe reads it with
`load_decision`, which validates it and returns a frozen `DecisionDocument`,
or raises `DecisionSchemaError` naming the file and the JSON path of the first
mismatch. Field by field, with an example: ``analysis/decision_schema.md``.
The shape, version ``paged-bench-decision/1``::

    {"schema": "paged-bench-decision/1", "run_dir": str, "rounds_planned": int,
     "rule": str, "results_document": str | null,
     "families": {NAME: {"model", "supports_paged_decode_backend", "reason",
                         "statistics_flag", "notes", "cells": [CELL, ...]}},
     "problems": [{"kind", "message", and where known "family", "prompt_tokens",
                   "round", "arm", "concurrency"}]}

`load_decision` also re-applies the family rule (`flag_from_verdicts`) to the
cells' verdicts and refuses a file whose ``supports_paged_decode_backend``
does not follow from them, so a hand-edited flag cannot slip through.

Standard library only (see the package docstring for why).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

SCHEMA_ID = "paged-bench-decision/1"

# The families whose flag the ``paged-flag`` recipe knows where to set (its FAMILIES
# maps each to its wrapper); ``paged-bench`` measures only these.
KNOWN_FAMILIES = ("gemma3", "llama4")

VERDICT_DENSE = "dense-faster"
VERDICT_PAGED = "paged-faster"
VERDICT_NOISE = "within-noise"
VERDICT_NO_DATA = "no-data"
VERDICTS = (VERDICT_DENSE, VERDICT_PAGED, VERDICT_NOISE, VERDICT_NO_DATA)
STATS_UNRESOLVED = "unresolved"
STATISTICS_VERDICTS = (VERDICT_DENSE, VERDICT_PAGED, STATS_UNRESOLVED)


def flag_from_verdicts(verdicts: list[str]) -> bool:
    """The rule at family level: false iff some cell is dense-faster and none paged-faster."""
    return not (VERDICT_DENSE in verdicts and VERDICT_PAGED not in verdicts)


@dataclass(frozen=True)
class CellDecision:
    """The rule's verdict and the statistics for one cell (prompt length, concurrency)."""

    family: str
    prompt_tokens: int
    concurrency: int
    rounds: tuple[int, ...]
    paired_deltas: tuple[float, ...]
    null_deltas: tuple[float, ...]
    median_paired_delta: float | None
    null_spread: float | None
    verdict: str
    median_paged_tok_s: float | None
    median_dense_tok_s: float | None
    mean_paired_delta: float | None
    ci95: tuple[float, float] | None
    rounds_favouring_dense: int
    rounds_to_resolve: int | None
    statistics_verdict: str
    inconclusive: bool
    notes: tuple[str, ...]

    def to_json(self) -> dict:
        return {
            "prompt_tokens": self.prompt_tokens,
            "concurrency": self.concurrency,
            "rounds": list(self.rounds),
            "paired_deltas": list(self.paired_deltas),
            "null_deltas": list(self.null_deltas),
            "median_paired_delta": self.median_paired_delta,
            "null_spread": self.null_spread,
            "verdict": self.verdict,
            "median_paged_tok_s": self.median_paged_tok_s,
            "median_dense_tok_s": self.median_dense_tok_s,
            "mean_paired_delta": self.mean_paired_delta,
            "ci95": list(self.ci95) if self.ci95 else None,
            "rounds_favouring_dense": self.rounds_favouring_dense,
            "rounds_to_resolve": self.rounds_to_resolve,
            "statistics_verdict": self.statistics_verdict,
            "inconclusive": self.inconclusive,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class FamilyDecision:
    """The flag a family gets from its cells, and why."""

    name: str
    model: str
    supports_paged_decode_backend: bool
    reason: str
    statistics_flag: bool
    cells: tuple[CellDecision, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict:
        return {
            "model": self.model,
            "supports_paged_decode_backend": self.supports_paged_decode_backend,
            "reason": self.reason,
            "statistics_flag": self.statistics_flag,
            "notes": list(self.notes),
            "cells": [cell.to_json() for cell in self.cells],
        }


@dataclass(frozen=True)
class Problem:
    """Something wrong with the data that the reader of the decision must see."""

    kind: str
    message: str
    family: str | None = None
    prompt_tokens: int | None = None
    round: int | None = None
    arm: str | None = None
    concurrency: int | None = None

    def describe(self) -> str:
        """One line: kind, where (as far as known) and message."""
        where = [
            self.family,
            None if self.prompt_tokens is None else f"p{self.prompt_tokens}",
            None if self.round is None else f"round {self.round}",
            self.arm,
            None if self.concurrency is None else f"c{self.concurrency}",
        ]
        located = " ".join(part for part in where if part)
        return f"{self.kind}: {located + ': ' if located else ''}{self.message}"

    def to_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(frozen=True)
class DecisionDocument:
    """One decision.json: every family's flag, with the run folder and problems behind it.

    ``results_document`` is the results document's path relative to the target
    repository root (files written by ``paged-bench report``), or None (the
    output of ``paged-bench decide --json``).
    """

    run_dir: str
    rounds_planned: int
    rule: str
    results_document: str | None
    families: tuple[FamilyDecision, ...]
    problems: tuple[Problem, ...]

    def to_json(self) -> dict:
        return {
            "schema": SCHEMA_ID,
            "run_dir": self.run_dir,
            "rounds_planned": self.rounds_planned,
            "rule": self.rule,
            "results_document": self.results_document,
            "families": {family.name: family.to_json() for family in self.families},
            "problems": [problem.to_json() for problem in self.problems],
        }


class DecisionSchemaError(ValueError):
    """A decision.json that does not match the schema; the message names file and path."""


def load_decision(path: Path | str, require_results_document: bool = True) -> DecisionDocument:
    """Read and validate a decision.json; raise DecisionSchemaError on any mismatch.

    With ``require_results_document`` (the default, what the flag recipe needs)
    ``results_document`` must be a non-empty string, as in files written by
    ``paged-bench report``.
    """
    path = Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise DecisionSchemaError(f"{path}: cannot read: {error.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise DecisionSchemaError(f"{path}: not JSON: {error}") from None
    return _Reader(str(path)).document(document, require_results_document)


_NUMBER = (int, float)
_NULL = type(None)


class _Reader:
    """Validates one parsed document and builds its typed values, failing at the first mismatch."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, message: str) -> None:
        raise DecisionSchemaError(f"{self.source}: {where}: {message}")

    def expect(self, value: object, types: type | tuple[type, ...], where: str) -> None:
        if isinstance(value, bool) and bool not in _as_tuple(types):
            self.fail(where, f"expected {_type_names(types)}, got a boolean")
        if not isinstance(value, types):
            self.fail(where, f"expected {_type_names(types)}, got {type(value).__name__}")

    def field(self, parent: dict, key: str, types, where: str):
        if key not in parent:
            self.fail(where, f"missing key {key!r}")
        value = parent[key]
        self.expect(value, types, f"{where}.{key}")
        return value

    def items(self, parent: dict, key: str, types, where: str) -> tuple:
        """A list field whose every element has one of ``types``."""
        values = self.field(parent, key, list, where)
        for index, value in enumerate(values):
            self.expect(value, types, f"{where}.{key}[{index}]")
        return tuple(values)

    def document(self, document: object, require_results_document: bool) -> DecisionDocument:
        self.expect(document, dict, "$")
        schema = self.field(document, "schema", str, "$")
        if schema != SCHEMA_ID:
            self.fail("$.schema", f"expected {SCHEMA_ID!r}, got {schema!r}")
        run_dir = self.field(document, "run_dir", str, "$")
        rule = self.field(document, "rule", str, "$")
        rounds_planned = self.field(document, "rounds_planned", int, "$")
        results = self.field(document, "results_document", (str, _NULL), "$")
        if require_results_document and not results:
            self.fail("$.results_document", "is null or empty; run `paged-bench report` first")
        families = self.field(document, "families", dict, "$")
        if not families:
            self.fail("$.families", "has no family")
        typed_families = tuple(
            self.family(name, family, f"$.families.{name}") for name, family in families.items()
        )
        problems = self.field(document, "problems", list, "$")
        typed_problems = tuple(
            self.problem(problem, f"$.problems[{index}]") for index, problem in enumerate(problems)
        )
        return DecisionDocument(run_dir, rounds_planned, rule, results, typed_families, typed_problems)

    def family(self, name: str, family: object, where: str) -> FamilyDecision:
        self.expect(family, dict, where)
        model = self.field(family, "model", str, where)
        flag = self.field(family, "supports_paged_decode_backend", bool, where)
        reason = self.field(family, "reason", str, where)
        statistics_flag = self.field(family, "statistics_flag", bool, where)
        notes = self.items(family, "notes", str, where)
        cells = self.field(family, "cells", list, where)
        typed_cells = tuple(
            self.cell(name, cell, f"{where}.cells[{index}]") for index, cell in enumerate(cells)
        )
        expected = flag_from_verdicts([cell.verdict for cell in typed_cells])
        if flag != expected:
            self.fail(
                f"{where}.supports_paged_decode_backend",
                f"is {str(flag).lower()} but the cells' verdicts give {str(expected).lower()}",
            )
        return FamilyDecision(name, model, flag, reason, statistics_flag, typed_cells, notes)

    def cell(self, family: str, cell: object, where: str) -> CellDecision:
        self.expect(cell, dict, where)
        for key in ("prompt_tokens", "concurrency"):
            if self.field(cell, key, int, where) <= 0:
                self.fail(f"{where}.{key}", "must be positive")
        verdict = self.field(cell, "verdict", str, where)
        if verdict not in VERDICTS:
            self.fail(f"{where}.verdict", f"expected one of {', '.join(VERDICTS)}, got {verdict!r}")
        number_or_null = _NUMBER if verdict != VERDICT_NO_DATA else (*_NUMBER, _NULL)
        median = self.field(cell, "median_paired_delta", number_or_null, where)
        spread = self.field(cell, "null_spread", number_or_null, where)
        if spread is not None and spread < 0:
            self.fail(f"{where}.null_spread", "must not be negative")
        rounds = self.items(cell, "rounds", int, where)
        deltas = {}
        for key in ("paired_deltas", "null_deltas"):
            deltas[key] = self.items(cell, key, _NUMBER, where)
            if len(deltas[key]) != len(rounds):
                self.fail(f"{where}.{key}", f"has {len(deltas[key])} values for {len(rounds)} rounds")
        medians = [self.field(cell, key, (*_NUMBER, _NULL), where)
                   for key in ("median_paged_tok_s", "median_dense_tok_s", "mean_paired_delta")]  # fmt: skip
        ci = self.field(cell, "ci95", (list, _NULL), where)
        if ci is not None:
            if len(ci) != 2:
                self.fail(f"{where}.ci95", "must be [low, high]")
            ci = self.items(cell, "ci95", _NUMBER, where)
        favouring_dense = self.field(cell, "rounds_favouring_dense", int, where)
        to_resolve = self.field(cell, "rounds_to_resolve", (int, _NULL), where)
        statistics_verdict = self.field(cell, "statistics_verdict", str, where)
        if statistics_verdict not in STATISTICS_VERDICTS:
            self.fail(f"{where}.statistics_verdict", f"unknown value {statistics_verdict!r}")
        inconclusive = self.field(cell, "inconclusive", bool, where)
        notes = self.items(cell, "notes", str, where)
        return CellDecision(
            family, cell["prompt_tokens"], cell["concurrency"], rounds, deltas["paired_deltas"],
            deltas["null_deltas"], median, spread, verdict, *medians, ci, favouring_dense, to_resolve,
            statistics_verdict, inconclusive, notes,
        )  # fmt: skip

    def problem(self, problem: object, where: str) -> Problem:
        self.expect(problem, dict, where)
        kind = self.field(problem, "kind", str, where)
        message = self.field(problem, "message", str, where)
        located = {}
        for key, types in (("family", str), ("prompt_tokens", int), ("round", int), ("arm", str),
                           ("concurrency", int)):  # fmt: skip
            if problem.get(key) is not None:
                located[key] = self.field(problem, key, types, where)
        return Problem(kind, message, **located)


def _as_tuple(types) -> tuple:
    return types if isinstance(types, tuple) else (types,)


def _type_names(types) -> str:
    names = {dict: "object", list: "array", str: "string", int: "integer", float: "number",
             bool: "boolean", type(None): "null"}  # fmt: skip
    return " or ".join(dict.fromkeys(names.get(t, t.__name__) for t in _as_tuple(types)))
