"""bench/_mined.py's outcome of a commit: a plan that blocks on a line the commit keeps is a wrong
refusal, unless the commit itself keeps what the plan names (overridden, the plan writes the child)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))

import _mined


def _blocked(child_keeps_it: bool) -> _mined.CommitResult:
    result = _mined.CommitResult(
        "owner/loom",
        "0" * 40,
        "cpp",
        infer_s=0.1,
        deletes=1,
        exit_codes=[1, 1],
        differing=["src/heddle.h:3: a token differs"],
        child_keeps_it=child_keeps_it,
    )
    result.findings = [
        {
            "code": "dangling-reference",
            "path": "src/reed.h",
            "line": 4,
            "kept": True,
            "message": "heddle.h: code still refers to an item the recipe deletes",
        }
    ]
    return result


def test_a_refusal_on_a_kept_line_is_wrong_unless_the_commit_keeps_the_reference_too() -> None:
    wrong = _blocked(child_keeps_it=False)
    _mined.classify(wrong)
    assert wrong.outcome == "wrong refusal"
    right = _blocked(child_keeps_it=True)
    _mined.classify(right)
    assert right.outcome == "right refusal" and right.reason.startswith("the commit itself keeps it")
