"""Serving benchmark of paged vs dense decode storage, and the flag decision (#2230 (b)).

``paged-bench run`` drives servers and the bench script (`_runner`), the bench
output is parsed by `_bench_output`, `_collect` and `_decision` apply the
maintainer's rule, `_report` writes the results document, and `decision_file`
defines decision.json, which the ``paged-flag`` codemod recipe reads with
`load_decision`.
"""

from analysis._bench_output import (
    BenchParseFailure,
    BenchTable,
    LevelReport,
    SummaryRow,
    parse_bench_file,
    parse_bench_output,
)
from analysis._collect import Problem, RunFolderDecision, decide_run_folder
from analysis._decision import CellDecision, FamilyDecision, RoundTriple, decide_cell
from analysis._schedule import ARMS, Family, PlannedRun, arm_order, build_schedule
from analysis.decision_file import (
    SCHEMA_ID,
    DecisionSchemaError,
    decision_to_json,
    load_decision,
)

__all__ = [
    "ARMS",
    "SCHEMA_ID",
    "BenchParseFailure",
    "BenchTable",
    "CellDecision",
    "DecisionSchemaError",
    "Family",
    "FamilyDecision",
    "LevelReport",
    "PlannedRun",
    "Problem",
    "RoundTriple",
    "RunFolderDecision",
    "SummaryRow",
    "arm_order",
    "build_schedule",
    "decide_cell",
    "decide_run_folder",
    "decision_to_json",
    "load_decision",
    "parse_bench_file",
    "parse_bench_output",
]
