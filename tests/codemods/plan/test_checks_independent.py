"""No rule's failure hides another check's findings (issue 37, point 4).

A `[[reword]]` rule that matches nothing, on a file the plan also edits, used to take that
file out of the reference and mention checks: its dangling `pub use` of the deleted function
and its unreworded mention were dropped, and `--allow-unmatched` wrote a crate that
re-exports a function it no longer has. The tree is a plain crate (no dependencies) of our
own; the written one is built with cargo, offline, to show the finding is real.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from codemod_helpers import dedent_text, run_codemod

CRATE = {
    "Cargo.toml": """
        [package]
        name = "lantern"
        version = "0.1.0"
        edition = "2021"

        [dependencies]
        """,
    "src/lib.rs": """
        //! Lantern: lights and wicks.
        //!
        //! Call `trim_wick` before lighting.

        mod wick;

        pub use wick::trim_wick;
        pub use wick::wick_length;

        /// Brightness of a fresh lantern.
        pub fn brightness() -> u32 {
            wick_length() * 3
        }

        /// Dims the lantern; nobody calls it.
        pub fn dim() {}
        """,
    "src/wick.rs": """
        /// Shortens the wick.
        pub fn trim_wick() -> u32 {
            1
        }

        /// How long the wick is.
        pub fn wick_length() -> u32 {
            4
        }
        """,
    # Uses the re-export through a macro (so the `pub use` stays, for its use to be reported);
    # outside `check_scope`, which covers `src` only.
    "examples/porch.rs": """
        macro_rules! from_lantern {
            ($name:ident) => {
                lantern::$name()
            };
        }

        fn main() {
            println!("{}", from_lantern!(trim_wick) + from_lantern!(wick_length));
        }
        """,
}

RECIPE = """
    id = "wick-trim-removal"
    summary = "Remove trim_wick"
    dead_symbol_pattern = "trim_wick"
    check_scope = ["src"]

    [[delete]]
    path = "src/wick.rs"
    language = "rust"
    kind = "fn"
    name = "trim_wick"

    [[delete]]
    path = "src/lib.rs"
    language = "rust"
    kind = "fn"
    name = "dim"

    [[reword]]
    path = "src/lib.rs"
    find = "Snuff the flame first."
    replace = "Nothing to snuff."
    """

# The findings the failing rewording used to hide: the re-export and the crate doc's mention.
REEXPORT = "src/lib.rs:7:15: trim_wick: code still refers to an item the recipe deletes"
MENTION = "src/lib.rs:3:11: unreworded mention of trim_wick [comment]"
UNMATCHED = "src/lib.rs: rewording rule did not match: 'Snuff the flame first.'"


def _crate(tmp_path: Path) -> tuple[Path, str]:
    root = tmp_path / "lantern"
    for path, text in CRATE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(dedent_text(text))
    recipe = tmp_path / "wick_trim_removal.toml"
    recipe.write_text(dedent_text(RECIPE))
    return root, str(recipe)


def test_an_unmatched_rewording_leaves_the_files_other_findings(tmp_path: Path) -> None:
    root, recipe = _crate(tmp_path)
    result = run_codemod("apply", "--dry-run", "--recipe", recipe, str(root))
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert UNMATCHED in lines and REEXPORT in lines and MENTION in lines


def test_an_unmatched_rewrite_leaves_them_too(tmp_path: Path) -> None:
    root, recipe = _crate(tmp_path)
    Path(recipe).write_text(
        Path(recipe).read_text().split("[[reword]]")[0]
        + dedent_text("""
        [[rewrite]]
        path = "src/lib.rs"
        pattern = "snuff_flame($X)"
        replace = "dim($X)"
        """)
    )
    lines = run_codemod("apply", "--dry-run", "--allow-unmatched", "--recipe", recipe, str(root)).stderr.splitlines()
    assert REEXPORT in lines and MENTION in lines
    assert any(line.startswith("src/lib.rs: rewrite rule did not match") for line in lines)


def test_allowing_the_unmatched_rule_still_refuses_the_dangling_reexport(tmp_path: Path) -> None:
    root, recipe = _crate(tmp_path)
    before = (root / "src/lib.rs").read_bytes()
    result = run_codemod("apply", "--allow-unmatched", "--recipe", recipe, str(root))
    assert result.exit_code == 1
    assert REEXPORT in result.stderr.splitlines() and MENTION in result.stderr.splitlines()
    assert "--allow-dangling" in result.stderr
    assert (root / "src/lib.rs").read_bytes() == before


@pytest.mark.cargo
@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_the_tree_written_past_the_finding_does_not_build(tmp_path: Path) -> None:
    """The finding is real: written with every override, the crate fails to build at the
    re-export the plan reported (E0432, an unresolved import)."""
    root, recipe = _crate(tmp_path)
    environment = dict(os.environ, CARGO_TARGET_DIR=str(tmp_path / "target"), CARGO_NET_OFFLINE="true")
    built = subprocess.run(
        ["cargo", "build", "--offline", "--quiet"], cwd=root, capture_output=True, text=True, env=environment
    )
    assert built.returncode == 0, built.stderr
    result = run_codemod(
        "apply", "--allow-dangling", "--allow-unmatched", "--allow-unreworded", "--recipe", recipe, str(root)
    )
    assert result.exit_code == 0, result.output
    assert REEXPORT + " (allowed by --allow-dangling)" in result.stderr.splitlines()
    assert "pub use wick::trim_wick;" in (root / "src/lib.rs").read_text()
    built = subprocess.run(
        ["cargo", "build", "--offline", "--quiet"], cwd=root, capture_output=True, text=True, env=environment
    )
    assert built.returncode != 0
    assert "error[E0432]" in built.stderr and "src/lib.rs:7:" in built.stderr, built.stderr
