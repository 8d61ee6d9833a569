"""The one exception family of the library: every error a caller's input can cause is a
`CodemodError`.

The planner does not raise on input it can describe: a wrong root, recipe data or option, and
a recipe step that fails, are findings of a plan (docs/findings.md). What is raised is what a
caller must handle at once: a recipe that does not load, a pattern that does not parse, edits
that cannot be applied, a subset that names no change, a write that is refused or fails. Each
class subclasses the built-in error it replaced (ValueError for bad values), so that code
catching those keeps working; `except CodemodError` catches them all. This module imports
nothing, so that `codemod check` can catch `RecipeError` without loading the engine; the two
refusals of a write, which carry findings, live beside those in `edit/refusals.py`.
"""

from __future__ import annotations


class CodemodError(Exception):
    """The base of every error the library raises on its caller's input."""


class RecipeError(CodemodError, ValueError):
    """A recipe that cannot be used: an unknown id, a file that does not load or match the schema
    (docs/recipes.md), or a `Recipe(...)` whose data is invalid (an unknown language)."""


class RecipeInputError(CodemodError, ValueError):
    """Input a recipe's step needs is missing or malformed (e.g. a decision file). Raised by a
    step, it becomes the plan's `usage-error` finding (the CLI's exit 2)."""


class PatternError(CodemodError, ValueError):
    """A structural pattern that does not parse as one piece of code of its language, a
    replacement naming a metavariable the pattern does not capture, or a capture read as one
    node when it matched several."""


class EditError(CodemodError, ValueError):
    """Edits that cannot be applied: a byte range that is not one, or two edits that overlap
    (the message names both origins)."""


class LanguageError(CodemodError, ValueError):
    """A language plug-in that cannot be used: a name or suffix registered twice, or an
    operations module without its `OPERATIONS`."""


class SelectionError(CodemodError, ValueError):
    """A choice of a plan's changes that cannot be made: a selector that names no change, or a
    plan that cannot be grouped into changes (not made by `plan_recipe`, or a usage error)."""


class WriteFailed(CodemodError):
    """Writing failed part way (`cause` says how).

    `restored` is True when every file already written was put back, so the
    tree is as it was; False when some could not be, in which case the
    journal is still there and the next `codemod apply` restores them.
    """

    def __init__(self, message: str, cause: BaseException, restored: bool) -> None:
        super().__init__(message)
        self.cause = cause
        self.restored = restored


class TreeLocked(CodemodError):
    """Another process holds the tree lock; nothing was read for writing and nothing written."""


def one_line(error: BaseException) -> str:
    """An exception's message on one line (its type's name when it has none)."""
    return " ".join(str(error).split()) or type(error).__name__
