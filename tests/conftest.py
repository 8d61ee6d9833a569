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
def corpus(tmp_path_factory) -> Path:
    """The real mlxcel tree, unpacked once per session into a temporary folder (read it, do not edit it)."""
    if not CORPUS.is_file():
        pytest.skip(f"the real tree is not here ({CORPUS}); a clone without ../shared has no corpus")
    target = tmp_path_factory.mktemp("corpus")
    with tarfile.open(CORPUS) as archive:
        archive.extractall(target, filter="data")
    return target / "mlxcel"
