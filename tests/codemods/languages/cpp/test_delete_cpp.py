from pathlib import Path

from codemods import ItemTarget, Recipe, plan_recipe
from codemods.languages.cpp.deletion import delete_cpp_items
from codemods.languages.cpp.items import CppTarget

from codemod_helpers import assert_deletes, dedent, run_deletion


def test_definition_with_leading_comment_followed_by_anonymous_namespace():
    assert_deletes(
        "cpp",
        """
        namespace mlx_cxx {

        // Dense compat: gathers blocks, then attends.
        std::unique_ptr<MlxArray> frob_compat(
            const MlxArray& q,
            rust::Slice<const MlxArray* const> keys,
            rust::Slice<const int32_t> lengths) {
          if (keys.empty()) {
            throw std::invalid_argument("frob_compat: empty batch");
          }
          return nullptr;
        }

        namespace {
        int helper() { return 1; }
        }  // namespace

        }  // namespace mlx_cxx
        """,
        [("function", "frob_compat")],
        """
        namespace mlx_cxx {

        namespace {
        int helper() { return 1; }
        }  // namespace

        }  // namespace mlx_cxx
        """,
    )


def test_definition_directly_followed_by_anonymous_namespace_without_blank_line():
    assert_deletes(
        "cpp",
        """
        int keep();

        // Gone.
        int gone(int x) {
          return x;
        }
        namespace {
        int helper() { return 1; }
        }  // namespace
        """,
        [("function", "gone")],
        """
        int keep();

        namespace {
        int helper() { return 1; }
        }  // namespace
        """,
    )


def test_header_declarations_with_one_line_comments():
    assert_deletes(
        "cpp",
        """
        #pragma once

        // Pooled kernel.
        std::unique_ptr<MlxArray> frob_pooled(const MlxArray& q);

        // Dense compat.
        std::unique_ptr<MlxArray> frob_compat(const MlxArray& q,
                                              rust::Slice<const int32_t> lengths);

        // Rotating compat.
        std::unique_ptr<MlxArray> frob_rotating_compat(const MlxArray& q);
        """,
        [("declaration", "frob_compat"), ("declaration", "frob_rotating_compat")],
        """
        #pragma once

        // Pooled kernel.
        std::unique_ptr<MlxArray> frob_pooled(const MlxArray& q);
        """,
    )


def test_declaration_kind_does_not_delete_the_definition():
    source = dedent(
        """
        int frob(int x);

        int frob(int x) { return x; }
        """
    )
    result, findings = run_deletion("cpp", source, [("declaration", "frob")])
    assert result == b"int frob(int x) { return x; }\n"
    assert not findings


def test_missing_function_blocks_with_the_closest_names():
    result, findings = run_deletion(
        "cpp",
        b"namespace mlx {\nint frob_compat();\n}\n",
        [("declaration", "mlx::frob_compta"), ("function", "frob_compat")],
    )
    assert result == b"namespace mlx {\nint frob_compat();\n}\n"
    assert [(f.code, f.blocking, f.message) for f in findings] == [
        ("no-such-item", True, "no item mlx::frob_compta of kind declaration in t.cpp; did you mean mlx::frob_compat?"),
        ("shape-mismatch", True, "frob_compat: expected a function, found a declaration; not deleted"),
    ]


def test_missing_function_in_a_file_already_clean_is_a_note():
    findings = delete_cpp_items(
        "t.cpp", b"int keep();\n", [CppTarget("function", "absent")], already_absent=lambda: True
    ).findings
    assert [(f.code, f.blocking) for f in findings] == [("not-found", False)]


def test_template_and_qualified_definitions():
    assert_deletes(
        "cpp",
        """
        template <typename T>
        T gone(T x) {
          return x;
        }

        int ns::Klass::gone2() { return 0; }

        int keep() { return 1; }
        """,
        [("function", "gone"), ("function", "gone2")],
        """
        int keep() { return 1; }
        """,
    )


def test_attributes_and_annotation_macros_go_with_the_declaration():
    assert_deletes(
        "cpp",
        """
        namespace mlx_cxx {

        // Kept.
        int keep();

        // Pooled.
        [[nodiscard]]
        std::unique_ptr<MlxArray> gone_nodiscard(const MlxArray& q);

        __attribute__((visibility("default")))
        int gone_visible(int x) { return x; }

        // Deprecated, see below.
        MLX_DEPRECATED("use frob_pooled")  // until 2.0
        // Between the macro and the declaration.
        MLX_API
        std::unique_ptr<MlxArray> gone_macro(const MlxArray& q);
        int keep2();

        }  // namespace mlx_cxx
        """,
        [("declaration", "gone_nodiscard"), ("function", "gone_visible"), ("declaration", "gone_macro")],
        """
        namespace mlx_cxx {

        // Kept.
        int keep();

        int keep2();

        }  // namespace mlx_cxx
        """,
        planned=False,  # tree-sitter misreads the MLX_API line: the planner would refuse to edit here
    )


def test_a_qualified_name_addresses_exactly():
    source = dedent(
        """
        int frob();
        namespace mlx_cxx {
        int frob();
        namespace detail {
        int frob();
        }  // namespace detail
        namespace {
        int helper();
        }  // namespace
        }  // namespace mlx_cxx
        int mlx_cxx::Klass::frob() { return 0; }
        """
    )
    deleted = {}
    for name in ("frob", "::frob", "mlx_cxx::frob", "mlx_cxx::detail::frob", "mlx_cxx::Klass::frob", "mlx_cxx::helper"):
        result, findings = run_deletion("cpp", source, [("any", name)])
        assert not findings, findings
        deleted[name] = source.count(b"\n") - result.count(b"\n")
    # A namespace left empty (`detail`, the anonymous one) goes with its last item.
    assert deleted == {
        "frob": 6,
        "::frob": 1,
        "mlx_cxx::frob": 1,
        "mlx_cxx::detail::frob": 3,
        "mlx_cxx::Klass::frob": 1,
        "mlx_cxx::helper": 3,
    }
    _, findings = run_deletion("cpp", source, [("any", "detail::frob")])
    assert [f.message for f in findings] == [
        "no item detail::frob of kind any in t.cpp; did you mean mlx_cxx::detail::frob or mlx_cxx::frob or frob?"
    ]


def test_a_plan_deletes_a_declaration_annotated_by_a_macro_line(tmp_path: Path):
    header = tmp_path / "bridge.h"
    header.write_bytes(b'#pragma once\n\nMLX_DEPRECATED("old")\nint gone(int x);\n\nint keep(int x);\n')
    recipe = Recipe(id="macro", summary="", deletions=(ItemTarget("bridge.h", "cpp", "declaration", "gone"),))
    plan = plan_recipe(tmp_path, recipe)
    assert not plan.findings
    assert [c.after for c in plan.changes] == [b"#pragma once\n\nint keep(int x);\n"]


def test_a_namespace_macro_defined_in_another_header_points_to_namespace_macros(tmp_path):
    """The macro's namespace is read from its name (`SPOOL`): "did you mean" must not suggest
    `spool::wind`; the message says what the recipe's `namespace_macros` should hold."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "spool_config.h").write_text(
        "#define SPOOL_BEGIN_NAMESPACE namespace yarn { inline namespace v2 {\n#define SPOOL_END_NAMESPACE } }\n"
    )
    (tmp_path / "lib" / "reel.h").write_bytes(
        dedent("""
        #pragma once
        #include "spool_config.h"
        SPOOL_BEGIN_NAMESPACE
        namespace knots {
        inline int wind(int turns) { return turns * 3; }
        }
        SPOOL_END_NAMESPACE
    """)
    )

    def refusal(**macros: str):
        recipe = Recipe(
            id="t",
            summary="",
            namespace_macros=macros,
            deletions=(ItemTarget("lib/reel.h", "cpp", "function", "yarn::knots::wind"),),
        )
        return [f for f in plan_recipe(tmp_path, recipe).findings if f.blocking]

    [finding] = refusal()
    assert finding.code == "no-such-item" and (finding.path, finding.line) == ("lib/reel.h", 5)
    assert "spool::" not in finding.message and not finding.candidates
    assert 'namespace_macros = { SPOOL_BEGIN_NAMESPACE = "yarn" }' in finding.message
    assert "read as opening namespace spool" in finding.message
    assert refusal(SPOOL_BEGIN_NAMESPACE="yarn") == []


def test_a_comment_heading_a_group_of_overloads_stays_with_the_one_kept():
    assert_deletes(
        "cpp",
        """
        // Renders the chart; the second form writes it to `path`.
        std::string render(const Chart& chart);
        bool render(const Chart& chart, const std::string& path);

        // Only for tests.
        int tick_count(const Chart& chart);
        """,
        [("declaration", "render(const Chart&)")],
        """
        // Renders the chart; the second form writes it to `path`.
        bool render(const Chart& chart, const std::string& path);

        // Only for tests.
        int tick_count(const Chart& chart);
        """,
    )
    assert_deletes(
        "cpp",
        """
        // Renders the chart; the second form writes it to `path`.
        std::string render(const Chart& chart);
        bool render(const Chart& chart, const std::string& path);

        int tick_count(const Chart& chart);
        """,
        [("declaration", "render(const Chart&)"), ("declaration", "render(const Chart&, const std::string&)")],
        """
        int tick_count(const Chart& chart);
        """,
    )


def test_a_class_section_left_without_members_loses_its_label():
    """`private:` whose every member goes goes too; a section that keeps a member keeps its label."""
    assert_deletes(
        "cpp",
        """
        class Lathe {
         public:
          int spin() const { return rpm_; }

         protected:
          int chuck_ = 0;

         private:
          // Cached speed.
          int rpm_cache_ = 0;
          int rpm_ = 0;
        };
        """,
        [("field", "Lathe::rpm_cache_"), ("field", "Lathe::chuck_")],
        """
        class Lathe {
         public:
          int spin() const { return rpm_; }

         private:
          int rpm_ = 0;
        };
        """,
    )
