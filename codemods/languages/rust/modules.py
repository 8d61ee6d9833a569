"""The file of an out-of-line Rust module (`mod foo;`), as rustc finds it.

`mod foo;` in `dir/lib.rs`, `dir/main.rs` or `dir/mod.rs` (and in any crate
root such as `src/bin/tool.rs`) is `dir/foo.rs` or `dir/foo/mod.rs`; in
`dir/bar.rs` it is `dir/bar/foo.rs` or `dir/bar/foo/mod.rs`; inside an inline
module `mod a { mod foo; }` one folder `a/` deeper; `#[path = "x.rs"]` names
the file relative to the declaring file's folder.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Callable, Iterator

from codemods.languages.rust.items import (
    DeletedItem,
    RustTarget,
    attribute_path,
    attribute_string_value,
    leading_trivia,
    rust_items,
)
from codemods.parse import RUST, parse

_DIRECTORY_OWNERS = ("mod.rs", "lib.rs", "main.rs")


def module_candidates(declaring: str, inline: tuple[str, ...], name: str, path_attribute: str | None) -> list[str]:
    file = PurePosixPath(declaring)
    if path_attribute is not None and not inline:
        return [str(file.parent / path_attribute)]
    bases = [file.parent] if file.name in _DIRECTORY_OWNERS else [file.parent / file.stem, file.parent]
    found = []
    for base in bases:
        folder = base.joinpath(*inline) if inline else base
        if path_attribute is not None:
            found.append(str(folder / path_attribute))
        else:
            found += [str(folder / f"{name}.rs"), str(folder / name / "mod.rs")]
    return found


def module_files(
    declaring: str, inline: tuple[str, ...], start: int, read: Callable[[str], bytes | None], origin: str
) -> Iterator[tuple[str, bytes, list[DeletedItem]]]:
    """(path, bytes, its items as one DeletedItem) of the file of the `mod` item at byte `start`
    of `declaring`, then of the files of the modules that file declares; nothing for an
    inline module (its body is deleted with it)."""
    source = read(declaring)
    if source is None:
        return
    tree = parse(source, RUST)
    module = next((i for i in rust_items(source, tree) if i.kind == "mod" and i.node.start_byte == start), None)
    if module is None or module.node.child_by_field_name("body") is not None:
        return
    _, attributes = leading_trivia(source, module.node)
    path_value = next((attribute_string_value(a) for a in attributes if attribute_path(a) == "path"), None)
    for candidate in module_candidates(declaring, inline, module.name, path_value):
        data = read(candidate)
        if data is None:
            continue
        items = rust_items(data, parse(data, RUST))
        yield candidate, data, [DeletedItem(RustTarget("mod", module.name), tuple(items), ())]
        for child in items:
            if child.kind == "mod":
                yield from module_files(candidate, child.module_path, child.node.start_byte, read, origin)
        return
