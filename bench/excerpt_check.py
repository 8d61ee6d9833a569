"""Does rustfmt's verdict on an excerpt stand for its verdict on the whole file? (codemods/languages/rust/excerpt.py)

For real Rust files that rustfmt leaves as they are, cut items the way a plan does (whole lines,
with their doc comments and attributes; sometimes a blank line too many left, sometimes the
last item of a block, sometimes one entry of a `use` list; now and then a copy of another item
inserted, as a plan inserts a helper), then ask rustfmt about the excerpt
and about the whole edited file. The planner takes an excerpt rustfmt leaves as it is for the
file left as edited, so the one case that must never happen is "excerpt clean, file not":
the script prints each such case and exits 1.

    python bench/excerpt_check.py [--files N] [--cuts K] [--seed S] [ROOT ...]

ROOTs default to the Cargo registry sources of this machine (/usr/share/cargo/registry) and the
replay corpus is not needed. rustfmt must be installed.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from codemods.languages.rust.excerpt import excerpt  # noqa: E402
from codemods.parse import RUST, parse  # noqa: E402

ITEMS = {
    "function_item",
    "struct_item",
    "enum_item",
    "impl_item",
    "trait_item",
    "const_item",
    "static_item",
    "type_item",
    "mod_item",
    "use_declaration",
    "macro_definition",
    "union_item",
    "function_signature_item",
}


def rustfmt(text: bytes, edition: str) -> bytes | None:
    result = subprocess.run(
        ["rustfmt", "--edition", edition, "--emit", "stdout"], input=text, capture_output=True, timeout=60
    )
    return result.stdout if result.returncode == 0 else None


def items(node):
    """Every item of the file, at any depth of blocks (not inside function bodies)."""
    for child in node.named_children:
        if child.type in ITEMS:
            yield child
        body = child.child_by_field_name("body")
        if child.type in ("mod_item", "impl_item", "trait_item", "foreign_mod_item") and body is not None:
            yield from items(body)


def whole_lines(text: bytes, node) -> tuple[int, int]:
    """The item's lines with the comments and attributes right above it, as a plan cuts them."""
    start = node.start_byte
    sibling = node.prev_named_sibling
    while (
        sibling is not None
        and sibling.type in ("line_comment", "block_comment", "attribute_item")
        and text.count(b"\n", sibling.end_byte, start) <= 1
    ):
        start = sibling.start_byte
        sibling = sibling.prev_named_sibling
    start = text.rfind(b"\n", 0, start) + 1
    end = text.find(b"\n", node.end_byte)
    end = len(text) if end < 0 else end + 1
    return start, end


def cuts(text: bytes, rng: random.Random, count: int) -> list[list[tuple[int, int, bytes]]]:
    tree = parse(text, RUST)
    found = [n for n in items(tree.root_node)]
    plans = []
    for _ in range(count):
        if not found:
            break
        chosen = rng.sample(found, min(len(found), rng.choice((1, 1, 2, 3))))
        edits = []
        for node in chosen:
            start, end = whole_lines(text, node)
            way = rng.random()
            if way > 0.93:
                # A copy of another item inserted before this one (a helper a plan adds).
                other = rng.choice(found)
                o_start, o_end = whole_lines(text, other)
                edits.append((start, start, text[o_start:o_end].replace(b"fn ", b"fn copied_", 1) + b"\n"))
                continue
            if node.type == "use_declaration" and b"{" in text[start:end] and way < 0.5:
                # One entry of a use list.
                inner = text.find(b"{", start)
                comma = text.find(b",", inner, end)
                if comma > 0:
                    edits.append((inner + 1, comma + 1, b""))
                    continue
            if way < 0.2 and text[end : end + 1] == b"\n":
                end += 1  # the blank line after it too
            elif way > 0.85:
                start = max(0, start - 1) if text[start - 2 : start] == b"\n\n" else start  # a blank line before
            edits.append((start, end, b""))
        edits.sort()
        if any(a[1] > b[0] or a[0] == b[0] for a, b in zip(edits, edits[1:])):
            continue
        plans.append(edits)
    return plans


def splice(text: bytes, edits) -> bytes:
    out, at = [], 0
    for start, end, replacement in sorted(edits):
        out += [text[at:start], replacement]
        at = end
    return b"".join(out + [text[at:]])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="*", default=["/usr/share/cargo/registry"])
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--cuts", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2230)
    parser.add_argument("--edition", default="2021")
    parser.add_argument("--min-bytes", type=int, default=2000, help="skip files smaller than this")
    args = parser.parse_args()
    if shutil.which("rustfmt") is None:
        sys.exit("excerpt_check: rustfmt is not installed")
    rng = random.Random(args.seed)
    files = sorted(p for root in args.roots for p in Path(root).rglob("*.rs") if "/target/" not in str(p))
    rng.shuffle(files)
    tally = {
        "excerpt and file clean": 0,
        "excerpt and file changed": 0,
        "excerpt changed, file clean": 0,
        "no excerpt": 0,
        "excerpt clean, file changed (WRONG)": 0,
    }
    clean_files = 0
    for path in files:
        if clean_files >= args.files:
            break
        text = path.read_bytes()
        if len(text) < args.min_bytes or b"\r" in text or rustfmt(text, args.edition) != text:
            continue
        clean_files += 1
        for edits in cuts(text, rng, args.cuts):
            after = splice(text, edits)
            small = excerpt(text, edits, after)
            if small is None:
                tally["no excerpt"] += 1
                continue
            small_clean = rustfmt(small, args.edition) == small
            whole = rustfmt(after, args.edition)
            if whole is None:
                continue
            whole_clean = whole == after
            if small_clean and not whole_clean:
                tally["excerpt clean, file changed (WRONG)"] += 1
                print(f"WRONG: {path} edits {edits}", flush=True)
            elif small_clean:
                tally["excerpt and file clean"] += 1
            elif whole_clean:
                tally["excerpt changed, file clean"] += 1
            else:
                tally["excerpt and file changed"] += 1
    print(f"{clean_files} rustfmt-clean files, seed {args.seed}:")
    for name, count in tally.items():
        print(f"  {name}: {count}")
    return 1 if tally["excerpt clean, file changed (WRONG)"] else 0


if __name__ == "__main__":
    sys.exit(main())
