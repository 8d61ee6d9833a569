"""Token-by-token comparison of two saved greedy generations (mlxcel #2230 (c)'s check on real checkpoints)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class GenerationComparison:
    """Where two generations first differ within the first `compared` tokens; None when they agree."""

    compared: int
    first_divergence: int | None
    token_a: str | None
    token_b: str | None
    length_a: int
    length_b: int

    def to_json(self) -> dict[str, object]:
        """The comparison as JSON-ready values."""
        return {
            "compared": self.compared,
            "first_divergence": self.first_divergence,
            "token_a": self.token_a,
            "token_b": self.token_b,
            "length_a": self.length_a,
            "length_b": self.length_b,
        }


class GenerationFileError(ValueError):
    """A saved generation that cannot be read: the message names the file and why."""


def load_tokens(path: Path) -> list[str]:
    """A saved generation's tokens.

    A .json file holds a list of token ids or strings, or an object whose
    "tokens" or "token_ids" holds one; any other file is text and is split on
    white space (then a "token" is a word: exact for ids printed one per line).
    Raises GenerationFileError when the file cannot be read or has another shape.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise GenerationFileError(f"{path}: cannot read: {reason}") from None
    if path.suffix == ".json":
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            raise GenerationFileError(f"{path}: not valid JSON: {error}") from None
        if isinstance(value, dict):
            value = value.get("tokens", value.get("token_ids"))
        if not isinstance(value, list):
            raise GenerationFileError(f"{path}: expected a list of tokens, or an object with 'tokens' or 'token_ids'")
        return [str(token) for token in value]
    return text.split()


def compare_generations(a: list[str], b: list[str], tokens: int) -> GenerationComparison:
    """Compare the first `tokens` tokens; a generation that ends early diverges where it ends."""
    compared = min(tokens, max(len(a), len(b)))
    for index in range(compared):
        token_a = a[index] if index < len(a) else None
        token_b = b[index] if index < len(b) else None
        if token_a != token_b:
            return GenerationComparison(compared, index, token_a, token_b, len(a), len(b))
    return GenerationComparison(compared, None, None, None, len(a), len(b))
