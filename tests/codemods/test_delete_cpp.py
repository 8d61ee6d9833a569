from codemods.cpp.items import CppTarget, delete_cpp_items

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
    result, findings = run_deletion("cpp", b"namespace mlx {\nint frob_compat();\n}\n",
                                    [("declaration", "mlx::frob_compta"), ("function", "frob_compat")])
    assert result == b"namespace mlx {\nint frob_compat();\n}\n"
    assert [(f.code, f.blocking, f.message) for f in findings] == [
        ("no-such-item", True, "no item mlx::frob_compta of kind declaration in t.cpp; did you mean mlx::frob_compat?"),
        ("shape-mismatch", True, "frob_compat: expected a function, found a declaration; not deleted"),
    ]


def test_missing_function_in_a_file_already_clean_is_a_note():
    _, _, findings = delete_cpp_items("t.cpp", b"int keep();\n", [CppTarget("function", "absent")],
                                      already_absent=lambda: True)
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
