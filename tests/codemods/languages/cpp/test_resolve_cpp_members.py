"""A deleted C++ member function is used where code calls it through an object (issue 37, point 2).

`x.f()`, `p->f()`, `r.f()` and `this->f()` call it when the receiver's declared
type is its class (a local, a parameter, a data member, a pointer, a reference,
a smart pointer, a call to a function declared to return it, `auto` made so): definite; where
the type is not shown (`auto` of another initialiser, a template parameter): possible; on an object of another class: no use.
Expectations are markers in the sources (see tests/resolve_helpers.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from codemods.cli.main import main
from codemods.plan.planner import plan_recipe
from codemods.plan.references import DANGLING
from codemods import ItemTarget, Recipe

from resolve_helpers import expected, write_tree

KILN_H = """
    #pragma once
    #include <memory>
    namespace kiln {
    class Furnace {
     public:
      int heat() const { return temp_; }
      void stoke(int coal);
      void stoke(int coal, int air);
      int report() const;
      void vent() { temp_ -= heat(); } // REF
     private:
      int temp_ = 0;
    };
    }  // namespace kiln
"""

KILN_CPP = """
    #include "kiln.h"
    namespace kiln {
    void Furnace::stoke(int coal) { temp_ += coal + this->heat(); } // REF
    void Furnace::stoke(int coal, int air) { temp_ += coal * air; }
    int Furnace::report() const { return heat(); } // REF
    }  // namespace kiln
"""

OVEN_H = """
    #pragma once
    namespace bakery {
    class Oven {
     public:
      int heat() const { return 180; }
    };
    }  // namespace bakery
"""

SMITHY_CPP = """
    #include "kiln.h"
    #include "oven.h"
    #include <memory>
    int by_value() {
      kiln::Furnace f;
      return f.heat(); // REF
    }
    int by_pointer(kiln::Furnace* p) {
      return p->heat(); // REF
    }
    int by_reference(kiln::Furnace& shop) {
      const kiln::Furnace& r = shop;
      return r.heat() + (*&r).report(); // REF
    }
    int by_smart_pointer() {
      std::unique_ptr<kiln::Furnace> owned = std::make_unique<kiln::Furnace>();
      return owned->heat(); // REF
    }
    struct Workshop {
      kiln::Furnace main;
      kiln::Furnace* spare;
      int total() const { return main.heat() + spare->report(); } // REF
    };
    int through_field(const Workshop& w) {
      return w.spare->heat(); // REF
    }
    int other_class(bakery::Oven o, bakery::Oven* q) {
      return o.heat() + q->heat();
    }
"""

GUILD_CPP = """
    #include "kiln.h"
    #include "oven.h"
    namespace kiln {
    int inside_namespace(const Furnace& f) { return f.heat(); } // REF
    }
    using namespace kiln;
    int after_using(Furnace& f) { return f.heat(); } // REF
    kiln::Furnace make();
    int deduced() {
      auto f = make();
      return f.heat(); // REF
    }
    template <typename Stove>
    int generic(const Stove& s) {
      return s.heat(); // MAYBE
    }
    int call_result() { return make().heat(); } // REF
    int baked() { return generic(bakery::Oven()); }
"""


def found(root: Path, *targets: tuple[str, str, str]) -> dict[tuple[str, int], str]:
    recipe = Recipe(id="t", summary="", deletions=tuple(ItemTarget(p, "cpp", k, n) for p, k, n in targets))
    plan = plan_recipe(root, recipe)
    assert not [f for f in plan.findings if f.code != DANGLING], plan.findings
    return {(f.path, f.line): f.certainty for f in plan.findings if f.code == DANGLING}


def _tree(root: Path) -> None:
    write_tree(
        root,
        {"kiln.h": KILN_H, "kiln.cpp": KILN_CPP, "oven.h": OVEN_H, "smithy.cpp": SMITHY_CPP, "guild.cpp": GUILD_CPP},
    )


def test_calls_through_objects_pointers_references_and_this_use_a_member_defined_in_its_class(tmp_path):
    _tree(tmp_path)
    assert found(tmp_path, ("kiln.h", "function", "kiln::Furnace::heat")) == expected(tmp_path)


def test_a_member_defined_out_of_line_is_used_by_calls_of_its_arity(tmp_path):
    write_tree(
        tmp_path,
        {
            "kiln.h": """
            #pragma once
            namespace kiln {
            class Furnace {
             public:
              void stoke(int coal); // REF
              void stoke(int coal, int air);
              void bank() { stoke(1); this->stoke(2, 3); } // REF
            };
            }
        """,
            "kiln.cpp": """
            #include "kiln.h"
            namespace kiln {
            void Furnace::stoke(int coal) {}
            void Furnace::stoke(int coal, int air) {}
            }
        """,
            "smithy.cpp": """
            #include "kiln.h"
            void fire(kiln::Furnace& f, kiln::Furnace* p) {
              f.stoke(4); // REF
              p->stoke(4, 5);
              f.stoke(6, 7);
            }
        """,
        },
    )
    assert found(tmp_path, ("kiln.cpp", "function", "kiln::Furnace::stoke(int)")) == expected(tmp_path)


def test_a_receiver_of_a_class_the_file_derives_from_it(tmp_path):
    write_tree(
        tmp_path,
        {
            "kiln.h": """
            namespace kiln {
            class Furnace {
             public:
              int heat() const { return 1; }
            };
            }
        """,
            "blast.cpp": """
            #include "kiln.h"
            namespace kiln {
            class Blast : public Furnace {};
            class Cupola : public Blast {};
            class Crucible : public Vessel {};
            class Bellows {
             public:
              int heat() const { return 2; }
            };
            int run(Cupola c, Crucible k, Bellows b) {
              return c.heat() // REF
                + k.heat() // MAYBE
                + b.heat();
            }
            }
        """,
        },
    )
    assert found(tmp_path, ("kiln.h", "function", "kiln::Furnace::heat")) == expected(tmp_path)


def test_a_class_of_the_same_name_in_another_namespace_is_another_class(tmp_path):
    write_tree(
        tmp_path,
        {
            "kiln.h": """
            namespace kiln {
            class Furnace {
             public:
              int heat() const { return 1; }
            };
            }
        """,
            "toy.cpp": """
            namespace toy {
            class Furnace {
             public:
              int heat() const { return 0; }
            };
            int play(Furnace f, ::toy::Furnace* g) { return f.heat() + g->heat(); }
            }
            int real(kiln::Furnace* k) { return k->heat(); } // REF
            int unreached(Furnace f) { return f.heat(); } // MAYBE
        """,
        },
    )
    assert found(tmp_path, ("kiln.h", "function", "kiln::Furnace::heat")) == expected(tmp_path)


def test_receivers_typed_by_the_headers_a_file_includes(tmp_path):
    write_tree(
        tmp_path,
        {
            "kiln.h": """
            namespace kiln {
            class Furnace {
             public:
              int heat() const { return 1; }
            };
            }
        """,
            "yard.h": """
            #include "kiln.h"
            namespace yard {
            class Annex : public kiln::Furnace {};
            struct Foundry {
              kiln::Furnace hearth;
              Annex annex;
              int pour() const;
            };
            using Hearth = kiln::Furnace;
            typedef Hearth* HearthRef;
            }
        """,
            "yard.cpp": """
            #include "yard.h"
            namespace yard {
            int Foundry::pour() const { return hearth.heat() // REF
                + this->annex.heat(); } // REF
            int cast(Foundry& f, Annex* a) { return f.hearth.heat() + a->heat(); } // REF
            int aliased(Hearth h, HearthRef r) { return h.heat() // REF
                + r->heat(); } // REF
            }
        """,
            "loose.cpp": """
            int guess(Foundry& f) { return f.hearth.heat(); } // MAYBE
        """,
        },
    )
    assert found(tmp_path, ("kiln.h", "function", "kiln::Furnace::heat")) == expected(tmp_path)


RECIPE = """
id = "kiln-cleanup"
summary = "Furnace::heat goes"

[[delete]]
path = "kiln.h"
language = "cpp"
kind = "function"
name = "kiln::Furnace::heat"
"""


# Its only uses are calls through objects in other files: at 89b2dc4 the plan saw none and wrote.
REPORT_RECIPE = """
id = "kiln-report"
summary = "Furnace::report goes"

[[delete]]
path = "kiln.cpp"
language = "cpp"
kind = "function"
name = "kiln::Furnace::report"

[[delete]]
path = "kiln.h"
language = "cpp"
kind = "declaration"
name = "kiln::Furnace::report"
"""


def _compiles(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", *sorted(str(p) for p in root.glob("*.cpp"))],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "LC_ALL": "C"},
    )


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_apply_refuses_a_deletion_whose_member_calls_would_not_compile(tmp_path):
    tree = tmp_path / "tree"
    _tree(tree)
    (tmp_path / "recipe.toml").write_text(RECIPE)
    assert _compiles(tree).returncode == 0, _compiles(tree).stderr
    before = {p.name: p.read_bytes() for p in tree.iterdir()}

    refused = CliRunner().invoke(main, ["apply", "--json", "--recipe", str(tmp_path / "recipe.toml"), str(tree)])
    assert refused.exit_code == 1, refused.output
    assert {p.name: p.read_bytes() for p in tree.iterdir()} == before
    findings = json.loads(refused.stdout)["findings"]
    blocking = {(f["path"], f["line"], f["col"]) for f in findings if f["severity"] == "error"}
    assert ("smithy.cpp", 6, 12) in blocking  # f.heat()
    assert ("smithy.cpp", 9, 13) in blocking  # p->heat()
    assert ("kiln.cpp", 3, 55) in blocking  # this->heat()
    assert {f["path"] for f in findings if f["severity"] == "error"} == {
        "kiln.h",
        "kiln.cpp",
        "smithy.cpp",
        "guild.cpp",
    }

    forced = CliRunner().invoke(
        main, ["apply", "--allow-dangling", "--recipe", str(tmp_path / "recipe.toml"), str(tree)]
    )
    assert forced.exit_code == 0, forced.output
    broken = _compiles(tree)
    assert broken.returncode != 0
    assert "smithy.cpp:6:12: error: 'class kiln::Furnace' has no member named 'heat'" in broken.stderr, broken.stderr


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_apply_refuses_a_deletion_used_only_through_objects_in_other_files(tmp_path):
    tree = tmp_path / "tree"
    _tree(tree)
    (tmp_path / "recipe.toml").write_text(REPORT_RECIPE)
    assert _compiles(tree).returncode == 0, _compiles(tree).stderr

    refused = CliRunner().invoke(main, ["apply", "--recipe", str(tmp_path / "recipe.toml"), str(tree)])
    assert refused.exit_code == 1, refused.output
    assert "smithy.cpp:13:27: report: code still refers to an item the recipe deletes" in refused.stderr  # (*&r)
    assert "smithy.cpp:22:51: report: code still refers to an item the recipe deletes" in refused.stderr

    forced = CliRunner().invoke(
        main, ["apply", "--allow-dangling", "--recipe", str(tmp_path / "recipe.toml"), str(tree)]
    )
    assert forced.exit_code == 0, forced.output
    broken = _compiles(tree).stderr
    assert "smithy.cpp:13:27: error: 'const class kiln::Furnace' has no member named 'report'" in broken
    assert "smithy.cpp:22:51: error: 'class kiln::Furnace' has no member named 'report'" in broken


def _shapes(tmp_path: Path) -> Path:
    files = {
        "outline.h": "#pragma once\nclass Outline {\n public:\n  virtual ~Outline() = default;\n"
        "  virtual double area() const = 0;\n};\n",
        "shape.h": '#pragma once\n#include "outline.h"\nclass Shape : public Outline {\n public:\n'
        "  virtual double area() const = 0;\n  virtual int sides() const = 0;\n};\n",
        "use.cpp": '#include "shape.h"\ndouble measure(const Shape* s) { return s->area() + s->sides(); }\n',
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_a_member_a_base_class_declares_too_may_go_its_uses_reach_the_base(tmp_path: Path) -> None:
    from codemods import ItemTarget, Recipe, plan_recipe

    root = _shapes(tmp_path)
    plan = plan_recipe(
        root, Recipe(id="t", summary="", deletions=(ItemTarget("shape.h", "cpp", "declaration", "Shape::area"),))
    )
    assert plan.blocking == []
    plan = plan_recipe(
        root, Recipe(id="t", summary="", deletions=(ItemTarget("shape.h", "cpp", "declaration", "Shape::sides"),))
    )
    assert [(f.code, f.path, f.line) for f in plan.blocking] == [("dangling-reference", "use.cpp", 2)]


def test_an_auto_variable_made_by_new_or_make_unique_types_its_member_calls(tmp_path: Path) -> None:
    from codemods import ItemTarget, Recipe, plan_recipe

    (tmp_path / "kiln.h").write_text(
        "#pragma once\nnamespace pottery {\nclass Kiln {\n public:\n  int heat() const;\n"
        "  int size() const;\n};\nclass Wheel {\n public:\n  int heat() const;\n};\n}\n"
    )
    (tmp_path / "use.cpp").write_text(
        '#include <memory>\n#include "kiln.h"\nint fire() {\n'
        "  auto k = std::make_unique<pottery::Kiln>();\n  auto* raw = new pottery::Kiln();\n"
        "  auto w = std::make_shared<pottery::Wheel>();\n"
        "  return k->heat() + raw->heat() + w->heat() + k->size();\n}\n"
    )
    plan = plan_recipe(
        tmp_path,
        Recipe(id="t", summary="", deletions=(ItemTarget("kiln.h", "cpp", "declaration", "pottery::Kiln::heat"),)),
    )
    found = sorted((f.line, f.col, f.certainty) for f in plan.findings if f.code == "dangling-reference")
    assert found == [(7, 13, "definite"), (7, 27, "definite")]


def test_an_override_of_a_deleted_virtual_in_a_derived_class_is_a_use(tmp_path: Path) -> None:
    from codemods import ItemTarget, Recipe, plan_recipe

    (tmp_path / "ctl.h").write_text(
        "#pragma once\nclass Controller {\n public:\n  virtual ~Controller() = default;\n"
        "  virtual int pending() const = 0;\n  virtual int mask() const = 0;\n};\n"
    )
    (tmp_path / "pic.h").write_text(
        '#pragma once\n#include "ctl.h"\nclass Pic final : public Controller {\n public:\n'
        "  int pending() const override;\n  int mask() const override;\n};\n"
        "class Other {\n public:\n  int pending() const;\n};\n"
    )
    plan = plan_recipe(
        tmp_path,
        Recipe(id="t", summary="", deletions=(ItemTarget("ctl.h", "cpp", "declaration", "Controller::pending"),)),
    )
    assert sorted((f.path, f.line, f.certainty) for f in plan.findings if f.code == "dangling-reference") == [
        ("pic.h", 5, "definite")
    ]


def test_a_field_reached_through_a_field_of_a_bracket_included_header_is_a_use(tmp_path: Path) -> None:
    from codemods import ItemTarget, Recipe, plan_recipe

    (tmp_path / "src/loom").mkdir(parents=True)
    (tmp_path / "src/loom/Warp.hpp").write_text("#pragma once\nstruct Warp {\n  int threads;\n  int tension;\n};\n")
    (tmp_path / "src/loom/Frame.hpp").write_text(
        "#pragma once\n#include <loom/Warp.hpp>\nstruct Frame {\n  Warp warp;\n};\n"
    )
    (tmp_path / "src/loom/weave.cpp").write_text(
        "#include <loom/Frame.hpp>\n#include <vector>\n"
        "int weave(Frame& frame) { return frame.warp.tension + frame.warp.threads; }\n"
    )
    plan = plan_recipe(
        tmp_path,
        Recipe(id="t", summary="", deletions=(ItemTarget("src/loom/Warp.hpp", "cpp", "field", "Warp::tension"),)),
    )
    assert [(f.path, f.line, f.certainty) for f in plan.findings if f.code == "dangling-reference"] == [
        ("src/loom/weave.cpp", 3, "definite")
    ]


def test_a_type_named_like_a_deleted_member_function_is_no_use_of_it(tmp_path: Path) -> None:
    from codemods import ItemTarget, Recipe, plan_recipe

    (tmp_path / "doc.h").write_text(
        "#pragma once\nnamespace ink {\nclass value { public: int n; };\nclass sheet {\n public:\n"
        "  value value();\n  value first();\n};\n}\n"
    )
    (tmp_path / "doc-inl.h").write_text(
        '#pragma once\n#include "doc.h"\nnamespace ink {\nvalue sheet::first() { return value{}; }\n'
        "int use(sheet& s) { return s.value().n; }\n}\n"
    )
    plan = plan_recipe(
        tmp_path,
        Recipe(id="t", summary="", deletions=(ItemTarget("doc.h", "cpp", "declaration", "ink::sheet::value"),)),
    )
    assert [(f.path, f.line) for f in plan.findings if f.code == "dangling-reference"] == [("doc-inl.h", 5)]


def test_an_unqualified_call_in_a_derived_class_names_its_own_deleted_member_whatever_the_order(tmp_path: Path) -> None:
    """The base's member and the derived class's own both go: inside the derived class's member
    function the call names its own (definite), however the deleted items are listed."""
    from codemods import ItemTarget, Recipe, plan_recipe

    (tmp_path / "dial.h").write_text(
        "#pragma once\nclass Dial {\n public:\n  virtual ~Dial() = default;\n  virtual int notch() = 0;\n};\n"
    )
    (tmp_path / "knob.h").write_text(
        '#pragma once\n#include "dial.h"\nclass Knob : public Dial {\n public:\n  int notch() override { return 3; }\n'
        "  int notch(int turns) { return notch() * turns; }\n};\n"
    )
    targets = (
        ItemTarget("dial.h", "cpp", "declaration", "Dial::notch"),
        ItemTarget("knob.h", "cpp", "function", "Knob::notch()"),
    )
    for ordered in (targets, targets[::-1]):
        plan = plan_recipe(tmp_path, Recipe(id="t", summary="", deletions=ordered))
        assert [(f.path, f.line, f.certainty) for f in plan.findings if f.code == "dangling-reference"] == [
            ("knob.h", 6, "definite")
        ]


def test_an_auto_variable_made_by_a_declared_function_has_the_type_it_returns(tmp_path: Path) -> None:
    """`auto b = make_bellows();` is a Bellows where an included header declares `Bellows
    make_bellows()`; a field read on it is a use of Bellows' field, and no use of another struct's
    field of the same name (`auto t = make_tongs(); t.draft`)."""
    from codemods import ItemTarget, Recipe, plan_recipe

    (tmp_path / "forge.h").write_text(
        "#pragma once\nstruct Bellows {\n  int draft;\n  int gust;\n};\nstruct Tongs {\n  int draft;\n};\n"
        "Bellows make_bellows();\nconst Tongs& make_tongs();\n"
    )
    (tmp_path / "smith.cpp").write_text(
        '#include "forge.h"\nint blow() {\n  auto b = make_bellows();\n  return b.draft;\n}\n'
        "int grip() {\n  const auto& t = make_tongs();\n  return t.draft;\n}\n"
    )
    plan = plan_recipe(
        tmp_path, Recipe(id="t", summary="", deletions=(ItemTarget("forge.h", "cpp", "field", "Bellows::draft"),))
    )
    assert [(f.path, f.line, f.certainty) for f in plan.findings if f.code == "dangling-reference"] == [
        ("smith.cpp", 4, "definite")
    ]


def test_a_member_of_a_class_a_source_file_defines_is_that_files_own(tmp_path: Path) -> None:
    """Two test sources each define their own `Probe` class (separate programs): deleting one's
    field is no use in the other; in its own file the constructor's initializer uses it."""
    from codemods import ItemTarget, Recipe, plan_recipe

    body = "class Probe {\n public:\n  explicit Probe(int* d) : depth_(d) {}\n  int read() { return *depth_; }\n\n private:\n  int* depth_;\n};\n"
    (tmp_path / "sonar_test.cpp").write_text(body + "int main() { int d = 3; return Probe(&d).read(); }\n")
    (tmp_path / "radar_test.cpp").write_text(body + "int main() { int d = 4; return Probe(&d).read(); }\n")
    plan = plan_recipe(
        tmp_path, Recipe(id="t", summary="", deletions=(ItemTarget("sonar_test.cpp", "cpp", "field", "Probe::depth_"),))
    )
    assert sorted({(f.path, f.line) for f in plan.findings if f.code == "dangling-reference"}) == [
        ("sonar_test.cpp", 3),
        ("sonar_test.cpp", 4),
    ]


def test_a_return_type_behind_an_unknown_macro_never_names_a_deleted_member_function(tmp_path: Path) -> None:
    """`HOT_PATH gauge Meter::latest() noexcept`: tree-sitter cannot read the macro, so the return
    type `gauge` lands in an error; it is still a type, no use of the deleted `Meter::gauge()`."""
    from codemods import ItemTarget, Recipe, plan_recipe

    (tmp_path / "meter.h").write_text(
        "#pragma once\nstruct gauge {\n  int v;\n};\nclass Meter {\n public:\n  gauge latest() noexcept;\n"
        "  int gauge();\n};\n"
    )
    (tmp_path / "meter.cpp").write_text(
        '#include "meter.h"\nHOT_PATH gauge Meter::latest() noexcept {\n  return latest();\n}\n'
    )
    plan = plan_recipe(
        tmp_path, Recipe(id="t", summary="", deletions=(ItemTarget("meter.h", "cpp", "declaration", "Meter::gauge"),))
    )
    assert [f.render() for f in plan.findings if f.code == "dangling-reference" and f.blocking] == []


def test_a_quoted_include_is_found_in_the_tree_s_src_folder_after_the_including_file_s_own() -> None:
    """`#include "pump.h"` in `tests/mock_pump.h` reads `tests/pump.h` where there is one, else
    `src/pump.h` (`-Isrc`), found from any folder up to the root; an `include/` folder comes first."""
    from codemods.languages.cpp.includes import resolve_include

    tree = {"src/pump.h", "tests/mock_pump.h", "include/valve.h", "src/valve.h"}
    assert resolve_include("tests/mock_pump.h", "pump.h", tree.__contains__) == "src/pump.h"
    assert resolve_include("tests/mock_pump.h", "valve.h", tree.__contains__) == "include/valve.h"
    assert resolve_include("tests/mock_pump.h", "gauge.h", tree.__contains__) is None
    tree.add("tests/pump.h")
    assert resolve_include("tests/mock_pump.h", "pump.h", tree.__contains__) == "tests/pump.h"


def test_a_deleted_explicit_specialization_leaves_the_name_to_its_primary_template(tmp_path: Path) -> None:
    """Deleting `template <> int weigh(const Anvil&)` leaves `scale::weigh`, the primary template
    declared elsewhere: a call of the name is no dangling use."""
    from codemods import ItemTarget, Recipe, plan_recipe

    (tmp_path / "scale.h").write_text(
        "#pragma once\nnamespace scale {\ntemplate <typename T>\nint weigh(const T&) {\n  return 0;\n}\n}  // namespace scale\n"
    )
    (tmp_path / "anvil_scale.h").write_text(
        '#pragma once\n#include "scale.h"\nstruct Anvil {};\nnamespace scale {\ntemplate <>\n'
        "inline int weigh(const Anvil&) {\n  return 90;\n}\n}  // namespace scale\n"
    )
    (tmp_path / "forge.cpp").write_text('#include "scale.h"\nint total(const int& x) { return scale::weigh(x); }\n')
    plan = plan_recipe(tmp_path, Recipe(id="t", summary="", deletions=(ItemTarget("anvil_scale.h", "cpp", "file"),)))
    assert [f.render() for f in plan.findings if f.code == "dangling-reference"] == []
