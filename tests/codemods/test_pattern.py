"""Structural patterns: matching, captures, repeated metavariables, rewriting, in Rust and C++."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from codemods import Pattern, PatternError, Rewrite, replace_all
from codemods.parse import CPP, RUST, parse
from codemods.cli.main import main

from codemod_helpers import dedent, dedent_text


def captures(pattern: str, source: str, language: str = RUST) -> list[dict[str, str]]:
    code = dedent(source)
    found = Pattern(pattern, language).find_all(code, parse(code, language).root_node)
    return [{name: match.text(name) for name in match.captures} for match in found]


def assert_rewrites(language: str, pattern: str, template: str, before: str, after: str) -> None:
    """Rewriting dedented `before` gives exactly dedented `after`."""
    source = dedent(before)
    result = replace_all(source, parse(source, language), Pattern(pattern, language), template)
    assert result.decode() == dedent(after).decode()


def test_a_call_matches_whatever_its_layout_and_comments() -> None:
    found = captures(
        "crate::layers::$F(&$Q, &$K, $S)",
        """
        fn t() {
            let a = crate::layers::attend(&q, &keys, scale);
            let b = crate::layers::attend(
                &query_rows[0], // the first row
                &cache.keys,
                1.0 / 8.0,
            );
        }
    """,
    )
    assert found == [
        {"F": "attend", "Q": "q", "K": "keys", "S": "scale"},
        {"F": "attend", "Q": "query_rows[0]", "K": "cache.keys", "S": "1.0 / 8.0"},
    ]


def test_a_sequence_metavariable_takes_any_number_of_nodes() -> None:
    found = captures(
        "attend($Q, $$$REST)",
        """
        fn t() {
            attend(q);
            attend(q, k);
            attend(q, k, v, 0.5);
        }
    """,
    )
    assert found == [{"Q": "q", "REST": "k"}, {"Q": "q", "REST": "k, v, 0.5"}]


def test_a_repeated_metavariable_must_match_equal_code() -> None:
    found = captures(
        "$A.max($A)",
        """
        fn t() {
            let x = a.max(a);
            let y = a.max(b);
            let z = rows[i + 1].max(rows[i+1]);
        }
    """,
    )
    assert found == [{"A": "a"}, {"A": "rows[i + 1]"}]


def test_the_anonymous_metavariables_match_without_capturing() -> None:
    assert captures("$_::open($$$)", "fn t() { File::open(p); fs::File::open(p, q); }") == [{}, {}]


def test_macro_arguments_match_by_structure() -> None:
    found = captures(
        "let $V = vec![$$$ELEMENTS];",
        """
        fn t() {
            let keys = vec![
                k[0].as_ref().unwrap() as *const MlxArray,
                k[1].as_ref().unwrap() as *const MlxArray,
            ];
        }
    """,
    )
    assert found == [
        {
            "V": "keys",
            "ELEMENTS": "k[0].as_ref().unwrap() as *const MlxArray,\n        k[1].as_ref().unwrap() as *const MlxArray",
        }
    ]
    assert captures("vec![$X as *const $T]", "fn t() { let v = vec![a.b() as *const Arr]; }") == [
        {"X": "a.b()", "T": "Arr"}
    ]


def test_named_leaves_out_the_separators() -> None:
    code = b"fn t() { f(a, b + 1, c); }"
    match = Pattern("f($$$ARGS)", RUST).find(code, parse(code, RUST).root_node)
    assert [n.text for n in match.named("ARGS")] == [b"a", b"b + 1", b"c"]


def test_a_statement_pattern_matches_a_let() -> None:
    found = captures(
        "let $OUT = $CALL($$$ARGS).unwrap();",
        """
        fn t() {
            let out = attend(&q, scale).unwrap();
            let other = attend(&q, scale)?;
        }
    """,
    )
    assert found == [{"OUT": "out", "CALL": "attend", "ARGS": "&q, scale"}]


def test_rewrite_with_captures_in_rust() -> None:
    assert_rewrites(
        RUST,
        "crate::layers::old_attention($$$ARGS)",
        "crate::layers::attention($$$ARGS, None)",
        """
        fn t() {
            let a = crate::layers::old_attention(&q, &k, &v);
            let b = other(&q);
        }
    """,
        """
        fn t() {
            let a = crate::layers::attention(&q, &k, &v, None);
            let b = other(&q);
        }
    """,
    )


def test_rewrite_with_captures_in_cpp() -> None:
    assert_rewrites(
        CPP,
        "std::make_unique<MlxArray>($X)",
        "wrap($X)",
        """
        std::unique_ptr<MlxArray> f(const array& a) {
            return std::make_unique<MlxArray>(a);
        }
    """,
        """
        std::unique_ptr<MlxArray> f(const array& a) {
            return wrap(a);
        }
    """,
    )


def test_cpp_patterns_match_calls_and_throws() -> None:
    found = captures(
        "throw std::invalid_argument($MESSAGE);",
        """
        void f(int n) {
            if (n < 0) {
                throw std::invalid_argument("f: n must be >= 0");
            }
        }
    """,
        CPP,
    )
    assert found == [{"MESSAGE": '"f: n must be >= 0"'}]


def test_nested_matches_are_all_found_and_the_outermost_is_rewritten() -> None:
    code = b"fn t() { f(f(x)); }"
    tree = parse(code, RUST)
    assert [m.text() for m in Pattern("f($X)", RUST).find_all(code, tree.root_node)] == ["f(f(x))", "f(x)"]
    edits = Rewrite(Pattern("f($X)", RUST), "g($X)").edits("t.rs", code, tree.root_node)
    assert [(e.start, e.end, e.replacement) for e in edits] == [(9, 16, b"g(f(x))")]


def test_a_pattern_that_does_not_parse_is_refused() -> None:
    with pytest.raises(PatternError, match="does not parse"):
        Pattern("let = = ;", RUST)
    with pytest.raises(PatternError, match="2 pieces of code"):
        Pattern("a(); b();", RUST)
    with pytest.raises(PatternError, match="not 'markdown'"):
        Pattern("f($X)", "markdown")
    with pytest.raises(PatternError, match="does not parse"):
        Pattern("def (:", "python")


def test_a_replacement_naming_an_unknown_metavariable_is_an_error() -> None:
    code = b"fn t() { f(x); }"
    with pytest.raises(PatternError, match=r"\$Y"):
        Rewrite(Pattern("f($X)", RUST), "g($Y)").edits("t.rs", code, parse(code, RUST).root_node)


RECIPE_FILE = """id = "rename-attend"
summary = "attend() takes its scale last; old_attend() took it first"

[[rewrite]]
path = "src/layers.rs"
item = "decode"
pattern = "old_attend($SCALE, $$$REST)"
replace = "attend($$$REST, $SCALE)"
"""


def test_recipe_files_rewrite_by_pattern_within_an_item(tmp_path: Path) -> None:
    (tmp_path / "tree/src").mkdir(parents=True)
    layers = tmp_path / "tree/src/layers.rs"
    layers.write_bytes(
        dedent("""
        fn decode(q: &A, k: &A) -> A {
            old_attend(0.5, q, k)
        }

        fn prefill(q: &A, k: &A) -> A {
            old_attend(0.5, q, k)
        }
    """)
    )
    (tmp_path / "rename.toml").write_text(RECIPE_FILE)
    result = CliRunner().invoke(main, ["apply", "--recipe", str(tmp_path / "rename.toml"), str(tmp_path / "tree")])
    assert result.exit_code == 0, result.output
    assert layers.read_bytes() == dedent("""
        fn decode(q: &A, k: &A) -> A {
            attend(q, k, 0.5)
        }

        fn prefill(q: &A, k: &A) -> A {
            old_attend(0.5, q, k)
        }
    """)
    again = CliRunner().invoke(main, ["apply", "--recipe", str(tmp_path / "rename.toml"), str(tmp_path / "tree")])
    assert again.exit_code == 0
    assert "rewrite rule did not match: 'old_attend($SCALE, $$$REST)' in decode (note)" in again.stderr


def test_a_rewrite_rule_through_the_harness() -> None:
    from codemods import PatternRewrite, Recipe

    from codemods.testing import assert_recipe

    recipe = Recipe(
        id="swap",
        summary="",
        rewrites=(
            PatternRewrite("src/layers.rs", "old_attend($SCALE, $$$REST)", "attend($$$REST, $SCALE)", item="decode"),
        ),
    )
    before = dedent_text("""
        fn decode(q: &A, k: &A) -> A {
            old_attend(0.5, q, k)
        }

        fn prefill(q: &A, k: &A) -> A {
            old_attend(0.5, q, k)
        }
    """)
    assert_recipe(
        {"src/layers.rs": before},
        recipe,
        {"src/layers.rs": before.replace("old_attend(0.5, q, k)", "attend(q, k, 0.5)", 1)},
    )


@pytest.mark.parametrize(
    ("pattern", "replace", "error"),
    [
        ("attend(", "x", "does not parse as rust"),
        ("attend($X)", "other($Y)", "the replacement uses $Y, which the pattern does not capture"),
    ],
)
def test_a_bad_rewrite_rule_is_a_usage_error(tmp_path: Path, pattern: str, replace: str, error: str) -> None:
    (tmp_path / "tree").mkdir()
    recipe = tmp_path / "bad.toml"
    recipe.write_text(f'id = "bad"\n[[rewrite]]\npath = "src/a.rs"\npattern = "{pattern}"\nreplace = "{replace}"\n')
    result = CliRunner().invoke(main, ["apply", "--recipe", str(recipe), str(tmp_path / "tree")])
    assert result.exit_code == 2
    assert error in result.output


def test_a_statement_rewritten_to_nothing_goes_with_its_lines() -> None:
    assert_rewrites(
        RUST,
        "if $C.glows { $$$BODY }",
        "",
        """
        fn paint(lamp: &Lamp, out: &mut Out) {
            out.push(1);
            if lamp.glows {
                out.push(2);
            }
            out.push(3);
        }
    """,
        """
        fn paint(lamp: &Lamp, out: &mut Out) {
            out.push(1);
            out.push(3);
        }
    """,
    )


def test_a_cpp_statement_rewritten_to_nothing_goes_with_its_line() -> None:
    assert_rewrites(
        CPP,
        "lamp.dim();",
        "",
        """
        void paint(Lamp& lamp) {
          lamp.on();
          lamp.dim();
          lamp.off();
        }
    """,
        """
        void paint(Lamp& lamp) {
          lamp.on();
          lamp.off();
        }
    """,
    )


def test_a_pattern_of_thousands_of_statements_matches_without_deep_recursion() -> None:
    """The matcher walks a node's children in a loop: a pattern spelling a long body (as an inferred
    rewrite may) matches, where recursing once per child overflowed the stack."""
    from codemods import Pattern

    body = "\n".join(f"    let tally{i} = {i};" for i in range(2500))
    source = f"fn count_all() {{\n{body}\n}}\n".encode()
    assert len(list(Pattern(f"fn count_all() {{\n{body}\n}}", "rust").find_all(source))) == 1
    assert len(list(Pattern("fn count_all() {\n    let tally0 = 0;\n    $$$REST\n}", "rust").find_all(source))) == 1
