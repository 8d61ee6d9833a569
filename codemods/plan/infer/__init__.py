"""A recipe inferred from a change: `infer_recipe(before, after)`, behind `codemod infer`.

The items of each changed source file present before and gone after become
`[[delete]]` tables, by kind and exact name. They are planned on `before` (the
items the engine may delete itself with others, an impl or a `use` entry, asked
for only where that plan leaves them), and what the plan's result still lacks of
`after` becomes rewrites, rewordings and insertions (`residue`, from the runs of
`tokens` that differ; `prose` for prose files): what the engine derives (imports
left unused, formatting, a module's file, a variant's match arms) is never
written twice. What no rule can say is a `#` comment naming the file, the
line and why. The recipe is planned once more at the end; a file it still does not
reproduce, token for token, is named the same way.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from codemods.core.registry import FILE_KIND, language_of
from codemods.edit.codes import Code
from codemods.edit.diff import changed_lines
from codemods.edit.errors import CodemodError
from codemods.edit.values import Finding
from codemods.languages.cpp.items import cpp_items
from codemods.languages.python.scopes import python_items
from codemods.languages.rust.items import exact_spelling, rust_items
from codemods.plan.infer.inventory import MEMBER_KINDS, Entry, inventory
from codemods.plan.infer.prose import prose_rules
from codemods.plan.infer.residue import FileResidue, InsertRule, RewordRule, RewriteRule, Rule
from codemods.plan.infer.text import is_text_rewritten, text_rules
from codemods.plan.infer.tokens import line_of, same_tokens
from codemods.config.loader import load_recipe
from codemods.config.recipe import TEXT
from codemods.plan.planner import USAGE_ERROR, plan_recipe
from codemods.plan.reword import is_prose
from codemods.parse import parse
from codemods.pattern import Pattern

_SKIPPED = {"target", "node_modules", "__pycache__"}


@dataclass(frozen=True)
class InferredRecipe:
    """A recipe inferred from a change: `toml`, the recipe file's text (its comments name what
    it cannot express), and `unexpressed`, those same notes, one `path:line: why` each."""

    toml: str
    unexpressed: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Delete:
    path: str
    language: str
    entry: Entry


def read_tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` (hidden folders and build outputs aside), by its `/` path."""
    files = {}
    for folder, folders, names in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in _SKIPPED)
        for name in names:
            path = Path(folder) / name
            if path.is_file() and not path.is_symlink():
                files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


@dataclass(frozen=True)
class _Head:
    """The top of an inferred recipe: its id, and whether it keeps the imports its plan leaves
    unused (`unused_imports = "keep"`)."""

    id: str
    keep_unused_imports: bool = False


def infer_recipe(before: Path, after: Path, *, recipe_id: str = "inferred") -> InferredRecipe:
    """The recipe that turns the tree `before` into the tree `after` (see the module doc).
    Never raises on the trees' content; what it cannot express is in `unexpressed`.

    A change may leave in place the imports its deletions leave unused (their cleanup left to
    another change): where the recipe that removes them does not say the whole change, or says
    it with rewrites, the one that keeps them (`unused_imports = "keep"`) is given instead if it
    says the whole change with fewer rewrites (a `use` line rewritten to itself, say)."""
    before, after = Path(before), Path(after)
    old, new = read_tree(before), read_tree(after)
    inferred = _inferred(before, _Head(recipe_id), old, new)
    # Only Rust's import stage removes the imports a plan leaves unused: elsewhere the key changes nothing.
    rust = any(language_of(p) == "rust" for p in old.keys() | new.keys() if old.get(p) != new.get(p))
    if rust and (inferred.unexpressed or _REWRITE_TABLE in inferred.toml):
        keeping = _inferred(before, _Head(recipe_id, keep_unused_imports=True), old, new)
        if not keeping.unexpressed and (
            inferred.unexpressed or keeping.toml.count(_REWRITE_TABLE) < inferred.toml.count(_REWRITE_TABLE)
        ):
            return keeping
    return inferred


_REWRITE_TABLE = "\n[[rewrite]]\n"


def _inferred(before: Path, head: _Head, old: dict[str, bytes], new: dict[str, bytes]) -> InferredRecipe:
    """`infer_recipe`'s recipe, with the top `head`, from the files of the trees before and after."""
    changed = sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p))
    notes: list[str] = []
    primary: list[_Delete] = []
    secondary: list[_Delete] = []
    gone_files: list[_Delete] = []
    for path in changed:
        language = language_of(path)
        if path not in old:
            notes.append(f"{path}:1: a file the change adds; no rule creates a file")
            continue
        if language is None:
            continue  # prose is reworded, other text rewritten literally (_rules_beyond)
        if path not in new:
            gone_files.append(_Delete(path, language, Entry(FILE_KIND, "", 0, len(old[path]))))
            continue  # a module's file goes with its `mod`; one no deleted module takes, whole
        for delete in _deleted_items(path, language, old[path], new[path]):
            (secondary if delete.entry.secondary else primary).append(delete)
    deletes = _settled_deletes(before, head, primary, secondary, notes)
    if gone_files:
        # A file the change deletes that no deleted module takes with it goes whole.
        left = _planned(before, _render(head, deletes, [], []), {d.path: old[d.path] for d in gone_files})
        deletes = sorted(
            deletes + [d for d in gone_files if left.get(d.path) is not None], key=lambda d: (d.path, d.entry.start)
        )
    settled_notes = list(notes)
    rewrites, rules = _rules_beyond(before, head, deletes, changed, old, new, notes)
    findings: list[Finding] = []
    final = _planned(before, _render(head, deletes, rewrites, rules), old, findings)
    # Code named by its text (a `use` entry) that a plan refuses to delete: without it, the
    # engine may drop it by itself, or the rewrite of what holds it say it. Where neither
    # reproduces the change, the deletion stays, and the plan's refusal is named.
    refused = {
        d: f
        for d in deletes
        if d.entry.kind in MEMBER_KINDS
        for f in findings
        if f.blocking and f.target is not None and f.target.name == d.entry.name and f.path == d.path
    }
    if refused:
        kept = [d for d in deletes if d not in refused]
        retry_notes = list(settled_notes)
        retry = _rules_beyond(before, head, kept, changed, old, new, retry_notes)
        retry_findings: list[Finding] = []
        retried = _planned(before, _render(head, kept, *retry), old, retry_findings)
        if all(
            retried.get(d.path) is not None and same_tokens(retried[d.path] or b"", new.get(d.path, b""), d.language)
            for d in refused
        ):
            deletes, (rewrites, rules), final, findings, notes = kept, retry, retried, retry_findings, retry_notes
        else:
            notes += [
                f"{d.path}:{f.line}: the {d.entry.kind} {d.entry.name} is gone, but a plan refuses to delete "
                f"it: {f.message}"
                for d, f in refused.items()
            ]
    notes += [
        f"{f.path or '.'}:{f.line}: the inferred recipe does not load or plan: {f.message}"
        for f in findings
        if f.code == USAGE_ERROR
    ]
    # A rule the full plan does not find a place for (an edit of the engine's came first) is no
    # rule to keep: it is named instead.
    unplaced = [
        f for f in findings if f.code in (Code.REWRITE_NOT_FOUND, Code.REWORDING_NOT_FOUND, Code.INSERT_NOT_FOUND)
    ]
    # A file whose inferred rule finds no place (a paragraph the change reshapes, code the engine's
    # own edits reach first) is said as text, where that places.
    prose = {f.path for f in unplaced if f.path in changed and (is_prose(f.path) or language_of(f.path) is not None)}
    # Two rewordings of a prose file that claim the same text (`reword-clash`), or rules that
    # together break a file's syntax or overlap: the file as text.
    prose |= {f.path for f in findings if f.code == Code.REWORD_CLASH and f.path in changed and is_prose(f.path)}
    prose |= {
        f.path
        for f in findings
        if f.code in (Code.PARSE_REGRESSION, Code.OVERLAPPING_EDITS)
        and f.path in changed
        and any(r.path == f.path for r in rewrites)
    }
    if prose:
        text_notes = list(settled_notes)
        as_text = _rules_beyond(before, head, deletes, changed, old, new, text_notes, frozenset(prose))
        # A `use` entry inside a literal rewrite's lines goes with that rewrite (its text says
        # what the declaration becomes): deleting it too would edit the same text twice.
        text_deletes = _without_uses_under(deletes, as_text[0], old)
        text_findings: list[Finding] = []
        texted = _planned(before, _render(head, text_deletes, *as_text), old, text_findings)
        if not any(f.path in prose and f.blocking for f in text_findings):
            (rewrites, rules), final, findings, notes = as_text, texted, text_findings, text_notes
            deletes = text_deletes
            unplaced = [
                f
                for f in findings
                if f.code in (Code.REWRITE_NOT_FOUND, Code.REWORDING_NOT_FOUND, Code.INSERT_NOT_FOUND)
            ]
    if unplaced:

        def placed(rule: Rule) -> bool:
            text = getattr(rule, "pattern", None) or getattr(rule, "find", None) or getattr(rule, "item", "")
            return not any(f.path.startswith(rule.path) and repr(text)[1:-1] in f.message for f in unplaced)

        rewrites = [r for r in rewrites if placed(r)]
        rules = [r for r in rules if placed(r)]
        notes += [
            f"{f.path}:{f.line or 1}: an inferred rule finds no place once the engine's own edits are made: {f.message}"
            for f in unplaced
        ]
    # A `use` entry (or a rewrite of a `use` declaration) that the other rules leave unused goes by
    # itself: asked for only where it stays.
    uses = [d for d in deletes if d.entry.kind == "use"]
    use_rewrites = [r for r in rewrites if r.language == "rust" and r.pattern.startswith(("use ", "pub use "))]
    if (uses or use_rewrites) and (rewrites or rules):
        without = [d for d in deletes if d.entry.kind != "use"]
        fewer = [r for r in rewrites if r not in use_rewrites]
        lighter = _planned(before, _render(head, without, fewer, rules), old)
        if all(
            lighter.get(p) == final.get(p)
            or (
                lighter.get(p) is not None
                and final.get(p) is not None
                and same_tokens(lighter[p] or b"", final[p] or b"", language_of(p))
            )
            for p in _touched(changed, old, final, lighter)
        ):
            deletes, rewrites, final = without, fewer, lighter
    # Every file the final plan writes is checked, not only those the change edits: the engine's
    # own edits (a `use` entry of a deleted item, a match arm) may reach a file the change keeps.
    for path in _touched(changed, old, final):
        want, got = new.get(path), final.get(path)
        if (want is None) != (got is None) or (
            want is not None and got is not None and not same_tokens(got, want, language_of(path))
        ):
            if any(n.startswith(f"{path}:") for n in notes):
                continue
            line = _first_difference_line(got or b"", want or b"")
            if path not in changed:
                notes.append(
                    f"{path}:{line}: the change leaves this file as it is, but the plan edits it by "
                    f"itself (what follows from the deletions: the change keeps code the engine removes)"
                )
            else:
                notes.append(
                    f"{path}:{line}: the recipe does not reproduce this file (an edit the rules above cannot say)"
                )
    return InferredRecipe(_render(head, deletes, rewrites, rules, notes), tuple(notes))


def _touched(changed: list[str], old: dict[str, bytes], *results: dict[str, bytes | None]) -> list[str]:
    """The files the change edits, and those a planned result writes although the change does not."""
    return sorted(set(changed) | {p for result in results for p, text in result.items() if text != old.get(p)})


def _without_uses_under(deletes: list[_Delete], rewrites: list[RewriteRule], old: dict[str, bytes]) -> list[_Delete]:
    """`deletes` less the `use` entries that lie inside the lines a literal (text) rewrite of
    their file replaces, in the file as read."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for rule in rewrites:
        if rule.language == TEXT and rule.path in old and rule.pattern:
            at = old[rule.path].find(rule.pattern.encode())
            if at >= 0:
                spans.setdefault(rule.path, []).append((at, at + len(rule.pattern.encode())))
    return [
        d
        for d in deletes
        if not (
            d.entry.kind == "use" and any(a <= d.entry.start and d.entry.end <= b for a, b in spans.get(d.path, []))
        )
    ]


def _rules_beyond(
    before: Path,
    head: _Head,
    deletes: list[_Delete],
    changed: list[str],
    old: dict[str, bytes],
    new: dict[str, bytes],
    notes: list[str],
    as_text: frozenset[str] = frozenset(),
) -> tuple[list[RewriteRule], list[Rule]]:
    """The rewrites, and the rewordings and insertions, that take the files as `deletes` leave
    them to `new` (the prose files `as_text` rewritten as text); what they cannot say added to `notes`."""
    result = _planned(before, _render(head, deletes, [], []), old)
    rules: list[Rule] = []
    generic: list[_Generic] = []
    text_rewrites: list[RewriteRule] = []
    for path in changed:
        if path in old and path not in new and result.get(path) is not None:
            notes.append(f"{path}:1: a file the change deletes that no deleted module takes with it")
        if path not in new or result.get(path) is None:
            continue
        language = language_of(path)
        if language is None and is_prose(path) and not is_text_rewritten(path) and path not in as_text and path in old:
            prose, unsaid = prose_rules(path, result[path] or b"", new[path])
            literal = text_rules(path, result[path] or b"", new[path]) if unsaid else None
            if literal is not None:  # what rewording cannot say (a paragraph added): the file as text
                text_rewrites += literal
                continue
            rules += prose
            notes += unsaid
            continue
        if language is None and path in old:
            literal = text_rules(path, result[path] or b"", new[path])
            if literal is None:
                notes.append(
                    f"{path}:1: a file of no supported language whose change no literal rewrite says "
                    f"(not UTF-8 text, or a changed line that does not stand once); edit by hand"
                )
            else:
                text_rewrites += literal
            continue
        if language not in ("rust", "cpp", "python"):
            continue
        if same_tokens(result[path] or b"", new[path], language):
            continue
        residue = _residue(path, language, result[path] or b"", new[path])
        residue.infer()
        if not residue.items_gone and (
            path in as_text or residue.notes and all(any(why in n for why in _SAID_AS_TEXT) for n in residue.notes)
        ):
            # What no structural rule says (a preprocessor line, code inside a macro's arguments)
            # the file's literal lines say: the plan still parses and checks the result.
            # Widened only for a file said as text on a second try: the caller keeps that try only
            # where it does not block.
            literal = text_rules(path, result[path] or b"", new[path], old.get(path), widen=path in as_text)
            if literal is not None:
                text_rewrites += literal
                continue
        rules += residue.rules
        said = {n.split(": ", 1)[0] for n in notes}  # path:line already named (an item refused there)
        notes += [
            n
            for n in residue.notes
            if n.split(": ", 1)[0] not in said
            and not any(n.partition(" is gone")[0].partition(": the ")[2] in m for m in notes if " is gone" in n)
        ]
        generic += [(residue.path, *entry) for entry in residue.generic]
    return _merged_rewrites(generic, result) + text_rewrites, rules


# The residue's notes a literal rewrite of the file may say instead (never a whole item gone:
# that goes through `[[delete]]`, so that every check runs on it).
_SAID_AS_TEXT = (
    "no pattern finds it alone",
    "a preprocessor line changed",
    "as a pattern, does not match it",
    "other comments of the file repeat",
    "an empty comment changed",
)


def _first_difference_line(got: bytes, want: bytes) -> int:
    for number, (x, y) in enumerate(zip(got.splitlines(), want.splitlines()), start=1):
        if x.strip() != y.strip():
            return number
    return min(got.count(b"\n"), want.count(b"\n")) + 1


def _deleted_items(path: str, language: str, old: bytes, new: bytes) -> list[_Delete]:
    """The items of `old` that `new` lacks, the outermost of nested ones only."""
    gone = _gone(language, old, new)
    outer = [
        e
        for e in gone
        if not any(
            o is not e and o.start <= e.start and e.end <= o.end and (o.start, o.end) != (e.start, e.end) for o in gone
        )
    ]
    return [_Delete(path, language, e) for e in sorted(outer, key=lambda e: e.start)]


def _gone(language: str, old: bytes, new: bytes) -> list[Entry]:
    """The items of `old` that `new` lacks."""
    kept = inventory(new, language)
    had = inventory(old, language)
    gone = [e for key, e in had.items() if key not in kept and not e.ambiguous]
    if language == "cpp" and gone and parse(old, language).root_node.has_error:
        # Where the old file does not parse, an item can be read in the wrong scope (a class body
        # inside an error read as namespace code); the new one's item of its kind, base name and
        # signature is that item, read right.
        same = {(k[0], k[1].split("::")[-1], k[2]) for k in kept}
        gone = [
            e
            for key, e in had.items()
            if key not in kept and not e.ambiguous and (key[0], key[1].split("::")[-1], key[2]) not in same
        ]
        # Nor is an item gone whose lines the change leaves as they are, whatever the new file's
        # parse makes of them (members the error reads as namespace variables, where the new
        # file, without the annotation macro that misled the parser, reads them as fields).
        runs = changed_lines(old, new)
        gone = [e for e in gone if _lines_changed_in(old, e, runs)]
    # An impl block is known by its header and its items' names: one that lost an item is still
    # there. As many go as the header has fewer blocks.
    for header in {key[1] for key in had if key[0] == "impl"}:
        fewer = sum(k[:2] == ("impl", header) for k in had) - sum(k[:2] == ("impl", header) for k in kept)
        unmatched = [had[k] for k in had if k[:2] == ("impl", header) and k not in kept]
        gone = [e for e in gone if e not in unmatched[max(fewer, 0) :]]
    return gone


def _lines_changed_in(source: bytes, entry: Entry, runs: list[tuple[int, int, int, int]]) -> bool:
    """Whether a run of lines the change replaces or removes ([i1, i2) of `changed_lines`) meets
    the lines of `entry` in `source`, or one it inserts falls between two of them."""
    first, last = line_of(source, entry.start) - 1, line_of(source, max(entry.start, entry.end - 1)) - 1
    return any(first <= i2 - 1 and i1 <= last if i1 < i2 else first < i1 <= last for i1, i2, _, _ in runs)


def _settled_deletes(
    before: Path, head: _Head, primary: list[_Delete], secondary: list[_Delete], notes: list[str]
) -> list[_Delete]:
    """The deletions to write: the primary ones, and each secondary one a plan of the others
    leaves in place (planned again until none is left)."""
    chosen = list(primary)
    waiting = list(secondary)
    for round_ in range(6):
        if not waiting:
            break
        paths = {d.path for d in waiting}
        result = _planned(before, _render(head, chosen, [], []), {p: (before / p).read_bytes() for p in paths})
        still = [d for d in waiting if _still_there(d, result.get(d.path))]
        if not still:
            break
        leading = min(still, key=lambda d: (d.entry.kind == "use", d.path, d.entry.start))
        # An impl before the methods in it, and the `use` entries last: each may take the next.
        batch = [d for d in still if d.entry.kind == leading.entry.kind] if round_ < 5 else still
        # A declaration the recipe reshapes is left alone by the engine's import stage: the other
        # entries the change takes out of it are asked for too, in the same edit.
        batch += [
            d
            for d in waiting
            if d not in batch
            and d.entry.kind == "use"
            and any(_same_declaration(before, d, b) for b in batch if b.entry.kind == "use")
        ]
        chosen += batch
        waiting = [d for d in waiting if d not in batch and d in still]
    findings: list[Finding] = []
    final = _planned(
        before, _render(head, chosen, [], []), {d.path: (before / d.path).read_bytes() for d in chosen}, findings
    )
    refused = [d for d in chosen if _still_there(d, final.get(d.path))]
    for delete in refused:
        if delete.entry.kind in MEMBER_KINDS:
            continue  # code named by its text: the rewrite of what holds it says it
        source = (before / delete.path).read_bytes()
        first, last = line_of(source, delete.entry.start), line_of(source, delete.entry.end)
        about = [
            f
            for f in findings
            if f.blocking
            and f.path == delete.path
            and (f.target.name == delete.entry.name if f.target is not None else first <= f.line <= last)
        ]
        about += [f for f in findings if f.blocking and f.path == delete.path and f.target is None]
        why = about[0].message if about else "see `codemod apply --dry-run` with it"
        notes.append(
            f"{delete.path}:{first}: the {delete.entry.kind} {delete.entry.name} is gone, but a plan "
            f"refuses to delete it: {why}"
        )
    return sorted((d for d in chosen if d not in refused), key=lambda d: (d.path, d.entry.start))


def _same_declaration(before: Path, one: _Delete, other: _Delete) -> bool:
    """Whether two Rust `use` entries of the same file are leaves of one `use` declaration."""
    if one.path != other.path or one.language != "rust":
        return False
    source = (before / one.path).read_bytes()
    node = parse(source, "rust").root_node.descendant_for_byte_range(one.entry.start, one.entry.start)
    while node is not None and node.type != "use_declaration":
        node = node.parent
    return node is not None and node.start_byte <= other.entry.start < node.end_byte


def _still_there(delete: _Delete, source: bytes | None) -> bool:
    if source is None:
        return False
    if delete.entry.ident:
        return delete.entry.ident in inventory(source, delete.language)
    return any(
        e.kind == delete.entry.kind and e.name == delete.entry.name for e in inventory(source, delete.language).values()
    )


def _planned(
    before: Path, text: str, files: dict[str, bytes], findings: list[Finding] | None = None
) -> dict[str, bytes | None]:
    """`files` as the recipe `text` leaves them, planned on `before` (None: a file deleted); the
    plan's findings added to `findings`."""
    result: dict[str, bytes | None] = dict(files)
    with tempfile.TemporaryDirectory(prefix="codemod-infer-") as folder:
        recipe_file = Path(folder) / "inferred.toml"
        recipe_file.write_text(text, encoding="utf-8")
        try:
            recipe = load_recipe(str(recipe_file))
        except CodemodError as error:  # a rule this module wrote wrong: said, never raised
            if findings is not None:
                findings.append(Finding("", 0, 0, USAGE_ERROR, str(error)))
            return result
        if not (recipe.deletions or recipe.rewrites or recipe.rewordings or recipe.insertions):
            return result
        plan = plan_recipe(before, recipe, allow_dangling=True, allow_unreworded=True, allow_unmatched=True)
    if findings is not None:
        findings += plan.findings
    for change in plan.changes:
        result[change.path] = None if change.deleted else change.after
    return result


def _residue(path: str, language: str, old: bytes, new: bytes) -> FileResidue:
    """The residue finder of one file, with the names of its items by where they start and end."""
    if language == "rust":
        items = [(i.start, i.end, exact_spelling(i)) for i in rust_items(old) if i.kind not in ("use", "extern_block")]
    elif language == "python":
        items = [(node.start_byte, node.end_byte, name) for node, name in python_items(parse(old, language))]
    else:
        items = [(i.start, i.end, i.qualified_name) for i in cpp_items(old)]
    gone = tuple(
        (e.start, e.end, f"{e.kind} {e.name}") for e in _gone(language, old, new) if e.kind not in MEMBER_KINDS
    )
    return FileResidue(path, language, old, new, items, gone)


# One rewrite found in a file: its path, its general and literal rules, the range of the code it
# rewrites, and the item (start, end, name) its rules are scoped to (None: the file).
_Generic = tuple[str, RewriteRule, RewriteRule, tuple[int, int], "tuple[int, int, str] | None"]


def _merged_rewrites(generic: list[_Generic], result: dict[str, bytes | None]) -> list[RewriteRule]:
    """One rule for each general rewrite that matches only where the change edits code (over the
    files' common folder where it holds in several files); the literal rules elsewhere."""
    groups: dict[tuple[str, str, str], list[_Generic]] = {}
    for entry in generic:
        general = entry[1]
        groups.setdefault((general.language, general.pattern, general.replace), []).append(entry)
    out: list[RewriteRule] = []
    for (language, pattern, replace), members in groups.items():
        spans = {(m[0], m[3]) for m in members}
        paths = sorted({m[0] for m in members})
        scope = paths[0] if len(paths) == 1 else _common_folder(paths)
        if _matches_only(language, pattern, scope, spans, result):
            out.append(RewriteRule(scope, language, pattern, replace))
        elif all(_matches_only(language, pattern, path, {s for s in spans if s[0] == path}, result) for path in paths):
            out += [RewriteRule(path, language, pattern, replace) for path in paths]
        else:
            out += [_scoped(member, result) for member in members]
    return sorted(out, key=lambda r: r.path)


def _scoped(member: _Generic, result: dict[str, bytes | None]) -> RewriteRule:
    """A rewrite's general rule in its item where it matches only there, else its literal rule."""
    path, general, literal, span, within = member
    if within is not None and _matches_only(general.language, general.pattern, path, {(path, span)}, result, within):
        return RewriteRule(path, general.language, general.pattern, general.replace, within[2])
    return literal


def _common_folder(paths: Iterable[str]) -> str:
    parts = [PurePosixPath(p).parent.parts for p in paths]
    common = []
    for level in zip(*parts):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return "/".join(common) or "."


def _matches_only(
    language: str,
    pattern: str,
    scope: str,
    spans: set[tuple[str, tuple[int, int]]],
    result: dict[str, bytes | None],
    within: tuple[int, int, str] | None = None,
) -> bool:
    """Whether `pattern` matches, in the files of `language` under `scope` (in the item `within`
    of the file `scope`, where given), exactly `spans`."""
    compiled = Pattern(pattern, language)
    found = set()
    for path, source in result.items():
        if source is None or language_of(path) != language:
            continue
        if path != scope and not (scope == "." or path.startswith(scope.rstrip("/") + "/")):
            continue
        found |= {
            (path, (m.start, m.end))
            for m in compiled.find_all(source)
            if within is None or within[0] <= m.start and m.end <= within[1]
        }
    return found == spans


# -- rendering ----------------------------------------------------------------------------------


def _string(text: str) -> str:
    """A TOML string: literal ('...') where that reads better, basic otherwise."""
    if ('"' in text or "\\" in text) and "'" not in text and "\n" not in text and text.isprintable():
        return f"'{text}'"
    return json.dumps(text, ensure_ascii=False)


def _render(
    head: _Head, deletes: list[_Delete], rewrites: list[RewriteRule], rules: list[Rule], notes: Iterable[str] = ()
) -> str:
    lines = [f"id = {_string(head.id)}"]
    if head.keep_unused_imports:
        lines.append('unused_imports = "keep"')
    notes = list(notes)
    if notes:
        lines += ["", "# Not expressed (edit by hand):", *(f"# - {note}" for note in notes)]
    for delete in deletes:
        lines += [
            "",
            "[[delete]]",
            f"path = {_string(delete.path)}",
            f"language = {_string(delete.language)}",
            f"kind = {_string(delete.entry.kind)}",
        ]
        if delete.entry.kind != FILE_KIND:
            lines.append(f"name = {_string(delete.entry.name)}")
        if delete.entry.branch is not None:
            lines.append(f"branch = {_string(delete.entry.branch)}")
    for rewrite in rewrites:
        lines += ["", "[[rewrite]]", f"path = {_string(rewrite.path)}"]
        if language_of(rewrite.path) != rewrite.language:
            lines.append(f"language = {_string(rewrite.language)}")
        if rewrite.item is not None:
            lines.append(f"item = {_string(rewrite.item)}")
        lines += [f"pattern = {_string(rewrite.pattern)}", f"replace = {_string(rewrite.replace)}"]
    for rule in rules:
        if isinstance(rule, RewordRule):
            lines += ["", "[[reword]]", f"path = {_string(rule.path)}"]
            if rule.item is not None:
                lines.append(f"item = {_string(rule.item)}")
            lines += [f"find = {_string(rule.find)}", f"replace = {_string(rule.replace)}"]
            if rule.block:
                lines.append("block = true")
    for rule in rules:
        if isinstance(rule, InsertRule):
            lines += [
                "",
                "[[insert]]",
                f"path = {_string(rule.path)}",
                f"item = {_string(rule.item)}",
                f"text = {_string(rule.text)}",
            ]
            if rule.position != "before":
                lines.append(f"position = {_string(rule.position)}")
    return "\n".join(lines) + "\n"


__all__ = ["InferredRecipe", "infer_recipe", "read_tree"]
