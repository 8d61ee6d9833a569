"""How much of the reference check's parsing could be skipped (issue 41): the files a dry run
parses to resolve the uses of what the recipe deletes, parsed whole, then parsed with the insides
of some bodies left out (tree-sitter's included ranges: `{` and `}` kept, every node keeping its
offsets). A body may go where it spells none of the names looked for and none of the words whose
items matter outside it (`impl`, `struct`, `enum`, `union`, `trait`, `macro_rules`, `mod`):

- "fn bodies": the outermost such function bodies;
- "blocks": the outermost such blocks of any kind (a closure's, a branch's, an `unsafe { }`).

The bodies are taken from the whole parse, so each figure is an upper bound: a resolver would
first have to find them without parsing. The last line times the least such a scan costs here:
rust_lexer's comment and string spans, then each brace outside them matched with a stack.

    python bench/skip_bodies.py ROOT RECIPE [--runs 3]

Run it on a tree whose files are cached (run the dry run once first). Timing only: the engine's
plan is made once, in this process, with one job, to learn which files it parses.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
import time
from bisect import bisect_left
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

KEEP = {"impl", "struct", "enum", "union", "trait", "macro_rules", "mod"}
LEAST_GAP = 96  # bytes: a shorter body is parsed as it is


def parsed_files(root: str, recipe: str) -> list[tuple[bytes, set[str]]]:
    """(text, names looked for) of each file the reference check parses in a dry run."""
    os.environ["CODEMOD_JOBS"] = "1"
    from codemods.startup import install

    install()
    import codemods.languages.rust.resolve.references as references
    from codemods.cli.main import main as codemod

    found: list[tuple[bytes, set[str]]] = []
    asked: list[set[str]] = [set()]
    resolve, parse = references.RustResolver._references_in_text, references.parse

    def resolving(self, path, source, targets):  # type: ignore[no-untyped-def]
        asked[0] = {target.name for target in targets}
        return resolve(self, path, source, targets)

    def parsing(source, language):  # type: ignore[no-untyped-def]
        found.append((source, asked[0]))
        return parse(source, language)

    references.RustResolver._references_in_text = resolving  # type: ignore[method-assign]
    references.parse = parsing  # type: ignore[assignment]
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            codemod(["apply", "--dry-run", "--recipe", recipe, root], standalone_mode=False)
    except SystemExit:
        pass
    finally:
        references.RustResolver._references_in_text = resolve  # type: ignore[method-assign]
        references.parse = parse  # type: ignore[assignment]
    return found


def ranges_without(source: bytes, gaps: list[tuple[int, int]]) -> list:
    """tree-sitter ranges covering `source` but the gaps [start, end) (sorted, apart)."""
    import tree_sitter

    from codemods.edit.values import line_col

    def point(offset: int) -> tuple[int, int]:  # tree-sitter's, 0-based
        line, column = line_col(source, offset)
        return line - 1, column - 1

    ranges, start = [], 0
    for gap_start, gap_end in gaps:
        ranges.append(tree_sitter.Range(point(start), point(gap_start), start, gap_start))
        start = gap_end
    ranges.append(tree_sitter.Range(point(start), point(len(source)), start, len(source)))
    return ranges


def gaps_of(tree, source: bytes, names: set[str], kinds: tuple[str, ...]) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    """The insides of the outermost bodies (`kinds`: "function_item" for function bodies,
    "block" for any block) that spell no name of `names` nor of KEEP."""
    from codemods.words import whole_word_hits

    marks = [start for start, _, _ in whole_word_hits(source, names | KEEP)]
    gaps: list[tuple[int, int]] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        body = node.child_by_field_name("body") if node.type == "function_item" else node
        if node.type in kinds and body is not None and body.type == "block":
            start, end = body.start_byte + 1, body.end_byte - 1
            index = bisect_left(marks, start)
            if end - start >= LEAST_GAP and not (index < len(marks) and marks[index] < end):
                gaps.append((start, end))
                continue
        stack.extend(node.children)
    return sorted(gaps)


def brace_scan(source: bytes) -> int:
    """Match the braces of `source` outside its comments and literals; the pairs matched."""
    from codemods.core.rust_lexer import spans

    found = spans(source, len(source))
    starts, ends = (found.starts, found.ends) if found is not None else ([], [])
    opened: list[int] = []
    pairs = 0
    for brace in re.finditer(rb"[{}]", source):
        at = brace.start()
        index = bisect_left(starts, at + 1) - 1
        if index >= 0 and at < ends[index]:
            continue
        if source[at] == 0x7B:
            opened.append(at)
        elif opened:
            opened.pop()
            pairs += 1
    return pairs


def best(runs: int, work) -> float:  # type: ignore[no-untyped-def]
    seconds = []
    for _ in range(runs):
        began = time.perf_counter()
        work()
        seconds.append(time.perf_counter() - began)
    return min(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root")
    parser.add_argument("recipe")
    parser.add_argument("--runs", type=int, default=3, help="each figure is the best of this many passes")
    options = parser.parse_args()
    files = parsed_files(options.root, options.recipe)

    import tree_sitter

    from codemods.parse import ts_language

    whole = tree_sitter.Parser(ts_language("rust"))
    gapped = tree_sitter.Parser(ts_language("rust"))
    total = sum(len(source) for source, _ in files)
    print(f"{len(files)} parses of {total / 1e6:.1f} MB ({options.root}, {options.recipe})")

    def parse_whole() -> None:
        for source, _ in files:
            whole.parse(source)  # each tree let go before the next, as in parse_all below

    seconds = best(options.runs, parse_whole)
    print(f"{'whole':12} {seconds:6.3f} s  {total / seconds / 1e6:5.1f} MB/s")
    for label, kinds in (("fn bodies", ("function_item",)), ("blocks", ("block",))):
        planned = []
        for source, names in files:
            gaps = gaps_of(whole.parse(source), source, names, kinds)
            planned.append((source, ranges_without(source, gaps) if gaps else None, sum(e - s for s, e in gaps)))

        def parse_all(planned: list = planned) -> None:
            for source, ranges, _ in planned:
                if ranges is None:
                    whole.parse(source)
                else:
                    gapped.included_ranges = ranges
                    gapped.parse(source)

        left = sum(skipped for _, _, skipped in planned)
        errors = 0
        for source, ranges, _ in planned:
            if ranges is not None:
                gapped.included_ranges = ranges
                errors += gapped.parse(source).root_node.has_error
        cut = best(options.runs, parse_all)
        print(
            f"{label:12} {cut:6.3f} s  {left / 1e6:5.1f} MB left out ({100 * left / total:.0f}%), "
            f"{seconds - cut:+.3f} s against whole; {errors} with a syntax error"
        )

    def scan_all() -> None:
        for source, _ in files:
            brace_scan(source)

    scan = best(options.runs, scan_all)
    print(f"{'brace scan':12} {scan:6.3f} s  (comments and literals, then every brace outside them)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
