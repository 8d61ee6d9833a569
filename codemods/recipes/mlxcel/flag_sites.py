"""Where mlxcel's paged flag lives, as the paged-flag recipe and its generated tests name it: the
trait method, the backend enum and the wrapper constant, each family's wrapper site, how a wrapper's
trait method is found, and how a `///` comment is wrapped."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from codemods.languages.rust.items import RustItem

METHOD = "supports_paged_decode_backend"
BACKEND_TYPE = "DecodeStorageBackend"
CONSTANT = "SUPPORTS_PAGED_DECODE_BACKEND"


@dataclass(frozen=True)
class FamilySite:
    """Where a family's flag lives: file, wrapper type, name in prose, real checkpoint."""

    path: str
    wrapper: str
    display: str
    checkpoint: str


FAMILIES = {
    "gemma3": FamilySite("src/models/gemma3.rs", "Gemma3Wrapper", "Gemma 3", "gemma-3-1b-it-4bit"),
    "llama4": FamilySite("src/models/llama4.rs", "Llama4Wrapper", "Llama 4", "llama-4-scout-17b-16e-instruct-4bit"),
}


def wrap_doc(indent: str, paragraphs: list[str]) -> str:
    width = 100 - len(indent) - 4
    lines = []
    for index, paragraph in enumerate(paragraphs):
        if index:
            lines.append(f"{indent}///")
        for line in textwrap.wrap(paragraph, width=width, break_long_words=False, break_on_hyphens=False):
            lines.append(f"{indent}/// {line}")
    return "".join(f"{line}\n" for line in lines)


def method_in_impl(items: list[RustItem], site: FamilySite, method: str = METHOD) -> RustItem | str:
    """The wrapper's `method` in a trait impl, or why there is not exactly one."""
    impls = [i for i in items if i.kind == "impl" and i.name == site.wrapper and i.trait is not None]
    methods = [i for i in items if i.kind == "fn" and i.module_path[-1:] == (site.wrapper,) and i.name == method]
    chosen = [m for m in methods if any(i.node.start_byte <= m.node.start_byte < i.node.end_byte for i in impls)]
    if len(chosen) != 1:
        return f"expected one {method} in a trait impl for {site.wrapper}, found {len(chosen)}"
    return chosen[0]
