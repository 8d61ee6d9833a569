"""C++ as maintainers write it: include guards, conditional branches, namespaces opened by
macros, the item kinds beyond functions, and overloads named by signature."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods import ItemTarget, Recipe, plan_recipe
from codemods.edit.item_spans import deletion_edits
from codemods.edit.splice import splice
from codemods.languages.cpp.deletion import delete_cpp_items
from codemods.languages.cpp.items import CppTarget, cpp_items
from codemods.languages.cpp.signature import parse_signature
from codemods.config.loader import RecipeError, load_recipe
from codemods.testing import assert_recipe

from codemod_helpers import assert_deletes, dedent, dedent_text


def _delete(before: str, targets: list[CppTarget], macros=()) -> tuple[str, list]:
    source = dedent(before)
    taken = delete_cpp_items("t.h", source, targets, namespace_macros=macros)
    return splice(source, deletion_edits("t.h", source, taken.taken)).decode(), taken.findings


def test_an_inline_function_inside_an_include_guard_is_found_in_its_namespace():
    assert_deletes(
        "cpp",
        """
        #ifndef LIB_FORMAT_H_
        #define LIB_FORMAT_H_

        namespace lib {

        inline int Keep(int x) { return x; }

        inline int Gone(int x) {
          return x + 1;
        }

        }  // namespace lib

        #endif  // LIB_FORMAT_H_
        """,
        [("function", "lib::Gone")],
        """
        #ifndef LIB_FORMAT_H_
        #define LIB_FORMAT_H_

        namespace lib {

        inline int Keep(int x) { return x; }

        }  // namespace lib

        #endif  // LIB_FORMAT_H_
        """,
    )


def test_pragma_once_and_an_include_guard_are_no_branch():
    source = dedent("""
        #pragma once
        #ifndef G
        #define G
        void f();
        #endif
        """)
    [item] = cpp_items(source)
    assert (item.name, item.condition, item.inactive) == ("f", "", False)


BRANCHES = """
    void keep();

    #ifdef __APPLE__
    // Metal.
    void dispatch(int n);
    #else
    void dispatch(int n);
    #endif

    void keep_too();
    """


def test_a_name_in_several_branches_is_refused_listing_each_branch():
    after, findings = _delete(BRANCHES, [CppTarget("declaration", "dispatch")])
    [finding] = findings
    assert finding.blocking and finding.code == "ambiguous-target"
    assert 'branch = "defined(__APPLE__)"' in finding.message
    assert 'branch = "!defined(__APPLE__)"' in finding.message
    assert after == dedent_text(BRANCHES)


def test_a_branch_is_selected_by_its_condition_whitespace_aside():
    after, findings = _delete(BRANCHES, [CppTarget("declaration", "dispatch", "defined( __APPLE__ )")])
    assert not findings
    assert after == dedent_text("""
        void keep();

        #ifdef __APPLE__
        #else
        void dispatch(int n);
        #endif

        void keep_too();
        """)


def test_deleting_every_branch_removes_the_emptied_conditional():
    after, findings = _delete(BRANCHES, [CppTarget("declaration", "dispatch", "*")])
    assert not findings
    assert after == dedent_text("""
        void keep();

        void keep_too();
        """)


def test_an_emptied_nested_conditional_goes_with_the_one_around_it():
    after, findings = _delete(
        """
        int keep;

        #if defined(A)
        #if B > 1
        void gone();
        #endif
        #endif

        int keep_too;
        """,
        [CppTarget("declaration", "gone")],
    )
    assert not findings
    assert after == dedent_text("""
        int keep;

        int keep_too;
        """)
    [item] = [i for i in cpp_items(dedent("#if defined(A)\n#if B > 1\nvoid gone();\n#endif\n#endif\n"))]
    assert item.condition == "defined(A) && B > 1"


def test_an_elif_branch_names_the_conditions_before_it():
    source = dedent("""
        #if 0
        int v;
        #elif defined(X)
        int v;
        #elif HAVE_Y
        int v;
        #else
        int v;
        #endif
        """)
    assert [(i.condition, i.inactive) for i in cpp_items(source)] == [
        ("0", True),
        ("defined(X)", False),
        ("!defined(X) && HAVE_Y", False),
        ("!defined(X) && !HAVE_Y", False),
    ]


def test_fmt_begin_namespace_is_recognised_and_a_recipe_names_other_macros():
    source = dedent("""
        FMT_BEGIN_NAMESPACE
        namespace detail {
        int a();
        }
        FMT_END_NAMESPACE

        MYLIB_BEGIN
        int b();
        MYLIB_END
        """)
    assert {i.qualified_name for i in cpp_items(source)} == {"fmt::detail::a", "b"}
    named = {i.qualified_name for i in cpp_items(source, namespace_macros=(("MYLIB_BEGIN", "my::lib"),))}
    assert named == {"fmt::detail::a", "my::lib::b"}
    after, findings = _delete(dedent_text(source.decode()), [CppTarget("declaration", "fmt::detail::a")])
    assert not findings and "a();" not in after and "FMT_BEGIN_NAMESPACE" in after


@pytest.mark.parametrize(
    "kind, name, gone",
    [
        ("class", "ns::Box", "template <typename T>\nclass Box {\n  T value;\n};\n"),
        ("struct", "ns::Point", "struct Point {\n  int x;\n};\n"),
        ("union", "ns::Bits", "union Bits {\n  int i;\n  float f;\n};\n"),
        ("enum", "ns::Mode", "enum class Mode { kA, kB };\n"),
        ("enum", "ns::Plain", "enum Plain { kC };\n"),
        ("type", "ns::Alias", "using Alias = int;\n"),
        ("type", "ns::Vec", "template <typename T>\nusing Vec = Box<T>;\n"),
        ("type", "ns::Handle", "typedef struct Point* Handle;\n"),
        ("variable", "ns::kLimit", "constexpr int kLimit = 4;\n"),
        ("function", "ns::twice", "template <typename T>\nT twice(T x) {\n  return x + x;\n}\n"),
    ],
)
def test_each_kind_is_deleted_with_its_template_head(kind: str, name: str, gone: str):
    items = (
        "template <typename T>\nclass Box {\n  T value;\n};\n",
        "struct Point {\n  int x;\n};\n",
        "union Bits {\n  int i;\n  float f;\n};\n",
        "enum class Mode { kA, kB };\n",
        "enum Plain { kC };\n",
        "using Alias = int;\n",
        "template <typename T>\nusing Vec = Box<T>;\n",
        "typedef struct Point* Handle;\n",
        "constexpr int kLimit = 4;\n",
        "template <typename T>\nT twice(T x) {\n  return x + x;\n}\n",
    )
    source = "namespace ns {\n\n" + "\n".join(items) + "\n}  // namespace ns\n"
    after, findings = _delete(source, [CppTarget(kind, name)])
    assert not findings
    assert after == "namespace ns {\n\n" + "\n".join(i for i in items if i != gone) + "\n}  // namespace ns\n"


@pytest.mark.parametrize("kind", ["function", "any"])
def test_an_out_of_line_member_goes_with_its_in_class_declaration(kind: str):
    after, findings = _delete(
        """
        namespace db {
        class Table {
         public:
          int Size() const;
          void Clear();
        };

        int Table::Size() const { return 0; }

        void Table::Clear() {}
        }  // namespace db
        """,
        [CppTarget(kind, "db::Table::Size")],
    )
    assert not findings
    assert after == dedent_text("""
        namespace db {
        class Table {
         public:
          void Clear();
        };

        void Table::Clear() {}
        }  // namespace db
        """)


def test_a_variable_declared_with_others_is_refused():
    _, findings = _delete("int a, b;\n", [CppTarget("variable", "a")])
    assert [f.code for f in findings] == ["shape-mismatch"]


OVERLOADS = """
    namespace detail {
    template <typename OutputIt>
    auto copy(const char* str, OutputIt out) -> OutputIt;

    template <typename OutputIt> auto copy(char ch, OutputIt out) -> OutputIt;

    inline void copy(std::string const &s, size_t n = 0);
    }  // namespace detail
    """


def test_a_bare_name_with_several_overloads_is_refused_listing_each_signature():
    _, findings = _delete(OVERLOADS, [CppTarget("declaration", "detail::copy")])
    [finding] = findings
    assert finding.blocking and finding.code == "ambiguous-target"
    for form in (
        "'detail::copy(const char*, OutputIt)'",
        "'detail::copy(char, OutputIt)'",
        "'detail::copy(const std::string&, size_t)'",
        "'detail::copy(*)'",
    ):
        assert form in finding.message


def test_a_signature_selects_one_overload_const_placement_and_names_aside():
    after, findings = _delete(OVERLOADS, [CppTarget("declaration", "detail::copy(const std::string& text, size_t)")])
    assert not findings
    assert "std::string" not in after and after.count("copy(") == 2
    after, findings = _delete(OVERLOADS, [CppTarget("declaration", "copy(char const *, OutputIt)")])
    assert not findings and "const char*" not in after and after.count("copy(") == 2


def test_star_selects_every_overload_and_an_unknown_signature_names_the_others():
    after, findings = _delete(OVERLOADS, [CppTarget("declaration", "copy(*)")])
    assert not findings and "copy(" not in after
    _, findings = _delete(OVERLOADS, [CppTarget("declaration", "copy(int, OutputIt)")])
    [finding] = findings
    assert finding.code == "no-such-item" and "copy(char, OutputIt)" in finding.message


def test_signatures_are_normalised():
    assert parse_signature("const char * s, size_t n = 3") == ("const char*", "size_t")
    assert parse_signature("char const*, std::vector<int> const &") == ("const char*", "const std::vector<int>&")
    assert parse_signature("void") == parse_signature("") == ()


TREE = {
    "src/strings.h": """
        #pragma once
        namespace lib {
        int count(const char* s);
        int count(const char* s, int limit);
        }  // namespace lib
        """,
    "src/use.cc": """
        #include "strings.h"
        int one() { return lib::count("a"); }
        #if 0
        int two() { return lib::count("a", 2); }
        #endif
        """,
}


def _tree(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(dedent_text(text))
    return root


def test_calls_are_told_apart_by_arity_and_inactive_code_is_no_use(tmp_path: Path):
    root = _tree(tmp_path, TREE)
    recipe = Recipe(
        id="t",
        summary="",
        deletions=(ItemTarget("src/strings.h", "cpp", "declaration", "lib::count(const char*, int)"),),
        check_scope=(),
        protected=(),
    )
    plan = plan_recipe(root, recipe)
    assert not plan.blocking, plan.blocking
    recipe = Recipe(
        id="t",
        summary="",
        deletions=(ItemTarget("src/strings.h", "cpp", "declaration", "lib::count(const char*)"),),
        check_scope=(),
        protected=(),
    )
    plan = plan_recipe(root, recipe)
    assert [(f.path, f.line) for f in plan.blocking] == [("src/use.cc", 2)]


def test_namespace_macros_of_a_recipe_file(tmp_path: Path):
    path = tmp_path / "r.toml"
    path.write_text(
        'id = "r"\nnamespace_macros = { MYLIB_BEGIN = "my::lib" }\n\n[[delete]]\npath = "a.h"\n'
        'language = "cpp"\nkind = "declaration"\nname = "my::lib::b"\nbranch = ""\n'
    )
    recipe = load_recipe(str(path))
    assert recipe.namespace_macros == (("MYLIB_BEGIN", "my::lib"),)
    assert recipe.deletions[0].namespace_macros == recipe.namespace_macros
    assert_recipe(
        "MYLIB_BEGIN\nint b();\nint c();\nMYLIB_END\n", recipe, "MYLIB_BEGIN\nint c();\nMYLIB_END\n", path="a.h"
    )
    path.write_text('id = "r"\nnamespace_macros = ["MYLIB_BEGIN"]\n')
    with pytest.raises(RecipeError, match="namespace_macros must be a table"):
        load_recipe(str(path))


def test_includes_are_resolved_beside_the_file_and_under_include_folders():
    from codemods.languages.cpp.includes import included_files

    files = {
        "include/fmt/format.h": b'#include "base.h"\n',
        "include/fmt/base.h": b"",
        "src/os.cc": b'#include "fmt/format.h"\n#include "missing.h"\n#include <vector>\n',
    }
    assert included_files("src/os.cc", files.get) == {"include/fmt/format.h", "include/fmt/base.h"}


def test_a_static_function_is_visible_in_the_files_that_include_its_file(tmp_path: Path):
    root = _tree(
        tmp_path,
        {
            "src/impl.inc": "static int helper(int x) { return x; }\n",
            "src/unity.cc": '#include "impl.inc"\nint use() { return helper(1); }\n',
            "src/other.cc": "static int helper(int x);\nint other() { return helper(2); }\n",
        },
    )
    recipe = Recipe(
        id="t",
        summary="",
        deletions=(ItemTarget("src/impl.inc", "cpp", "function", "helper"),),
        check_scope=(),
        protected=(),
    )
    plan = plan_recipe(root, recipe)
    assert [(f.path, f.line) for f in plan.blocking] == [("src/unity.cc", 2)]


def test_calls_are_told_apart_by_literal_and_local_argument_types(tmp_path: Path):
    root = _tree(
        tmp_path,
        {
            "src/copy.h": """
            #pragma once
            namespace detail {
            template <typename OutputIt> OutputIt copy(const char* str, OutputIt out);
            template <typename OutputIt> OutputIt copy(char ch, OutputIt out);
            }  // namespace detail
            """,
            "src/use.cc": """
            #include "copy.h"
            char* one(char* out) { return detail::copy('x', out); }
            char* two(char* out) { const char* s = "ab"; return detail::copy(s, out); }
            char* three(char* out, char c) { return detail::copy(c, out); }
            char* four(char* out) { return detail::copy("ab", out); }
            """,
        },
    )
    recipe = Recipe(
        id="t",
        summary="",
        deletions=(ItemTarget("src/copy.h", "cpp", "declaration", "detail::copy(char, OutputIt)"),),
        check_scope=(),
        protected=(),
    )
    plan = plan_recipe(root, recipe)
    assert [(f.path, f.line) for f in plan.blocking] == [("src/use.cc", 2), ("src/use.cc", 4)]


def test_a_member_declared_in_another_files_class_is_reported_left_behind(tmp_path: Path):
    root = _tree(
        tmp_path,
        {
            "db/table.h": "#pragma once\nnamespace db {\nclass Table {\n public:\n  int Size() const;\n};\n}  // namespace db\n",
            "db/table.cc": '#include "db/table.h"\nnamespace db {\nint Table::Size() const { return 0; }\n}  // namespace db\n',
        },
    )
    recipe = Recipe(
        id="t",
        summary="",
        deletions=(ItemTarget("db/table.cc", "cpp", "function", "db::Table::Size"),),
        check_scope=(),
        protected=(),
    )
    [finding] = plan_recipe(root, recipe).blocking
    assert (finding.path, finding.line, finding.reference_kind) == ("db/table.h", 5, "declaration")


def test_other_begin_end_macro_pairs_are_looked_through_opening_no_namespace():
    source = dedent("""
        FMT_BEGIN_NAMESPACE
        FMT_BEGIN_EXPORT
        template <typename T> struct is_map {};
        FMT_END_NAMESPACE
        FMT_END_EXPORT
        """)
    [item] = cpp_items(source)
    assert (item.kind, item.qualified_name) == ("struct", "fmt::is_map")


def test_a_rewrite_rule_scoped_to_a_cpp_item_finds_it_by_its_qualified_name(tmp_path: Path):
    from codemods import PatternRewrite

    recipe = Recipe(
        id="t",
        summary="",
        rewrites=(PatternRewrite("src/a.cc", "g($X)", "g2($X)", item="ns::h"),),
        check_scope=(),
        protected=(),
    )
    assert_recipe(
        "namespace ns {\nint f() { return g(1); }\nint h() { return g(1); }\n}\n",
        recipe,
        "namespace ns {\nint f() { return g(1); }\nint h() { return g2(1); }\n}\n",
        path="src/a.cc",
    )


def test_a_call_an_overload_that_stays_could_take_is_possible(tmp_path: Path):
    root = _tree(
        tmp_path,
        {
            "src/copy.h": """
            #pragma once
            namespace detail {
            template <typename OutputIt> OutputIt copy(const char* str, OutputIt out);
            template <typename OutputIt> OutputIt copy(char ch, OutputIt out);
            }  // namespace detail
            """,
            "src/use.cc": """
            #include "copy.h"
            template <typename T> char* any(T value, char* out) { return detail::copy(value, out); }
            """,
        },
    )
    recipe = Recipe(
        id="t",
        summary="",
        deletions=(ItemTarget("src/copy.h", "cpp", "declaration", "detail::copy(char, OutputIt)"),),
        check_scope=(),
        protected=(),
    )
    plan = plan_recipe(root, recipe)
    assert not plan.blocking
    [finding] = [f for f in plan.findings if f.code == "dangling-reference"]
    assert (finding.line, finding.certainty) == (2, "possible")
    assert "may pick copy(const char*, OutputIt), which stays" in finding.resolution


def test_the_registry_lists_the_cpp_kinds_the_plugin_finds():
    from codemods.languages.cpp.items import KINDS
    from codemods.core.registry import LANGUAGES

    assert LANGUAGES["cpp"].deletable_kinds == KINDS
