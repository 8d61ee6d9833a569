import sys
from pathlib import Path

# The tests of this folder share paged_bench_helpers; tests/analysis cannot be a
# package (it would shadow the `analysis` import package), so put it on the path.
_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
