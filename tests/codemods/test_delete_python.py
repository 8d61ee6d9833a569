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


def _python_edits(source: str, targets: list[tuple[str, str]]):
    from textwrap import dedent

    from codemods.edit.splice import conflicts, splice
    from codemods.languages.python.items import PythonTarget, delete_python_items

    before = dedent(source).lstrip("\n").encode()
    edits, _, findings = delete_python_items("t.py", before, [PythonTarget(k, n) for k, n in targets])
    assert not findings and not conflicts(edits, before)
    return before, edits, splice(before, edits).decode()


def test_each_deleted_definition_is_its_own_byte_range_edit():
    before, edits, after = _python_edits("""
        import os


        # About a.
        def a():
            return 1


        def keep():
            # a comment another rule may reword
            return 2


        @dec
        def b():
            return 3
        """, [("function", "a"), ("function", "b")])
    assert len(edits) == 2 and all(e.end - e.start < len(before) // 2 for e in edits)
    assert after == "import os\n\n\ndef keep():\n    # a comment another rule may reword\n    return 2\n"
    comment = before.index(b"a comment")
    assert all(not (e.start <= comment < e.end) for e in edits)


def test_nested_targets_give_one_edit():
    _, edits, after = _python_edits("""
        import os


        class Frob:
            def gone(self):
                return 2


        def keep():
            return 1
        """, [("class", "Frob"), ("function", "Frob.gone")])
    assert len(edits) == 1
    assert after == "import os\n\n\ndef keep():\n    return 1\n"
