"""Rewording rules on prose files (Markdown, text): their paragraphs are reworded like comment
blocks, and a rule that matches nothing there blocks as anywhere else."""

from __future__ import annotations

from pathlib import Path

from codemods import Recipe, Rewording, plan_recipe

from codemod_helpers import dedent_text as dedent


def planned(tmp_path: Path, path: str, before: str, *rules: Rewording) -> tuple[str, list[str], bool]:
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text(dedent(before))
    plan = plan_recipe(tmp_path, Recipe(id="r", summary="", rewordings=rules))
    after = next((c.after.decode() for c in plan.changes), dedent(before))
    return after, [f.render() for f in plan.findings], bool(plan.blocking)


def test_a_markdown_paragraph_naming_a_removed_symbol_is_reworded(tmp_path: Path) -> None:
    after, findings, blocked = planned(
        tmp_path,
        "guide/tiles.md",
        """
        # Tiles

        Tiles are drawn by `draw_tile`. The legacy `blit_tile_slow` path
        copies every pixel twice and exists for old drivers. Both take a
        `TileSpec`.

        ```cpp
        blit_tile_slow(spec);  // code in a fence is never reworded
        ```

        - `draw_tile`: the fast path.
        - `blit_tile_slow`: the fallback for drivers without blending.
    """,
        Rewording("guide/tiles.md", symbols=("blit_tile_slow",), replace="Old drivers use the same path."),
        Rewording("guide/tiles.md", find="- `blit_tile_slow`: the fallback for drivers without blending.", replace=""),
    )
    assert (findings, blocked) == ([], False)
    assert after == dedent("""
        # Tiles

        Tiles are drawn by `draw_tile`. Old drivers use the same path. Both take a
        `TileSpec`.

        ```cpp
        blit_tile_slow(spec);  // code in a fence is never reworded
        ```

        - `draw_tile`: the fast path.
    """)


def test_a_paragraph_on_one_line_stays_on_one_line(tmp_path: Path) -> None:
    line = (
        "The cache is filled by `warm_cache`, and `warm_cache_legacy` fills it for the old index format "
        "that nobody writes any more."
    )
    after, findings, _ = planned(
        tmp_path,
        "NOTES.txt",
        f"{line}\n\nAnother paragraph.\n",
        Rewording(
            "NOTES.txt",
            find=", and `warm_cache_legacy` fills it for the old index format that nobody writes any more.",
            replace=".",
        ),
    )
    assert findings == []
    assert after == "The cache is filled by `warm_cache`.\n\nAnother paragraph.\n"


def test_an_unmatched_rule_on_a_prose_file_blocks(tmp_path: Path) -> None:
    _, findings, blocked = planned(
        tmp_path,
        "README.md",
        "Nothing about it here.\n",
        Rewording("README.md", symbols=("blit_tile_slow",), replace="Gone."),
    )
    assert blocked
    assert findings == ["README.md: rewording rule did not match: the sentence naming blit_tile_slow"]


def test_a_rule_on_a_file_that_is_neither_parsed_nor_prose_blocks(tmp_path: Path) -> None:
    _, findings, blocked = planned(
        tmp_path,
        "config/tiles.toml",
        "# blit_tile_slow\n",
        Rewording("config/tiles.toml", find="blit_tile_slow", replace="draw_tile"),
    )
    assert blocked and "neither a file patterns can parse nor a prose file" in findings[0]
    _, findings, blocked = planned(
        tmp_path,
        "config/tiles.toml",
        "# blit_tile_slow\n",
        Rewording("config/tiles.toml", find="blit_tile_slow", replace="draw_tile", optional=True),
    )
    assert not blocked
