"""docs/recipes.md: every example is a recipe file that loads, and every key of the schema is documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codemods.plan.loader import TOML_KEYS, TOML_TABLE_KEYS, load_recipe

DOC = Path(__file__).resolve().parents[2] / "docs" / "recipes.md"
TEXT = DOC.read_text(encoding="utf-8")
EXAMPLES = re.findall(r"```toml\n(.*?)```", TEXT, flags=re.S)
# A Python block that follows an example is the module its `build` names (its first line says which).
MODULES = dict(re.findall(r"```python\n# (\w+)\.py[^\n]*\n(.*?)```", TEXT, flags=re.S))


def _section(heading: str) -> str:
    return TEXT.split(heading, 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("number", range(len(EXAMPLES)), ids=lambda n: f"example-{n + 1}")
def test_every_example_loads(tmp_path: Path, number: int) -> None:
    path = tmp_path / "recipe.toml"
    path.write_text(EXAMPLES[number], encoding="utf-8")
    for module, source in MODULES.items():
        (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
    assert load_recipe(str(path)).id


def test_every_key_has_a_heading_and_an_example() -> None:
    assert len(EXAMPLES) >= len(TOML_KEYS) + sum(len(keys) for keys in TOML_TABLE_KEYS.values())
    top = _section("## Top-level keys")
    for key in TOML_KEYS:
        if key in TOML_TABLE_KEYS:
            assert f"## `[[{key}]]`" in TEXT, key
        else:
            assert "```toml" in top.split(f"### `{key}`\n", 1)[1].split("\n### ", 1)[0], key
    for table, keys in TOML_TABLE_KEYS.items():
        section = _section(f"## `[[{table}]]`")
        for key in keys:
            body = section.split(f"### `{key}`\n", 1)[1].split("\n### ", 1)[0]
            assert "```toml" in body, (table, key)
