"""`codemod check`: the same lines as `rg -n PATTERN`, classified, with the contract's exit codes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemods.search import files as _files
from codemods.search.check import check_files, check_tree
from codemods.cli.main import main
from codemods.config.settings import dead_symbol_settings

PATTERN = dead_symbol_settings("paged-compat-removal")[1]

RG = shutil.which("rg")
needs_rg = pytest.mark.skipif(RG is None, reason="ripgrep is not installed")

_RG_LINE = re.compile(rb"^(.*?):(\d+):", re.S)


def rg_lines(cwd: Path, args: list[str]) -> set[tuple[str, int]]:
    """(path, line) of every line plain `rg -n PATTERN ARGS...` prints, run in `cwd`."""
    out = subprocess.run([RG, "-n", PATTERN, *args], cwd=cwd, capture_output=True).stdout
    single_file = len(args) == 1 and (cwd / args[0]).is_file()
    lines = set()
    for raw in out.splitlines():
        if single_file:
            number = raw.split(b":", 1)[0]
            if number.isdigit():
                lines.add((args[0], int(number)))
            continue
        match = _RG_LINE.match(raw)
        if match:
            lines.add((match.group(1).decode("utf-8", "surrogateescape"), int(match.group(2))))
    return lines


def check_lines(result) -> set[tuple[str, int]]:
    return {(m.path, m.line) for m in result.mentions}


def write(root: Path, files: dict[str, bytes]) -> None:
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


# Files that tend to make a grep differ from rg: binary, CRLF, invalid UTF-8,
# several and overlapping matches per line, no final newline, hidden and ignored
# files, an unparseable CUDA file, Python.
TRICKY = {
    "src/.gitignore": b"ignored/\n*.gen.rs\n",
    "src/ignored/a.rs": b"fn a() { paged_decode_attention_dense_fallback(); }\n",
    "src/b.gen.rs": b"// PagedDecodeMetadata\n",
    "src/.hidden/c.rs": b"// PagedDecodeMetadata\n",
    "src/.d.rs": b"// PagedDecodeMetadata\n",
    "src/bin.rs": b"\x00\x01 PagedDecodeMetadata\n",
    "src/late_nul.rs": b"// PagedDecodeMetadata\n" + b"// filler line\n" * 20000 + b"\x00 PagedDecodeMetadata\n",
    "src/crlf.rs": b"// PagedDecodeMetadata\r\nfn f() -> PagedDecodeMetadata {}\r\n",
    "src/latin1.rs": b"// caf\xe9 PagedDecodeMetadata \xff\n",
    "src/many.rs": b"let m: RotatingPagedDecodeMetadata = PagedDecodeMetadata::new(); "
    b"validate_paged_decode_inputs(); validate_rotating_paged_decode_inputs();\n",
    "src/noeol.rs": b"fn x() {}\n/* paged_decode_attention_rotating_compat */",
    "src/k.cu": b"__global__ void k() {}\nvoid go() { k<<<1, 2>>>(); } // PagedDecodeMetadata\n",
    "src/tool.py": b"# PagedDecodeMetadata\nx = 'paged_decode_attention_dense_compat'\n",
    "src/notes.md": b"PagedDecodeMetadata\n",
    "src/empty.rs": b"",
    "src/deep/er/clean.rs": b"fn clean() {}\n",
    "docs/adr.md": b"PagedDecodeMetadata\n",
    "src/space name.rs": b"// PagedDecodeMetadata\n",
}


@pytest.fixture()
def tricky(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()  # rg reads .gitignore inside a git repository
    write(tmp_path, TRICKY)
    return tmp_path


@needs_rg
def test_tree_mode_equals_rg_on_tricky_tree(tricky: Path):
    result = check_tree(tricky, PATTERN, ("src",))
    assert check_lines(result) == rg_lines(tricky, ["src"])
    paths = {m.path for m in result.mentions}
    assert "src/ignored/a.rs" not in paths and "src/.d.rs" not in paths and "docs/adr.md" not in paths
    assert ("src/late_nul.rs", 1) in check_lines(result)
    assert any("late_nul.rs" in note for note in result.binary)


@needs_rg
def test_file_mode_equals_rg_on_each_and_all_tricky_files(tricky: Path, monkeypatch):
    monkeypatch.chdir(tricky)
    names = sorted(p for p in TRICKY if not p.endswith(".gitignore"))
    for name in names:
        assert check_lines(check_files([name], PATTERN)) == rg_lines(tricky, [name]), name
    result = check_files(names, PATTERN)
    assert check_lines(result) == rg_lines(tricky, names)
    # Named explicitly, hidden and ignored files are searched, as rg does.
    assert {"src/ignored/a.rs", "src/.d.rs"} <= {m.path for m in result.mentions}
    # A named binary file: rg prints "binary file matches" instead of lines; so does the check.
    assert any(note.startswith("src/bin.rs: binary file matches") for note in result.binary)
    assert not result.clean


@needs_rg
def test_kinds_and_columns(tricky: Path):
    by_place = {(m.path, m.line, m.col): (m.symbol, m.kind) for m in check_tree(tricky, PATTERN, ("src",)).mentions}
    # The pattern matches inside RotatingPagedDecodeMetadata: the mention is that identifier, at its start.
    assert by_place[("src/many.rs", 1, 8)] == ("RotatingPagedDecodeMetadata", "code")
    assert ("src/many.rs", 1, 16) not in by_place
    assert by_place[("src/many.rs", 1, 38)] == ("PagedDecodeMetadata", "code")
    assert by_place[("src/many.rs", 1, 66)] == ("validate_paged_decode_inputs", "code")
    assert by_place[("src/noeol.rs", 2, 4)] == ("paged_decode_attention_rotating_compat", "comment")
    assert by_place[("src/k.cu", 2, 33)] == ("PagedDecodeMetadata", "comment")  # tree-sitter-cpp: no parse
    assert by_place[("src/tool.py", 1, 3)] == ("PagedDecodeMetadata", "comment")
    assert by_place[("src/tool.py", 2, 6)] == ("paged_decode_attention_dense_compat", "string")
    assert by_place[("src/notes.md", 1, 1)] == ("PagedDecodeMetadata", "unknown")
    assert by_place[("src/latin1.rs", 1, 9)] == ("PagedDecodeMetadata", "comment")


def test_fallback_without_rg_matches_lines(tricky: Path, monkeypatch):
    monkeypatch.setattr(_files.shutil, "which", lambda name: None)
    monkeypatch.chdir(tricky)
    result = check_files(["src/crlf.rs", "src/many.rs", "src/bin.rs"], PATTERN)
    assert check_lines(result) == {("src/crlf.rs", 1), ("src/crlf.rs", 2), ("src/many.rs", 1)}
    assert len([m for m in result.mentions if m.path == "src/many.rs"]) == 4
    assert result.binary == ("src/bin.rs: binary file matches",)
    tree = check_tree(tricky, PATTERN, ("src",))
    assert ("src/bin.rs", 1) not in check_lines(tree) and ("src/late_nul.rs", 1) not in check_lines(tree)
    assert ("src/noeol.rs", 2) in check_lines(tree)


# Generated trees: random lines built from the pattern's names, near misses and
# bytes that matter to line splitting and binary detection, at random paths.
_PIECES = st.sampled_from(
    [
        b"PagedDecodeMetadata",
        b"RotatingPagedDecodeMetadata",
        b"paged_decode_attention_dense_fallback",
        b"paged_decode_attention_rotating_compat",
        b"validate_rotating_paged_decode_inputs",
        b"paged_decode_attention_pooled",
        b"Paged",
        b"// ",
        b'"',
        b"/*",
        b"*/",
        b" ",
        b"fn f() {}",
        b"\r",
        b"\xff",
        b"\xc3\xa9",
        b"\x00",
        b"\t",
        b"\n",
    ]
)
_LINE = st.lists(_PIECES, max_size=6).map(b"".join)
_CONTENT = st.lists(_LINE, max_size=6).map(b"\n".join)
_NAME = st.sampled_from(["a.rs", "b.cpp", "c.h", "d.cu", "e.py", ".f.rs", "g.txt"])
_FOLDER = st.sampled_from(["src", "src/x", "src/.hid", "src/ign", "other"])
_TREE = st.dictionaries(st.tuples(_FOLDER, _NAME).map("/".join), _CONTENT, min_size=1, max_size=6)


@needs_rg
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=_TREE)
def test_generated_trees_equal_rg_in_both_modes(tmp_path_factory, files):
    root = tmp_path_factory.mktemp("tree")
    (root / ".git").mkdir()
    write(root, {"src/.gitignore": b"ign/\n", **files})
    assert check_lines(check_tree(root, PATTERN, ("src",))) == rg_lines(root, ["src"])
    named = sorted(files)
    result = check_files([str(root / name) for name in named], PATTERN)
    expected = rg_lines(Path("."), [str(root / name) for name in named])
    assert check_lines(result) == expected


# The command line, in-process.


@pytest.fixture()
def runner() -> CliRunner:
    return CliRunner()


# The tree names the recipe `codemod check` runs without --recipe.
NAMES_THE_RECIPE = b'recipe = "paged-compat-removal"\n'


def make_tree(root: Path) -> Path:
    write(
        root,
        {
            "src/lib.rs": b'/// See [`PagedDecodeMetadata`].\npub fn f() {\n    let s = "paged_decode_attention_dense_fallback";\n}\n',
            "src/clean.rs": b"fn clean() {}\n",
            "docs/adr.md": b"PagedDecodeMetadata\n",
            ".codemod.toml": NAMES_THE_RECIPE,
        },
    )
    return root


@needs_rg
def test_cli_tree_mode_prints_mentions_and_exits_1(runner, tmp_path):
    result = runner.invoke(main, ["check", str(make_tree(tmp_path))])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "src/lib.rs:1:11: PagedDecodeMetadata [comment]",
        "src/lib.rs:3:14: paged_decode_attention_dense_fallback [string]",
    ]
    assert "2 mention(s) of removed symbols in 1 file(s)" in result.stderr


@needs_rg
def test_cli_clean_tree_exits_0_and_default_root_is_cwd(runner, tmp_path, monkeypatch):
    write(
        tmp_path,
        {"src/clean.rs": b"fn clean() {}\n", "docs/a.md": b"PagedDecodeMetadata\n", ".codemod.toml": NAMES_THE_RECIPE},
    )
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(main, ["check"])
    assert (result.exit_code, result.stdout) == (0, "")


@needs_rg
def test_cli_file_mode_and_json(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(make_tree(tmp_path))
    result = runner.invoke(main, ["check", "--json", "src/lib.rs", "src/clean.rs", "docs/adr.md"])
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["mode"] == "files" and document["exit_code"] == 1
    assert [(m["path"], m["line"], m["kind"]) for m in document["mentions"]] == [
        ("docs/adr.md", 1, "unknown"),
        ("src/lib.rs", 1, "comment"),
        ("src/lib.rs", 3, "string"),
    ]
    clean = runner.invoke(main, ["check", "--json", "src/clean.rs"])
    assert clean.exit_code == 0 and json.loads(clean.stdout)["mentions"] == []


@pytest.mark.parametrize(
    "args, message",
    [
        (["check", "--recipe", "no-such-recipe"], "unknown recipe"),
        (["check", "missing.rs"], "no such file"),
        (["check", "src", "src/clean.rs"], "is a folder"),
        (["check", "--bogus"], "No such option"),
    ],
)
def test_cli_usage_errors_exit_2(runner, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(make_tree(tmp_path))
    result = runner.invoke(main, args)
    assert result.exit_code == 2
    assert message in result.stderr


@needs_rg
def test_cli_recipe_file_with_bad_pattern_or_none_is_a_usage_error(runner, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('id = "bad"\ndead_symbol_pattern = "(unclosed"\n')
    none = tmp_path / "none.toml"
    none.write_text('id = "none"\n')
    make_tree(tmp_path)
    assert runner.invoke(main, ["check", "--recipe", str(bad), str(tmp_path)]).exit_code == 2
    result = runner.invoke(main, ["check", "--recipe", str(none), str(tmp_path)])
    assert result.exit_code == 2 and "no dead-symbol pattern" in result.stderr


@needs_rg
def test_cli_recipe_file_scope(runner, tmp_path):
    recipe = tmp_path / "r.toml"
    recipe.write_text('id = "docs-too"\ndead_symbol_pattern = "PagedDecodeMetadata"\ncheck_scope = ["docs"]\n')
    result = runner.invoke(main, ["check", "--recipe", str(recipe), str(make_tree(tmp_path))])
    assert result.exit_code == 1
    assert result.stdout == "docs/adr.md:1:1: PagedDecodeMetadata [unknown]\n"
