"""Which `[[delete]]` target a finding of the reference check arises from.

A dangling reference names a deleted item; the target to show it with (and
for a script to act on: skip that target, or keep the item) is the one whose
deletion removed that item. A finding about a target itself (no such item,
ambiguous, the wrong shape) is linked where the deletion reports it
(stages.py); this module links the findings that arise later, from the items
the targets deleted.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Iterable, Sequence

from codemods.edit.values import Finding, ItemTarget


def _last(name: str) -> str:
    """The item name a target spells (`crate::pages::merge` -> `merge`; `f(int)` -> `f`)."""
    return re.split(r"::|\.", name.split("(")[0])[-1]


def target_of(symbol: str, targets: Sequence[ItemTarget], deleted_items: Iterable[object]) -> ItemTarget | None:
    """The one target whose deletion removed the item `symbol` names, or None when that is not one.

    The target that names it; else, of the targets that name it (a name deleted in several
    files) or of all (an item deleted with another, a member with its type), the one in the
    file the deleted item of that name was in. Several equally good, or none: None (the finding
    keeps no link rather than a wrong one).
    """
    named = [t for t in targets if _last(t.name) == symbol]
    if len(named) == 1:
        return named[0]
    paths = {getattr(i, "path", "") for i in deleted_items if getattr(i, "name", None) == symbol}
    in_their_files = [t for t in (named or targets) if t.path in paths]
    return in_their_files[0] if len(in_their_files) == 1 else None


def linked_to_targets(
    findings: Sequence[Finding], targets: Sequence[ItemTarget], deleted_items: Sequence[object]
) -> list[Finding]:
    """`findings` with each unlinked one that names a symbol linked to `target_of` it, where one is."""
    by_name: dict[str, list[object]] = {}
    for item in deleted_items:
        by_name.setdefault(getattr(item, "name", ""), []).append(item)
    linked = []
    # Asked once per symbol: a plan may hold thousands of findings about a few names.
    found: dict[str, ItemTarget | None] = {}
    for finding in findings:
        target = None
        if finding.symbol and finding.target is None:
            if finding.symbol not in found:
                found[finding.symbol] = target_of(finding.symbol, targets, by_name.get(finding.symbol, ()))
            target = found[finding.symbol]
        linked.append(replace(finding, target=target) if target is not None else finding)
    return linked
