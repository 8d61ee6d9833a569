"""mlxcel #2230's cleanup (a) (post-epic compat kernels): remove the reference-only dense-compat paged kernels.

Deletes the two C++ compat kernels and their declarations, their cxx bridge
entries, the Rust fallbacks, compat wrappers and validators, both metadata
types with their impls and test, and the two compat-vs-fallback FFI tests.
Items are found by kind and name in the files mlxcel #2230 names.

The items and the dead-symbol pattern are data, in paged_compat_removal.toml
(a recipe file like any other, docs/recipes.md); the prose rules are data too,
in paged_compat_layouts.toml, grouped by the layout of mlxcel's tree they were
written for. This module is the recipe's `build`: it adds the steps that need
code (the oracle rewrite of the pooled tests, trimming the empty-batch test,
deleting tests left with nothing to test) and the rules of the layout the
tree has.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
import tomllib
from pathlib import Path

from codemods.edit.codes import Code
from codemods.edit.values import Finding
from codemods.config.loader import rewordings_from
from codemods.config.builders import builds
from codemods.config.recipe import Recipe, Rewording, Workspace
from codemods.recipes.mlxcel.oracle import OracleRewrite
from codemods.recipes.mlxcel.trimming import DeleteOrphanedTests, TrimTest

CORE = "src/lib/mlxcel-core"
LIB_RS = f"{CORE}/src/lib.rs"
LAYERS_RS = f"{CORE}/src/layers.rs"
FFI_TESTS_RS = f"{CORE}/src/ffi_tests.rs"

POOLED_TESTS = (
    "test_pooled_paged_decode_matches_dense_over_200_steps",
    "test_pooled_paged_decode_sliding_window_via_logical_start",
    "test_pooled_paged_decode_batch_of_two",
    "test_pooled_prefill_then_decode_matches_dense",
)

# The four pooled tests keep their coverage on a generated dense reference.
REWRITE_ORACLE = OracleRewrite(
    path=FFI_TESTS_RS,
    tests=POOLED_TESTS,
    fallback="paged_decode_attention_dense_fallback",
    metadata_type="PagedDecodeMetadata",
    bridge=LIB_RS,
    helper="dense_reference_decode_attention",
)

# The empty-batch test keeps only its pooled third.
TRIM_EMPTY_BATCH_TEST = TrimTest(
    path=FFI_TESTS_RS,
    name="paged_decode_fallbacks_reject_an_empty_batch",
    new_name="paged_decode_pooled_fallback_rejects_an_empty_batch",
    removed_names=(
        "paged_decode_attention_dense_fallback",
        "paged_decode_attention_rotating_fallback",
        "PagedDecodeMetadata",
        "RotatingPagedDecodeMetadata",
    ),
)


LAYOUTS_FILE = Path(__file__).with_name("paged_compat_layouts.toml")


@dataclass(frozen=True)
class Layout:
    """A version of mlxcel's tree as far as the recipe's prose is concerned: recognised by the
    paths it `has`, with the rewording rules written for it."""

    name: str
    summary: str
    has: tuple[str, ...]
    rules: tuple[Rewording, ...]

    def fits(self, workspace: Workspace) -> bool:
        return all((workspace.root / path).exists() for path in self.has)


def load_layouts(recipe_id: str) -> tuple[Layout, ...]:
    """The layouts of paged_compat_layouts.toml, in order, their rules labelled for messages.
    The rules are optional: a tree of a layout may have dropped or reworded a sentence already
    (a finished run, or its maintainers), which is a note, not a reason to refuse the plan."""
    data = tomllib.loads(LAYOUTS_FILE.read_text(encoding="utf-8"))
    return tuple(
        Layout(
            str(table["name"]),
            str(table["summary"]),
            tuple(table["has"]),
            tuple(
                dataclasses.replace(rule, optional=True)
                for rule in rewordings_from(table.get("reword", []), f"{recipe_id} ({table['name']} layout)")
            ),
        )
        for table in data["layout"]
    )


@dataclass(frozen=True)
class SelectLayout:
    """Of the recipe's rewording rules, those of the first layout the tree fits (all of them
    when it fits none), and the rules of recipes extending this one; with one note saying which
    layout was recognised."""

    layouts: tuple[Layout, ...]

    def __call__(
        self, workspace: Workspace, rules: tuple[Rewording, ...]
    ) -> tuple[tuple[Rewording, ...], tuple[Finding, ...]]:
        ours = {rule.rule for layout in self.layouts for rule in layout.rules}
        layout = next((layout for layout in self.layouts if layout.fits(workspace)), None)
        if layout is None:
            note = (
                f"no known layout of the tree recognised ({', '.join(known.name for known in self.layouts)}); "
                f"every bundled rewording rule is tried"
            )
            return rules, (Finding("", 0, 0, Code.LAYOUT, note, severity="note"),)
        chosen = {rule.rule for rule in layout.rules}
        note = f"layout {layout.name!r} recognised ({layout.summary}): its {len(layout.rules)} rewording rule(s) apply"
        return (
            tuple(r for r in rules if r.rule in chosen or r.rule not in ours),
            (Finding("", 0, 0, Code.LAYOUT, note, severity="note"),),
        )


@builds("paged-compat-removal")
def build(recipe: Recipe) -> Recipe:
    """The recipe file's data plus its code steps: the oracle rewrite, the empty-batch test
    trimmed, and tests elsewhere in the edited files that exercise nothing but the removed
    items deleted with them (the plan names each one)."""
    orphaned = DeleteOrphanedTests(
        paths=tuple(dict.fromkeys(t.path for t in recipe.deletions if t.language == "rust")),
        removed_names=tuple(dict.fromkeys(t.name.split("::")[-1] for t in recipe.deletions)),
    )
    layouts = load_layouts(recipe.id)
    return dataclasses.replace(
        recipe,
        steps=(REWRITE_ORACLE, TRIM_EMPTY_BATCH_TEST, orphaned),
        rewordings=recipe.rewordings + tuple(r for layout in layouts for r in layout.rules),
        select_rewordings=SelectLayout(layouts),
    )
