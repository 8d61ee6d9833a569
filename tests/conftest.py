import sys
import tarfile
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
for path in (ROOT, TESTS):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

CORPUS = ROOT.parent / "shared" / "corpora" / "mlxcel-2026-07.tar.xz"


@pytest.fixture(scope="session")
def mlxcel_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real mlxcel tree, unpacked once per session into a temporary folder (read it, do not
    write it: copy it first). Skips where ../shared/corpora/ is absent (a user's clone)."""
    if not CORPUS.is_file():
        pytest.skip(f"the real-tree corpus is not here ({CORPUS}); it lives beside the project in ../shared/corpora/")
    target = tmp_path_factory.mktemp("corpus")
    with tarfile.open(CORPUS) as archive:
        archive.extractall(target, filter="data")
    return target / "mlxcel"
