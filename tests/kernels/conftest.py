"""The real mlxcel tree's kernel folder, unpacked once per session (skipped where ../shared is absent)."""

import tarfile
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "mlxcel-2026-07.tar.xz"
KERNEL_FOLDER = "mlxcel/src/lib/mlxcel-core/cpp/"


@pytest.fixture(scope="session")
def corpus_tree(tmp_path_factory) -> Path:
    """ROOT of an mlxcel tree holding the corpus's src/lib/mlxcel-core/cpp/ (only that folder)."""
    if not CORPUS.exists():
        pytest.skip(f"the mlxcel corpus is not at {CORPUS} (../shared/corpora beside the project)")
    target = tmp_path_factory.mktemp("corpus")
    with tarfile.open(CORPUS) as archive:
        members = [m for m in archive if m.name.startswith(KERNEL_FOLDER) and m.isfile()]
        archive.extractall(target, members=members, filter="data")
    return target / "mlxcel"
