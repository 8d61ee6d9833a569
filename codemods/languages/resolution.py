"""What a name resolution says about one use of a deleted item, in any language."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

# A use that resolves to a deleted item (it blocks the plan), or one that may (it is listed).
DEFINITE = "definite"
POSSIBLE = "possible"


@dataclass(frozen=True)
class Reference:
    """A use of a name at bytes [start, end) of the file at `path` (the text after the plan) that
    resolves (definite) or may resolve (possible) to a deleted item; `kind` says what the use is
    (call, import, serde default, ...), `resolution` how the name resolved or why it may."""

    path: str
    start: int
    end: int
    name: str
    certainty: str
    kind: str
    resolution: str
    # A possible use only because the receiver's type is not known here (`x.field`): the
    # whole-plan check makes it definite where no other code in the tree spells the name, since
    # then no other declaration can give it (plan/references.py, `_sole_spellings`).
    receiver_unknown: bool = False


@dataclass(frozen=True)
class DeletedName:
    """A deleted item known by its name alone (a language whose names are not resolved)."""

    name: str
    path: str = ""


@dataclass(frozen=True)
class DeletedFile:
    """A whole file a recipe deletes (kind `file`), as code that names the file sees it (an
    `#include`, an `import`): `path`, and `name`, the word such a use spells (its stem, or its
    folder's name for a package's `__init__.py`). Nothing links to a file."""

    path: str
    name: str
    linkable: bool = False


def deleted_file(path: str) -> DeletedFile:
    """The record of the deleted file `path`."""
    parts = path.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    return DeletedFile(path, parts[-2] if stem == "__init__" and len(parts) > 1 else stem)


class DeletedItem(Protocol):
    """A deleted item as a plug-in records it, of that plug-in's own type: all the planner reads of
    every one is its `name` (and, where the type has them, `linkable` and `search_words`)."""

    @property
    def name(self) -> str:
        """The name code uses the item by."""
        ...


class DeletedRecord(Protocol):
    """What a plan deletes, as the plug-ins read and add to it (the planner's `DeletedNames`): each
    language's deleted items, of the type that language's plug-in records (each has a `name`)."""

    def of(self, language: str) -> Sequence[DeletedItem]:
        """The deleted items of `language`."""
        ...

    def add(self, language: str, items: Iterable[DeletedItem]) -> None:
        """Record more deleted items of `language`."""
        ...

    def all_names(self) -> list[str]:
        """Every deleted name: each language's items', then the names deleted by spelling alone."""
        ...
