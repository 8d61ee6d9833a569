"""docs/recipes.md: every example is a recipe file that loads, and every key of the schema is documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codemods.config.loader import TOML_KEYS, TOML_TABLE_KEYS, load_recipe

DOC = Path(__file__).resolve().parents[3] / "docs" / "recipes.md"
TEXT = DOC.read_text(encoding="utf-8")
EXAMPLES = re.findall(r"```toml\n(.*?)```", TEXT, flags=re.S)
# A Python block right after an example is the recipe's module beside it (its first line names
# it): the example is written under the module's name, so that the loader imports it.
MODULES = {
    example: re.findall(r"```python\n# (\w+)\.py[^\n]*\n(.*?)```", following, flags=re.S)[0]
    for example, following in re.findall(r"```toml\n(.*?)```\s*(```python\n# \w+\.py.*?```)", TEXT, flags=re.S)
}


def _section(heading: str) -> str:
    return TEXT.split(heading, 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("number", range(len(EXAMPLES)), ids=lambda n: f"example-{n + 1}")
def test_every_example_loads(tmp_path: Path, number: int) -> None:
    example = EXAMPLES[number]
    module = MODULES.get(example)
    path = tmp_path / f"{module[0] if module else 'recipe'}.toml"
    path.write_text(example, encoding="utf-8")
    if module:
        (tmp_path / f"{module[0]}.py").write_text(module[1], encoding="utf-8")
    recipe = load_recipe(str(path))
    assert recipe.id
    assert recipe.steps or not module  # the module's builder added its steps


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
