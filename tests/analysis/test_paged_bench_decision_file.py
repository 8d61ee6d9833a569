import json

import pytest

from analysis import SCHEMA_ID, DecisionSchemaError, decide_run_folder, decision_to_json, load_decision
from paged_bench_helpers import cells_from_ratios, write_run_folder

DENSE_5PCT = [(1.05, 1.01), (1.06, 0.995), (1.04, 1.008)]


@pytest.fixture
def document(tmp_path):
    folder = write_run_folder(tmp_path / "run", cells_from_ratios("gemma3", {(512, 4): DENSE_5PCT}))
    return decision_to_json(decide_run_folder(folder), "docs/benchmark_results/x.md")


def _write(tmp_path, document):
    path = tmp_path / "decision.json"
    path.write_text(json.dumps(document))
    return path


def test_round_trip(tmp_path, document):
    loaded = load_decision(_write(tmp_path, document))
    assert loaded.to_json()["schema"] == SCHEMA_ID
    family = loaded.families[0]
    assert family.name == "gemma3"
    assert family.supports_paged_decode_backend is False
    cell = family.cells[0]
    assert (cell.prompt_tokens, cell.concurrency, cell.verdict) == (512, 4, "dense-faster")
    assert cell.median_paired_delta == pytest.approx(0.05)
    assert cell.null_spread == pytest.approx(0.01)
    assert loaded.results_document == "docs/benchmark_results/x.md"
    assert loaded.to_json() == document


def _drop(key):
    def edit(d):
        del d["families"]["gemma3"]["cells"][0][key]

    return edit


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(schema="other/9"), "$.schema: expected 'paged-bench-decision/1'"),
        (lambda d: d.update(results_document=None), "$.results_document: is null or empty"),
        (lambda d: d.update(families={}), "$.families: has no family"),
        (_drop("null_spread"), "$.families.gemma3.cells[0]: missing key 'null_spread'"),
        (
            lambda d: d["families"]["gemma3"]["cells"][0].update(verdict="faster"),
            "$.families.gemma3.cells[0].verdict: expected one of",
        ),
        (
            lambda d: d["families"]["gemma3"].update(supports_paged_decode_backend=True),
            "$.families.gemma3.supports_paged_decode_backend: is true but the cells' verdicts give false",
        ),
        (lambda d: d["families"]["gemma3"].update(supports_paged_decode_backend="false"), "expected boolean, got str"),
        (
            lambda d: d["families"]["gemma3"]["cells"][0].update(concurrency=True),
            "cells[0].concurrency: expected integer, got a boolean",
        ),
    ],
    ids=[
        "schema-id",
        "no-results-document",
        "no-family",
        "missing-key",
        "bad-verdict",
        "flag-contradicts-cells",
        "flag-as-string",
        "bool-as-int",
    ],
)
def test_schema_mismatch_is_a_clear_error(tmp_path, document, edit, message):
    edit(document)
    path = _write(tmp_path, document)
    with pytest.raises(DecisionSchemaError) as caught:
        load_decision(path)
    assert str(caught.value).startswith(str(path))
    assert message in str(caught.value)


def test_decide_output_loads_when_results_document_is_optional(tmp_path, document):
    document["results_document"] = None
    assert load_decision(_write(tmp_path, document), require_results_document=False)


def test_not_json_and_missing_file(tmp_path):
    path = tmp_path / "decision.json"
    path.write_text("{")
    with pytest.raises(DecisionSchemaError, match="not JSON"):
        load_decision(path)
    with pytest.raises(DecisionSchemaError, match="cannot read"):
        load_decision(tmp_path / "absent.json")


def test_the_documented_example_validates(tmp_path):
    import re

    from paged_bench_helpers import ROOT

    text = (ROOT / "analysis" / "decision_schema.md").read_text()
    example = re.search(r"```json\n(.*?)```", text, re.DOTALL).group(1)
    path = tmp_path / "decision.json"
    path.write_text(example)
    assert load_decision(path).families[0].supports_paged_decode_backend is False
