"""Every Cargo.toml of a plan is parsed once, however often the resolver and the formatter ask:
members that inherit their dependencies from the root manifest (`dep = { workspace = true }`)
used to parse the root manifest once per such entry (issue 41)."""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path

import pytest

from codemods import ItemTarget, Recipe
from codemods.languages.rust import crates
from codemods.plan.planner import plan_recipe

from resolve_helpers import write_tree

MEMBERS = 12
SHARED = ("quill", "ledger", "sprocket")


def _workspace() -> dict[str, str]:
    deps = "".join(f'{name} = {{ path = "{name}" }}\n' for name in SHARED)
    files = {"Cargo.toml": '[workspace]\nmembers = ["*"]\n[workspace.dependencies]\n' + deps}
    for name in SHARED:
        files[f"{name}/Cargo.toml"] = f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n'
        files[f"{name}/src/lib.rs"] = "pub fn tally() -> u32 {\n    1\n}\n\npub fn spare() -> u32 {\n    2\n}\n"
    for index in range(MEMBERS):
        inherited = "".join(f"{name} = {{ workspace = true }}\n" for name in SHARED)
        files[f"member{index}/Cargo.toml"] = (
            f'[package]\nname = "member{index}"\nversion = "0.1.0"\n'
            f'edition = "2021"\n[dependencies]\n{inherited}'
            f"[dev-dependencies]\n{inherited}"
        )
        # A twin of the deleted function in every member: each mention must be resolved.
        files[f"member{index}/src/lib.rs"] = (
            "pub fn spare() -> u32 {\n    quill::tally()\n}\n\n"
            "pub fn run() -> u32 {\n    spare() + sprocket::tally()\n}\n"
        )
    return files


def test_each_manifest_is_parsed_once_per_run(tmp_path, monkeypatch):
    write_tree(tmp_path, _workspace())
    crates.parse_manifest.cache_clear()
    parsed: Counter[str] = Counter()
    real_loads = crates.toml.loads

    def counting_loads(text: str, **kwargs):
        if "[package]" in text or "[workspace]" in text:
            parsed[text] += 1
        return real_loads(text, **kwargs)

    monkeypatch.setattr(crates.toml, "loads", counting_loads)
    monkeypatch.setenv("CODEMOD_JOBS", "1")
    recipe = Recipe(id="t", summary="", deletions=(ItemTarget("sprocket/src/lib.rs", "rust", "fn", "spare"),))
    plan = plan_recipe(tmp_path, recipe)
    assert not plan.blocking, plan.findings
    manifests = {(tmp_path / path).read_text() for path in _workspace() if path.endswith("Cargo.toml")}
    assert set(parsed) <= manifests
    assert parsed[(tmp_path / "Cargo.toml").read_text()] == 1
    assert max(parsed.values()) == 1, parsed.most_common(3)


REGISTRY = Path("/usr/share/cargo/registry")


@pytest.mark.skipif(crates.toml is tomllib, reason="tomli is not installed: the standard library parses")
@pytest.mark.skipif(not REGISTRY.is_dir(), reason="no Debian cargo registry on this machine")
def test_the_parser_used_reads_real_manifests_as_the_standard_library_does():
    """The resolver parses manifests with tomli's compiled wheel where it is installed: on the
    real manifests of Debian's registry it gives the tables `tomllib` gives, and refuses the same."""
    compared = 0
    for manifest in sorted(REGISTRY.glob("*/Cargo.toml*")):
        text = manifest.read_bytes().decode("utf-8", "replace")
        try:
            expected: object = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            expected = "refused"
        try:
            got: object = crates.toml.loads(text)
        except crates.toml.TOMLDecodeError:
            got = "refused"
        assert got == expected, manifest
        compared += 1
    assert compared >= 20
