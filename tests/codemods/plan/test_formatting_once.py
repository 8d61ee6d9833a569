"""Formatting an edited file: the formatter runs on the edited text; where that changes it,
the answer is taken only if the file as read was clean by the formatter (formatted too, to
tell); where it changes nothing, the file as read is not formatted at all."""

from __future__ import annotations

import shutil

import pytest

from codemods import PatternRewrite, Recipe
from codemods.testing import assert_recipe

from codemod_helpers import formatted_texts

needs_rustfmt = pytest.mark.skipif(shutil.which("rustfmt") is None, reason="rustfmt is not installed")

CLEAN = """fn kiln_report() -> u32 {
    let glaze = firing_schedule(
        cone_temperature_reading,
        humidity_of_the_kiln_room,
        very_long_name_of_the_old_input,
    );
    glaze
}
"""


@needs_rustfmt
def test_a_clean_file_is_formatted_where_the_answer_reaches_past_the_edited_line() -> None:
    # The shorter argument lets rustfmt join the call onto one line: lines the rewrite did not
    # touch change, and the file was clean before, so the formatted text is taken.
    recipe = Recipe(
        id="shorten",
        summary="",
        rewrites=(PatternRewrite("src/lib.rs", "very_long_name_of_the_old_input", "x"),),
        check_scope=(),
        protected=(),
    )
    assert_recipe(
        {"src/lib.rs": CLEAN},
        recipe,
        {
            "src/lib.rs": (
                "fn kiln_report() -> u32 {\n"
                "    let glaze = firing_schedule(cone_temperature_reading, humidity_of_the_kiln_room, x);\n"
                "    glaze\n"
                "}\n"
            )
        },
    )


@needs_rustfmt
def test_a_file_not_clean_elsewhere_keeps_the_edited_lines_as_written() -> None:
    unclean = CLEAN + "\nfn   spare() {}\n"
    recipe = Recipe(
        id="shorten",
        summary="",
        rewrites=(PatternRewrite("src/lib.rs", "very_long_name_of_the_old_input", "x"),),
        check_scope=(),
        protected=(),
    )
    assert_recipe(
        {"src/lib.rs": unclean}, recipe, {"src/lib.rs": unclean.replace("very_long_name_of_the_old_input", "x")}
    )


@needs_rustfmt
def test_an_edit_the_formatter_leaves_as_it_is_formats_the_file_once(tmp_path, monkeypatch) -> None:
    from codemods import plan_recipe

    texts = formatted_texts(monkeypatch)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text(CLEAN)
    recipe = Recipe(
        id="rename",
        summary="",
        rewrites=(PatternRewrite("src/lib.rs", "humidity_of_the_kiln_room", "humidity_of_the_kiln_hall"),),
        check_scope=(),
        protected=(),
    )
    plan = plan_recipe(tmp_path, recipe)
    assert [c.after for c in plan.changes] == [CLEAN.replace("kiln_room", "kiln_hall").encode()]
    assert texts == [plan.changes[0].after]  # the file as read was not formatted


@needs_rustfmt
def test_a_file_whose_imports_go_after_its_formatting_started_is_planned_as_finally_edited(
    tmp_path, monkeypatch
) -> None:
    # The file as the deletion leaves it starts formatting before the import stage runs; that
    # stage then removes the `use` only the deleted function needed: the plan takes the
    # formatter's answer for the final text, never for the one before.
    from codemods import ItemTarget, plan_recipe

    texts = formatted_texts(monkeypatch)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text(
        "use std::collections::BTreeMap;\n\n"
        "pub fn shelf_ledger() -> BTreeMap<u32, u32> {\n    BTreeMap::new()\n}\n\n"
        "pub fn glaze_count() -> u32 {\n    7\n}\n"
    )
    recipe = Recipe(
        id="drop-ledger",
        summary="",
        deletions=(ItemTarget("src/lib.rs", "rust", "fn", "shelf_ledger"),),
        check_scope=(),
        protected=(),
    )
    plan = plan_recipe(tmp_path, recipe)
    assert not [f for f in plan.findings if f.blocking]
    final = b"pub fn glaze_count() -> u32 {\n    7\n}\n"
    assert [c.after for c in plan.changes] == [final]
    assert len(texts) >= 2  # the text before the import stage, and the final one (or their excerpts)
