"""On the real mlxcel tree: deleting a private function finds exactly its true uses.

The functions are chosen by a seeded rule: every private, non-test function
declared at module level (in a file or an inline module) whose name is also
the name of a function in another file; 40 of them drawn with seed 2230 from
the list sorted by file and qualified name. The rule leaves out functions
whose true uses this test cannot state by itself, that is where the module
(or a file its `mod` declarations load) also binds the name (a parameter,
a `let`, another item, an alias), uses it in a path other than `self::`/
`super::`, inside a `macro_rules!` body or inside a macro not known to take
expressions.

The true uses are then every remaining code identifier with that name in the
function's module and the files it loads (method calls `.name` and the
function's own body excluded),
and the `#[serde(default = "name")]`-like strings there. Each function is
deleted on its own; the definite dangling-reference findings must be
exactly those places (precision and recall 1.0), anywhere in the tree.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from pathlib import Path, PurePosixPath

import pytest

from codemods.edit.values import line_col
from codemods.parse import RUST, descendants, parse
from codemods.plan.planner import plan_recipe
from codemods.plan.references import DANGLING
from codemods import ItemTarget, Recipe, load_recipe
from codemods.languages.rust.resolve import EXPRESSION_MACROS, SERDE_FUNCTION_KEYS

SEED = 2230
COUNT = 40

_BINDING_PARENTS = {
    "let_declaration",
    "parameter",
    "closure_parameters",
    "tuple_pattern",
    "tuple_struct_pattern",
    "or_pattern",
    "match_pattern",
    "ref_pattern",
    "mut_pattern",
    "captured_pattern",
    "field_pattern",
    "slice_pattern",
    "for_expression",
    "struct_pattern",
    "let_condition",
    "reference_pattern",
}
_DECLARING_PARENTS = {
    "function_item",
    "function_signature_item",
    "const_item",
    "static_item",
    "mod_item",
    "macro_definition",
    "use_as_clause",
    "type_item",
    "struct_item",
    "enum_item",
    "enum_variant",
    "trait_item",
    "union_item",
    "type_parameter",
    "const_parameter",
}


def _attributes_before(node):
    previous = node.prev_named_sibling
    while previous is not None and previous.type in ("attribute_item", "line_comment", "block_comment"):
        if previous.type == "attribute_item":
            yield previous.text
        previous = previous.prev_named_sibling


def _loaded_files(root: Path, path: str, container) -> list[str]:
    """Files loaded by the out-of-line `mod x;` declarations directly in `container`."""
    base = PurePosixPath(path)
    owns_folder = base.name in ("mod.rs", "lib.rs", "main.rs")
    found = []
    for node in container.named_children:
        if node.type != "mod_item" or node.child_by_field_name("body") is not None:
            continue
        name = node.child_by_field_name("name").text.decode()
        declared = [re.match(rb'#\[path\s*=\s*"([^"]+)"\]', a) for a in _attributes_before(node)]
        declared = [m.group(1).decode() for m in declared if m]
        folder = base.parent if owns_folder else base.parent / base.stem
        options = (
            [str(base.parent / declared[0])]
            if declared
            else [str(folder / f"{name}.rs"), str(folder / name / "mod.rs")]
        )
        found += [p for p in options if (root / p).is_file()][:1]
    return found


def _in_macro_rules(node) -> bool:
    while node is not None:
        if node.type == "macro_definition":
            return True
        node = node.parent
    return False


def _true_uses(source: bytes, tree, container, name: str, definition, own_module: bool) -> list[int] | None:
    """Offsets of the true uses of `name` in `container`; None where this test cannot tell."""
    raw = name.encode()
    uses = []
    for match in re.finditer(rb"\b" + re.escape(raw) + rb"\b", source[container.start_byte : container.end_byte]):
        start = container.start_byte + match.start()
        node = tree.root_node.descendant_for_byte_range(start, start + len(raw))
        if node.type == "string_content":
            key = re.search(rb"(\w+)\s*=\s*\"$", source[:start])
            inside_attribute = any(a.type == "attribute_item" for a in _ancestors(node))
            if inside_attribute and node.text == raw and key and key.group(1).decode() in SERDE_FUNCTION_KEYS:
                uses.append(start)
            continue
        if node.type != "identifier" or (node.start_byte, node.end_byte) != (start, start + len(raw)):
            continue
        if definition is not None and definition.start_byte <= start < definition.end_byte:
            continue  # its name, or a recursive call deleted with it
        parent = node.parent
        if _in_macro_rules(node) or parent.type in _BINDING_PARENTS | _DECLARING_PARENTS:
            return None
        if parent.type == "token_tree":
            previous = node.prev_sibling
            if previous is not None and previous.type == ".":
                continue
            invocation = parent
            while invocation.parent is not None and invocation.type == "token_tree":
                invocation = invocation.parent
            if previous is not None and previous.type == "::" or invocation.type != "macro_invocation":
                return None
            macro = invocation.child_by_field_name("macro").text.decode().split("::")[-1]
            if macro not in EXPRESSION_MACROS:
                return None
        if parent.type == "scoped_identifier":
            qualifier = parent.child_by_field_name("path")
            if parent.child_by_field_name("name") != node or qualifier is None:
                return None
            if qualifier.text != (b"self" if own_module else b"super"):
                return None
        if parent.type in ("use_list", "scoped_use_list", "use_declaration") and own_module:
            return None
        uses.append(start)
    return uses


def _ancestors(node):
    while node is not None:
        yield node
        node = node.parent


def _module_functions(tree):
    """(module path in the file, fn node, node holding the module's items)."""
    found = []

    def visit(container, module):
        for node in container.named_children:
            if node.type == "function_item":
                found.append((module, node, container))
            elif node.type == "mod_item" and node.child_by_field_name("body") is not None:
                visit(node.child_by_field_name("body"), (*module, node.child_by_field_name("name").text.decode()))

    visit(tree.root_node, ())
    return found


def _is_test(node) -> bool:
    return any(re.match(rb"#\[(\w+::)?test\b", a) for a in _attributes_before(node))


def private_functions_with_twins(root: Path):
    """[(file, qualified name, [(file, offset) of true uses])] for every function the rule admits."""
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.rs") if "target" not in p.parts)
    parsed = {}
    defined_in = defaultdict(set)
    functions = []
    for path in files:
        source = (root / path).read_bytes()
        tree = parse(source, RUST)
        parsed[path] = (source, tree)
        for node in descendants(tree.root_node):
            if node.type == "function_item":
                defined_in[node.child_by_field_name("name").text.decode()].add(path)
        for module, node, container in _module_functions(tree):
            name = node.child_by_field_name("name").text.decode()
            if (
                name != "main"
                and not _is_test(node)
                and not any(c.type == "visibility_modifier" for c in node.children)
            ):
                functions.append((path, module, name, node, container))
    admitted = []
    for path, module, name, node, container in functions:
        if not defined_in[name] - {path}:
            continue
        source, tree = parsed[path]
        own = _true_uses(source, tree, container, name, node, own_module=True)
        if own is None:
            continue
        truth = [(path, offset) for offset in own]
        for loaded in _loaded_files(root, path, container):
            loaded_source, loaded_tree = parsed[loaded]
            more = _true_uses(loaded_source, loaded_tree, loaded_tree.root_node, name, None, own_module=False)
            if more is None:
                break
            truth += [(loaded, offset) for offset in more]
        else:
            admitted.append((path, "::".join((*module, name)), truth))
    return admitted, parsed


@pytest.fixture(scope="module")
def chosen(corpus):
    admitted, parsed = private_functions_with_twins(corpus)
    admitted.sort(key=lambda entry: (entry[0], entry[1]))
    picked = random.Random(SEED).sample(admitted, COUNT)
    return [(path, name, {(p, *line_col(parsed[p][0], offset)) for p, offset in truth}) for path, name, truth in picked]


def test_definite_findings_are_exactly_the_true_uses(corpus, chosen):
    true_uses = reported = correct = 0
    wrong = []
    for path, name, truth in chosen:
        plan = plan_recipe(corpus, Recipe(id="one", summary="", deletions=(ItemTarget(path, "rust", "fn", name),)))
        definite = {(f.path, f.line, f.col) for f in plan.findings if f.code == DANGLING and f.certainty == "definite"}
        true_uses += len(truth)
        reported += len(definite)
        correct += len(truth & definite)
        if definite != truth:
            wrong.append((path, name, sorted(truth - definite)[:3], sorted(definite - truth)[:3]))
    assert true_uses >= COUNT, "the selection should have at least one true use per function on average"
    assert not wrong, f"precision {correct}/{reported}, recall {correct}/{true_uses}: {wrong}"


def test_the_seed_recipe_refuses_on_the_model_lines_as_before(corpus):
    plan = plan_recipe(corpus, load_recipe("paged-compat-removal"))
    model_lines = sorted(
        {(f.path, f.line) for f in plan.blocking if f.code == DANGLING and f.path.startswith("src/models/")}
    )
    assert len(model_lines) == 19
    assert {PurePosixPath(p).name for p, _ in model_lines} == {"gemma3.rs", "llama3.rs", "qwen3.rs", "model_owned.rs"}


def test_a_twin_in_another_crate_is_not_a_reference(corpus):
    """The issue's example: the private `fused_global_scale_disabled` of mlxcel-core's layers.rs
    has a namesake in the mlxcel crate's gemma4.rs; only layers.rs refers to the deleted one."""
    target = ItemTarget("src/lib/mlxcel-core/src/layers.rs", "rust", "fn", "fused_global_scale_disabled")
    plan = plan_recipe(corpus, Recipe(id="one", summary="", deletions=(target,)))
    dangling = [(f.path, f.certainty) for f in plan.findings if f.code == DANGLING]
    assert dangling == [("src/lib/mlxcel-core/src/layers.rs", "definite")]
