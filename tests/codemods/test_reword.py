"""Rewording rules: comments found by item, sentences by the symbols they name, paragraphs refilled."""

from __future__ import annotations

from pathlib import Path

from codemods import Recipe, Rewording, plan_recipe

from codemod_helpers import dedent_text as dedent

PATH = "src/lib.rs"


def reworded(tmp_path: Path, before: str, *rules: Rewording) -> tuple[str, list[str]]:
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / PATH).write_text(dedent(before))
    plan = plan_recipe(tmp_path, Recipe(id="r", summary="", rewordings=rules))
    after = next((c.after.decode() for c in plan.changes), dedent(before))
    return after, [f.render() for f in plan.findings]


def test_the_sentence_naming_a_symbol_is_replaced_and_the_paragraph_refilled(tmp_path: Path) -> None:
    after, findings = reworded(tmp_path, """
        /// Gathers blocks from the pool. It is the pooled twin of
        /// [`old_fallback`], which the tests
        /// pin it against. The result is `[B, H, 1, D]`, e.g. one row per sequence.
        ///
        /// A second paragraph that stays.
        pub fn pooled() {}

        /// Also names [`old_fallback`]. Left alone: another item.
        pub fn other() {}
    """, Rewording(PATH, item="pooled", symbols=("old_fallback",),
                   replace="Its tests check it against a dense reference over contiguous K/V."))
    assert findings == []
    assert after == dedent("""
        /// Gathers blocks from the pool. Its tests check it against a dense reference
        /// over contiguous K/V. The result is `[B, H, 1, D]`, e.g. one row per
        /// sequence.
        ///
        /// A second paragraph that stays.
        pub fn pooled() {}

        /// Also names [`old_fallback`]. Left alone: another item.
        pub fn other() {}
    """)


def test_following_sentences_and_a_banner_above_the_item(tmp_path: Path) -> None:
    after, _ = reworded(tmp_path, """
        fn before() {}

        // ---------------------------------------------------------------
        // Pooled decode: `pooled` reads the pool, whereas `old_fallback`
        // slices dense buffers. Both feed one kernel. So they match.
        // ---------------------------------------------------------------

        /// Helper.
        fn helper() {}
    """, Rewording(PATH, item="helper", symbols=("old_fallback",), sentences=3,
                   replace="Pooled decode: `pooled` reads the pool; a dense reference reads contiguous K/V."))
    assert after == dedent("""
        fn before() {}

        // ---------------------------------------------------------------
        // Pooled decode: `pooled` reads the pool; a dense reference reads contiguous
        // K/V.
        // ---------------------------------------------------------------

        /// Helper.
        fn helper() {}
    """)


def test_a_phrase_matches_across_lines_and_markers(tmp_path: Path) -> None:
    after, _ = reworded(tmp_path, """
        impl Pool {
            /// Runs the pooled and
            /// dense fallbacks, and compares them.
            fn check() {}
        }
    """, Rewording(PATH, item="Pool::check", find="the pooled and\n/// dense fallbacks,",
                   replace="the pooled fallback and the dense reference,"))
    assert after == dedent("""
        impl Pool {
            /// Runs the pooled fallback and the dense reference, and compares them.
            fn check() {}
        }
    """)


def test_a_rule_that_finds_nothing_is_a_note_and_an_applied_one_is_silent(tmp_path: Path) -> None:
    source = """
        /// Reads the pool. Tests compare it with a dense reference.
        pub fn pooled() {}
    """
    rules = (
        Rewording(PATH, item="pooled", symbols=("old_fallback",), replace="Tests compare it with a dense reference."),
        Rewording(PATH, item="missing", symbols=("old_fallback",), replace="x"),
        Rewording(PATH, find="a sentence nobody wrote", replace="y"),
    )
    after, findings = reworded(tmp_path, source, *rules)
    assert after == dedent(source)
    assert findings == [
        "src/lib.rs: rewording rule did not match: no item missing",
        "src/lib.rs: rewording rule did not match: 'a sentence nobody wrote'",
    ]


def test_a_sentence_must_name_every_symbol_of_the_rule(tmp_path: Path) -> None:
    after, findings = reworded(tmp_path, """
        /// Models call [`dense_compat`] and [`dense_fallback`], never this.
        pub fn pooled() {}
    """, Rewording(PATH, item="pooled", symbols=("dense_compat", "rotating_compat"), replace="x"))
    assert findings == ["src/lib.rs: rewording rule did not match: the sentence naming dense_compat and "
                        "rotating_compat in the comments of pooled"]
