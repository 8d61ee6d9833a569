"""Which language a source file is, from its suffix (no parser loaded: the check imports this)."""

from __future__ import annotations

from pathlib import PurePosixPath

RUST = "rust"
CPP = "cpp"
PYTHON = "python"

_SUFFIX_LANGUAGE = {
    ".rs": RUST,
    ".cpp": CPP,
    ".cc": CPP,
    ".cxx": CPP,
    ".c": CPP,
    ".h": CPP,
    ".hh": CPP,
    ".hpp": CPP,
    ".hxx": CPP,
    ".cu": CPP,
    ".cuh": CPP,
    ".mm": CPP,
    ".metal": CPP,
    ".py": PYTHON,
}


def language_of(path: str | PurePosixPath) -> str | None:
    """The language a file is parsed as, from its suffix; None if not a source file."""
    return _SUFFIX_LANGUAGE.get(PurePosixPath(str(path)).suffix.lower())
