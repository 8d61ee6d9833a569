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
def mlxcel_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real mlxcel tree, unpacked once per session from ../shared/corpora/ (skips where absent).

    Shared by every test that asks for it: copy it before writing to it.
    """
    if not CORPUS.is_file():
        pytest.skip(f"needs the real mlxcel tree at {CORPUS} (a checkout beside ../shared/corpora/)")
    target = tmp_path_factory.mktemp("corpus")
    with tarfile.open(CORPUS) as archive:
        archive.extractall(target, filter="data")
    return target / "mlxcel"
