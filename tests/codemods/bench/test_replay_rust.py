"""The replay benchmark's Rust cases (bench/replay.py): real removal commits of other
projects, replayed with the recipe a user would write and compared token by token with
what their maintainers committed. The corpus is test input kept beside the project
(../shared/corpora/replay), absent from a user's clone."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT.parent / "shared" / "corpora" / "replay"


def _load_replay():
    spec = importlib.util.spec_from_file_location("bench_replay", ROOT / "bench" / "replay.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


replay = _load_replay()
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "commit.diff").is_file()) if CORPUS.is_dir() else []
RUST_CASES = [name for name in CASES if replay.case_language(CORPUS / name) == "rust"]

# Cases whose recipe does not yet reproduce the commit: they must still never crash; a case
# that passes must be taken off this set (none is on it now).
NOT_YET: set[str] = set()


def test_tokens_ignore_whitespace_but_not_comments_or_commas() -> None:
    assert replay.tokens("fn a(x: u8,) {}\n") == replay.tokens("fn a(\n    x: u8,\n) {}")
    assert replay.tokens("fn a(x: u8,) {}") != replay.tokens("fn a(x: u8) {}")
    assert replay.tokens("// one  two\nx") == replay.tokens("//  one two\n  x")
    assert replay.tokens("// one\nx") != replay.tokens("x")
    assert replay.tokens('r#"a "quoted" b"# \'a\' \'life') == ['r#"a "quoted" b"#', "'a'", "'life"]


@pytest.mark.skipif(
    not CORPUS.is_dir(),
    reason=f"the replay corpus is not here ({CORPUS} is absent); a clone without ../shared has no corpus",
)
@pytest.mark.parametrize("case", RUST_CASES or ["none"])
def test_rust_case_replays_token_equal(case: str, tmp_path: Path) -> None:
    if replay.recipe_for(case) is None:
        pytest.skip(f"no recipe for {case} in bench/replay/")
    result = replay.replay(CORPUS / case, tmp_path)
    assert not result.traceback, replay.describe(result)
    if case in NOT_YET:
        assert not result.passed, f"{case} now passes: take it off NOT_YET"
        pytest.xfail(replay.describe(result))
    assert result.passed, replay.describe(result)
