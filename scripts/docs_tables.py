"""The documentation tables that describe the code, generated from it (as ruff generates its rule
pages): docs/kinds.md, the languages a recipe may name and the item kinds each one deletes,
read from the language registry (`codemods/core/registry.py`) and each plug-in's kinds.

    python scripts/docs_tables.py            # print what docs/kinds.md must hold
    python scripts/docs_tables.py --check    # exit 1 when docs/kinds.md differs (the test suite runs it)
    python scripts/docs_tables.py --write    # write it
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from codemods.core.registry import LANGUAGES

HOUSE = Path(__file__).resolve().parent.parent
KINDS_PAGE = HOUSE / "docs" / "kinds.md"

HEADER = """# Languages and item kinds

Generated from the language registry by `python scripts/docs_tables.py --write`; a test fails
when this page and the code disagree, so edit the code (or the header in the script), never
this page. What each kind takes with it, and how a name selects one item:
[resolution.md](resolution.md) and [recipes.md](recipes.md) (`kind`).

"""


def render() -> str:
    """The page: one row per registered language, its suffixes, parser, formatter and kinds."""
    rows = [
        "| language (`language =`) | files | parsed by | formatter | kinds a `[[delete]]` may name |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, language in LANGUAGES.items():
        parser = f"tree-sitter (`{language.grammar}`)" if language.grammar else "-"
        if language.deleter:
            parser = f"{language.deleter} (deletions), {parser} (patterns)" if language.grammar else language.deleter
        kinds = ", ".join(f"`{kind}`" for kind in language.item_kinds)
        suffixes = " ".join(f"`{suffix}`" for suffix in language.suffixes)
        rows.append(f"| `{name}` | {suffixes} | {parser} | {language.formatter or '-'} | {kinds} |")
    return HEADER + "\n".join(rows) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 when docs/kinds.md differs from the code")
    mode.add_argument("--write", action="store_true", help="write docs/kinds.md")
    args = parser.parse_args()
    page = render()
    if args.write:
        KINDS_PAGE.write_text(page, encoding="utf-8")
    elif args.check:
        if not KINDS_PAGE.is_file() or KINDS_PAGE.read_text(encoding="utf-8") != page:
            print(
                f"docs_tables: {KINDS_PAGE.relative_to(HOUSE)} differs from the code: "
                f"run python scripts/docs_tables.py --write",
                file=sys.stderr,
            )
            return 1
    else:
        sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
