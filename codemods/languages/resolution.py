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


@dataclass(frozen=True)
class DeletedName:
    """A deleted item known by its name alone (a language whose names are not resolved)."""

    name: str
    path: str = ""


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
