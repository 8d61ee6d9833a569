"""The replay benchmark's C++ cases (bench/replay.py): leveldb's inline function in an
include-guarded header and fmt's four overloads in a namespace FMT_BEGIN_NAMESPACE opens,
replayed with the recipes of bench/replay/ and compared token by token with the
maintainers' commits. The corpus is test input kept beside the project (../shared/corpora/replay)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT.parent / "shared" / "corpora" / "replay"
CASES = ["14-leveldb-extractvaluetype", "16-fmt-copy-overloads"]


def _load_replay():
    spec = importlib.util.spec_from_file_location("bench_replay_cpp", ROOT / "bench" / "replay.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(
    not CORPUS.is_dir(),
    reason=f"the replay corpus is not here ({CORPUS} is absent); a clone without ../shared has no corpus",
)
@pytest.mark.parametrize("case", CASES)
def test_cpp_case_replays_token_equal_with_the_same_files(case: str, tmp_path: Path) -> None:
    replay = _load_replay()
    result = replay.replay(CORPUS / case, tmp_path)
    assert not result.traceback, replay.describe(result)
    assert result.passed, replay.describe(result)
