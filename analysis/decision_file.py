"""decision.json: what ``paged-bench decide --json`` prints and ``report`` writes.

Consumers (the ``paged-flag`` codemod recipe) read it with `load_decision`,
which validates it and raises `DecisionSchemaError` naming the file and the
JSON path of the first mismatch. The schema, version ``paged-bench-decision/1``
(see also ``analysis/decision_schema.md``)::

    {
      "schema": "paged-bench-decision/1",            required, exactly this string
      "run_dir": "bench/out/gb10-2026-11-30",         required, string
      "rounds_planned": 5,                            required, integer >= 0
      "rule": "...",                                  required, string (the rule in words)
      "results_document": "docs/benchmark_results/x.md" | null,
                                                      required key; a string, the document's path
                                                      relative to the target repository root,
                                                      in files written by `paged-bench report`;
                                                      null in `decide --json` output
      "families": {                                   required, object, at least one entry
        "gemma3": {                                   canonical family key: gemma3, llama4, ...
          "model": "models/mlx/gemma-3-1b-it-4bit",   string
          "supports_paged_decode_backend": false,     boolean: the rule's verdict for the flag
          "reason": "dense clears ...",               string
          "statistics_flag": true,                    boolean: the flag the 95% intervals alone give
          "notes": ["..."],                           list of strings (disagreements, inconclusive cells)
          "cells": [                                  list, one per (prompt length, concurrency)
            {
              "prompt_tokens": 512,                   integer > 0
              "concurrency": 8,                       integer > 0
              "rounds": [1, 2, 3, 4, 5],              complete rounds used
              "paired_deltas": [0.012, ...],          d = D/P - 1 per round, same order
              "null_deltas": [0.003, ...],            z = N/P - 1 per round, same order
              "median_paired_delta": 0.012 | null,    number, null only when verdict is no-data
              "null_spread": 0.008 | null,            number >= 0, null only when verdict is no-data
              "verdict": "dense-faster",              dense-faster | paged-faster | within-noise | no-data
              "median_paged_tok_s": 350.2 | null,     median aggregate tok/s of the paged arm
              "median_dense_tok_s": 354.9 | null,     median aggregate tok/s of the dense arm
              "mean_paired_delta": 0.011 | null,
              "ci95": [0.004, 0.018] | null,          t interval of the mean paired delta
              "rounds_favouring_dense": 4,            integer
              "rounds_to_resolve": 7 | null,          integer, null when the median is 0 or no data
              "statistics_verdict": "dense-faster",   dense-faster | paged-faster | unresolved
              "inconclusive": false,                  boolean
              "notes": ["..."]                        list of strings
            }
          ]
        }
      },
      "problems": [                                   list; each has kind and message, and where
        {"kind": "failed-requests", "message": "...", "family": "gemma3",
         "prompt_tokens": 512, "round": 2, "arm": "dense", "concurrency": 8}
      ]
    }

`load_decision` also re-applies the family rule to the cells' verdicts and
refuses a file whose ``supports_paged_decode_backend`` does not follow from
them, so a hand-edited flag cannot slip through.
"""

from __future__ import annotations

import json
from pathlib import Path

from analysis._collect import RunFolderDecision
from analysis._decision import VERDICTS, CellDecision, FamilyDecision, flag_from_verdicts

SCHEMA_ID = "paged-bench-decision/1"
RULE_TEXT = (
    "per cell: d = D/P - 1, z = N/P - 1 per round; dense clears the null spread upward "
    "when median(d) > max|z|, paged is faster beyond it when median(d) < -max|z|; "
    "supports_paged_decode_backend becomes false iff dense clears upward in at least one "
    "cell and paged is faster beyond the null spread in none"
)
_STATISTICS_VERDICTS = ("dense-faster", "paged-faster", "unresolved")


class DecisionSchemaError(ValueError):
    """A decision.json that does not match the schema; the message names file and path."""


def decision_to_json(decision: RunFolderDecision, results_document: str | None = None) -> dict:
    """The decision.json document for a run folder's decision."""
    return {
        "schema": SCHEMA_ID,
        "run_dir": decision.run_dir,
        "rounds_planned": decision.rounds_planned,
        "rule": RULE_TEXT,
        "results_document": results_document,
        "families": {family.name: _family_json(family) for family in decision.families},
        "problems": [problem.to_json() for problem in decision.problems],
    }


def _family_json(family: FamilyDecision) -> dict:
    return {
        "model": family.model,
        "supports_paged_decode_backend": family.supports_paged_decode_backend,
        "reason": family.reason,
        "statistics_flag": family.statistics_flag,
        "notes": list(family.notes),
        "cells": [_cell_json(cell) for cell in family.cells],
    }


def _cell_json(cell: CellDecision) -> dict:
    return {
        "prompt_tokens": cell.prompt_tokens,
        "concurrency": cell.concurrency,
        "rounds": list(cell.rounds),
        "paired_deltas": list(cell.paired_deltas),
        "null_deltas": list(cell.null_deltas),
        "median_paired_delta": cell.median_paired_delta,
        "null_spread": cell.null_spread,
        "verdict": cell.verdict,
        "median_paged_tok_s": cell.median_paged_tok_s,
        "median_dense_tok_s": cell.median_dense_tok_s,
        "mean_paired_delta": cell.mean_paired_delta,
        "ci95": list(cell.ci95) if cell.ci95 else None,
        "rounds_favouring_dense": cell.rounds_favouring_dense,
        "rounds_to_resolve": cell.rounds_to_resolve,
        "statistics_verdict": cell.statistics_verdict,
        "inconclusive": cell.inconclusive,
        "notes": list(cell.notes),
    }


def load_decision(path: Path | str, require_results_document: bool = True) -> dict:
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
    _Validator(str(path)).document(document, require_results_document)
    return document


class _Validator:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, message: str) -> None:
        raise DecisionSchemaError(f"{self.source}: {where}: {message}")

    def expect(self, value: object, types: type | tuple[type, ...], where: str) -> None:
        if isinstance(value, bool) and bool not in _as_tuple(types):
            self.fail(where, f"expected {_type_names(types)}, got a boolean")
        if not isinstance(value, types):
            self.fail(where, f"expected {_type_names(types)}, got {type(value).__name__}")

    def field(self, parent: dict, key: str, types, where: str) -> object:
        if key not in parent:
            self.fail(where, f"missing key {key!r}")
        value = parent[key]
        self.expect(value, types, f"{where}.{key}")
        return value

    def document(self, document: object, require_results_document: bool) -> None:
        self.expect(document, dict, "$")
        schema = self.field(document, "schema", str, "$")
        if schema != SCHEMA_ID:
            self.fail("$.schema", f"expected {SCHEMA_ID!r}, got {schema!r}")
        self.field(document, "run_dir", str, "$")
        self.field(document, "rule", str, "$")
        self.field(document, "rounds_planned", int, "$")
        results = self.field(document, "results_document", (str, type(None)), "$")
        if require_results_document and not results:
            self.fail("$.results_document", "is null or empty; run `paged-bench report` first")
        families = self.field(document, "families", dict, "$")
        if not families:
            self.fail("$.families", "has no family")
        for name, family in families.items():
            self.family(family, f"$.families.{name}")
        for index, problem in enumerate(self.field(document, "problems", list, "$")):
            self.expect(problem, dict, f"$.problems[{index}]")
            self.field(problem, "kind", str, f"$.problems[{index}]")
            self.field(problem, "message", str, f"$.problems[{index}]")

    def family(self, family: object, where: str) -> None:
        self.expect(family, dict, where)
        self.field(family, "model", str, where)
        flag = self.field(family, "supports_paged_decode_backend", bool, where)
        self.field(family, "reason", str, where)
        self.field(family, "statistics_flag", bool, where)
        self.string_list(self.field(family, "notes", list, where), f"{where}.notes")
        cells = self.field(family, "cells", list, where)
        for index, cell in enumerate(cells):
            self.cell(cell, f"{where}.cells[{index}]")
        expected = flag_from_verdicts([cell["verdict"] for cell in cells])
        if flag != expected:
            self.fail(
                f"{where}.supports_paged_decode_backend",
                f"is {str(flag).lower()} but the cells' verdicts give {str(expected).lower()}",
            )

    def cell(self, cell: object, where: str) -> None:
        self.expect(cell, dict, where)
        for key in ("prompt_tokens", "concurrency"):
            if self.field(cell, key, int, where) <= 0:
                self.fail(f"{where}.{key}", "must be positive")
        verdict = self.field(cell, "verdict", str, where)
        if verdict not in VERDICTS:
            self.fail(f"{where}.verdict", f"expected one of {', '.join(VERDICTS)}, got {verdict!r}")
        number_or_null = (int, float) if verdict != "no-data" else (int, float, type(None))
        self.field(cell, "median_paired_delta", number_or_null, where)
        spread = self.field(cell, "null_spread", number_or_null, where)
        if spread is not None and spread < 0:
            self.fail(f"{where}.null_spread", "must not be negative")
        rounds = self.field(cell, "rounds", list, where)
        for key in ("paired_deltas", "null_deltas"):
            values = self.field(cell, key, list, where)
            if len(values) != len(rounds):
                self.fail(f"{where}.{key}", f"has {len(values)} values for {len(rounds)} rounds")
        for key in ("median_paged_tok_s", "median_dense_tok_s", "mean_paired_delta"):
            self.field(cell, key, (int, float, type(None)), where)
        ci = self.field(cell, "ci95", (list, type(None)), where)
        if ci is not None and len(ci) != 2:
            self.fail(f"{where}.ci95", "must be [low, high]")
        self.field(cell, "rounds_favouring_dense", int, where)
        self.field(cell, "rounds_to_resolve", (int, type(None)), where)
        stats = self.field(cell, "statistics_verdict", str, where)
        if stats not in _STATISTICS_VERDICTS:
            self.fail(f"{where}.statistics_verdict", f"unknown value {stats!r}")
        self.field(cell, "inconclusive", bool, where)
        self.string_list(self.field(cell, "notes", list, where), f"{where}.notes")

    def string_list(self, values: list, where: str) -> None:
        for index, value in enumerate(values):
            self.expect(value, str, f"{where}[{index}]")


def _as_tuple(types) -> tuple:
    return types if isinstance(types, tuple) else (types,)


def _type_names(types) -> str:
    names = {dict: "object", list: "array", str: "string", int: "integer", float: "number",
             bool: "boolean", type(None): "null"}  # fmt: skip
    return " or ".join(dict.fromkeys(names.get(t, t.__name__) for t in _as_tuple(types)))
