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
    write_tree(tmp_path, {
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
    })
    assert found(tmp_path, ("a.cpp", "function", "scale"), ("a.cpp", "function", "shift")) == expected(tmp_path)


def test_namespaces_and_qualified_names(tmp_path):
    write_tree(tmp_path, {
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
    })
    assert found(tmp_path, ("kernels.cpp", "function", "frob")) == expected(tmp_path)


def test_locals_and_members_are_not_uses(tmp_path):
    write_tree(tmp_path, {
        "a.cpp": """
            int frob(int x) { return x; }
            int by_local() { int frob = 2; return frob; }
            int by_parameter(int frob) { return frob; }
            int by_member(Cache& c, Cache* p) { return c.frob() + p->frob(); }
            int real(int x) { return frob(x); } // REF
        """,
    })
    assert found(tmp_path, ("a.cpp", "function", "frob")) == expected(tmp_path)


def test_a_header_declaration_and_its_definition_are_one_item(tmp_path):
    write_tree(tmp_path, {
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
    })
    assert found(tmp_path, ("bridge.cpp", "function", "frob")) == expected(tmp_path)
    (tmp_path / "bridge.h").write_text((tmp_path / "bridge.h").read_text().replace(" // REF", ""))
    both = found(tmp_path, ("bridge.cpp", "function", "frob"), ("bridge.h", "declaration", "frob"))
    assert both == {}
