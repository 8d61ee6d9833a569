"""The pattern example under examples/ runs on the fixture as a user would run it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fixture_crate import FIXTURE, copy_fixture

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "name_the_pooled_route_failures.py"
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
    assert (
        "crate::layers::paged_decode_attention_pooled(&q,&pool,&sequences,&[0,0],scale)"
        '.expect("thepooledroutefailed")' in written
    )


def test_example_says_so_when_nothing_matches(tmp_path: Path) -> None:
    """Issue 23, point 12: a tree whose tests call another route gets notes, not silence."""
    tree = copy_fixture(tmp_path / "tree")
    tests = tree / FFI_TESTS
    tests.write_text(tests.read_text().replace("paged_decode_attention_pooled(", "paged_decode_attention_pooled_x("))
    result = subprocess.run([sys.executable, str(EXAMPLE), str(tree)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{FFI_TESTS}: no call of paged_decode_attention_pooled (note)",
        f"{FFI_TESTS}: rewrite rule did not match: "
        "'crate::layers::paged_decode_attention_pooled($$$ARGS).unwrap()' (note)",
        "nothing to change",
    ]


def test_the_library_applies_edits_and_replace_all_needs_no_tree() -> None:
    import pytest

    from codemods import Edit, Pattern, Rewrite, apply_edits, replace_all

    source = b"fn f() { a(1); a(2); }\n"
    call = Pattern("a($X)", "rust")
    edits = Rewrite(call, "b($X)").edits("src/f.rs", source)
    assert apply_edits(source, edits) == b"fn f() { b(1); b(2); }\n"
    assert replace_all(source, None, call, "b($X)") == b"fn f() { b(1); b(2); }\n"
    with pytest.raises(ValueError, match="edits overlap: one and two change the same text"):
        apply_edits(source, [Edit("src/f.rs", 9, 13, b"x", "one"), Edit("src/f.rs", 11, 15, b"y", "two")])
