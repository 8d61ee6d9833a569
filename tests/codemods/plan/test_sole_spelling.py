"""A field read on a receiver whose type is not known (`x.field`, `this->field` in a derived
class, `global.field`) is only a possible use where it is judged alone; over the whole plan it is
definite when no other code in the tree spells the name, since then nothing else can declare it.
Where anything else spells it (another type's member, a local, a parameter, a build file), the
read stays possible (listed, not blocking)."""

from __future__ import annotations

from pathlib import Path

from codemods import ItemTarget, Recipe, plan_recipe


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _uses(root: Path, *targets: ItemTarget) -> list[tuple[str, int, str | None]]:
    plan = plan_recipe(root, Recipe(id="t", summary="", deletions=targets))
    return sorted((f.path, f.line, f.certainty) for f in plan.findings if f.code == "dangling-reference")


KILN = {
    "kiln.h": "#pragma once\nstruct Kiln {\n  int glaze_depth;\n  int peak_heat;\n};\nextern Kiln shared_kiln;\n",
    "base.h": '#pragma once\n#include "kiln.h"\nclass Studio {\n protected:\n  Kiln* kiln_;\n};\n',
    "fire.cpp": (
        '#include "base.h"\n'
        "template <typename K>\nint fire(K& k) {\n  int depth = 0;\n  return k.glaze_depth;\n}\n"
        "int heat() { return shared_kiln.peak_heat; }\n"
    ),
}


def test_a_field_no_other_code_spells_is_used_by_reads_on_receivers_of_unknown_type(tmp_path: Path) -> None:
    root = _write(tmp_path, KILN)
    assert _uses(root, ItemTarget("kiln.h", "cpp", "field", "Kiln::glaze_depth")) == [("fire.cpp", 5, "definite")]


def test_another_spelling_of_the_name_leaves_the_read_possible(tmp_path: Path) -> None:
    root = _write(tmp_path, {**KILN, "meter.h": "#pragma once\nstruct Meter {\n  int glaze_depth;\n};\n"})
    assert _uses(root, ItemTarget("kiln.h", "cpp", "field", "Kiln::glaze_depth")) == [("fire.cpp", 5, "possible")]
    root = _write(
        tmp_path, {**KILN, "meter.h": "", "probe.cpp": "int probe(int glaze_depth) { return glaze_depth; }\n"}
    )
    assert _uses(root, ItemTarget("kiln.h", "cpp", "field", "Kiln::glaze_depth")) == [("fire.cpp", 5, "possible")]


def test_a_build_file_spelling_the_name_counts_and_prose_does_not(tmp_path: Path) -> None:
    root = _write(tmp_path, {**KILN, "NOTES.md": "The glaze_depth field is gone.\n"})
    assert _uses(root, ItemTarget("kiln.h", "cpp", "field", "Kiln::glaze_depth")) == [("fire.cpp", 5, "definite")]
    root = _write(tmp_path, {**KILN, "fields.def": "FIELD(glaze_depth)\n"})
    assert _uses(root, ItemTarget("kiln.h", "cpp", "field", "Kiln::glaze_depth")) == [("fire.cpp", 5, "possible")]


def test_a_rust_field_read_on_a_receiver_of_unknown_type(tmp_path: Path) -> None:
    files = {
        "Cargo.toml": '[package]\nname = "quarry"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs": "pub mod slab;\nmod cut;\n",
        "src/slab.rs": "pub struct Slab {\n    pub grain_angle: u32,\n    pub mass: u32,\n}\n",
        "src/cut.rs": "pub fn angle<T: Into<crate::slab::Slab>>(s: T) -> u32 {\n    s.into().grain_angle\n}\n",
    }
    root = _write(tmp_path, files)
    target = ItemTarget("src/slab.rs", "rust", "field", "Slab::grain_angle")
    assert _uses(root, target) == [("src/cut.rs", 2, "definite")]
    _write(root, {"src/lib.rs": "pub mod slab;\nmod cut;\npub struct Ledge {\n    pub grain_angle: u8,\n}\n"})
    assert _uses(root, target) == [("src/cut.rs", 2, "possible")]
