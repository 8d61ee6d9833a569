"""The mlxcel-mini fixture passes the gate the codemod must keep green."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fixture_crate import cargo, copy_fixture, write_offline_cargo_config

pytestmark = [pytest.mark.cargo, pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")]

GATE = {
    "build": ("build", "--workspace", "--all-targets"),
    "test": ("test", "--workspace"),
    "clippy": ("clippy", "--workspace", "--all-targets", "--", "-D", "warnings"),
    "fmt": ("fmt", "--all", "--", "--check"),
}


@pytest.fixture(scope="module")
def crate_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_fixture(tmp_path_factory.mktemp("mlxcel-mini"))
    write_offline_cargo_config(root)
    return root


def test_copy_leaves_out_build_state(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path / "copy")
    assert (root / "Cargo.toml").is_file()
    assert not (root / "target").exists()
    assert not (root / "Cargo.lock").exists()
    assert not (root / ".cargo").exists()


@pytest.mark.parametrize("args", GATE.values(), ids=GATE.keys())
def test_fixture_passes_the_gate(crate_copy: Path, args: tuple[str, ...]) -> None:
    cargo(crate_copy, *args)


def test_serve_logs_the_resolved_backend(crate_copy: Path) -> None:
    result = cargo(
        crate_copy,
        "run",
        "-q",
        "--bin",
        "mlxcel",
        "--",
        "serve",
        "--parallel",
        "8",
        "-m",
        "models/mlx/gemma-3-1b-it-4bit",
    )
    assert (
        "INFO mlxcel::server: decode storage backend: paged (requested auto, parallel 8, model gemma-3-1b-it-4bit)"
    ) in result.stderr
