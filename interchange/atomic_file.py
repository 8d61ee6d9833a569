"""The atomic single-file write, for the house's packages other than the engine: the codemod
engine's own (`codemods/write/atomic_file.py`), one implementation, named here so that
`analysis` imports no module of the engine but through this package."""

from __future__ import annotations

from codemods.write.atomic_file import fsync_dir, write_atomic

__all__ = ["fsync_dir", "write_atomic"]
