"""The finding codes: one catalogue (codemods/edit/codes.py), one docs table (docs/findings.md),
and no code spelt as a string literal anywhere else in the package."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

from codemod_helpers import dedent_text, run_codemod

from codemods import ItemTarget, Recipe, plan_recipe
from codemods.edit.codes import CATALOGUE, Code
from codemods.plan.linking import target_of
from codemods.plan.subset import change_id

HOUSE = Path(__file__).resolve().parents[3]
PACKAGE = HOUSE / "codemods"
CATALOGUE_MODULE = PACKAGE / "edit" / "codes.py"


def _package_modules() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if p != CATALOGUE_MODULE]


def _subscript_keys(tree: ast.AST) -> set[int]:
    """The ids of the constants used as `data["key"]`: keys of data read, not codes."""
    return {id(node.slice) for node in ast.walk(tree) if isinstance(node, ast.Subscript)}


def test_every_code_has_a_meaning_and_a_remedy() -> None:
    assert set(CATALOGUE) == set(Code)
    assert all(info.meaning and info.remedy for info in CATALOGUE.values())
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", code.value) for code in Code)


def test_no_module_spells_a_code_as_a_string() -> None:
    slugs = {code.value for code in Code}
    spelt = []
    for path in _package_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        keys = _subscript_keys(tree)
        spelt += [
            f"{path.relative_to(HOUSE)}:{node.lineno}: {node.value}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in slugs and id(node) not in keys
        ]
    assert spelt == []


def test_every_finding_is_made_with_a_code_of_the_catalogue() -> None:
    """A `Finding(path, line, col, CODE, ...)` names its code by a name (`Code.X`, or a constant
    bound to one), never by a literal or an f-string."""
    literal = []
    for path in _package_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "Finding"
                and not any(isinstance(a, ast.Starred) for a in node.args[:3])
                and len(node.args) > 3
            ):
                if isinstance(node.args[3], (ast.Constant, ast.JoinedStr)):
                    literal.append(f"{path.relative_to(HOUSE)}:{node.lineno}")
    assert literal == []


def test_the_docs_table_lists_the_catalogue() -> None:
    text = (HOUSE / "docs" / "findings.md").read_text(encoding="utf-8")
    documented = re.findall(r"^\| `([a-z-]+)` \| (.+?) \| (.+?) \|$", text, flags=re.M)
    assert [code for code, _, _ in documented] == [code.value for code in CATALOGUE]
    for (code, meaning, remedy), info in zip(documented, CATALOGUE.values()):
        assert meaning == info.meaning, code
        assert remedy.startswith(info.remedy), code
        if info.override:
            assert info.override.split(" ")[0] in remedy, code


def test_a_code_is_its_slug_in_every_output() -> None:
    from codemods.edit.values import Finding

    finding = Finding("src/a.rs", 1, 2, Code.DANGLING_REFERENCE, "frob: code still refers to it")
    assert finding.code == "dangling-reference"
    assert finding.as_json()["code"] == "dangling-reference"
    assert type(finding.as_json()["code"]) is str


MISSPELT_TREE = {
    "src/lib.rs": dedent_text("""
    pub fn keep() {}

    /// Merges two page lists.
    pub fn merge_pages(a: u32) -> u32 {
        a
    }
""")
}


def _planned(tmp_path: Path, tree: dict[str, str], recipe):
    for path, text in tree.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return plan_recipe(tmp_path, recipe)


def test_a_missing_target_is_linked_to_it_and_placed_at_the_closest_item(tmp_path: Path) -> None:
    target = ItemTarget("src/lib.rs", "rust", "fn", "crate::merge_page")
    plan = _planned(tmp_path, MISSPELT_TREE, Recipe(id="tidy-pages", summary="", deletions=(target,)))
    [finding] = plan.findings
    assert (finding.code, finding.target, finding.candidates) == (Code.NO_SUCH_ITEM, target, ("crate::merge_pages",))
    assert (finding.line, finding.col) == (4, 1)  # `pub fn merge_pages`, below its doc comment
    assert finding.as_json()["target"] == {
        "path": "src/lib.rs",
        "language": "rust",
        "kind": "fn",
        "name": "crate::merge_page",
    }


def test_plan_to_json_is_what_the_json_reporter_prints(tmp_path: Path) -> None:
    target = ItemTarget("src/lib.rs", "rust", "fn", "crate::merge_pages")
    plan = _planned(tmp_path, MISSPELT_TREE, Recipe(id="tidy-pages", summary="", deletions=(target,)))
    document = plan.to_dict()
    assert json.loads(plan.to_json()) == document
    assert (document["recipe"], document["blocking"], document["removed_names"]) == ("tidy-pages", 0, ["merge_pages"])
    assert document["changes"][0]["path"] == "src/lib.rs"
    assert "-pub fn merge_pages(a: u32) -> u32 {" in document["changes"][0]["diff"]
    result = run_codemod("apply", "--dry-run", "--json", "--recipe", str(_recipe_file(tmp_path, target)), str(tmp_path))
    printed = json.loads(result.stdout)
    assert {k: printed[k] for k in document} == {**document, "root": printed["root"]}


def _recipe_file(folder: Path, target: ItemTarget) -> Path:
    path = folder / "tidy.toml"
    path.write_text(
        f'id = "tidy-pages"\nsummary = ""\n\n[[delete]]\npath = "{target.path}"\n'
        f'language = "{target.language}"\nkind = "{target.kind}"\nname = "{target.name}"\n'
    )
    return path


def test_change_ids_are_slugs_not_labels() -> None:
    assert change_id("tidy [[reword]] 2 (item = 'Pager', symbols = ['merge_pages'])") == "tidy:reword:2"
    assert change_id("local (a layout) [[reword]] 1 (find = 'x')") == "local-a-layout:reword:1"
    assert change_id("tidy:impl:impl From<PageError> for Error") == "tidy:impl:impl-From-PageError-for-Error"
    assert change_id("tidy:function:pages::copy(const char*, size_t)") == "tidy:function:pages::copy-const-char-size_t"
    assert change_id("tidy-step@test_merge") == "tidy-step@test_merge"


SHELVING_TREE = {
    "Cargo.toml": '[package]\nname = "shelving"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": dedent_text("""
    pub fn stack_crates(n: u32) -> u32 {
        n
    }

    pub struct Pallet;

    """),
    "src/main.rs": dedent_text("""
    fn main() {
        let _ = shelving::stack_crates(1);
        let _ = shelving::Pallet;
    }
    """),
    "src/bins.cpp": "int widen(int a) { return a; }\nint widened() { return widen(1); }\n",
    "tools/fold.py": "def fold_bins():\n    pass\n\n\nfold_bins()\n",
}


def test_each_dangling_reference_is_linked_to_the_target_whose_deletion_removed_it(tmp_path: Path) -> None:
    """A script can tell which target a use still needs (to skip it, or to fix the use), in every
    language, two targets of one file each with its own uses; `Plan.to_json()` says it too."""
    stack = ItemTarget("src/lib.rs", "rust", "fn", "crate::stack_crates")
    pallet = ItemTarget("src/lib.rs", "rust", "struct", "crate::Pallet")
    widen = ItemTarget("src/bins.cpp", "cpp", "function", "widen")
    fold = ItemTarget("tools/fold.py", "python", "function", "fold_bins")
    plan = _planned(tmp_path, SHELVING_TREE, Recipe(id="shelving", summary="", deletions=(stack, pallet, widen, fold)))
    dangling = {(f.path, f.line, f.symbol): f.target for f in plan.findings if f.code == Code.DANGLING_REFERENCE}
    assert dangling == {
        ("src/main.rs", 2, "stack_crates"): stack,
        ("src/main.rs", 3, "Pallet"): pallet,
        ("src/bins.cpp", 2, "widen"): widen,
        ("tools/fold.py", 5, "fold_bins"): fold,
    }
    printed = [f for f in plan.to_dict()["findings"] if f["code"] == Code.DANGLING_REFERENCE.value]
    assert {(f["symbol"], f["target"]["name"]) for f in printed} == {
        ("stack_crates", "crate::stack_crates"),
        ("Pallet", "crate::Pallet"),
        ("widen", "widen"),
        ("fold_bins", "fold_bins"),
    }


@dataclass(frozen=True)
class _Gone:
    """A deleted item as a plug-in records it: a name and the file it was in."""

    name: str
    path: str


def test_a_use_of_an_item_deleted_with_another_is_linked_by_its_file() -> None:
    """A name no target spells (a member deleted with its type) goes with the target of the file it
    was deleted from, or with none when that file has several; a name several targets spell goes
    with the one whose file it was deleted from."""
    crate_fn = ItemTarget("src/lib.rs", "rust", "fn", "crate::stack_crates")
    tidy_a = ItemTarget("src/a.rs", "rust", "fn", "crate::a::tidy")
    tidy_b = ItemTarget("src/b.rs", "rust", "fn", "crate::b::tidy")
    assert target_of("slot", [crate_fn, tidy_a], [_Gone("slot", "src/lib.rs")]) == crate_fn
    assert target_of("slot", [crate_fn, tidy_a], [_Gone("slot", "src/c.rs")]) is None
    assert target_of("tidy", [tidy_a, tidy_b], [_Gone("tidy", "src/b.rs")]) == tidy_b
    assert target_of("tidy", [tidy_a, tidy_b], [_Gone("tidy", "src/a.rs"), _Gone("tidy", "src/b.rs")]) is None
    assert (
        target_of(
            "slot",
            [crate_fn, ItemTarget("src/lib.rs", "rust", "struct", "crate::Pallet")],
            [_Gone("slot", "src/lib.rs")],
        )
        is None
    )


def test_the_refusals_of_a_deletion_name_their_target(tmp_path: Path) -> None:
    """A target that is missing, names several items, or names an item of another kind is the
    finding's `target`, in Rust and C++ alike."""
    tree = {
        "src/lib.rs": "pub struct Pallet;\nmod a { pub fn tidy() {} }\nmod b { pub fn tidy() {} }\n",
        "src/bins.cpp": "int widen(int a) { return a; }\nint widen(double a) { return 1; }\n",
    }
    targets = (
        ItemTarget("src/lib.rs", "rust", "fn", "crate::Pallet"),
        ItemTarget("src/lib.rs", "rust", "fn", "tidy"),
        ItemTarget("src/lib.rs", "rust", "fn", "crate::stacked"),
        ItemTarget("src/bins.cpp", "cpp", "function", "widen"),
    )
    plan = _planned(tmp_path, tree, Recipe(id="shelving", summary="", deletions=targets))
    assert {(f.code, f.target) for f in plan.blocking} == {
        (Code.SHAPE_MISMATCH, targets[0]),
        (Code.AMBIGUOUS, targets[1]),
        (Code.NO_SUCH_ITEM, targets[2]),
        (Code.AMBIGUOUS_TARGET, targets[3]),
    }
