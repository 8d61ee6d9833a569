"""A plan's item-level changes: what a reviewer accepts or skips as one (see `codemods.plan.subset`,
which re-plans without some of them). Made from what a plan was made from (its recipe, the
workspace before any stage and each stage's result), so that the planner (a plan's JSON document
lists its changes) and the subset both import this module and neither imports the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from codemods.edit.values import Edit, line_col
from codemods.core.registry import language_for
from codemods.parse import parse
from codemods.config.recipe import Recipe, StepResult, Workspace
from codemods.plan.stages import delete_in_file, targets_by_file


@dataclass(frozen=True)
class Change:
    """One item-level change of a plan: its id, the stage that made it (0: the recipe's
    deletions), its edits as planned (a deletion merged with its neighbours is shared with
    their changes), the item it is in or documents, and the names it deletes."""

    id: str
    path: str
    stage: int
    edits: tuple[Edit, ...]
    item: str | None = None
    removes: tuple[str, ...] = ()

    @property
    def origins(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(part for edit in self.edits for part in edit.origin.split("+")))

    @property
    def adds(self) -> tuple[str, ...]:
        """The names of the items its inserted code declares at its top level (a generated helper)."""
        return tuple(
            dict.fromkeys(n for e in self.edits if e.start == e.end for n in defined_names(e.path, e.replacement))
        )


def chosen_stages(stages: tuple[StepResult, ...]) -> range:
    """The indices of the stages after the deletions whose edits are a reviewer's choices (the
    recipe's steps, rewrites, rewordings, insertions). The others' edits follow from what is
    kept: what goes with the deletions in other files (`DeleteModuleFiles`, the second stage)
    and the imports left unused (`RemoveImports`, the last), like the formatting the check
    does; a subset makes them again (plan/subset.py)."""
    return range(2, len(stages) - 1)


def _named_items(path: str, source: bytes) -> list[tuple[int, int, str]]:
    """The file's named items (its language's `named_items`; none for a language without them)."""
    language = language_for(path)
    if language is None or language.grammar is None or language.operations.named_items is None:
        return []
    return language.operations.named_items(source, parse(source, language.name))


def _anchor(source: bytes, items: list[tuple[int, int, str]], start: int, end: int) -> str | None:
    """The name of the innermost of `items` (the file's `_named_items`) holding [start, end),
    else of the item the edited text lies directly above (a comment that documents it, blank
    lines between at most); None when there is neither (an edit at file level: a file's
    imports, or a language that names no items)."""
    holding = [(s, e, name) for s, e, name in items if s <= start and end <= e]
    if holding:
        return max(holding, key=lambda item: (item[0], -item[1]))[2]
    below = [(s, name) for s, _, name in items if s >= end and not source[end:s].strip()]
    return min(below)[1] if below else None


def _common_origin(origins: list[str]) -> str:
    """The `:`-separated segments all `origins` start with (the one origin when they agree)."""
    split = [o.split(":") for o in dict.fromkeys(origins)]
    common = []
    for segments in zip(*split):
        if len(set(segments)) > 1:
            break
        common.append(segments[0])
    return ":".join(common) or split[0][0]


@dataclass(frozen=True)
class _TargetDeletion:
    """One `[[delete]]` target planned alone: its edits and the names it deletes."""

    target: object
    edits: tuple[Edit, ...]
    names: tuple[str, ...]

    @property
    def origins(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(part for e in self.edits for part in e.origin.split("+")))


def target_deletions(recipe: Recipe, start: Workspace) -> list[_TargetDeletion]:
    """Each `[[delete]]` target of `recipe` deleted alone on `start`: its edits and names."""
    found = []
    for path, targets in targets_by_file(recipe).items():
        source = start.read(path)
        if source is None:
            continue
        for target in targets:
            deletions = delete_in_file(recipe, path, source, [target])
            found.append(_TargetDeletion(target, tuple(deletions.edits), tuple(deletions.deleted.all_names())))
    return found


_REWORDING_LABEL = re.compile(r"(?P<source>.*) \[\[reword\]\] (?P<number>\d+)\b")


def change_id(origin: str) -> str:
    """The stable slug that names the change made by `origin`: a rewording rule's label (`SOURCE
    [[reword]] N (item = ..., ...)`) becomes `SOURCE:reword:N`, and any run of characters other
    than letters, digits and `_.:@-` one `-`, so that an id is one shell word whatever the
    item's name (`impl From<E> for Error` -> `impl-From-E-for-Error`)."""
    rule = _REWORDING_LABEL.match(origin)
    if rule is not None:
        origin = f"{rule['source']}:reword:{rule['number']}"
    return ":".join(re.sub(r"[^A-Za-z0-9_.@-]+", "-", part).strip("-") for part in origin.split(":"))


def item_changes(recipe: Recipe, start: Workspace, stages: tuple[StepResult, ...]) -> tuple[Change, ...]:
    """The item-level changes of the plan made of `recipe` on `start` by `stages` (a `PlanBasis`'s
    parts), in file order (see the module's docstring). A deletion's edits are those of its target
    deleted alone (as the plan shows them, neighbours merged)."""
    planned = {part for e in (stages[0].edits if stages else ()) for part in e.origin.split("+")}
    changes = []
    for deletion in target_deletions(recipe, start):
        for origin in deletion.origins:
            if origin not in planned:
                continue
            edits = tuple(e for e in deletion.edits if origin in e.origin.split("+"))
            # A deletion is in the item it deletes, as the recipe names it.
            changes.append(
                Change(
                    change_id(origin),
                    edits[0].path,
                    0,
                    edits,
                    str(getattr(deletion.target, "name", "")) or None,
                    deletion.names,
                )
            )
    groups: dict[tuple[int, str, str | None], list[Edit]] = {}
    items: dict[str, list[tuple[int, int, str]]] = {}
    for index in chosen_stages(stages):
        for edit in stages[index].edits:
            # Inserted items (a generated helper) are a change of their own, named by what they add.
            added = list(defined_names(edit.path, edit.replacement)) if edit.start == edit.end else []
            source = start.read(edit.path) or b""
            if not added and edit.path not in items:
                items[edit.path] = _named_items(edit.path, source)
            item = added[0] if added else _anchor(source, items[edit.path], edit.start, edit.end)
            groups.setdefault((index, edit.path, item), []).append(edit)
    named = {key: _common_origin([e.origin for e in edits]) for key, edits in groups.items()}
    shared = {origin for origin in named.values() if list(named.values()).count(origin) > 1}
    for (index, path, item), group in groups.items():
        origin = named[(index, path, item)]
        if origin in shared:
            where = item if item is not None else f"{path}:{line_col(start.read(path) or b'', group[0].start)[0]}"
            origin = f"{origin}@{where}"
        changes.append(Change(change_id(origin), path, index, tuple(group), item))
    return tuple(sorted(changes, key=lambda c: (c.path, min(e.start for e in c.edits), c.id)))


def defined_names(path: str, text: bytes) -> tuple[str, ...]:
    """The names of the items `text` (inserted code) declares at its top level, in order."""
    language = language_for(path)
    if language is None or language.grammar is None or not text.strip():
        return ()
    root = parse(text, language.name).root_node
    return tuple(
        dict.fromkeys(
            (name.text or b"").decode("utf-8", "replace")
            for child in root.named_children
            if (name := child.child_by_field_name("name")) is not None
        )
    )


__all__ = ["Change", "change_id", "chosen_stages", "defined_names", "item_changes", "target_deletions"]
