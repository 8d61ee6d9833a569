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
        ("no-such-item", "no item Frob.goen of kind function in t.py; did you mean Frob.gone?")
    ]


def _python_edits(source: str, targets: list[tuple[str, str]]):
    from textwrap import dedent

    from codemods.edit.splice import conflicts, splice
    from codemods.languages.python.items import PythonTarget, delete_python_items

    before = dedent(source).lstrip("\n").encode()
    taken = delete_python_items("t.py", before, [PythonTarget(k, n) for k, n in targets])
    edits, findings = taken.taken, taken.findings
    assert not findings and not conflicts(edits, before)
    return before, edits, splice(before, edits).decode()


def test_each_deleted_definition_is_its_own_byte_range_edit():
    before, edits, after = _python_edits(
        """
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
        """,
        [("function", "a"), ("function", "b")],
    )
    assert len(edits) == 2 and all(e.end - e.start < len(before) // 2 for e in edits)
    assert after == "import os\n\n\ndef keep():\n    # a comment another rule may reword\n    return 2\n"
    comment = before.index(b"a comment")
    assert all(not (e.start <= comment < e.end) for e in edits)


def test_nested_targets_give_one_edit():
    _, edits, after = _python_edits(
        """
        import os


        class Frob:
            def gone(self):
                return 2


        def keep():
            return 1
        """,
        [("class", "Frob"), ("function", "Frob.gone")],
    )
    assert len(edits) == 1
    assert after == "import os\n\n\ndef keep():\n    return 1\n"


def test_deleting_the_first_statement_leaves_no_blank_lines_at_the_top():
    assert_deletes(
        "python",
        """
        def tally_first():
            return 1


        # Stays with its function.
        def tally_kept():
            return 2
        """,
        [("function", "tally_first")],
        """
        # Stays with its function.
        def tally_kept():
            return 2
        """,
    )
    # A header comment keeps the one blank line it had; a method first in its class body too.
    assert_deletes(
        "python",
        "# Ledger tools.\n\ndef opening():\n    return 0\n\n\ndef closing():\n    return 1\n",
        [("function", "opening")],
        "# Ledger tools.\n\ndef closing():\n    return 1\n",
    )
    assert_deletes(
        "python",
        "class Ledger:\n    def opening(self):\n        return 0\n\n    def closing(self):\n        return 1\n",
        [("function", "Ledger.opening")],
        "class Ledger:\n    def closing(self):\n        return 1\n",
    )


def test_each_deleted_python_item_is_a_change_of_its_own(tmp_path):
    from codemods import ItemTarget, Recipe, plan_recipe
    from codemods.plan.subset import changes_of, plan_subset
    from codemod_helpers import run_codemod

    source = (
        "import math\n\n\ndef ledger_sum(rows):\n    return math.fsum(rows)\n\n\n"
        "class Ledger:\n    def audit(self):\n        return 1\n\n    def close(self):\n        return 2\n"
    )
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "books.py").write_text(source)
    recipe = Recipe(
        id="trim-books",
        summary="",
        deletions=(
            ItemTarget("books.py", "python", "function", "ledger_sum"),
            ItemTarget("books.py", "python", "function", "Ledger.audit"),
        ),
    )
    plan = plan_recipe(tree, recipe)
    changes = changes_of(plan)
    assert [(c.id, c.item, c.removes) for c in changes] == [
        ("trim-books:function:ledger_sum", "ledger_sum", ("ledger_sum",)),
        ("trim-books:function:Ledger.audit", "Ledger.audit", ("audit",)),
    ]
    kept = plan_subset(plan, ["trim-books:function:ledger_sum"])
    assert not kept.plan.blocking
    assert kept.plan.changes[0].after.decode() == source.replace("    def audit(self):\n        return 1\n\n", "")
    (tmp_path / "trim_books.toml").write_text(
        'id = "trim-books"\nsummary = ""\n\n[[delete]]\npath = "books.py"\n'
        'language = "python"\nkind = "function"\nname = "ledger_sum"\n\n'
        '[[delete]]\npath = "books.py"\nlanguage = "python"\nkind = "function"\n'
        'name = "Ledger.audit"\n'
    )
    written = run_codemod(
        "apply", "--recipe", str(tmp_path / "trim_books.toml"), "--skip", "trim-books:function:Ledger.audit", str(tree)
    )
    assert written.exit_code == 0, written.stderr
    assert (tree / "books.py").read_text() == source.replace(
        "def ledger_sum(rows):\n    return math.fsum(rows)\n\n\n", ""
    )


def test_module_and_class_variables_by_qualified_name():
    assert_deletes(
        "python",
        """
        import os

        # Seconds before a kettle whistles.
        BOIL_DELAY: float = 4.5
        STEEP = 3


        class Teapot:
            spout = "curved"
            lid = "flat"
        """,
        [("variable", "BOIL_DELAY"), ("variable", "Teapot.lid")],
        """
        import os

        STEEP = 3


        class Teapot:
            spout = "curved"
        """,
    )


def test_a_variable_assigned_twice_is_ambiguous_and_a_tuple_target_is_no_item():
    source = b"LEVEL = 1\nif os.environ.get('X'):\n    pass\nLEVEL = 2\nhigh, low = 1, 0\n"
    result, findings = run_deletion("python", source, [("variable", "LEVEL"), ("variable", "high")])
    assert result == source
    assert [f.code for f in findings] == ["ambiguous", "no-such-item"]


def test_a_deleted_module_variable_still_imported_elsewhere_blocks(tmp_path):
    from codemods import ItemTarget, Recipe, plan_recipe

    (tmp_path / "brew").mkdir()
    (tmp_path / "brew" / "__init__.py").write_text("")
    (tmp_path / "brew" / "config.py").write_text("STEEP_MINUTES = 4\nCUP_ML = 250\n")
    (tmp_path / "brew" / "pour.py").write_text("from brew.config import STEEP_MINUTES\n\nprint(STEEP_MINUTES)\n")
    recipe = Recipe(
        id="t", summary="", deletions=(ItemTarget("brew/config.py", "python", "variable", "STEEP_MINUTES"),)
    )
    plan = plan_recipe(tmp_path, recipe)
    assert {(f.code, f.path, f.line) for f in plan.blocking} >= {("dangling-reference", "brew/pour.py", 1)}
    recipe = Recipe(id="t", summary="", deletions=(ItemTarget("brew/config.py", "python", "variable", "CUP_ML"),))
    plan = plan_recipe(tmp_path, recipe)
    assert plan.blocking == [] and plan.changes[0].after == b"STEEP_MINUTES = 4\n"
