"""The dangling-reference check resolves C++ names: one test per rule.

Expectations are markers in the sources (see tests/resolve_helpers.py).
"""

from __future__ import annotations

from pathlib import Path

from codemods.plan.planner import plan_recipe
from codemods.plan.references import DANGLING
from codemods import ItemTarget, Recipe

from resolve_helpers import expected, write_tree


def found(root: Path, *targets: tuple[str, str, str]) -> dict[tuple[str, int], str]:
    recipe = Recipe(id="t", summary="", deletions=tuple(ItemTarget(p, "cpp", k, n) for p, k, n in targets))
    plan = plan_recipe(root, recipe)
    assert not [f for f in plan.findings if f.code != DANGLING], plan.findings
    return {(f.path, f.line): f.certainty for f in plan.findings if f.code == DANGLING}


def test_static_and_anonymous_namespace_functions_are_local_to_their_file(tmp_path):
    write_tree(
        tmp_path,
        {
            "a.cpp": """
            static int scale(int x) { return x * 2; }
            namespace {
            int shift(int x) { return x + 1; }
            }
            int run(int x) { return scale(x) + shift(x); } // REF
        """,
            "b.cpp": """
            static int scale(int x) { return x * 3; }
            namespace {
            int shift(int x) { return x - 1; }
            }
            int other(int x) { return scale(x) + shift(x); }
        """,
        },
    )
    assert found(tmp_path, ("a.cpp", "function", "scale"), ("a.cpp", "function", "shift")) == expected(tmp_path)


def test_namespaces_and_qualified_names(tmp_path):
    write_tree(
        tmp_path,
        {
            "kernels.cpp": """
            namespace mlx { namespace fast {
            int frob(int x) { return x; }
            int inside(int x) { return frob(x); } // REF
            }
            int nested(int x) { return fast::frob(x); } // REF
            }
            int absolute(int x) { return ::mlx::fast::frob(x); } // REF
        """,
            "other.cpp": """
            namespace other {
            int frob(int x) { return -x; }
            int mine(int x) { return frob(x) + other::frob(x); }
            }
            int elsewhere(int x) { return other::frob(x); }
        """,
            "user.cpp": """
            using namespace mlx::fast;
            int use_directive(int x) { return frob(x); } // REF
        """,
            "adl.cpp": """
            int maybe(Tensor t) { return frob(t); } // MAYBE
        """,
        },
    )
    assert found(tmp_path, ("kernels.cpp", "function", "frob")) == expected(tmp_path)


def test_locals_and_members_are_not_uses(tmp_path):
    write_tree(
        tmp_path,
        {
            "a.cpp": """
            int frob(int x) { return x; }
            int by_local() { int frob = 2; return frob; }
            int by_parameter(int frob) { return frob; }
            int by_member(Cache& c, Cache* p) { return c.frob() + p->frob(); }
            int real(int x) { return frob(x); } // REF
        """
        },
    )
    assert found(tmp_path, ("a.cpp", "function", "frob")) == expected(tmp_path)


def test_a_header_declaration_and_its_definition_are_one_item(tmp_path):
    write_tree(
        tmp_path,
        {
            "bridge.h": """
            namespace mlx {
            int frob(int x); // REF
            int keep(int x);
            }
            namespace other {
            int frob(int x);
            }
        """,
            "bridge.cpp": """
            #include "bridge.h"
            namespace mlx {
            int frob(int x) { return x; }
            int keep(int x) { return x; }
            }
        """,
        },
    )
    assert found(tmp_path, ("bridge.cpp", "function", "frob")) == expected(tmp_path)
    (tmp_path / "bridge.h").write_text((tmp_path / "bridge.h").read_text().replace(" // REF", ""))
    both = found(tmp_path, ("bridge.cpp", "function", "frob"), ("bridge.h", "declaration", "frob"))
    assert both == {}


def test_a_declaration_of_another_overload_is_not_a_use(tmp_path):
    write_tree(
        tmp_path,
        {
            "shapes.h": """
            namespace geom {
            double area(const Circle& c);
            double area(Square const &s, int scale = 1); // REF
            double area(const Square&);
            }
        """,
            "shapes.cpp": """
            #include "shapes.h"
            namespace geom {
            double area(const Circle& c) { return 3.0 * c.r * c.r; }
            double area(const Square& square, int) { return square.side * square.side; }
            }
        """,
        },
    )
    assert found(tmp_path, ("shapes.cpp", "function", "geom::area(const Square&, int)")) == expected(tmp_path)


def test_an_expression_applying_a_deleted_operator_is_a_use(tmp_path):
    write_tree(
        tmp_path,
        {
            "units.h": """
            namespace geo {
            struct Meters { double v; };
            Meters operator +(const Meters& a, const Meters& b);
            Meters operator+(const Meters& a, double b);
            }
        """,
            "units.cpp": """
            #include "units.h"
            namespace geo {
            Meters operator+ (const Meters& a, const Meters& b) { return Meters{a.v + b.v}; }
            Meters operator+(const Meters& a, double b) { return Meters{a.v + b}; }
            }
        """,
            "route.cpp": """
            #include "units.h"
            double twice(double x) { return x + x; }
            geo::Meters sum(geo::Meters a, geo::Meters b) { return a + b; } // REF
            geo::Meters shift(geo::Meters a) { return a + 2.0; }
            int next(int i) { return i + 1; }
            geo::Meters legs(Trip trip) { return trip.first() + trip.second(); } // MAYBE
            geo::Meters start(geo::Meters a) { return a + geo::Meters{1.0}; } // REF
            geo::Meters origin() { return geo::Meters() + geo::Meters(); } // REF
            geo::Meters stride(geo::Meters a) { return a + Stride(); } // MAYBE
            #if 0
            geo::Meters old(geo::Meters a, geo::Meters b) { return a + b; }
            #endif
        """,
        },
    )
    targets = (
        ("units.cpp", "function", "geo::operator + (const Meters&, const Meters&)"),
        ("units.h", "declaration", "geo::operator+(const Meters&, const Meters&)"),
    )
    assert found(tmp_path, *targets) == expected(tmp_path)


def test_an_operator_called_by_its_name_is_a_use(tmp_path):
    write_tree(
        tmp_path,
        {
            "heat.h": """
            namespace kiln {
            struct Joules { double v; };
            Joules operator-(const Joules& a, const Joules& b);
            Joules operator-(const Joules& a);
            }
        """,
            "heat.cpp": """
            #include "heat.h"
            namespace kiln {
            Joules operator-(const Joules& a, const Joules& b) { return Joules{a.v - b.v}; }
            Joules operator-(const Joules& a) { return Joules{-a.v}; }
            }
        """,
            "loss.cpp": """
            #include "heat.h"
            using namespace kiln;
            Joules lost(Joules in, Joules out) { return operator-(in, out); } // REF
            Joules spent(Joules in, Joules out) { return kiln::operator-(in, out); } // REF
            Joules back(Joules in) { return operator-(in); }
            double plain(double a, double b) { return a - b; }
        """,
            "drift.cpp": """
            #include "heat.h"
            auto drift(auto in, auto out) { return kiln::operator-(in, out); } // MAYBE
        """,
        },
    )
    targets = (
        ("heat.cpp", "function", "kiln::operator-(const Joules&, const Joules&)"),
        ("heat.h", "declaration", "kiln::operator-(const Joules&, const Joules&)"),
    )
    assert found(tmp_path, *targets) == expected(tmp_path)


def test_a_string_concatenation_through_a_deleted_free_operator_is_a_use(tmp_path):
    write_tree(
        tmp_path,
        {
            "label.h": """
            namespace ui {
            class Caption {
             public:
              Caption operator+(const char* tail) const;
            };
            Caption operator+(const char* head, const Caption& caption);
            }
        """,
            "label.cpp": """
            #include "label.h"
            namespace ui {
            Caption Caption::operator+(const char* tail) const { return *this; }
            Caption operator+(const char* head, const Caption& caption) { return caption; }
            }
        """,
            "menu.cpp": """
            #include "label.h"
            #include <string>
            ui::Caption quoted(ui::Caption inner) { return "[" + inner; } // REF
            ui::Caption suffixed(ui::Caption inner) { return inner + "]"; }
            std::string plain(std::string s) { return "(" + s + ")"; }
        """,
        },
    )
    targets = (
        ("label.cpp", "function", "ui::operator+(const char*, const Caption&)"),
        ("label.h", "declaration", "ui::operator+"),
    )
    assert found(tmp_path, *targets) == expected(tmp_path)


def test_uses_of_a_deleted_data_member(tmp_path):
    write_tree(
        tmp_path,
        {
            "gauge.h": """
            namespace dash {
            struct Gauge {
              Gauge();
              int needle;
              int ticks;
              int read() const { return needle; } // REF
            };
            }
        """,
            "gauge.cpp": """
            #include "gauge.h"
            namespace dash {
            Gauge::Gauge() : needle(0), ticks(4) {} // REF
            int total(Gauge g, Dial d) { return g.ticks + d.needle; }
            int peek(const Gauge& g) { return g.needle; } // REF
            int other(Panel* p) { return p->needle; }
            int aim(Gauge* g) { return g->needle; } // REF
            int swing(const Gauge& g) { Gauge* copy = nullptr; return copy->needle + g.ticks; } // REF
            int guess(Panel p) { return p.get()->needle; } // MAYBE
            int local() { int needle = 3; return needle; }
            }
        """,
        },
    )
    assert found(tmp_path, ("gauge.h", "field", "dash::Gauge::needle")) == expected(tmp_path)


def test_member_operators_by_operand_count(tmp_path):
    write_tree(
        tmp_path,
        {
            "ticker.h": """
            struct Ticker {
              Ticker& operator++();
              Ticker operator++(int);
              int operator[](int slot) const;
              Ticker& operator+=(const Ticker& other);
            };
        """,
            "ticker.cpp": """
            #include "ticker.h"
            Ticker& Ticker::operator++() { return *this; }
            Ticker Ticker::operator++(int) { return *this; }
            int Ticker::operator[](int slot) const { return slot; }
            Ticker& Ticker::operator+=(const Ticker& other) { return *this; }
        """,
            "use.cpp": """
            #include "ticker.h"
            void spin(Ticker t, Ticker u, int i) {
              t++; // REF
              ++t;
              i++;
              int at = t[2]; // REF
              t += u;
              int v[3];
              int w = v[1];
            }
        """,
        },
    )
    targets = (
        ("ticker.cpp", "function", "Ticker::operator++(int)"),
        ("ticker.h", "declaration", "Ticker::operator++(int)"),
        ("ticker.cpp", "function", "Ticker::operator[]"),
        ("ticker.h", "declaration", "Ticker::operator[]"),
    )
    assert found(tmp_path, *targets) == expected(tmp_path)


def test_an_unqualified_name_reaches_a_deleted_member_function_only_from_a_member_function(tmp_path):
    write_tree(
        tmp_path,
        {
            "tally.h": """
            namespace stats {
            class Tally {
             public:
              void Reset();
              void Bump() { Reset(); } // REF
            };
            inline void Tally::Reset() {}
            }
        """,
            "ledger.cpp": """
            namespace books {
            class Ledger {
             public:
              Ledger() { Reset(); }
            };
            class Audit : public Base {
             public:
              Audit() { Reset(); } // MAYBE
            };
            void Audit2::Close() { Reset(); } // MAYBE
            void wipe() { Reset(); }
            }
        """,
        },
    )
    assert found(tmp_path, ("tally.h", "function", "stats::Tally::Reset")) == expected(tmp_path)


def test_a_files_own_static_function_hides_a_deleted_one_of_a_header_it_does_not_include(tmp_path):
    write_tree(
        tmp_path,
        {
            "include/press/plate.h": """
            #pragma once
            namespace press { namespace detail {
            static int inkle(int dots) { return dots * 2; }
            } }
        """,
            "single/press_all.h": """
            #pragma once
            namespace press {
            namespace detail {
            static int inkle(int dots) { return dots + 1; }
            }
            inline int roll(int dots) { return detail::inkle(dots) + press::detail::inkle(dots); }
            }
        """,
            "src/proof.cpp": """
            #include "press/plate.h"
            namespace press { namespace detail {
            static int inkle(const char* word) { return word[0]; }
            } }
            int proof() { return press::detail::inkle(3) + press::detail::inkle("x"); } // REF
        """,
            "src/loose.h": """
            inline int loose() { return press::detail::inkle(4); } // REF
        """,
        },
    )
    assert found(tmp_path, ("include/press/plate.h", "function", "press::detail::inkle")) == expected(tmp_path)


def test_a_type_a_source_file_defines_is_local_to_it(tmp_path):
    write_tree(
        tmp_path,
        {
            "tools/probe.cpp": """
            #include "core/meter.h"
            using Reading = double;
            Reading sample() { return 1.5; } // REF
        """,
            "core/meter.h": """
            #pragma once
            namespace gauge {
            class Meter {
             public:
              class Reading {
               public:
                Reading();
                Reading(const Reading&) = default;
              };
              Reading last();
            };
            }
        """,
            "core/meter.cpp": """
            #include "meter.h"
            namespace gauge {
            Meter::Reading::Reading() {}
            Meter::Reading Meter::last() { return Reading(); }
            }
        """,
            "tools/loose.h": """
            inline Reading loose_sample() { return 2.5; }
        """,
        },
    )
    assert found(tmp_path, ("tools/probe.cpp", "type", "Reading")) == expected(tmp_path)


def test_another_copy_of_a_header_in_a_tree_is_another_item(tmp_path):
    kit = """
        #pragma once
        struct Frame { int width; };
        inline int make_frame(int width) { return width * 2; }
        void paint(Frame& frame, int times);{marker}
    """
    write_tree(
        tmp_path,
        {
            "alpha/kit.hpp": kit.replace("{marker}", " // REF"),
            "alpha/paint.cpp": """
            #include "kit.hpp"
            void paint(Frame& frame, int times) { frame.width += times; }
        """,
            "alpha/main.cpp": """
            #include "kit.hpp"
            int run_alpha() {
              Frame frame{make_frame(3)}; // REF
              paint(frame, 2); // REF
              return frame.width;
            }
        """,
            "beta/kit.hpp": kit.replace("{marker}", ""),
            "beta/paint.cpp": """
            #include "kit.hpp"
            void paint(Frame& frame, int times) { frame.width -= times; }
        """,
            "beta/main.cpp": """
            #include "kit.hpp"
            int run_beta() {
              Frame frame{make_frame(4)};
              paint(frame, 1);
              return frame.width;
            }
        """,
            "loose/use.cpp": """
            int run_loose() { return make_frame(5); } // REF
        """,
        },
    )
    assert found(
        tmp_path, ("alpha/kit.hpp", "function", "make_frame"), ("alpha/paint.cpp", "function", "paint")
    ) == expected(tmp_path)


def test_a_deleted_forward_declaration_leaves_its_class_and_its_members(tmp_path):
    write_tree(
        tmp_path,
        {
            "ui/window.h": """
            #pragma once
            namespace ui {
            class Chime;
            class Window {
              Chime* chime_; // REF
            };
            }
        """,
            "ui/chime.h": """
            #pragma once
            namespace ui {
            class Chime {
             public:
              Chime();
              void ring(int times);
            };
            }
        """,
            "ui/chime.cpp": """
            #include "chime.h"
            namespace ui {
            Chime::Chime() {}
            void Chime::ring(int times) { (void)times; }
            }
        """,
            "ui/tray.cpp": """
            #include "chime.h"
            namespace ui {
            void alert(Chime* chime) { chime->ring(2); }
            }
        """,
        },
    )
    recipe = Recipe(id="t", summary="", deletions=(ItemTarget("ui/window.h", "cpp", "class", "ui::Chime"),))
    plan = plan_recipe(tmp_path, recipe)
    assert [c.path for c in plan.changes] == ["ui/window.h"]
    assert found(tmp_path, ("ui/window.h", "class", "ui::Chime")) == expected(tmp_path)
