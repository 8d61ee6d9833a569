"""The reference check of Python names: resolved by scope and module, not by spelling (issue 38,
wrong refusals). A deleted function, class or method is used where an import, a module
attribute or its own unbound name reaches it; a parameter, a local, a keyword argument, an
attribute of another receiver or another definition of the same name is not a use."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from codemods import ItemTarget, Recipe, plan_recipe
from codemods.edit.codes import Code
from codemods.languages.resolution import DEFINITE, POSSIBLE


def _dangling(tmp_path: Path, tree: dict[str, str], *targets: ItemTarget) -> dict[tuple[str, int, str | None], str]:
    for path, text in tree.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(dedent(text).lstrip("\n"))
    plan = plan_recipe(tmp_path, Recipe(id="prune-orchard", summary="", deletions=targets))
    return {(f.path, f.line, f.symbol): f.certainty or "" for f in plan.findings if f.code == Code.DANGLING_REFERENCE}


ORCHARD = {
    "orchard/__init__.py": "",
    "orchard/trees.py": """
        class Sapling:
            def graft(self):
                return self.prune_twig()

            def prune_twig(self):
                return 1


        class Rootstock(Sapling):
            def prune_twig(self):
                return 2


        def harvest_plums(basket):
            return basket


        def tally(harvest_plums, **options):
            options.update(harvest_plums=3)
            return harvest_plums + options.harvest_plums


        def count(crate):
            return harvest_plums(crate)
        """,
    "market/stall.py": """
        from orchard.trees import harvest_plums as gather
        import orchard.trees as grove


        def sell(ledger):
            ledger.harvest_plums()
            return gather(1), grove.harvest_plums(2)
        """,
    "market/other.py": """
        from orchard import trees


        def harvest_plums():
            return 0


        def stock(stand):
            twig = stand.prune_twig()
            return harvest_plums(), twig, trees.Sapling.prune_twig
        """,
}


def test_a_deleted_function_is_used_through_imports_and_its_own_module_only(tmp_path: Path) -> None:
    found = _dangling(tmp_path, ORCHARD, ItemTarget("orchard/trees.py", "python", "function", "harvest_plums"))
    assert found == {
        ("orchard/trees.py", 24, "harvest_plums"): DEFINITE,  # `count`: its own module's name, now unbound
        ("market/stall.py", 1, "harvest_plums"): DEFINITE,  # the import
        ("market/stall.py", 7, "harvest_plums"): DEFINITE,  # its alias `gather`, and `grove.harvest_plums`
    }


def test_a_deleted_method_is_definite_on_self_and_possible_on_other_receivers(tmp_path: Path) -> None:
    found = _dangling(tmp_path, ORCHARD, ItemTarget("orchard/trees.py", "python", "function", "Sapling.prune_twig"))
    assert found == {
        ("orchard/trees.py", 3, "prune_twig"): DEFINITE,  # `self.prune_twig()` in its own class
        ("market/other.py", 9, "prune_twig"): POSSIBLE,  # `stand.prune_twig()`: a receiver of unknown type
        ("market/other.py", 10, "prune_twig"): DEFINITE,  # `trees.Sapling.prune_twig`
    }


def test_the_method_of_a_class_with_bases_and_a_dunder_method_are_not_blocking(tmp_path: Path) -> None:
    found = _dangling(tmp_path, ORCHARD, ItemTarget("orchard/trees.py", "python", "function", "Rootstock.prune_twig"))
    assert set(found.values()) == {POSSIBLE} and ("orchard/trees.py", 3, "prune_twig") in found
    tree = dict(
        ORCHARD,
        **{
            "orchard/crates.py": """
        class Crate:
            def __init__(self):
                self.slats = 4


        class Pallet(Crate):
            def __init__(self):
                super().__init__()
        """
        },
    )
    assert _dangling(tmp_path, tree, ItemTarget("orchard/crates.py", "python", "function", "Crate.__init__")) == {}


def test_a_second_definition_of_the_name_is_not_a_use_of_the_first(tmp_path: Path) -> None:
    tree = {
        "checks/test_pears.py": """
        def test_ripe_pears():
            assert 1


        def test_ripe_pears():
            assert 2
        """
    }
    assert _dangling(tmp_path, tree, ItemTarget("checks/test_pears.py", "python", "function", "test_ripe_pears")) == {}


def test_a_file_that_does_not_parse_is_matched_by_spelling(tmp_path: Path) -> None:
    tree = dict(ORCHARD, **{"legacy/old.py": "print 'x'\nhandle = harvest_plums\n"})
    found = _dangling(tmp_path, tree, ItemTarget("orchard/trees.py", "python", "function", "harvest_plums"))
    assert found[("legacy/old.py", 2, "harvest_plums")] == DEFINITE


def test_in_a_file_ast_does_not_parse_definitions_keywords_and_dunders_are_not_uses(tmp_path: Path) -> None:
    tree = dict(
        ORCHARD,
        **{
            "orchard/crates.py": "class Crate:\n    def __init__(self):\n        self.slats = 4\n",
            "legacy/press.py": """
            print 'pressing'
            juice = harvest_plums(3)
            spill(harvest_plums=4)
            def harvest_plums(n):
                return Crate.__init__
            barrel.harvest_plums
            """,
        },
    )
    found = _dangling(
        tmp_path,
        tree,
        ItemTarget("orchard/trees.py", "python", "function", "harvest_plums"),
        ItemTarget("orchard/crates.py", "python", "function", "Crate.__init__"),
    )
    assert {k: v for k, v in found.items() if k[0] == "legacy/press.py"} == {
        ("legacy/press.py", 2, "harvest_plums"): DEFINITE,
        ("legacy/press.py", 6, "harvest_plums"): POSSIBLE,
    }


def test_a_receiver_typed_by_a_constructor_call_or_an_annotation_makes_a_method_use_definite(tmp_path: Path) -> None:
    tree = dict(
        ORCHARD,
        **{
            "market/typed.py": """
        from orchard.trees import Sapling, harvest_plums
        import orchard.trees as grove


        class Hedge:
            def prune_twig(self):
                return 0


        def tend(given: Sapling, hedge: Hedge, unknown):
            young = grove.Sapling()
            fence = Hedge()
            picked = harvest_plums(1)
            young.prune_twig()
            given.prune_twig()
            fence.prune_twig()
            hedge.prune_twig()
            picked.prune_twig()
            unknown.prune_twig()
        """
        },
    )
    found = _dangling(tmp_path, tree, ItemTarget("orchard/trees.py", "python", "function", "Sapling.prune_twig"))
    assert {k[1]: v for k, v in found.items() if k[0] == "market/typed.py"} == {
        14: DEFINITE,
        15: DEFINITE,  # a `Sapling()` and a parameter annotated `Sapling`
        18: POSSIBLE,
        19: POSSIBLE,  # what a function returned, an unannotated parameter
    }  # a `Hedge`, a class of the file's own, is no `Sapling`


def test_a_deleted_pytest_fixture_is_used_by_the_parameters_that_name_it_under_its_conftest(tmp_path: Path) -> None:
    tree = {
        "checks/conftest.py": """
            import pytest


            @pytest.fixture(scope="module")
            def ripe_basket():
                return []
            """,
        "checks/test_baskets.py": """
            def test_weighs(ripe_basket):
                assert ripe_basket == []
            """,
        "elsewhere/test_other.py": """
            def test_weighs(ripe_basket):
                assert ripe_basket
            """,
    }
    found = _dangling(tmp_path, tree, ItemTarget("checks/conftest.py", "python", "function", "ripe_basket"))
    assert found == {("checks/test_baskets.py", 1, "ripe_basket"): DEFINITE}


KILNWORKS = {
    "kilnworks/__init__.py": "",
    "kilnworks/vessel.py": """
        class Vessel:
            def __init__(self):
                self.fired = False

            @property
            def glaze_layer(self):
                return 2

            def stamp(self):
                return self.glaze_layer
        """,
    "kilnworks/jug.py": """
        from kilnworks import vessel


        class Jug(vessel.Vessel):
            pass


        class Ewer(vessel.Vessel):
            glaze_layer = 5
        """,
    "kilnworks/shop.py": """
        import kilnworks.jug


        def price(item):
            assert isinstance(item, kilnworks.jug.Jug)
            return item.glaze_layer


        def price_ewer(item):
            assert isinstance(item, kilnworks.jug.Ewer)
            return item.glaze_layer


        def price_any(item):
            return item.glaze_layer
        """,
}


def test_a_member_is_followed_to_the_base_class_that_provides_it_across_modules(tmp_path: Path) -> None:
    """`assert isinstance(p, Klass)` types the parameter; the member of a `Jug` is the `Vessel`'s
    (its base in another module), of an `Ewer` its own (no use); the deleted method's class has no
    base, so `self.glaze_layer` in it is definite; an untyped parameter's is possible."""
    target = ItemTarget("kilnworks/vessel.py", "python", "function", "Vessel.glaze_layer")
    found = _dangling(tmp_path, KILNWORKS, target)
    assert found == {
        ("kilnworks/vessel.py", 10, "glaze_layer"): DEFINITE,
        ("kilnworks/shop.py", 6, "glaze_layer"): DEFINITE,
        ("kilnworks/shop.py", 15, "glaze_layer"): POSSIBLE,
    }


def test_a_base_class_outside_the_tree_may_provide_the_name(tmp_path: Path) -> None:
    tree = dict(KILNWORKS)
    tree["kilnworks/vessel.py"] = tree["kilnworks/vessel.py"].replace(
        "class Vessel:", "import clay\n\n\n        class Vessel(clay.Body):"
    )
    target = ItemTarget("kilnworks/vessel.py", "python", "function", "Vessel.glaze_layer")
    found = _dangling(tmp_path, tree, target)
    assert found[("kilnworks/vessel.py", 13, "glaze_layer")] == POSSIBLE
    assert found[("kilnworks/shop.py", 6, "glaze_layer")] == POSSIBLE


GREENHOUSE = {
    "greenhouse/__init__.py": "",
    "greenhouse/vents.py": """
        class Vent:
            def open_wide(self):
                return 1


        class Louvre:
            def open_wide(self):
                return 2
        """,
    "greenhouse/keeper.py": """
        from greenhouse.vents import Louvre, Vent


        class Keeper:
            def __init__(self, louvred):
                self._vent = Vent()
                self._louvre = None
                self._either = Louvre() if louvred else Vent()
                if louvred:
                    self._louvre = Louvre()

            def air(self):
                vent = self._vent.open_wide()
                louvre = self._louvre.open_wide()
                return vent + louvre + self._either.open_wide()
        """,
}


def test_an_instance_attribute_its_class_assigns_one_class_types_self_attr(tmp_path: Path) -> None:
    """`self._vent = Vent()` in a method types `self._vent` (definite); `self._louvre` is a Louvre
    (its `= None` aside): no use of Vent's method; `self._either` is assigned no call: unknown."""
    target = ItemTarget("greenhouse/vents.py", "python", "function", "Vent.open_wide")
    found = _dangling(tmp_path, GREENHOUSE, target)
    assert found == {
        ("greenhouse/keeper.py", 13, "open_wide"): DEFINITE,
        ("greenhouse/keeper.py", 15, "open_wide"): POSSIBLE,
    }


def test_an_import_through_a_package_that_reexports_the_item_is_definite(tmp_path: Path) -> None:
    """`from loom.util import twist` where `loom/util/__init__.py` imports `twist` from the deleted
    item's module is a use of it (definite); where `__init__` defines its own `twist`, none."""
    tree = {
        "loom/__init__.py": "",
        "loom/util/__init__.py": "from .spindle import twist\n",
        "loom/util/spindle.py": """
        def twist(yarn):
            return yarn
        """,
        "mill.py": """
        from loom.util import twist


        def spin(yarn):
            return twist(yarn)
        """,
    }
    target = ItemTarget("loom/util/spindle.py", "python", "function", "twist")
    assert set(_dangling(tmp_path, tree, target).values()) == {DEFINITE}
    tree["loom/util/__init__.py"] = "def twist(yarn):\n    return yarn[::-1]\n"
    assert _dangling(tmp_path / "own", tree, target) == {}
