"""C++ removals on headers as libraries write them: export macros, local parse errors, data
members, operators spelt with any spacing, out-of-line members in other files, namespaces
left empty."""

from __future__ import annotations

from codemods import ItemTarget, Recipe, plan_recipe
from codemods.languages.cpp.deletion import delete_cpp_items
from codemods.languages.cpp.items import CppTarget, cpp_items
from codemods.testing import assert_recipe

from codemod_helpers import assert_deletes, dedent


def test_export_macros_on_classes_and_functions_are_looked_through():
    source = dedent("""
        class ORBIT_EXPORT Planet : public Body {
         public:
          ORBIT_API double mass() const;
        };
        struct ORBIT_EXPORT Moon final {
          int phase;
        };
        ORBIT_API void launch(const Planet& from, int stage);
        static ORBIT_INLINE std::string describe(const Moon& moon);
        struct stat info{};
    """)
    found = {(i.kind, i.qualified_name) for i in cpp_items(source)}
    assert {
        ("class", "Planet"),
        ("declaration", "Planet::mass"),
        ("struct", "Moon"),
        ("field", "Moon::phase"),
        ("declaration", "launch"),
        ("declaration", "describe"),
        ("variable", "info"),
    } <= found
    assert ("struct", "stat") in found


def test_a_class_with_an_export_macro_is_deleted():
    assert_deletes(
        "cpp",
        """
        namespace orbit {

        class ORBIT_EXPORT Keep {};

        // A probe.
        class ORBIT_EXPORT Probe : public Body {
         public:
          int range;
        };

        ORBIT_API void launch(int stage);

        }  // namespace orbit
        """,
        [("class", "orbit::Probe"), ("declaration", "launch")],
        """
        namespace orbit {

        class ORBIT_EXPORT Keep {};

        }  // namespace orbit
        """,
    )


def test_items_after_a_local_parse_error_are_indexed():
    source = dedent("""
        namespace orbit {
        int before(int a);
        ORBIT_FIELDS(count) int x; ORBIT_FIELDS_DONE(
        class Probe { int range; };
        int after(int a) { return a; }
        }
    """)
    found = {(i.kind, i.qualified_name) for i in cpp_items(source)}
    assert {("declaration", "orbit::before"), ("class", "orbit::Probe"), ("function", "orbit::after")} <= found
    findings = delete_cpp_items("t.h", source, [CppTarget("class", "orbit::Probe")]).findings
    assert not findings


def test_a_missing_target_in_a_file_that_does_not_parse_says_where(tmp_path):
    (tmp_path / "t.h").write_bytes(
        dedent("""
        namespace orbit {
        int before(int a);
        }
        ORBIT_BROKEN( {
    """)
    )
    recipe = Recipe(id="t", summary="", deletions=(ItemTarget("t.h", "cpp", "class", "orbit::Lander"),))
    [finding] = [f for f in plan_recipe(tmp_path, recipe).findings if f.code == "no-such-item"]
    assert "does not parse at line 4" in finding.message


def test_operator_names_match_whatever_their_spacing():
    source = dedent("""
        struct Span {
          Span operator +(const Span& other) const;
          bool operator ( ) (int at) const;
          bool operator==(const Span& other) const;
        };
        Span operator- (const Span& a, const Span& b);
    """)
    names = {i.qualified_name for i in cpp_items(source)}
    assert {"Span::operator+", "Span::operator()", "Span::operator==", "operator-"} <= names
    for target in (
        "Span::operator+",
        "Span::operator + (const Span&)",
        "Span::operator()(int)",
        "Span::operator ()",
        "operator -(const Span&, const Span&)",
    ):
        taken = delete_cpp_items("t.h", source, [CppTarget("declaration", target)])
        assert len(taken.gone) == 1 and not taken.findings, target


def test_a_data_member_is_a_kind():
    assert_deletes(
        "cpp",
        """
        struct Dial {
          int keep;
          // Degrees.
          double angle = 0.0;
          static const int limit;
        };
        """,
        [("field", "Dial::angle"), ("field", "Dial::limit")],
        """
        struct Dial {
          int keep;
        };
        """,
    )


def test_a_namespace_left_empty_goes_and_the_same_namespace_around_it_is_joined():
    assert_deletes(
        "cpp",
        """
        namespace plot {

        int axis();

        }  // namespace plot

        // Helpers of the legend.
        namespace {
        int legend_width() { return 4; }
        }  // namespace

        namespace plot {

        int grid();

        }  // namespace plot

        namespace scratch {
        namespace inner {
        int draft();
        }
        }
        """,
        [("function", "legend_width"), ("declaration", "scratch::inner::draft")],
        """
        namespace plot {

        int axis();

        int grid();

        }  // namespace plot
        """,
    )


def test_a_namespace_still_holding_code_stays():
    assert_deletes(
        "cpp",
        """
        namespace {
        int legend_width() { return 4; }
        int legend_height() { return 2; }
        }  // namespace
        """,
        [("function", "legend_width")],
        """
        namespace {
        int legend_height() { return 2; }
        }  // namespace
        """,
    )


def test_deleting_a_class_deletes_its_out_of_line_members_in_the_tree():
    assert_recipe(
        {
            "include/probe.h": dedent("""
                #pragma once
                namespace orbit {
                class Keep {
                 public:
                  int run();
                };
                // Measures the distance.
                class Probe {
                 public:
                  Probe();
                  int range() const;
                  static int count;
                };
                }  // namespace orbit
            """),
            "src/probe.cc": dedent("""
                #include "probe.h"

                namespace orbit {

                int Keep::run() { return 1; }

                Probe::Probe() {}

                int Probe::range() const {
                  return 4;
                }

                int Probe::count = 0;

                }  // namespace orbit
            """),
            "src/probe_extra.cc": dedent("""
                #include "probe.h"

                namespace orbit {
                namespace {
                int twice(int x) { return 2 * x; }
                }  // namespace
                }  // namespace orbit

                int orbit::Probe::extra() { return 0; }
            """),
        },
        Recipe(id="t", summary="", deletions=(ItemTarget("include/probe.h", "cpp", "class", "orbit::Probe"),)),
        {
            "include/probe.h": dedent("""
                #pragma once
                namespace orbit {
                class Keep {
                 public:
                  int run();
                };
                }  // namespace orbit
            """),
            "src/probe.cc": dedent("""
                #include "probe.h"

                namespace orbit {

                int Keep::run() { return 1; }

                }  // namespace orbit
            """),
            "src/probe_extra.cc": dedent("""
                #include "probe.h"

                namespace orbit {
                namespace {
                int twice(int x) { return 2 * x; }
                }  // namespace
                }  // namespace orbit
            """),
        },
    )


def test_deleting_a_class_deletes_its_out_of_line_members_in_its_own_file():
    assert_deletes(
        "cpp",
        """
        template <typename T>
        struct Ring {
          T take();
        };

        template <typename T>
        T Ring<T>::take() {
          return T();
        }

        int keep();
        """,
        [("struct", "Ring")],
        """
        int keep();
        """,
    )


def test_a_namespace_macro_opens_what_its_define_says_and_none_inside_its_own_namespace():
    source = dedent("""
        #define TILE_NAMESPACE_BEGIN inline namespace v3 {
        #define TILE_NAMESPACE_END }
        #define GRID_BEGIN_NAMESPACE namespace grid { namespace detail {
        #define GRID_END_NAMESPACE } }
        namespace tile {
        TILE_NAMESPACE_BEGIN
        int draw();
        TILE_NAMESPACE_END
        }  // namespace tile
        GRID_BEGIN_NAMESPACE
        int cell();
        GRID_END_NAMESPACE
        namespace mesh {
        MESH_NAMESPACE_BEGIN
        int weave();
        MESH_NAMESPACE_END
        }  // namespace mesh
        MESH_NAMESPACE_BEGIN
        int knot();
        MESH_NAMESPACE_END
    """)
    assert [i.qualified_name for i in cpp_items(source)] == [
        "tile::draw",
        "grid::detail::cell",
        "mesh::weave",
        "mesh::knot",
    ]
    taken = delete_cpp_items("t.h", source, [CppTarget("declaration", "tile::draw")])
    assert len(taken.gone) == 1 and not taken.findings


def test_a_static_data_member_goes_with_its_definitions():
    assert_recipe(
        {
            "dial.h": dedent("""
                struct Dial {
                  int keep;
                  static const int limit;
                };
            """),
            "dial.cc": dedent("""
                #include "dial.h"

                const int Dial::limit = 360;

                int spin() { return 1; }
            """),
        },
        Recipe(id="t", summary="", deletions=(ItemTarget("dial.h", "cpp", "field", "Dial::limit"),)),
        {
            "dial.h": dedent("""
                struct Dial {
                  int keep;
                };
            """),
            "dial.cc": dedent("""
                #include "dial.h"

                int spin() { return 1; }
            """),
        },
    )


def _plan_header(tmp_path, text: str, *targets: tuple[str, str]):
    (tmp_path / "kite.h").write_bytes(dedent(text))
    recipe = Recipe(id="t", summary="", deletions=tuple(ItemTarget("kite.h", "cpp", k, n) for k, n in targets))
    return plan_recipe(tmp_path, recipe)


# The grammar reads without a preprocessor: `#ifdef` inside an expression and an attribute macro
# before a member are valid code it misreads. Each error lies inside the item deleted.
_MISREAD = """
    namespace sky {
    inline bool is_gusty(char c)
    {
      return c == '~'
    #ifdef KITE_STORMY
             || c == '!'
    #endif
        ;
    }

    class Spool {
     public:
      /// Old length, in metres.
      KITE_RETIRED("use length() instead")
      int old_length() const { return len_; }
      int length() const { return len_; }

     private:
      int len_ = 0;
    };
    }  // namespace sky
"""


def test_a_parse_error_wholly_inside_a_deleted_cpp_item_goes_with_it(tmp_path):
    plan = _plan_header(tmp_path, _MISREAD, ("function", "sky::is_gusty"), ("function", "sky::Spool::old_length"))
    assert plan.blocking == []
    [change] = plan.changes
    assert change.after == dedent("""
        namespace sky {
        class Spool {
         public:
          int length() const { return len_; }

         private:
          int len_ = 0;
        };
        }  // namespace sky
    """)


def test_a_deletion_that_cuts_through_a_parse_error_is_still_refused(tmp_path):
    # The conditional opens in one function and closes in the next: no item holds the error whole.
    plan = _plan_header(
        tmp_path,
        """
        namespace sky {
        int rise() {
        #ifdef KITE_STORMY
          return 1; }
        int fall() {
        #endif
          return 2; }
        int drift() { return 3; }
        }  // namespace sky
    """,
        ("function", "sky::rise"),
    )
    assert [f.code for f in plan.blocking] in (["unparseable-target"], ["no-such-item"])
    assert plan.changes == ()


def test_valid_cpp11_the_grammar_misreads_is_no_syntax_error(tmp_path):
    # tree-sitter-cpp reads `= delete` outside a class as an initializer wanting an operand, and a
    # braced default argument as a compound literal wanting a type; both are valid C++11, so a
    # rewrite writing one is no parse regression.
    from codemods import PatternRewrite
    from codemods.languages.cpp.language import parse_errors
    from codemods.parse import parse

    for text in (
        b"void tick(int) = delete;\n",
        b"template <class T>\nstd::string& label(T&&) = delete;\n",
        b'void chime(const Tones& tones = {"low"}, int n = {});\n',  # braced default arguments
    ):
        assert parse_errors(text, parse(text, "cpp")) == []
    broken = b"int total = delete;\n"  # an initializer that is no deleted function stays an error
    assert parse_errors(broken, parse(broken, "cpp"))
    (tmp_path / "clock.h").write_text("namespace clk {\ntemplate <class T>\nvoid tick(T&& when);\n}\n")
    recipe = Recipe(
        id="r",
        summary="",
        rewrites=(PatternRewrite("clock.h", "void tick(T&& when);", "void tick(T&& when) = delete;"),),
    )
    plan = plan_recipe(tmp_path, recipe)
    assert not plan.findings, [f.render() for f in plan.findings]


def test_a_function_deleted_with_equals_delete_is_no_use_of_the_definition_that_goes(tmp_path):
    # The recipe deletes a template's definition and turns its declaration into `= delete`: that
    # declaration is a (deleted) definition of its own, not a declaration left dangling.
    from codemods import PatternRewrite

    (tmp_path / "bell.h").write_text(
        "namespace bell {\n"
        "template <class T>\n"
        "int ring(T&& times);\n"
        "\n"
        "template <class T>\n"
        "int ring(T&& times) {\n"
        "  return static_cast<int>(times);\n"
        "}\n"
        "}  // namespace bell\n"
    )
    recipe = Recipe(
        id="r",
        summary="",
        deletions=(ItemTarget("bell.h", "cpp", "function", "bell::ring"),),
        rewrites=(PatternRewrite("bell.h", "int ring(T&& times);", "int ring(T&& times) = delete;"),),
    )
    plan = plan_recipe(tmp_path, recipe)
    assert not plan.blocking, [f.render() for f in plan.blocking]
    after = plan.changes[0].after.decode()
    assert "= delete;" in after and "static_cast" not in after
