"""What a change does to a prose file (Markdown, text): rewordings of the paragraphs it rewrote or
removed, each paired with the most alike new paragraph; added or repeated paragraphs become notes."""

from __future__ import annotations

from collections import Counter
from difflib import SequenceMatcher

from codemods.plan.infer.residue import RewordRule, Rule


def _paragraphs(text: str) -> list[tuple[int, str]]:
    """(first line, words joined by single spaces) of each run of non-blank lines."""
    out: list[tuple[int, str]] = []
    current: list[str] = []
    start = 1
    for number, line in enumerate(text.splitlines() + [""], start=1):
        if line.strip():
            if not current:
                start = number
            current.append(line.strip())
        elif current:
            out.append((start, " ".join(" ".join(current).split())))
            current = []
    return out


def prose_rules(path: str, old: bytes, new: bytes) -> tuple[list[Rule], list[str]]:
    """Rewordings of a prose file's changed and removed paragraphs; a paragraph added, or one
    whose text the file repeats, is named in a note."""
    before = _paragraphs(old.decode("utf-8", "replace"))
    after = _paragraphs(new.decode("utf-8", "replace"))
    counts = Counter(text for _, text in before)
    rules: list[Rule] = []
    notes: list[str] = []
    matcher = SequenceMatcher(None, [t for _, t in before], [t for _, t in after], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        pairs = _paired([t for _, t in before[i1:i2]], [t for _, t in after[j1:j2]])
        if len([p for p in pairs if p[0] is not None]) < len(pairs):
            line = before[i1][0] if i1 < len(before) else (before[-1][0] if before else 1)
            notes.append(f"{path}:{line}: paragraphs added to a prose file; no rule adds prose")
        for index, replacement in pairs:
            if index is None:
                continue
            line, text = before[i1 + index]
            if counts[text] > 1 or sum(text in other for _, other in before) > 1:
                notes.append(f"{path}:{line}: a paragraph the file repeats changed; no rewording names it alone")
            else:
                rules.append(RewordRule(path, text, replacement))
    return rules, notes


def _paired(old: list[str], new: list[str]) -> list[tuple[int | None, str]]:
    """The old paragraphs of a changed run, in order, each with the new one that rewrites it
    (the most alike, in order, at least half alike) or "" (removed); (None, text) for a new one
    no old one becomes."""
    pairs: list[tuple[int | None, str]] = []
    taken = 0
    for index, text in enumerate(old):
        scores = [(SequenceMatcher(None, text, candidate).ratio(), j) for j, candidate in enumerate(new) if j >= taken]
        best = max(scores, default=(0.0, -1))
        if best[0] >= 0.5:
            pairs += [(None, new[j]) for j in range(taken, best[1])]
            pairs.append((index, new[best[1]]))
            taken = best[1] + 1
        else:
            pairs.append((index, ""))
    pairs += [(None, new[j]) for j in range(taken, len(new))]
    return pairs
