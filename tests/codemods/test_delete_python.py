from codemod_helpers import assert_deletes, run_deletion


def test_function_with_comment_and_decorator():
    assert_deletes(
        "python",
        """
        import os


        # Helper that goes.
        @staticmethod
        def gone():
            return 1


        def keep():
            return 2
        """,
        [("function", "gone")],
        """
        import os


        def keep():
            return 2
        """,
    )


def test_method_by_qualified_name():
    assert_deletes(
        "python",
        """
        class Frob:
            def keep(self):
                return 1

            def gone(self):
                return 2
        """,
        [("function", "Frob.gone")],
        """
        class Frob:
            def keep(self):
                return 1
        """,
    )


def test_unparseable_python_is_a_blocking_finding():
    result, findings = run_deletion("python", b"def broken(:\n", [("function", "broken")])
    assert result == b"def broken(:\n"
    assert findings and findings[0].code == "parse-error" and findings[0].blocking


def test_missing_python_target_blocks_with_the_closest_names():
    source = b"class Frob:\n    def gone(self):\n        return 2\n"
    result, findings = run_deletion("python", source, [("function", "Frob.goen")])
    assert result == source
    assert [(f.code, f.message) for f in findings] == [
        ("no-such-item", "no item Frob.goen of kind function in t.py; did you mean Frob.gone?")]
