"""`[[delete]]` of kind `file`: a whole file of any language, deleted in the plan's one write; what
names it (a `mod`, an `#include`, an `import`) is a dangling reference; and `infer_recipe` emits
it for a file a change deletes that no deleted module takes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codemods import ItemTarget, Recipe, RecipeError, infer_recipe, load_recipe, plan_recipe, render_diff, write_plan
from codemods.edit.codes import Code


def _tree(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def _file(path: str, language: str) -> ItemTarget:
    return ItemTarget(path, language, "file")


def _dangling(plan) -> list[tuple[str, int]]:
    return sorted((f.path, f.line) for f in plan.blocking if f.code == Code.DANGLING_REFERENCE)


def test_a_cpp_header_still_included_is_a_dangling_reference_at_the_include(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "lib/sieve.h": "#pragma once\nint sieve_count(int);\n",
            "lib/sieve.cc": '#include "sieve.h"\nint sieve_count(int n) { return n; }\n',
            "app/main.cc": '#include <vector>\n#include "lib/sieve.h"\nint main() { return 0; }\n',
        },
    )
    plan = plan_recipe(root, Recipe("t", "", deletions=(_file("lib/sieve.h", "cpp"),)))
    assert _dangling(plan) == [("app/main.cc", 2), ("lib/sieve.cc", 1)]
    deleted = [c.path for c in plan.changes if c.deleted]
    assert deleted == ["lib/sieve.h"]


def test_a_cpp_file_nothing_includes_goes_and_the_write_removes_it(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "src/abacus.cu": "__global__ void abacus_kernel() {}\n",
            "src/keep.cc": '#include "keep.h"\n',
            "src/keep.h": "#pragma once\n",
        },
    )
    plan = plan_recipe(root, Recipe("t", "", deletions=(_file("src/abacus.cu", "cpp"),)))
    assert plan.blocking == []
    assert "-__global__ void abacus_kernel() {}" in render_diff(plan)
    write_plan(plan)
    assert not (root / "src/abacus.cu").exists() and (root / "src/keep.cc").exists()


def test_a_header_found_elsewhere_once_the_deleted_one_is_gone_is_no_use(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "core/ring.h": "#pragma once\n",
            "core/include/ring.h": "#pragma once\n",
            "core/user.cc": '#include "ring.h"\n',
        },
    )
    plan = plan_recipe(root, Recipe("t", "", deletions=(_file("core/ring.h", "cpp"),)))
    assert plan.blocking == []


def test_a_python_module_still_imported_is_a_dangling_reference(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/lantern.py": "def glow():\n    return 1\n",
            "pkg/user.py": "from pkg.lantern import glow\n",
            "pkg/near.py": "from . import lantern\n",
            "pkg/other.py": "import json\nfrom pkg import user\n",
        },
    )
    plan = plan_recipe(root, Recipe("t", "", deletions=(_file("pkg/lantern.py", "python"),)))
    assert _dangling(plan) == [("pkg/near.py", 1), ("pkg/user.py", 1)]


def test_a_package_init_is_used_only_by_what_its_folder_does_not_hold(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "kiln/__init__.py": "HEAT = 3\n",
            "kiln/glaze.py": "",
            "run.py": "from kiln import glaze\nimport kiln.glaze\nfrom kiln import HEAT\n",
        },
    )
    plan = plan_recipe(root, Recipe("t", "", deletions=(_file("kiln/__init__.py", "python"),)))
    assert _dangling(plan) == [("run.py", 3)]


def test_a_rust_file_a_kept_mod_declares_is_refused_and_one_no_mod_declares_goes(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "ledger"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/lib.rs": "mod tally;\npub fn total() -> u8 { 0 }\n",
            "src/tally.rs": "pub fn add() {}\n",
            "src/loose.rs": "pub fn drift() {}\n",
        },
    )
    plan = plan_recipe(root, Recipe("t", "", deletions=(_file("src/tally.rs", "rust"), _file("src/loose.rs", "rust"))))
    assert _dangling(plan) == [("src/lib.rs", 1)]
    assert "kind = 'mod'" in plan.blocking[0].message
    plan = plan_recipe(root, Recipe("t", "", deletions=(_file("src/loose.rs", "rust"),)))
    assert plan.blocking == [] and [c.path for c in plan.changes if c.deleted] == ["src/loose.rs"]
    both = plan_recipe(
        root,
        Recipe(
            "t", "", deletions=(_file("src/tally.rs", "rust"), ItemTarget("src/lib.rs", "rust", "mod", "crate::tally"))
        ),
    )
    assert both.blocking == []


def test_the_loader_takes_kind_file_without_a_name_and_refuses_one_with(tmp_path: Path) -> None:
    recipe = tmp_path / "r.toml"
    recipe.write_text('id = "x"\n[[delete]]\npath = "a.py"\nlanguage = "python"\nkind = "file"\n', encoding="utf-8")
    assert load_recipe(str(recipe)).deletions[0].kind == "file"
    recipe.write_text(
        'id = "x"\n[[delete]]\npath = "a.py"\nlanguage = "python"\nkind = "file"\nname = "f"\n', encoding="utf-8"
    )
    with pytest.raises(RecipeError, match="takes no name"):
        load_recipe(str(recipe))


@pytest.mark.parametrize(
    "path, text",
    [
        ("tools/spindle.py", "def spin():\n    return 2\n"),
        ("gpu/spindle.cu", "__global__ void spin() {}\n"),
        ("examples/spindle.rs", "fn main() {}\n"),
    ],
)
def test_infer_emits_a_file_delete_for_a_file_no_module_takes(tmp_path: Path, path: str, text: str) -> None:
    keep = {"keep/loom.py": "X = 1\n"}
    before = _tree(tmp_path / "before", {**keep, path: text})
    after = _tree(tmp_path / "after", keep)
    inferred = infer_recipe(before, after)
    assert inferred.unexpressed == ()
    assert f'path = "{path}"' in inferred.toml and 'kind = "file"' in inferred.toml and "name =" not in inferred.toml
    recipe = tmp_path / "r.toml"
    recipe.write_text(inferred.toml, encoding="utf-8")
    plan = plan_recipe(before, load_recipe(str(recipe)))
    assert plan.blocking == [] and [c.path for c in plan.changes if c.deleted] == [path]


def test_infer_leaves_a_module_file_to_its_mod(tmp_path: Path) -> None:
    lib = {"Cargo.toml": '[package]\nname = "spool"\nversion = "0.1.0"\nedition = "2021"\n'}
    before = _tree(
        tmp_path / "before",
        {**lib, "src/lib.rs": "mod bobbin;\npub fn wind() {}\n", "src/bobbin.rs": "pub fn turn() {}\n"},
    )
    after = _tree(tmp_path / "after", {**lib, "src/lib.rs": "pub fn wind() {}\n"})
    inferred = infer_recipe(before, after)
    assert 'kind = "mod"' in inferred.toml and 'kind = "file"' not in inferred.toml


def test_each_deleted_file_is_one_change_of_a_subset(tmp_path: Path) -> None:
    from codemods import changes_of, plan_subset

    root = _tree(tmp_path, {"gears/cog.py": "A = 1\n", "gears/sprocket.py": "B = 2\n", "gears/axle.py": "C = 3\n"})
    plan = plan_recipe(
        root, Recipe("t", "", deletions=(_file("gears/cog.py", "python"), _file("gears/sprocket.py", "python")))
    )
    ids = [c.id for c in changes_of(plan)]
    assert len(ids) == 2 and all("file" in i for i in ids), ids
    kept = plan_subset(plan, [next(i for i in ids if "cog" in i)])
    assert [c.path for c in kept.plan.changes if c.deleted] == ["gears/sprocket.py"]


def test_a_deleted_headers_classes_used_by_its_includers_are_dangling_there(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "spool.h": "#pragma once\nclass Spool {\n public:\n  int turns() const;\n};\n",
            "reel.h": '#pragma once\n#include "spool.h"\nclass Reel : public Spool {};\n',
            "own.cpp": "class Spool { public: int turns() const { return 1; } };\nint own() { Spool s; return s.turns(); }\n",
        },
    )
    plan = plan_recipe(root, Recipe("t", "", deletions=(_file("spool.h", "cpp"),)))
    assert _dangling(plan) == [("reel.h", 2), ("reel.h", 3)]
