"""Rewording rules find prose in block comments (`/* */`, `/** */`, `/*! */`), in Rust and C++,
as they do in line comments: markers, the ` * ` decoration and line breaks do not matter
(issue 37, point 7)."""

from __future__ import annotations

from codemods import Code, ItemTarget, Recipe, Rewording
from codemods.testing import assert_recipe

RUST = "src/lib.rs"
HEADER = "include/quay.hpp"


def _reworded(path: str, before: str, after: str, *rules: Rewording) -> list[str]:
    plan = assert_recipe(before, Recipe(id="r", summary="", rewordings=rules), after, path=path)
    return [f.render() for f in plan.findings]


def test_a_phrase_in_decorated_crate_docs_is_found_across_lines() -> None:
    findings = _reworded(
        RUST,
        """
        /*!
         * Harbour: moorings and tides.
         *
         * Boats tie up with `lash_dinghy`, which checks
         * the tide first.
         */

        pub fn tide() -> u32 {
            3
        }
    """,
        """
        /*!
         * Harbour: moorings and tides.
         *
         * Boats tie up at the quay.
         */

        pub fn tide() -> u32 {
            3
        }
    """,
        Rewording(
            RUST,
            find="Boats tie up with `lash_dinghy`, which checks the tide first.",
            replace="Boats tie up at the quay.",
        ),
    )
    assert findings == []


def test_bare_block_docs_and_a_one_line_block_comment() -> None:
    _reworded(
        RUST,
        """
        /*!
        Bare crate docs. Call lash_dinghy
        before sailing.
        */

        /* The old way: lash_dinghy. */
        pub fn sail() {}
    """,
        """
        /*!
        Bare crate docs. Sail when ready.
        */

        /* The old way: none. */
        pub fn sail() {}
    """,
        Rewording(RUST, find="Call lash_dinghy before sailing.", replace="Sail when ready."),
        Rewording(RUST, item="sail", find="lash_dinghy.", replace="none."),
    )


def test_a_sentence_by_its_symbol_in_an_item_doc_block_is_refilled_with_the_decoration() -> None:
    _reworded(
        RUST,
        """
        /** Knots: `lash_dinghy` ties the bow line. The stern stays loose. */
        pub fn knot() {}
    """,
        """
        /** Knots: the bow line is tied by the mooring helper, which replaces the old
         * lashing call everywhere in the harbour. The stern stays loose. */
        pub fn knot() {}
    """,
        Rewording(
            RUST,
            item="knot",
            symbols=("lash_dinghy",),
            replace="Knots: the bow line is tied by the mooring helper, which replaces the old lashing "
            "call everywhere in the harbour.",
        ),
    )


def test_cpp_block_comments_are_reworded_and_deleted_whole() -> None:
    _reworded(
        HEADER,
        """
        #pragma once

        /**
         * Docking: call lash_dinghy(boat) before
         * the gate closes.
         */
        int dock(int boat);

        /*
        int lash_dinghy(int boat) {
            return boat;
        }
        */

        int gate();
    """,
        """
        #pragma once

        /**
         * Docking: dock before the gate closes.
         */
        int dock(int boat);

        int gate();
    """,
        Rewording(
            HEADER, find="call lash_dinghy(boat) before the gate closes.", replace="dock before the gate closes."
        ),
        Rewording(HEADER, find="int lash_dinghy(int boat)", replace="", block=True),
    )


def test_the_rule_the_plan_suggests_clears_a_mention_in_block_crate_docs() -> None:
    """The plan's remedy for an unreworded mention (a `[[reword]]` rule) works where the crate's
    docs are one `/*! */` block."""
    before = {
        "src/lib.rs": """
            /*! Moorings.
             *
             * Use [`lash_dinghy`] to tie up a boat.
             */

            /// Ties a boat.
            pub fn lash_dinghy() {}

            /// Unties a boat.
            pub fn cast_off() {}
        """
    }
    after = {
        "src/lib.rs": """
            /*! Moorings.
             *
             * Use [`cast_off`] to leave.
             */

            /// Unties a boat.
            pub fn cast_off() {}
        """
    }
    recipe = Recipe(
        id="r",
        summary="",
        dead_symbol_pattern="lash_dinghy",
        deletions=(ItemTarget("src/lib.rs", "rust", "fn", "lash_dinghy"),),
    )
    unreworded = assert_recipe(
        before,
        recipe,
        before
        | {
            "src/lib.rs": """
            /*! Moorings.
             *
             * Use [`lash_dinghy`] to tie up a boat.
             */

            /// Unties a boat.
            pub fn cast_off() {}
        """
        },
        blocking=(Code.UNREWORDED_MENTION,),
    )
    assert [f.render() for f in unreworded.blocking] == ["src/lib.rs:3:10: unreworded mention of lash_dinghy [comment]"]
    reworded = Recipe(
        id="r",
        summary="",
        dead_symbol_pattern="lash_dinghy",
        deletions=recipe.deletions,
        rewordings=(
            Rewording("src/lib.rs", find="Use [`lash_dinghy`] to tie up a boat.", replace="Use [`cast_off`] to leave."),
        ),
    )
    assert assert_recipe(before, reworded, after).findings == ()
