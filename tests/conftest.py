import sys
import tarfile
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
for path in (ROOT, TESTS):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

# The real mlxcel tree: test input kept beside the project, absent from a user's clone.
CORPUS = ROOT.parent / "shared" / "corpora" / "mlxcel-2026-07.tar.xz"


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real mlxcel tree, unpacked once per session and shared by every test that
    needs it: read it, never edit it; copy it (shutil.copytree) and edit the copy."""
    if not CORPUS.is_file():
        pytest.skip(f"the real mlxcel tree is not here ({CORPUS} is absent); a clone without ../shared has no corpus")
    target = tmp_path_factory.mktemp("corpus")
    with tarfile.open(CORPUS) as archive:
        archive.extractall(target, filter="data")
    return target / "mlxcel"
