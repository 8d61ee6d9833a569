"""How a recipe file that `extends` a bundled recipe is merged with it: the one rule both recipe
readers apply (the loader, for the whole recipe; `settings.py`, for the dead-symbol settings
`codemod check` reads without the engine).

The file's rule lists come after the base's (the base's deletions, rewrites,
rewordings and insertions are all kept); any other key the file gives
replaces the base's; the id defaults to `BASE+FILESTEM`. Values are keyed by
`Recipe` field name.
"""

from __future__ import annotations

from typing import Any, Mapping

# The recipe fields that hold rules: the file's are added after the base's.
APPENDED = ("deletions", "rewrites", "rewordings", "insertions")


def extended(base: Mapping[str, Any], own: Mapping[str, Any], file_stem: str) -> dict[str, Any]:
    """The fields of the recipe a file extending `base` makes: `base`'s, with `own` (the keys the
    file gives) added or replacing as the module's docstring says."""
    merged = dict(base)
    for key, value in own.items():
        merged[key] = (*base.get(key, ()), *value) if key in APPENDED else value
    merged["id"] = own.get("id", f"{base['id']}+{file_stem}")
    return merged


__all__ = ["APPENDED", "extended"]
