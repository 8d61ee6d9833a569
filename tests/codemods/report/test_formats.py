"""Output formats for CI: `--format text|json|sarif|github` of `check` and `apply --dry-run`.

SARIF logs are validated against the OASIS SARIF 2.1.0 JSON schema
(tests/data/sarif-schema-2.1.0.json, see tests/data/README.md).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest
from click.testing import CliRunner

from codemods.report.sarif import symbol_groups
from codemods.cli.main import main
from codemods.config.settings import dead_symbol_settings
from fixture_crate import copy_fixture

PATTERN = dead_symbol_settings("paged-compat-removal")[1]

RG = shutil.which("rg")
needs_rg = pytest.mark.skipif(RG is None, reason="ripgrep is not installed")
SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "data" / "sarif-schema-2.1.0.json").read_text())


def assert_valid_sarif(log: dict) -> None:
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-schema-2.1.0.json")
    assert len(log["runs"]) == 1
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "codemod" and driver["version"]


def sarif_lines(log: dict) -> set[tuple[str, int]]:
    """(uri, startLine) of every result."""
    return {
        (
            unquote(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]),
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in log["runs"][0]["results"]
    }


def rg_lines(root: Path) -> set[tuple[str, int]]:
    out = subprocess.run([RG, "-n", "--null", PATTERN, "src/"], cwd=root, capture_output=True).stdout
    lines = set()
    for record in out.splitlines():
        path, _, rest = record.partition(b"\0")
        lines.add((path.decode(), int(rest.split(b":", 1)[0])))
    return lines


def test_symbol_groups_split_the_pattern_at_top_level_bars_only():
    assert symbol_groups(PATTERN) == [
        "paged_decode_attention_(dense|rotating)_(compat|fallback)",
        "PagedDecodeMetadata",
        "validate_(rotating_)?paged_decode_inputs",
    ]
    assert symbol_groups(r"a[|(]b|\|c|d") == [r"a[|(]b", r"\|c", "d"]


@pytest.fixture()
def small_tree(tmp_path: Path) -> Path:
    (tmp_path / "src" / "sub dir").mkdir(parents=True)
    (tmp_path / "src" / "a.rs").write_bytes(
        b"// PagedDecodeMetadata\nfn f() -> RotatingPagedDecodeMetadata { validate_paged_decode_inputs() }\n"
    )
    (tmp_path / "src" / "sub dir" / "b.cpp").write_bytes(
        'const char* s = "\u00e9\u00e9 paged_decode_attention_dense_compat";\n'.encode()
    )
    (tmp_path / ".codemod.toml").write_text('recipe = "paged-compat-removal"\n')
    return tmp_path


@needs_rg
def test_check_sarif_validates_and_has_a_result_per_mention(small_tree: Path):
    result = CliRunner().invoke(main, ["check", "--format", "sarif", str(small_tree)])
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    assert_valid_sarif(log)
    run = log["runs"][0]
    assert [rule["properties"]["pattern"] for rule in run["tool"]["driver"]["rules"]] == symbol_groups(PATTERN)
    by_place = {
        (
            unquote(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]),
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["physicalLocation"]["region"]["startColumn"],
        ): r
        for r in run["results"]
    }
    # The match inside RotatingPagedDecodeMetadata is that identifier, at its start, under the
    # rule of the group that matched (PagedDecodeMetadata).
    assert set(by_place) == {("src/a.rs", 1, 4), ("src/a.rs", 2, 11), ("src/a.rs", 2, 41), ("src/sub dir/b.cpp", 1, 21)}
    assert by_place[("src/a.rs", 2, 11)]["properties"]["symbol"] == "RotatingPagedDecodeMetadata"
    assert by_place[("src/a.rs", 2, 11)]["ruleId"] == "paged-compat-removal/removed-symbol-2"
    assert by_place[("src/a.rs", 2, 11)]["locations"][0]["physicalLocation"]["region"]["endColumn"] == 38
    assert by_place[("src/a.rs", 2, 41)]["ruleId"] == "paged-compat-removal/removed-symbol-3"
    # The byte column 23 (after two two-byte characters) is UTF-16 column 21.
    assert by_place[("src/sub dir/b.cpp", 1, 21)]["properties"]["kind"] == "string"
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert "src/sub%20dir/b.cpp" in uris
    assert run["originalUriBaseIds"]["ROOT"]["uri"] == small_tree.resolve().as_uri() + "/"


@needs_rg
def test_check_github_annotations(small_tree: Path):
    result = CliRunner().invoke(main, ["check", "--format", "github", str(small_tree)])
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith(
        "::error file=src/a.rs,line=1,col=4,title=removed symbol::PagedDecodeMetadata [comment]: "
        "a removed symbol is named again. It was removed by recipe paged-compat-removal"
    )
    assert len(result.stdout.splitlines()) == 4


@needs_rg
def test_check_json_alias_text_default_and_a_contradiction(small_tree: Path):
    runner = CliRunner()
    alias = runner.invoke(main, ["check", "--json", str(small_tree)])
    explicit = runner.invoke(main, ["check", "--format", "json", str(small_tree)])
    assert alias.stdout == explicit.stdout and json.loads(alias.stdout)["mentions"]
    text = runner.invoke(main, ["check", str(small_tree)])
    assert text.stdout.startswith("src/a.rs:1:4: PagedDecodeMetadata [comment]\n")
    both = runner.invoke(main, ["check", "--json", "--format", "sarif", str(small_tree)])
    assert both.exit_code == 2


@needs_rg
def test_clean_check_is_a_valid_empty_sarif_log(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.rs").write_text("fn ok() {}\n")
    result = CliRunner().invoke(main, ["check", "--recipe", "paged-compat-removal", "--format", "sarif", str(tmp_path)])
    assert result.exit_code == 0
    log = json.loads(result.stdout)
    assert_valid_sarif(log)
    assert log["runs"][0]["results"] == []


def test_apply_dry_run_sarif_and_github_carry_the_findings(tmp_path: Path):
    tree = copy_fixture(tmp_path / "mlxcel-mini")
    gemma = tree / "src/models/gemma3.rs"
    gemma.write_bytes(
        gemma.read_bytes()
        + (
            b"\npub fn legacy_decode(q: &mlxcel_core::ffi::MlxArray) {\n"
            b"    let _ = mlxcel_core::layers::paged_decode_attention_dense_compat(q, &[], &[], &[], 1.0);\n}\n"
        )
    )
    line = gemma.read_bytes().count(b"\n") - 1
    runner = CliRunner()
    sarif = runner.invoke(main, ["apply", "--dry-run", "--format", "sarif", str(tree)])
    assert sarif.exit_code == 1
    log = json.loads(sarif.stdout)
    assert_valid_sarif(log)
    dangling = [r for r in log["runs"][0]["results"] if r["ruleId"] == "dangling-reference"]
    assert dangling and dangling[0]["level"] == "error"
    location = dangling[0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "src/models/gemma3.rs"
    assert location["region"]["startLine"] == line
    as_json = json.loads(runner.invoke(main, ["apply", "--dry-run", "--json", str(tree)]).stdout)
    assert len(log["runs"][0]["results"]) == len(as_json["findings"])
    allowed = json.loads(
        runner.invoke(main, ["apply", "--dry-run", "--allow-dangling", "--format", "sarif", str(tree)]).stdout
    )
    assert {r["level"] for r in allowed["runs"][0]["results"] if r["ruleId"] == "dangling-reference"} == {"warning"}
    github = runner.invoke(main, ["apply", "--dry-run", "--format", "github", str(tree)])
    assert f"::error file=src/models/gemma3.rs,line={line}," in github.stdout
    assert "--- a/" not in github.stdout


@needs_rg
def test_check_sarif_on_the_real_tree_validates_and_equals_rg(corpus: Path):
    result = CliRunner().invoke(main, ["check", "--recipe", "paged-compat-removal", "--format", "sarif", str(corpus)])
    assert result.exit_code == 1, result.output
    log = json.loads(result.stdout)
    assert_valid_sarif(log)
    assert sarif_lines(log) == rg_lines(corpus)
    assert len(log["runs"][0]["results"]) >= len(rg_lines(corpus))
