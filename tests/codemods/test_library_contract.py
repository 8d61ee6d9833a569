"""What a refactor script importing `codemods` relies on: a blocked plan is never written,
a subset is checked as its whole plan was (same overrides, only what it removes counts as
removed), `extends` keeps every rule of its base, and a recipe has the same defaults built
in Python as read from TOML."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods import ItemTarget, PatternRewrite, Recipe, WriteRefused, load_recipe, plan_recipe, plan_subset, write_plan
from codemods.plan.subset import changes_of
from codemod_helpers import dedent, run_codemod
from write_trees import make_tree, snapshot

LEDGER = "src/ledger.rs"
TREE = {
    "Cargo.toml": b'[package]\nname = "ledger"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": dedent("""
        pub mod ledger;

        pub fn total() -> u32 {
            ledger::tally_entries()
        }
        """),
    LEDGER: dedent("""
        pub struct StaleCursor {
            pub at: u32,
        }

        pub fn tally_entries() -> u32 {
            3
        }

        pub fn stale_cursor_start() -> StaleCursor {
            StaleCursor { at: 0 }
        }
        """),
}
# Deletes what nothing else uses; the pattern guards both names.
RETIRE_CURSOR = Recipe(
    id="retire-cursor",
    summary="retire the stale cursor",
    deletions=(
        ItemTarget(LEDGER, "rust", "struct", "crate::StaleCursor"),
        ItemTarget(LEDGER, "rust", "fn", "crate::stale_cursor_start"),
    ),
    dead_symbol_pattern="StaleCursor|stale_cursor_start",
)
# Deletes a function lib.rs still calls: a plan with a blocking dangling reference.
DROP_TALLY = Recipe(
    id="drop-tally", summary="drop the tally", deletions=(ItemTarget(LEDGER, "rust", "fn", "crate::tally_entries"),)
)


def _ids(plan) -> list[str]:
    return [change.id for change in changes_of(plan)]


def test_write_plan_refuses_a_plan_with_blocking_findings(tmp_path: Path) -> None:
    from codemods import PlanRefused

    root = make_tree(tmp_path / "tree", TREE)
    plan = plan_recipe(root, DROP_TALLY)
    assert [f.code for f in plan.blocking] == ["dangling-reference"]
    before = snapshot(root)
    with pytest.raises(PlanRefused) as refused:
        write_plan(plan)
    assert isinstance(refused.value, WriteRefused)
    assert refused.value.findings == plan.blocking
    assert snapshot(root) == before


def test_write_plan_writes_a_blocked_plan_only_with_the_explicit_override(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree", TREE)
    write_plan(plan_recipe(root, DROP_TALLY), allow_blocking=True)
    assert "fn tally_entries" not in (root / LEDGER).read_text()


def test_a_skipped_deletion_is_not_removed_in_the_subset(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree", TREE)
    plan = plan_recipe(root, RETIRE_CURSOR)
    assert not plan.blocking
    struct = next(i for i in _ids(plan) if "StaleCursor" in i)
    subset = plan_subset(plan, [struct])
    assert subset.new_findings == () and subset.plan.blocking == []
    assert "pub struct StaleCursor" in subset.plan.changes[0].after.decode()
    everything = plan_subset(plan, _ids(plan))
    assert everything.new_findings == () and everything.plan.blocking == [] and everything.plan.changes == ()


def test_the_plan_holds_its_overrides_and_the_subset_keeps_them(tmp_path: Path) -> None:
    from codemods.plan.planner import PlanSettings

    root = make_tree(tmp_path / "tree", TREE)
    recipe = Recipe(
        id="retire-and-rename",
        summary="",
        deletions=RETIRE_CURSOR.deletions,
        rewrites=(PatternRewrite("src/lib.rs", "nothing_calls_this($$$A)", "still_nothing($$$A)"),),
    )
    plan = plan_recipe(root, recipe, allow_unmatched=True)
    assert plan.settings == PlanSettings(allow_unmatched=True)
    assert plan.blocking == [] and "rewrite-not-found" in {f.code for f in plan.findings}
    subset = plan_subset(plan, [_ids(plan)[0]])
    assert subset.plan.settings == plan.settings
    assert subset.plan.blocking == []


RETIRE_TOML = """\
id = "retire-and-rename"
summary = "retire the stale cursor, rename a call nobody makes"
[[delete]]
path = "src/ledger.rs"
language = "rust"
kind = "struct"
name = "crate::StaleCursor"
[[delete]]
path = "src/ledger.rs"
language = "rust"
kind = "fn"
name = "crate::stale_cursor_start"
[[rewrite]]
path = "src/lib.rs"
pattern = "nothing_calls_this($$$A)"
replace = "still_nothing($$$A)"
"""


@pytest.mark.parametrize(
    "choice",
    [
        ("--skip", "retire-and-rename:struct:crate::StaleCursor"),
        ("--accept", "retire-and-rename:fn:crate::stale_cursor_start"),
    ],
)
def test_allow_unmatched_holds_for_accept_and_skip(tmp_path: Path, choice: tuple[str, str]) -> None:
    root = make_tree(tmp_path / "tree", TREE)
    (tmp_path / "retire.toml").write_text(RETIRE_TOML)
    result = run_codemod("apply", "--recipe", str(tmp_path / "retire.toml"), "--allow-unmatched", *choice, str(root))
    assert result.exit_code == 0, result.stderr
    ledger = (root / LEDGER).read_text()
    assert "pub struct StaleCursor" in ledger and "fn stale_cursor_start" not in ledger


BASE_WITH_INSERT = """\
id = "{id}"
summary = "a base with an insertion"
dead_symbol_pattern = "stale_cursor_start"
check_scope = ["src"]
[[delete]]
path = "src/ledger.rs"
language = "rust"
kind = "fn"
name = "crate::stale_cursor_start"
[[insert]]
path = "src/ledger.rs"
item = "crate::tally_entries"
text = "// Counted once per ledger."
"""


@pytest.fixture
def bundled_base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A recipe with an `[[insert]]` rule, registered as bundled for the test."""
    import codemods.config.loader as loader
    import codemods.config.settings as settings

    base_id = f"base-with-insert-{tmp_path.name}"
    base = tmp_path / "base.toml"
    base.write_text(BASE_WITH_INSERT.format(id=base_id))
    catalog = {**loader.bundled_files(), base_id: base}
    monkeypatch.setattr(loader, "bundled_files", lambda: catalog)
    monkeypatch.setattr(settings, "bundled_files", lambda: catalog)
    return base_id


def test_extends_keeps_the_base_insertions(tmp_path: Path, bundled_base: str) -> None:
    local = tmp_path / "local.toml"
    local.write_text(
        f'extends = "{bundled_base}"\n[[insert]]\npath = "src/lib.rs"\nitem = "crate::total"\n'
        f'text = "// The sum of every ledger."\n'
    )
    recipe = load_recipe(str(local))
    assert [i.text for i in recipe.insertions] == ["// Counted once per ledger.", "// The sum of every ledger."]
    assert len(recipe.deletions) == 1


@pytest.mark.parametrize(
    "own", ["", 'id = "mine"\n', 'summary = "Also trims"\n', 'check_scope = ["lib"]\ndead_symbol_pattern = "x_y"\n']
)
def test_both_recipe_readers_merge_extends_alike(tmp_path: Path, bundled_base: str, own: str) -> None:
    from codemods.config.settings import dead_symbol_settings

    local = tmp_path / "local.toml"
    local.write_text(f'extends = "{bundled_base}"\n{own}')
    recipe = load_recipe(str(local))
    assert dead_symbol_settings(str(local)) == (
        recipe.id,
        recipe.dead_symbol_pattern,
        recipe.check_scope,
        recipe.summary,
    )


def test_a_python_recipe_and_a_toml_recipe_have_the_same_defaults(tmp_path: Path) -> None:
    (tmp_path / "bare.toml").write_text('id = "bare"\n')
    from_toml = load_recipe(str(tmp_path / "bare.toml"))
    in_python = Recipe(id="bare", summary="")
    assert (in_python.check_scope, in_python.protected) == (from_toml.check_scope, from_toml.protected) == ((), ())


def test_the_dead_symbol_check_of_a_python_recipe_covers_a_tree_without_src(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path / "tree",
        {
            "lib/ledger.rs": b"pub fn stale_cursor_start() -> u32 {\n    0\n}\n\npub fn keep() {}\n",
            "lib/notes.rs": b"// Call stale_cursor_start() first.\npub fn other() {}\n",
        },
    )
    recipe = Recipe(
        id="no-src",
        summary="",
        deletions=(ItemTarget("lib/ledger.rs", "rust", "fn", "crate::stale_cursor_start"),),
        dead_symbol_pattern="stale_cursor_start",
    )
    plan = plan_recipe(root, recipe)
    assert [(f.path, f.line, f.code) for f in plan.blocking] == [("lib/notes.rs", 1, "unreworded-mention")]
