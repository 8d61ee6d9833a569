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
from typing import NoReturn, TypeVar

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

    def to_json(self) -> dict[str, object]:
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

    def to_json(self) -> dict[str, object]:
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

    def to_json(self) -> dict[str, object]:
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

    def to_json(self) -> dict[str, object]:
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

# A JSON object as `json.loads` gives it.
JsonObject = dict[str, object]
_Value = TypeVar("_Value")


class _Reader:
    """Validates one parsed document and builds its typed values, failing at the first mismatch.

    Each getter takes a JSON object, a key and where the object is (a JSON path) and returns
    the key's value as the type it asks for, or raises `DecisionSchemaError`."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, message: str) -> NoReturn:
        raise DecisionSchemaError(f"{self.source}: {where}: {message}")

    def mismatch(self, value: object, types: tuple[type, ...], where: str) -> NoReturn:
        if isinstance(value, bool) and bool not in types:
            self.fail(where, f"expected {_type_names(types)}, got a boolean")
        self.fail(where, f"expected {_type_names(types)}, got {type(value).__name__}")

    def expect(self, value: object, kind: type[_Value], where: str) -> _Value:
        """`value` if it is a `kind` (a boolean is no integer), else the mismatch at `where`."""
        if isinstance(value, kind) and _accepts(value, (kind,)):
            return value
        self.mismatch(value, (kind,), where)

    def expect_number(self, value: object, where: str) -> float:
        if isinstance(value, _NUMBER) and _accepts(value, _NUMBER):
            return value
        self.mismatch(value, _NUMBER, where)

    def expect_object(self, value: object, where: str) -> JsonObject:
        return self.expect(value, dict, where)

    def value(self, parent: JsonObject, key: str, where: str) -> object:
        if key not in parent:
            self.fail(where, f"missing key {key!r}")
        return parent[key]

    def field(self, parent: JsonObject, key: str, kind: type[_Value], where: str) -> _Value:
        return self.expect(self.value(parent, key, where), kind, f"{where}.{key}")

    def optional(self, parent: JsonObject, key: str, kind: type[_Value], where: str) -> _Value | None:
        """A field that is a `kind` or null."""
        value = self.value(parent, key, where)
        if value is None:
            return None
        if isinstance(value, kind) and _accepts(value, (kind,)):
            return value
        self.mismatch(value, (kind, _NULL), f"{where}.{key}")

    def located(self, parent: JsonObject, key: str, kind: type[_Value], where: str) -> _Value | None:
        """A field that may be missing or null (None then), else a `kind`."""
        return None if parent.get(key) is None else self.field(parent, key, kind, where)

    def number(self, parent: JsonObject, key: str, where: str) -> float:
        return self.expect_number(self.value(parent, key, where), f"{where}.{key}")

    def optional_number(self, parent: JsonObject, key: str, where: str) -> float | None:
        value = self.value(parent, key, where)
        if value is None:
            return None
        if isinstance(value, _NUMBER) and _accepts(value, _NUMBER):
            return value
        self.mismatch(value, (*_NUMBER, _NULL), f"{where}.{key}")

    def array(self, parent: JsonObject, key: str, where: str) -> list[object]:
        return self.field(parent, key, list, where)

    def mapping(self, parent: JsonObject, key: str, where: str) -> JsonObject:
        return self.field(parent, key, dict, where)

    def items(self, parent: JsonObject, key: str, kind: type[_Value], where: str) -> tuple[_Value, ...]:
        """A list field whose every element is a `kind`."""
        values = self.array(parent, key, where)
        return tuple(self.expect(value, kind, f"{where}.{key}[{index}]") for index, value in enumerate(values))

    def numbers(self, parent: JsonObject, key: str, where: str) -> tuple[float, ...]:
        """A list field whose every element is a number."""
        values = self.array(parent, key, where)
        return tuple(self.expect_number(value, f"{where}.{key}[{index}]") for index, value in enumerate(values))

    def document(self, document: object, require_results_document: bool) -> DecisionDocument:
        fields = self.expect_object(document, "$")
        schema = self.field(fields, "schema", str, "$")
        if schema != SCHEMA_ID:
            self.fail("$.schema", f"expected {SCHEMA_ID!r}, got {schema!r}")
        run_dir = self.field(fields, "run_dir", str, "$")
        rule = self.field(fields, "rule", str, "$")
        rounds_planned = self.field(fields, "rounds_planned", int, "$")
        results = self.optional(fields, "results_document", str, "$")
        if require_results_document and not results:
            self.fail("$.results_document", "is null or empty; run `paged-bench report` first")
        families = self.mapping(fields, "families", "$")
        if not families:
            self.fail("$.families", "has no family")
        typed_families = tuple(self.family(name, family, f"$.families.{name}") for name, family in families.items())
        problems = self.array(fields, "problems", "$")
        typed_problems = tuple(self.problem(problem, f"$.problems[{index}]") for index, problem in enumerate(problems))
        return DecisionDocument(run_dir, rounds_planned, rule, results, typed_families, typed_problems)

    def family(self, name: str, family: object, where: str) -> FamilyDecision:
        fields = self.expect_object(family, where)
        model = self.field(fields, "model", str, where)
        flag = self.field(fields, "supports_paged_decode_backend", bool, where)
        reason = self.field(fields, "reason", str, where)
        statistics_flag = self.field(fields, "statistics_flag", bool, where)
        notes = self.items(fields, "notes", str, where)
        cells = self.array(fields, "cells", where)
        typed_cells = tuple(self.cell(name, cell, f"{where}.cells[{index}]") for index, cell in enumerate(cells))
        expected = flag_from_verdicts([cell.verdict for cell in typed_cells])
        if flag != expected:
            self.fail(
                f"{where}.supports_paged_decode_backend",
                f"is {str(flag).lower()} but the cells' verdicts give {str(expected).lower()}",
            )
        return FamilyDecision(name, model, flag, reason, statistics_flag, typed_cells, notes)

    def cell(self, family: str, cell: object, where: str) -> CellDecision:
        fields = self.expect_object(cell, where)
        counts: dict[str, int] = {}
        for key in ("prompt_tokens", "concurrency"):
            counts[key] = self.field(fields, key, int, where)
            if counts[key] <= 0:
                self.fail(f"{where}.{key}", "must be positive")
        verdict = self.field(fields, "verdict", str, where)
        if verdict not in VERDICTS:
            self.fail(f"{where}.verdict", f"expected one of {', '.join(VERDICTS)}, got {verdict!r}")
        # Without data a cell's median and spread may be null.
        number_or_null = self.optional_number if verdict == VERDICT_NO_DATA else self.number
        median = number_or_null(fields, "median_paired_delta", where)
        spread = number_or_null(fields, "null_spread", where)
        if spread is not None and spread < 0:
            self.fail(f"{where}.null_spread", "must not be negative")
        rounds = self.items(fields, "rounds", int, where)
        deltas: dict[str, tuple[float, ...]] = {}
        for key in ("paired_deltas", "null_deltas"):
            deltas[key] = self.numbers(fields, key, where)
            if len(deltas[key]) != len(rounds):
                self.fail(f"{where}.{key}", f"has {len(deltas[key])} values for {len(rounds)} rounds")
        paged, dense, mean = (
            self.optional_number(fields, key, where)
            for key in ("median_paged_tok_s", "median_dense_tok_s", "mean_paired_delta")
        )
        ci95: tuple[float, float] | None = None
        written_ci = self.optional(fields, "ci95", list, where)
        if written_ci is not None:
            if len(written_ci) != 2:
                self.fail(f"{where}.ci95", "must be [low, high]")
            low, high = self.numbers(fields, "ci95", where)
            ci95 = (low, high)
        favouring_dense = self.field(fields, "rounds_favouring_dense", int, where)
        to_resolve = self.optional(fields, "rounds_to_resolve", int, where)
        statistics_verdict = self.field(fields, "statistics_verdict", str, where)
        if statistics_verdict not in STATISTICS_VERDICTS:
            self.fail(f"{where}.statistics_verdict", f"unknown value {statistics_verdict!r}")
        inconclusive = self.field(fields, "inconclusive", bool, where)
        notes = self.items(fields, "notes", str, where)
        return CellDecision(
            family=family,
            prompt_tokens=counts["prompt_tokens"],
            concurrency=counts["concurrency"],
            rounds=rounds,
            paired_deltas=deltas["paired_deltas"],
            null_deltas=deltas["null_deltas"],
            median_paired_delta=median,
            null_spread=spread,
            verdict=verdict,
            median_paged_tok_s=paged,
            median_dense_tok_s=dense,
            mean_paired_delta=mean,
            ci95=ci95,
            rounds_favouring_dense=favouring_dense,
            rounds_to_resolve=to_resolve,
            statistics_verdict=statistics_verdict,
            inconclusive=inconclusive,
            notes=notes,
        )

    def problem(self, problem: object, where: str) -> Problem:
        fields = self.expect_object(problem, where)
        return Problem(
            kind=self.field(fields, "kind", str, where),
            message=self.field(fields, "message", str, where),
            family=self.located(fields, "family", str, where),
            prompt_tokens=self.located(fields, "prompt_tokens", int, where),
            round=self.located(fields, "round", int, where),
            arm=self.located(fields, "arm", str, where),
            concurrency=self.located(fields, "concurrency", int, where),
        )


def _accepts(value: object, types: tuple[type, ...]) -> bool:
    """Whether `value` is one of `types`, a boolean counting as an integer only where `bool` is listed."""
    return isinstance(value, types) and not (isinstance(value, bool) and bool not in types)


def _type_names(types: tuple[type, ...]) -> str:
    names = {dict: "object", list: "array", str: "string", int: "integer", float: "number",
             bool: "boolean", type(None): "null"}  # fmt: skip
    return " or ".join(dict.fromkeys(names.get(t, t.__name__) for t in types))
