"""Property tests of item deletion on generated Rust and C++ sources.

The generator builds a model of a file (items with doc comments, attributes,
leading comments, blank lines; nested modules, impl blocks, a cxx bridge with
its extern "C++" block; C++ namespaces and extern "C" blocks) and renders it
with LF or CRLF. A Rust item's doc lines and attributes come in any order,
with plain comments between them, trailing comments after attributes and
block docs, blank lines among them in a loose layout, and inner attributes or
docs of the enclosing module just above; a C++ function may carry an
attribute or an annotation macro line. The expected text after deleting a subset of items is built
from the model alone, following the documented rules of the deletion spans
(see codemods/edit/item_spans.py): an item goes with its leading trivia as whole
lines; a block emptied by the deletion closes up (`mod m {}`), except a C++
namespace, which goes too; at the start
of a block the blank lines before the deleted run stay, at its end those
after it (at the end of the file, none); between two survivors the larger of
the two gaps stays.

Properties: exactly the expected text; no new parse errors; no attribute or
doc comment outlives its item, and every other item keeps exactly its own
(read from the tree after the deletion); rustfmt-clean Rust stays
rustfmt-clean; deleting again changes nothing.

Run counts are fixed and derandomized (the `codemods-ci` profile) so that CI
is stable; CODEMOD_PROPERTY_SCALE=10 runs ten times as many examples.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemods.write.atomic import write_changes
from codemods.edit.splice import splice
from codemods.parse import CPP, RUST, error_nodes, parse
from codemods.plan.planner import plan_recipe
from codemods.edit.item_spans import deletion_edits
from codemods.languages.cpp.deletion import delete_cpp_items
from codemods.languages.cpp.items import CppTarget, is_annotation_macro_semicolon
from codemods import ItemTarget, Recipe
from codemods.languages.rust.items import RustTarget, delete_rust_items

from codemod_helpers import rustfmt_clean

settings.register_profile(
    "codemods-ci",
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
_SCALE = max(1, int(os.environ.get("CODEMOD_PROPERTY_SCALE", "1")))


def _examples(count: int) -> settings:
    return settings(settings.get_profile("codemods-ci"), max_examples=count * _SCALE)


# ---------------------------------------------------------------- the model


@dataclass
class Entry:
    """One entry of a block: an item (or a line that is not one, like a free comment).

    `lines` are the entry's own lines (leading trivia, then the item, or for a
    container its opening line), indented relative to the block; a container
    also has `block` and its closing line `close`. `kinds` are the target
    kinds that select it by `name` (empty: never a target). `impl_of` names
    the type an impl block belongs to; `is_type` marks structs and enums,
    whose deletion takes their impl blocks in the same block. A free comment
    `needs_blank_after`: directly above an item, it would belong to it.
    """

    lines: list[str]
    name: str = ""
    kinds: tuple[str, ...] = ()
    block: "Block | None" = None
    close: str = ""
    impl_of: str | None = None
    is_type: bool = False
    item: bool = True
    needs_blank_after: bool = False


@dataclass
class Block:
    """Entries with the blank lines around them: `gaps[i]` precedes entry i, `gaps[-1]` follows the last."""

    entries: list[Entry]
    gaps: list[list[str]] = field(default_factory=list)


def render(block: Block, unit: str, depth: int = 0) -> list[str]:
    lines: list[str] = []
    for gap, entry in zip(block.gaps, block.entries):
        lines += gap
        pad = unit * depth
        own = [pad + line if line else line for line in entry.lines]
        if entry.block is not None:
            inner = render(entry.block, unit, depth + 1)
            if inner:
                own += inner + [pad + entry.close]
            else:
                own[-1] += entry.close
        lines += own
    lines += block.gaps[-1] if block.gaps else []
    return lines


def to_bytes(block: Block, unit: str, eol: str) -> bytes:
    lines = render(block, unit)
    return (eol.join(lines) + eol).encode() if lines else b""


def expected_after(block: Block, deleted: set[str], whole_file: bool = True) -> Block:
    """The model after deleting the entries named in `deleted` (and the impls of deleted types);
    `whole_file`: the block is the file's top level, whose end keeps no blank line."""
    entries, gaps = block.entries, block.gaps
    dead_types = {e.name for e in entries if e.is_type and e.name in deleted}
    flags = [
        e.name in deleted or (e.impl_of is not None and e.impl_of in dead_types) or _emptied_namespace(e, deleted)
        for e in entries
    ]
    kept: list[Entry] = []
    kept_gaps: list[list[str]] = []
    pending = gaps[0]
    index = 0
    while index < len(entries):
        if not flags[index]:
            kept_gaps.append(pending)
            entry = entries[index]
            if entry.block is not None:
                entry = replace(entry, block=expected_after(entry.block, deleted, whole_file=False))
            kept.append(entry)
            pending = gaps[index + 1]
            index += 1
            continue
        last = index
        while last + 1 < len(entries) and flags[last + 1]:
            last += 1
        before, after = gaps[index], gaps[last + 1]
        opens, closes = index == 0, last == len(entries) - 1
        if opens and closes:
            pending = []
        elif opens:
            pending = before
        elif closes:
            pending = [] if whole_file else after
        else:
            pending = before if len(before) >= len(after) else after
        index = last + 1
    kept_gaps.append(pending)
    return Block(kept, kept_gaps)


def _emptied_namespace(entry: Entry, deleted: set[str]) -> bool:
    """Whether `entry` is a C++ namespace whose code the deletion removes entirely: it goes
    too, free comments inside it included (an `extern "C"` block closes up instead)."""
    if entry.block is None or not entry.lines[-1].startswith("namespace"):
        return False
    code = [e for e in entry.block.entries if e.item]
    return bool(code) and all(e.name in deleted or _emptied_namespace(e, deleted) for e in code)


def targets_of(block: Block) -> list[Entry]:
    found = []
    for entry in block.entries:
        if entry.kinds:
            found.append(entry)
        if entry.block is not None:
            found += targets_of(entry.block)
    return found


# ---------------------------------------------------------------- generators


class Names:
    """Unique names within one generated file."""

    def __init__(self) -> None:
        self.count = 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"{stem}{self.count}"


@dataclass(frozen=True)
class Style:
    """How a file is laid out: `clean` keeps it rustfmt-clean (no blank line after `{`
    or before `}`, at most one blank line, no whitespace on blank lines)."""

    clean: bool


def _gap(draw, style: Style, edge: bool, needs_blank: bool = False) -> list[str]:
    if style.clean:
        if edge:
            return []
        return [""] if needs_blank or draw(st.booleans()) else []
    count = draw(st.integers(min_value=1 if needs_blank else 0, max_value=3))
    return [draw(st.sampled_from(["", "", "", "    ", "\t"])) for _ in range(count)]


def _gaps(draw, style: Style, entries: list[Entry], top: bool) -> list[list[str]]:
    gaps = []
    for index in range(len(entries) + 1):
        edge = index in (0, len(entries)) and (not top or style.clean)
        after_comment = 0 < index < len(entries) and entries[index - 1].needs_blank_after
        gaps.append(_gap(draw, style, edge, needs_blank=after_comment))
    return gaps


_RUST_ATTRIBUTES = (
    "#[allow(dead_code)]",
    '#[cfg(feature = "cuda")]',
    "#[doc(hidden)]",
    '#[cfg_attr(feature = "cuda", allow(dead_code))]',
)


def _rust_trivia(draw, style: Style, name: str, fn: bool = False, test: bool = False) -> list[str]:
    """An item's leading trivia: maybe a leading comment, then outer doc lines and attributes
    in any order, with plain comments between and after them, trailing comments after
    attributes and block docs, and (in a loose layout) blank lines among them."""
    lines = [f"// Note on {name}."] if draw(st.integers(0, 4)) == 0 else []
    docs = [
        draw(st.sampled_from([f"/// Doc {i} of {name}.", f"/** Doc {i} of {name}. */"]))
        for i in range(draw(st.integers(0, 2)))
    ]
    choices = _RUST_ATTRIBUTES + (("#[inline]", "#[cold]") if fn else ())
    attributes = draw(st.lists(st.sampled_from(choices), max_size=3, unique=True)) + (["#[test]"] if test else [])
    for member in draw(st.permutations(docs + attributes)):
        if not member.startswith("///") and draw(st.integers(0, 3)) == 0:
            member += draw(st.sampled_from([f" // Why {name}.", " /* why */"]))
        lines.append(member)
        if draw(st.integers(0, 4)) == 0:
            lines.append(f"// Between, on {name}.")
        if not style.clean and draw(st.integers(0, 4)) == 0:
            lines.append("")
    return lines


def _rust_leaf(draw, names: Names, style: Style) -> list[Entry]:
    choice = draw(
        st.sampled_from(
            [
                "fn",
                "fn1",
                "test",
                "struct",
                "unit",
                "enum",
                "const",
                "static",
                "alias",
                "trait",
                "macro",
                "use",
                "comment",
            ]
        )
    )
    if choice == "comment":
        return [Entry([f"// Free comment {names.fresh('c')}."], item=False, needs_blank_after=True)]
    if choice == "use":
        return [Entry(["use std::fmt;"])]
    if choice in ("fn", "fn1", "test"):
        name = names.fresh("f")
        trivia = _rust_trivia(draw, style, name, fn=True, test=choice == "test")
        kinds = ("fn", "test") if choice == "test" else ("fn",)
        if choice == "fn1":
            body = [f"fn {name}() {{}}"]
        else:
            body = [f"pub fn {name}(x: i32) -> i32 {{", "    x + 1", "}"]
        if draw(st.integers(0, 5)) == 0:
            body[-1] += f" // end {name}"
        return [Entry(trivia + body, name, kinds)]
    if choice in ("struct", "unit", "enum"):
        name = names.fresh("T")
        trivia = _rust_trivia(draw, style, name)
        if choice == "struct":
            body = [f"pub struct {name} {{", "    pub x: i32,", "}"]
        elif choice == "unit":
            body = [f"pub struct {name};"]
        else:
            body = [f"enum {name} {{", "    A,", "    B,", "}"]
        kind = "enum" if choice == "enum" else "struct"
        entries = [Entry(trivia + body, name, (kind, "type"), is_type=True)]
        if draw(st.booleans()):
            methods = [_rust_method(draw, names, style) for _ in range(draw(st.integers(1, 2)))]
            impl = Entry(
                _rust_trivia(draw, style, f"impl {name}") + [f"impl {name} {{"],
                impl_of=name,
                close="}",
                block=Block(methods),
            )
            entries.append(impl)
        return entries
    if choice in ("const", "static"):
        name = names.fresh("K")
        keyword = "const" if choice == "const" else "static"
        return [Entry(_rust_trivia(draw, style, name) + [f"{keyword} {name}: i32 = 1;"], name, ("const",))]
    if choice == "alias":
        name = names.fresh("A")
        return [Entry(_rust_trivia(draw, style, name) + [f"type {name} = i32;"], name, ("type",))]
    if choice == "trait":
        name = names.fresh("Tr")
        return [
            Entry(
                _rust_trivia(draw, style, name) + [f"pub trait {name} {{", "    fn run(&self);", "}"], name, ("trait",)
            )
        ]
    name = names.fresh("m")
    return [
        Entry(_rust_trivia(draw, style, name) + [f"macro_rules! {name} {{", "    () => {};", "}"], name, ("macro",))
    ]


def _rust_method(draw, names: Names, style: Style) -> Entry:
    name = names.fresh("meth")
    return Entry(
        _rust_trivia(draw, style, name, fn=True) + [f"pub fn {name}(&self) -> i32 {{", "    1", "}"], name, ("fn",)
    )


def _fill_gaps(draw, style: Style, block: Block, top: bool) -> Block:
    block.gaps = _gaps(draw, style, block.entries, top)
    for entry in block.entries:
        if entry.block is not None:
            _fill_gaps(draw, style, entry.block, top=False)
    return block


def _rust_block(draw, names: Names, style: Style, depth: int, top: bool) -> Block:
    entries: list[Entry] = []
    if draw(st.integers(0, 4)) == 0:
        # An inner attribute or doc comment belongs to the enclosing module (file or `mod`).
        inner = draw(st.sampled_from(["#![allow(dead_code)]", "//! Docs of the module."]))
        entries.append(Entry([inner], item=False))
    for _ in range(draw(st.integers(1, 5 if depth == 0 else 3))):
        if depth < 2 and draw(st.integers(0, 5)) == 0:
            name = names.fresh("md")
            inner_block = _rust_block(draw, names, style, depth + 1, top=False)
            trivia = _rust_trivia(draw, style, name)
            entries.append(Entry(trivia + [f"mod {name} {{"], name, ("mod",), block=inner_block, close="}"))
        elif top and depth == 0 and draw(st.integers(0, 6)) == 0:
            entries.append(_rust_bridge(draw, names))
        else:
            entries += _rust_leaf(draw, names, style)
    while entries and not entries[-1].item and draw(st.booleans()):
        entries.pop()
    if not any(e.item for e in entries):
        entries += _rust_leaf(draw, names, style)
    return Block(entries)


def _rust_bridge(draw, names: Names) -> Entry:
    """A #[cxx::bridge] module holding an extern "C++" block of bridge functions."""
    functions = []
    for _ in range(draw(st.integers(1, 3))):
        name = names.fresh("k")
        trivia = [f"/// Bridge {name}."] if draw(st.booleans()) else []
        if draw(st.booleans()):
            trivia.append(f'#[rust_name = "{name}_rs"]' + draw(st.sampled_from(["", " // Its Rust name."])))
        functions.append(Entry(trivia + [f"fn {name}(x: i32) -> i32;"], name, ("bridge_fn",)))
    include = Entry(['include!("bridge.h");'], item=False)
    extern = Entry(['unsafe extern "C++" {'], block=Block([include, *functions]), close="}")
    name = names.fresh("ffi")
    return Entry(["#[cxx::bridge]", f"mod {name} {{"], name, ("mod",), block=Block([extern]), close="}")


@st.composite
def rust_files(draw, clean: bool | None = None):
    """(model, eol) of a Rust file; `clean` forces (or forbids) the rustfmt-clean layout."""
    style = Style(draw(st.booleans()) if clean is None else clean)
    block = _fill_gaps(draw, style, _rust_block(draw, Names(), style, 0, top=True), top=True)
    return block, draw(st.sampled_from(["\n", "\r\n"]))


def _cpp_trivia(draw, name: str) -> list[str]:
    shape = draw(st.sampled_from(["none", "none", "line", "lines", "block", "doc"]))
    if shape == "line":
        return [f"// About {name}."]
    if shape == "lines":
        return [f"// About {name}.", "// More."]
    if shape == "block":
        return [f"/* About {name}. */"]
    if shape == "doc":
        return ["/**", f" * About {name}.", " */"]
    return []


def _cpp_annotations(draw, name: str, template: bool) -> list[str]:
    """Lines that annotate a function before its signature: an attribute (not before a
    template), or an annotation macro, maybe with a trailing comment and a comment after it."""
    shapes = ["none", "none", "macro"] + ([] if template else ["nodiscard", "attribute"])
    shape = draw(st.sampled_from(shapes))
    if shape == "nodiscard":
        return ["[[nodiscard]]"]
    if shape == "attribute":
        return ['__attribute__((visibility("default")))']
    if shape == "macro":
        lines = [f'MLX_DEPRECATED("{name} is going")' + draw(st.sampled_from(["", "  // Until 2.0."]))]
        return lines + ([f"// Between, on {name}."] if draw(st.booleans()) else [])
    return []


def _cpp_leaf(draw, names: Names) -> Entry:
    choice = draw(st.sampled_from(["def", "def1", "decl", "template", "static", "struct", "variable", "comment"]))
    if choice == "comment":
        return Entry([f"// Free comment {names.fresh('c')}."], item=False, needs_blank_after=True)
    if choice == "struct":
        return Entry([f"struct {names.fresh('S')} {{", "  int x;", "};"])
    if choice == "variable":
        return Entry([f"int {names.fresh('v')} = 1;"])
    name = names.fresh("fn")
    trivia = _cpp_trivia(draw, name) + _cpp_annotations(draw, name, template=choice == "template")
    if choice == "decl":
        return Entry(trivia + [f"int {name}(int x);"], name, ("declaration", "any"))
    if choice == "def1":
        body = [f"void {name}() {{}}"]
    elif choice == "template":
        body = ["template <typename T>", f"T {name}(T x) {{", "  return x;", "}"]
    elif choice == "static":
        body = [f"static inline int {name}(const int* p) {{", "  return *p;", "}"]
    else:
        body = [f"int {name}(int x) {{", "  return x + 1;", "}"]
    return Entry(trivia + body, name, ("function", "any"))


def _cpp_block(draw, names: Names, depth: int) -> Block:
    entries: list[Entry] = []
    for _ in range(draw(st.integers(1, 5 if depth == 0 else 3))):
        container = draw(st.integers(0, 5)) if depth < 2 else 5
        if container == 0:
            name = draw(st.sampled_from(["", names.fresh("ns")]))
            inner = _cpp_block(draw, names, depth + 1)
            opening = f"namespace {name} {{" if name else "namespace {"
            closing = f"}}  // namespace {name}" if name else "}  // namespace"
            entries.append(Entry([opening], block=inner, close=closing))
        elif container == 1 and depth == 0:
            entries.append(Entry(['extern "C" {'], block=_cpp_block(draw, names, depth + 1), close="}"))
        else:
            entries.append(_cpp_leaf(draw, names))
    if not any(e.item for e in entries):
        entries.append(_cpp_leaf(draw, names))
    return Block(entries)


@st.composite
def cpp_files(draw):
    style = Style(draw(st.booleans()))
    block = _fill_gaps(draw, style, _cpp_block(draw, Names(), 0), top=True)
    return block, draw(st.sampled_from(["\n", "\r\n"]))


@st.composite
def deletion_choice(draw, block: Block):
    """A subset of the model's targets, each with one kind that selects it."""
    candidates = targets_of(block)
    chosen = draw(st.lists(st.sampled_from(candidates), unique_by=lambda e: e.name)) if candidates else []
    return [(draw(st.sampled_from(e.kinds)), e.name) for e in chosen]


# ---------------------------------------------------------------- the code under test


def delete_rust(source: bytes, targets: list[tuple[str, str]], again: bool = False) -> bytes:
    taken = delete_rust_items("t.rs", source, [RustTarget(k, n) for k, n in targets], already_absent=lambda: again)
    assert not [f for f in taken.findings if f.blocking], taken.findings
    return splice(source, deletion_edits("t.rs", source, taken.taken))


def delete_cpp(source: bytes, targets: list[tuple[str, str]], again: bool = False) -> bytes:
    taken = delete_cpp_items("t.cpp", source, [CppTarget(k, n) for k, n in targets], already_absent=lambda: again)
    assert not [f for f in taken.findings if f.blocking], taken.findings
    return splice(source, deletion_edits("t.cpp", source, taken.taken))


_RUST_ITEM_TYPES = {
    "function_item",
    "function_signature_item",
    "struct_item",
    "enum_item",
    "type_item",
    "trait_item",
    "impl_item",
    "mod_item",
    "const_item",
    "static_item",
    "macro_definition",
}


def _is_outer_attribute(node) -> bool:
    """An attribute or outer doc comment: syntax that belongs to the item after it."""
    return node.type == "attribute_item" or (
        node.type in ("line_comment", "block_comment")
        and any(c.type == "outer_doc_comment_marker" for c in node.children)
    )


def _owner_key(node) -> str | None:
    if node is None or node.type not in _RUST_ITEM_TYPES:
        return None
    if node.type == "impl_item":
        return "impl " + node.child_by_field_name("type").text.decode()
    return node.child_by_field_name("name").text.decode()


def attributes_by_item_in_tree(source: bytes) -> dict[str | None, list[str]]:
    """The outer attributes and doc comments of a Rust file by the item they belong to, read
    from its tree: each one's owner is the next sibling that is not a comment or attribute.
    Those followed by no item are under None."""
    found: dict[str | None, list[str]] = {}

    def visit(node) -> None:
        for child in node.named_children:
            if _is_outer_attribute(child):
                owner = child.next_named_sibling
                while owner is not None and owner.type in ("line_comment", "block_comment", "attribute_item"):
                    owner = owner.next_named_sibling
                found.setdefault(_owner_key(owner), []).append(child.text.decode().rstrip("\r\n"))
            visit(child)

    visit(parse(source, RUST).root_node)
    return found


def attributes_by_item_in_model(block: Block) -> dict[str | None, list[str]]:
    """The same, from the model: each entry's attribute and doc lines, trailing comments cut off."""
    found: dict[str | None, list[str]] = {}
    for entry in block.entries:
        texts = []
        for line in entry.lines:
            if line.startswith("#["):
                texts.append(line.split(" //")[0].split(" /*")[0])
            elif line.startswith("/**"):
                texts.append(line[: line.index("*/") + 2])
            elif line.startswith("///"):
                texts.append(line)
        if texts:
            found.setdefault(f"impl {entry.impl_of}" if entry.impl_of else entry.name, []).extend(texts)
        if entry.block is not None:
            for key, value in attributes_by_item_in_model(entry.block).items():
                found.setdefault(key, []).extend(value)
    return found


def _parse_errors(language: str, source: bytes) -> list:
    """Parse errors, less the `;` tree-sitter-cpp misses after an annotation macro line."""
    return [
        n
        for n in error_nodes(parse(source, language))
        if not (language == CPP and is_annotation_macro_semicolon(source, n))
    ]


def _check_deletion(language: str, block: Block, unit: str, eol: str, targets: list[tuple[str, str]]) -> bytes:
    delete = delete_rust if language == RUST else delete_cpp
    source = to_bytes(block, unit, eol)
    assert _parse_errors(language, source) == [], source.decode()
    expected = to_bytes(expected_after(block, {name for _, name in targets}), unit, eol)
    result = delete(source, targets)
    if language == RUST:
        # No attribute outlives its item, and every other item keeps exactly its own.
        assert attributes_by_item_in_tree(source) == attributes_by_item_in_model(block)
        after = attributes_by_item_in_tree(result)
        assert None not in after, after[None]
        kept = expected_after(block, {name for _, name in targets})
        assert after == attributes_by_item_in_model(kept)
    assert result == expected
    assert _parse_errors(language, result) == []
    assert delete(result, targets, again=True) == result
    return result


@_examples(1500)
@given(data=st.data())
def test_rust_deleting_any_subset_gives_the_expected_text(data) -> None:
    block, eol = data.draw(rust_files())
    targets = data.draw(deletion_choice(block))
    _check_deletion(RUST, block, "    ", eol, targets)


@_examples(1000)
@given(data=st.data())
def test_cpp_deleting_any_subset_gives_the_expected_text(data) -> None:
    block, eol = data.draw(cpp_files())
    targets = data.draw(deletion_choice(block))
    _check_deletion(CPP, block, "  ", eol, targets)


@pytest.mark.skipif(shutil.which("rustfmt") is None, reason="rustfmt not installed")
@_examples(150)
@given(data=st.data())
def test_rustfmt_clean_rust_staysrustfmt_clean(data) -> None:
    block, eol = data.draw(rust_files(clean=True))
    targets = data.draw(deletion_choice(block))
    source = to_bytes(block, "    ", eol)
    assert rustfmt_clean(source), source.decode()
    result = _check_deletion(RUST, block, "    ", eol, targets)
    # A file emptied by the deletion is left empty (0 bytes); rustfmt would write one newline.
    assert not result or rustfmt_clean(result), result.decode()


@_examples(60)
@given(data=st.data())
def test_apply_writes_exactly_the_expected_bytes_and_a_second_apply_changes_nothing(data, tmp_path_factory) -> None:
    rust, rust_eol = data.draw(rust_files())
    cpp, cpp_eol = data.draw(cpp_files())
    rust_targets = data.draw(deletion_choice(rust))
    cpp_targets = data.draw(deletion_choice(cpp))
    root = tmp_path_factory.mktemp("tree")
    (root / "src").mkdir()
    (root / "src" / "lib.rs").write_bytes(to_bytes(rust, "    ", rust_eol))
    (root / "src" / "kernels.cpp").write_bytes(to_bytes(cpp, "  ", cpp_eol))
    os.chmod(root / "src" / "kernels.cpp", 0o640)
    recipe = Recipe(
        id="generated",
        summary="delete generated items",
        deletions=tuple(ItemTarget("src/lib.rs", "rust", k, n) for k, n in rust_targets)
        + tuple(ItemTarget("src/kernels.cpp", "cpp", k, n) for k, n in cpp_targets),
    )
    plan = plan_recipe(Path(root), recipe, allow_dangling=True)
    assert not plan.blocking, plan.blocking
    write_changes(Path(root), list(plan.changes))
    assert (root / "src" / "lib.rs").read_bytes() == to_bytes(
        expected_after(rust, {n for _, n in rust_targets}), "    ", rust_eol
    )
    assert (root / "src" / "kernels.cpp").read_bytes() == to_bytes(
        expected_after(cpp, {n for _, n in cpp_targets}), "  ", cpp_eol
    )
    assert os.stat(root / "src" / "kernels.cpp").st_mode & 0o777 == 0o640
    assert sorted(p.name for p in root.iterdir()) == ["src"]
    again = plan_recipe(Path(root), recipe, allow_dangling=True)
    assert again.changes == ()
