"""The pattern example under examples/ runs on the fixture as a user would run it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fixture_crate import FIXTURE, copy_fixture

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "name_the_pooled_route_failures.py"
FFI_TESTS = "src/lib/mlxcel-core/src/ffi_tests.rs"


def test_example_lists_the_calls_and_prints_the_diff(tmp_path: Path) -> None:
    before = (FIXTURE / FFI_TESTS).read_bytes()
    result = subprocess.run([sys.executable, str(EXAMPLE), str(FIXTURE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert f"{FFI_TESTS}:290: sequences &sequences, logical starts &[0, 0]" in result.stderr
    assert result.stdout.count('.expect("the pooled route failed")') == 4
    assert (FIXTURE / FFI_TESTS).read_bytes() == before


def test_example_writes_with_write_flag(tmp_path: Path) -> None:
    tree = copy_fixture(tmp_path / "tree")
    result = subprocess.run([sys.executable, str(EXAMPLE), "--write", str(tree)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    written = "".join((tree / FFI_TESTS).read_text().split())  # rustfmt lays the call out
    assert "crate::layers::paged_decode_attention_pooled(&q,&pool,&sequences,&[0,0],scale)" \
           '.expect("thepooledroutefailed")' in written
