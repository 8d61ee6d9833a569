"""Rewording rules: comments found by item, sentences by the symbols they name, paragraphs refilled."""

from __future__ import annotations

from codemods import Code, Recipe, Rewording
from codemods.testing import assert_recipe

PATH = "src/lib.rs"


def assert_reworded(before: str, after: str, *rules: Rewording, blocking: tuple[str, ...] = ()) -> list[str]:
    """`rules` turn `before` (the file at PATH) into `after`, with blocking findings of the codes
    `blocking` only (see `assert_recipe`); the plan's findings, rendered."""
    plan = assert_recipe(before, Recipe(id="r", summary="", rewordings=rules), after, path=PATH, blocking=blocking)
    return [f.render() for f in plan.findings]


def test_the_sentence_naming_a_symbol_is_replaced_and_the_paragraph_refilled() -> None:
    findings = assert_reworded(
        """
        /// Gathers blocks from the pool. It is the pooled twin of
        /// [`old_fallback`], which the tests
        /// pin it against. The result is `[B, H, 1, D]`, e.g. one row per sequence.
        ///
        /// A second paragraph that stays.
        pub fn pooled() {}

        /// Also names [`old_fallback`]. Left alone: another item.
        pub fn other() {}
    """,
        """
        /// Gathers blocks from the pool. Its tests check it against a dense reference
        /// over contiguous K/V. The result is `[B, H, 1, D]`, e.g. one row per
        /// sequence.
        ///
        /// A second paragraph that stays.
        pub fn pooled() {}

        /// Also names [`old_fallback`]. Left alone: another item.
        pub fn other() {}
    """,
        Rewording(
            PATH,
            item="pooled",
            symbols=("old_fallback",),
            replace="Its tests check it against a dense reference over contiguous K/V.",
        ),
    )
    assert findings == []


def test_following_sentences_and_a_banner_above_the_item() -> None:
    assert_reworded(
        """
        fn before() {}

        // ---------------------------------------------------------------
        // Pooled decode: `pooled` reads the pool, whereas `old_fallback`
        // slices dense buffers. Both feed one kernel. So they match.
        // ---------------------------------------------------------------

        /// Helper.
        fn helper() {}
    """,
        """
        fn before() {}

        // ---------------------------------------------------------------
        // Pooled decode: `pooled` reads the pool; a dense reference reads contiguous
        // K/V.
        // ---------------------------------------------------------------

        /// Helper.
        fn helper() {}
    """,
        Rewording(
            PATH,
            item="helper",
            symbols=("old_fallback",),
            sentences=3,
            replace="Pooled decode: `pooled` reads the pool; a dense reference reads contiguous K/V.",
        ),
    )


def test_a_phrase_matches_across_lines_and_markers() -> None:
    assert_reworded(
        """
        impl Pool {
            /// Runs the pooled and
            /// dense fallbacks, and compares them.
            fn check() {}
        }
    """,
        """
        impl Pool {
            /// Runs the pooled fallback and the dense reference, and compares them.
            fn check() {}
        }
    """,
        Rewording(
            PATH,
            item="Pool::check",
            find="the pooled and\n/// dense fallbacks,",
            replace="the pooled fallback and the dense reference,",
        ),
    )


def test_a_rule_that_finds_nothing_is_reported_and_an_applied_one_is_silent() -> None:
    source = """
        /// Reads the pool. Tests compare it with a dense reference.
        pub fn pooled() {}
    """
    rules = (
        Rewording(PATH, item="pooled", symbols=("old_fallback",), replace="Tests compare it with a dense reference."),
        Rewording(PATH, item="missing", symbols=("old_fallback",), replace="x"),
        Rewording(PATH, find="a sentence nobody wrote", replace="y"),
    )
    findings = assert_reworded(source, source, *rules, blocking=(Code.REWORDING_NOT_FOUND,))
    assert findings == [
        "src/lib.rs: rewording rule did not match: no item missing",
        "src/lib.rs: rewording rule did not match: 'a sentence nobody wrote'",
    ]


def test_a_sentence_must_name_every_symbol_of_the_rule() -> None:
    source = """
        /// Models call [`dense_compat`] and [`dense_fallback`], never this.
        pub fn pooled() {}
    """
    findings = assert_reworded(
        source,
        source,
        Rewording(PATH, item="pooled", symbols=("dense_compat", "rotating_compat"), replace="x"),
        blocking=(Code.REWORDING_NOT_FOUND,),
    )
    assert findings == [
        "src/lib.rs: rewording rule did not match: the sentence naming dense_compat and "
        "rotating_compat in the comments of pooled"
    ]


def test_a_paragraph_reworded_to_nothing_goes_with_the_blank_line_before_it() -> None:
    findings = assert_reworded(
        """
        /// Counts the bobbins on the rack.
        ///
        /// Slow: it walks every peg.
        ///
        /// Returns zero for an empty rack.
        pub fn bobbins() -> u8 { 0 }
    """,
        """
        /// Counts the bobbins on the rack.
        ///
        /// Returns zero for an empty rack.
        pub fn bobbins() -> u8 { 0 }
    """,
        Rewording(PATH, item="bobbins", find="Slow: it walks every peg.", replace=""),
    )
    assert findings == []


# The rewording the two tests below share: a list item of a kiln's doc gains a link target.
VENT_LINK = Rewording(
    PATH,
    item="Kiln",
    find="- [`Vent`] to let steam out",
    replace="- [`Vent`](crate::parts::Vent) to let steam out of the chamber while it warms",
)


def test_a_block_whose_long_lines_are_never_wrapped_keeps_a_reworded_line_whole() -> None:
    # No paragraph of the block is wrapped, and one of its lines is longer than 80: its author
    # writes a paragraph per line, so the reworded item stays one line (here 95 characters).
    assert_reworded(
        """
        /// Optional parts of a kiln:
        /// - [`Damper`](crate::Damper) to hold the draft steady while the chamber cools after firing
        /// - [`Vent`] to let steam out
        pub struct Kiln;
    """,
        """
        /// Optional parts of a kiln:
        /// - [`Damper`](crate::Damper) to hold the draft steady while the chamber cools after firing
        /// - [`Vent`](crate::parts::Vent) to let steam out of the chamber while it warms
        pub struct Kiln;
    """,
        VENT_LINK,
    )


def test_a_block_of_short_unwrapped_lines_is_still_filled_to_80() -> None:
    assert_reworded(
        """
        /// Optional parts of a kiln:
        /// - [`Vent`] to let steam out
        pub struct Kiln;
    """,
        """
        /// Optional parts of a kiln:
        /// - [`Vent`](crate::parts::Vent) to let steam out of the chamber while it
        /// warms
        pub struct Kiln;
    """,
        VENT_LINK,
    )
