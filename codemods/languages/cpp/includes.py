"""`#include` within the tree: which files a C++ file reads through its includes.

An include (`"..."`, or `<...>` naming a header the tree has) is looked for as
the compiler's `-I` flags usually make it found: beside the including file, then under each folder above it, and under
the `include/` folder of each (`#include "fmt/format.h"` from `src/os.cc`
finds `include/fmt/format.h`). An include not found in the tree (a system
or generated header) is left out. A `static` function defined in a file
that another file includes is visible there: the resolver asks
`included_files` for that.
"""

from __future__ import annotations

import posixpath
import re
from typing import Callable

# How many files one closure reads at most (a guard against pathological trees).
_MOST_FILES = 5000


# Any include, quoted or bracketed (a tree's own headers are often read as `<lib/x.h>`).
_ANY_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)', re.M)


def include_lines(source: bytes) -> list[tuple[int, int, str]]:
    """(start, end, path as written) of each `#include "..."` or `#include <...>` of a file, the
    range being the written path's."""
    found = []
    for match in _ANY_INCLUDE.finditer(source):
        group = 1 if match.group(1) is not None else 2
        found.append((match.start(group), match.end(group), match.group(group).decode("utf-8", "replace")))
    return found


def resolve_include(including: str, written: str, exists: Callable[[str], bool]) -> str | None:
    """The tree path (relative, POSIX) an `#include "written"` in `including` reads, or None: the
    including file's folder or one above it, then their `include/`, then their `src/` (the
    folders a build puts on the include path, `-Iinclude`, `-Isrc`: a test beside `src/` includes
    its headers so)."""
    folder = posixpath.dirname(including)
    candidates: list[str] = []
    fallback: list[str] = []
    while True:
        candidates += [posixpath.join(folder, written), posixpath.join(folder, "include", written)]
        fallback.append(posixpath.join(folder, "src", written))
        if not folder:
            break
        folder = posixpath.dirname(folder)
    for candidate in candidates + fallback:
        normal = posixpath.normpath(candidate)
        if not normal.startswith("../") and normal != ".." and exists(normal):
            return normal
    return None


def included_files(path: str, read: Callable[[str], bytes | None]) -> set[str]:
    """Every file of the tree that `path` includes (`"..."` or `<...>` where the tree has it),
    directly or through other includes."""
    seen: set[str] = set()
    pending = [path]
    while pending and len(seen) < _MOST_FILES:
        current = pending.pop()
        source = read(current)
        if source is None:
            continue
        # Bracketed ones too: a tree's own headers are often read as `<lib/x.h>` (-I src).
        for _, _, written in include_lines(source):
            found = resolve_include(current, written, lambda p: read(p) is not None)
            if found is not None and found not in seen and found != path:
                seen.add(found)
                pending.append(found)
    return seen
