"""Structural patterns and `[[rewrite]]` rules on Python (tree-sitter-python), and `infer_recipe`
writing Python rewrites: indentation is syntax, so a multi-line capture moved to another depth is
re-indented, and a rewrite whose result does not parse is refused."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from codemods import infer_recipe, load_recipe, plan_recipe
from codemods.core.registry import LANGUAGES, parsed_languages
from codemods.edit.codes import Code
from codemods.pattern import Pattern, replace_all
from codemods.plan.infer.tokens import same_tokens

PYTHON = "python"

KILN = (
    textwrap.dedent('''
    class Kiln:
        def fire(self, pot, hours):
            if pot.glazed:
                self.heat(pot,
                          hours)
                note("""two
      lines""")
            return pot.colour  # as fired

    def cool(jar):
        if jar.glazed:
            self_check(jar)
''')
    .lstrip("\n")
    .encode()
)


def test_python_has_a_grammar_for_patterns_and_keeps_its_libcst_deleter() -> None:
    assert PYTHON in parsed_languages()
    language = LANGUAGES[PYTHON]
    assert language.grammar == "tree_sitter_python" and language.deleter == "libcst"
    assert language.indented_blocks and not LANGUAGES["rust"].indented_blocks
    from codemods.languages.python import language as plugin

    assert language.operations.delete_items is plugin.delete_items


def test_a_python_pattern_finds_blocks_and_captures_their_statements() -> None:
    found = Pattern("if $COND:\n    $$$BODY", PYTHON).find_all(KILN)
    assert [m.text("COND") for m in found] == ["pot.glazed", "jar.glazed"]
    assert found[1].text("BODY") == "self_check(jar)"
    assert [m.text("ARGS") for m in Pattern("self.heat($$$ARGS)", PYTHON).find_all(KILN)] == [
        "pot,\n                      hours"
    ]


def test_a_python_rewrite_re_indents_what_it_moves_and_the_result_parses() -> None:
    wrapped = replace_all(
        KILN, None, Pattern("if $COND:\n    $$$BODY", PYTHON), "with shield($COND):\n    if $COND:\n        $$$BODY"
    )
    ast.parse(wrapped)
    assert b"        with shield(pot.glazed):\n            if pot.glazed:\n                self.heat(pot,\n" in wrapped
    assert b'note("""two\n  lines""")' in wrapped  # a string's own lines as written
    assert b"    with shield(jar.glazed):\n        if jar.glazed:\n            self_check(jar)\n" in wrapped
    unwrapped = replace_all(KILN, None, Pattern("if $COND:\n    $$$BODY", PYTHON), "$$$BODY")
    ast.parse(unwrapped)
    assert (
        b"    def fire(self, pot, hours):\n        self.heat(pot,\n                  hours)\n        note(" in unwrapped
    )
    assert b"def cool(jar):\n    self_check(jar)\n" in unwrapped


def _tree(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def _planned(root: Path, recipe: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    recipe_file = tmp_path / "recipe.toml"
    recipe_file.write_text(textwrap.dedent(recipe).lstrip("\n"), encoding="utf-8")
    return plan_recipe(root, load_recipe(str(recipe_file)))


def test_a_recipe_rewrite_on_a_python_file(tmp_path: Path) -> None:
    root = _tree(tmp_path / "tree", {"pottery/kiln.py": KILN.decode()})
    plan = _planned(
        root,
        """
        id = "glaze-guard"

        [[rewrite]]
        path = "pottery"
        language = "python"
        pattern = "if $COND:\\n    $$$BODY"
        replace = "with shield($COND):\\n    $$$BODY"
    """,
        tmp_path,
    )
    assert plan.blocking == []
    after = plan.changes[0].after
    ast.parse(after)
    assert b"        with shield(pot.glazed):\n            self.heat(pot,\n" in after


def test_a_python_rewrite_whose_result_does_not_parse_is_refused(tmp_path: Path) -> None:
    root = _tree(tmp_path / "tree", {"pottery/kiln.py": KILN.decode()})
    plan = _planned(
        root,
        """
        id = "broken"

        [[rewrite]]
        path = "pottery/kiln.py"
        pattern = "return $X"
        replace = "return ($X"
    """,
        tmp_path,
    )
    assert [f.code for f in plan.blocking] == [Code.PARSE_REGRESSION]
    assert not plan.changes


def test_infer_writes_a_python_rewrite_beside_a_deletion(tmp_path: Path) -> None:
    before = _tree(
        tmp_path / "before",
        {
            "spool/reel.py": """
        def wind(yarn):
            return yarn * 3


        class Spindle:
            def spin(self, fleece, twist):
                if fleece.carded:
                    self.draw(fleece,
                              twist)
                    self.ply(twist)
                return wind(fleece)

            def draw(self, a, b):
                return a
    """
        },
    )
    after = _tree(
        tmp_path / "after",
        {
            "spool/reel.py": """
        class Spindle:
            def spin(self, fleece, twist):
                self.draw(fleece,
                          twist)
                self.ply(twist)
                return fleece * 3

            def draw(self, a, b):
                return a
    """
        },
    )
    inferred = infer_recipe(before, after)
    assert inferred.unexpressed == ()
    assert 'kind = "function"\nname = "wind"' in inferred.toml
    assert inferred.toml.count("[[rewrite]]") == 2 and 'replace = "fleece * 3"' in inferred.toml
    recipe_file = tmp_path / "inferred.toml"
    recipe_file.write_text(inferred.toml, encoding="utf-8")
    plan = plan_recipe(before, load_recipe(str(recipe_file)))
    assert plan.blocking == []
    result = plan.changes[0].after
    ast.parse(result)
    want = (after / "spool/reel.py").read_bytes()
    assert same_tokens(result, want, PYTHON) and result == want


def test_infer_deletes_side_by_side_statements_no_one_node_holds(tmp_path: Path) -> None:
    before = _tree(
        tmp_path / "before",
        {
            "loom/heddle.py": """
        import zlib
        import shelve

        LEASH = object()
        LEASH.knots = 4
        LEASH.colour = "ochre"


        def treadle(beam):
            return beam + 1
    """
        },
    )
    after = _tree(
        tmp_path / "after",
        {
            "loom/heddle.py": """
        LEASH = object()


        def treadle(beam):
            return beam + 1
    """
        },
    )
    inferred = infer_recipe(before, after)
    assert inferred.unexpressed == ()
    assert inferred.toml.count("[[rewrite]]") == 4 and 'pattern = "import zlib"\nreplace = ""' in inferred.toml
    recipe_file = tmp_path / "inferred.toml"
    recipe_file.write_text(inferred.toml, encoding="utf-8")
    plan = plan_recipe(before, load_recipe(str(recipe_file)))
    assert plan.blocking == []
    assert same_tokens(plan.changes[0].after, (after / "loom/heddle.py").read_bytes(), PYTHON)


def test_a_python_rewrite_scoped_to_a_method_by_its_dotted_name(tmp_path: Path) -> None:
    root = _tree(
        tmp_path / "tree",
        {
            "pottery/wheel.py": """
        class Wheel:
            def throw(self, clay):
                return centre(clay)

            @staticmethod
            def trim(clay):
                return centre(clay)


        def centre(clay):
            return clay
    """
        },
    )
    plan = _planned(
        root,
        """
        id = "scoped"

        [[rewrite]]
        path = "pottery/wheel.py"
        item = "Wheel.trim"
        pattern = "centre($X)"
        replace = "centre($X, fine=True)"
    """,
        tmp_path,
    )
    assert plan.blocking == []
    after = plan.changes[0].after
    assert after.count(b"centre(clay, fine=True)") == 1
    assert b"    @staticmethod\n    def trim(clay):\n        return centre(clay, fine=True)\n" in after


def test_infer_rewrites_a_changed_module_docstring(tmp_path: Path) -> None:
    before = _tree(
        tmp_path / "before",
        {
            "glass/annealer.py": '''
        """
        Helpers for the lehr that are kept for the blowing tests only,
        not part of the furnace interface.
        """

        import math


        def ramp(t):
            return math.floor(t)


        def soak(t):
            return t
    '''
        },
    )
    after = _tree(
        tmp_path / "after",
        {
            "glass/annealer.py": '''
        """
        Lehr helpers used by the blowing tests.
        """

        import math


        def ramp(t):
            return math.floor(t)
    '''
        },
    )
    inferred = infer_recipe(before, after)
    assert inferred.unexpressed == ()
    assert inferred.toml.count("[[rewrite]]") == 1 and 'name = "soak"' in inferred.toml
    recipe_file = tmp_path / "inferred.toml"
    recipe_file.write_text(inferred.toml, encoding="utf-8")
    plan = plan_recipe(before, load_recipe(str(recipe_file)))
    assert plan.blocking == []
    assert same_tokens(plan.changes[0].after, (after / "glass/annealer.py").read_bytes(), PYTHON)


def test_infer_rewords_a_python_comment(tmp_path: Path) -> None:
    before = _tree(
        tmp_path / "before",
        {
            "smithy/forge.py": """
        # The tuyere feeds the hearth and the slack tub.
        def stoke(coal):
            return coal


        def slake(iron):
            return iron
    """
        },
    )
    after = _tree(
        tmp_path / "after",
        {
            "smithy/forge.py": """
        # The tuyere feeds the hearth.
        def stoke(coal):
            return coal
    """
        },
    )
    inferred = infer_recipe(before, after)
    assert inferred.unexpressed == ()
    assert (
        'find = "The tuyere feeds the hearth and the slack tub."\nreplace = "The tuyere feeds the hearth."'
        in inferred.toml
    )
    recipe_file = tmp_path / "inferred.toml"
    recipe_file.write_text(inferred.toml, encoding="utf-8")
    plan = plan_recipe(before, load_recipe(str(recipe_file)))
    assert plan.blocking == []
    assert plan.changes[0].after == (after / "smithy/forge.py").read_bytes()
