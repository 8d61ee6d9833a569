"""Serving benchmark of paged vs dense decode storage, and the flag decision (#2230 (b)).

Who owns what:

- `_schedule`: which runs, in which order (arms, rounds, positions);
- `_run_folder`: the run folder's layout, the documented fields of a run
  record, a run's key and its status;
- `_runner`: starting servers and the bench, appending run records;
- `_host`: what host.json records about the machine and the target tree;
- `_bench_output`: parsing what the bench script prints;
- `_collect`: a run folder into per-cell measurements and problems;
- `_decision`: the maintainer's rule and the statistics beside it;
- `_report`: the results document, its plot and data folder;
- `_store`: writing and reading files (whole files through the shared
  atomic write of `interchange.atomic_file`);
- `cli`: ``paged-bench``.

decision.json itself is defined in `interchange.decision` (re-exported here),
so the ``paged-flag`` codemod recipe reads it without importing this package.
"""

from analysis._bench_output import (
    BenchParseFailure,
    BenchTable,
    LevelReport,
    SummaryRow,
    parse_bench_file,
    parse_bench_output,
)
from analysis._collect import RunFolderDecision, decide_run_folder, decision_to_json
from analysis._decision import RoundTriple, decide_cell
from analysis._run_folder import RunKey
from analysis._schedule import ARMS, Family, PlannedRun, arm_order, build_schedule
from interchange.decision import (
    SCHEMA_ID,
    CellDecision,
    DecisionDocument,
    DecisionSchemaError,
    FamilyDecision,
    Problem,
    load_decision,
)

__all__ = [
    "ARMS",
    "SCHEMA_ID",
    "BenchParseFailure",
    "BenchTable",
    "CellDecision",
    "DecisionDocument",
    "DecisionSchemaError",
    "Family",
    "FamilyDecision",
    "LevelReport",
    "PlannedRun",
    "Problem",
    "RoundTriple",
    "RunFolderDecision",
    "RunKey",
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
