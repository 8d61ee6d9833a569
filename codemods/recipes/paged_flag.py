"""The seed's part (b): set each family's paged flag from the measured decision.

`codemod apply --recipe paged-flag --decision DIR/decision.json ROOT`

For each family in the decision it sets the body of
`supports_paged_decode_backend` in that family's `impl ModelWrapper for
<Wrapper>` (and nowhere else) to the decided value, and adds or updates the
method's doc comment citing the results document. For a family whose flag
becomes false it also records the consequences in the doc comment and in
docs/CONTINUOUS_BATCHING.md, adds a unit test on
effective_decode_storage_backend generated from that function's actual
signature, and moves real-checkpoint tests that pin the paged backend for
the family onto dense. Anything that does not have the expected shape is a
blocking finding.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import tree_sitter

from .._edit import Edit, Finding, line_col
from .._parse import RUST, parse
from .._spans import whole_lines
from ..rust.format import format_statements
from ..rust.items import leading_trivia, rust_items
from ..rust.statements import find_function, line_indent, text
from ._model import Recipe, RecipeInputError, StepResult, Workspace

METHOD = "supports_paged_decode_backend"
RESOLVER = "effective_decode_storage_backend"
BACKEND_TYPE = "DecodeStorageBackend"
SCHEDULER_FILES = ("src/server/batch/scheduler/mod.rs", "src/server/batch/scheduler.rs")
SCHEDULER_TEST_FILES = ("src/server/batch/scheduler/tests.rs", "src/server/batch/scheduler_tests.rs")
PARITY_TESTS = "src/server/batch/scheduler_real_batch_parity_tests.rs"
CONTINUOUS_BATCHING = "docs/CONTINUOUS_BATCHING.md"
DOC_MARKER = "/// Decided by measurement"
MAX_BATCH = 8


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


def load_decision_option(workspace: Workspace) -> dict:
    """The validated decision document named by the --decision option."""
    path = workspace.options.get("decision")
    if path is None:
        raise RecipeInputError("the paged-flag recipe needs --decision DIR/decision.json (from `paged-bench report`)")
    from analysis.decision_file import DecisionSchemaError, load_decision

    try:
        return load_decision(Path(path))
    except DecisionSchemaError as error:
        raise RecipeInputError(f"decision file does not match its schema: {error}") from None


def _wrap_doc(indent: str, paragraphs: list[str]) -> str:
    width = 100 - len(indent) - 4
    lines = []
    for index, paragraph in enumerate(paragraphs):
        if index:
            lines.append(f"{indent}///")
        for line in textwrap.wrap(paragraph, width=width, break_long_words=False, break_on_hyphens=False):
            lines.append(f"{indent}/// {line}")
    return "".join(f"{line}\n" for line in lines)


def _sentence(reason: str) -> str:
    reason = reason.strip().rstrip(".")
    return reason[:1].upper() + reason[1:] + "."


def _doc_paragraphs(site: FamilySite, value: bool, decision: dict, family: dict) -> list[str]:
    document = decision["results_document"]
    head = (f"Decided by measurement: {'dense' if not value else 'paged'} decode storage for {site.display}, "
            f"see `{document}`. {_sentence(family['reason'])}")
    paragraphs = [head]
    if not value:
        paragraphs.append("So an explicit `--decode-storage-backend paged` resolves to dense for this family, "
                          "and the engine-parity paged row reports n/a for it.")
    return paragraphs


def _method_in_impl(items, site: FamilySite) -> tuple[object | None, str | None]:
    impls = [i for i in items if i.kind == "impl" and i.name == site.wrapper and i.trait is not None]
    methods = [i for i in items if i.kind == "fn" and i.path[-1:] == (site.wrapper,) and i.name == METHOD]
    chosen = [m for m in methods if any(i.node.start_byte <= m.node.start_byte < i.node.end_byte for i in impls)]
    if len(chosen) != 1:
        return None, f"expected one {METHOD} in a trait impl for {site.wrapper}, found {len(chosen)}"
    return chosen[0], None


def _set_flag(workspace: Workspace, site: FamilySite, value: bool, decision: dict, family: dict,
              findings: list[Finding]) -> list[Edit]:
    source = workspace.read(site.path)
    if source is None:
        findings.append(Finding(site.path, 0, 0, "missing-file", f"{site.path} not found"))
        return []
    method, problem = _method_in_impl(rust_items(source), site)
    if method is None:
        findings.append(Finding(site.path, 0, 0, "shape-mismatch", problem))
        return []
    body = method.node.child_by_field_name("body")
    literal = body.named_children[0] if body is not None and body.named_child_count == 1 else None
    if literal is None or literal.type != "boolean_literal":
        line, col = line_col(source, method.node.start_byte)
        findings.append(Finding(site.path, line, col, "shape-mismatch",
                                f"{site.wrapper}::{METHOD} body is not a single true/false; not changed"))
        return []
    edits = []
    wanted = b"true" if value else b"false"
    if literal.text != wanted:
        edits.append(Edit(site.path, literal.start_byte, literal.end_byte, wanted, f"paged-flag:{site.wrapper}"))
    indent = line_indent(source, method.node.start_byte)
    new_doc = _wrap_doc(indent, _doc_paragraphs(site, value, decision, family))
    doc_start, _ = leading_trivia(source, method.node)
    doc_start, _ = whole_lines(source, doc_start, doc_start, (b"//",))
    old_doc = source[doc_start : source.rfind(b"\n", 0, method.node.start_byte) + 1] if doc_start < method.node.start_byte else b""
    marker = (indent + DOC_MARKER).encode()
    position = old_doc.find(marker)
    if position >= 0:
        start, end = doc_start + position, doc_start + len(old_doc)
        if source[start:end] != new_doc.encode():
            edits.append(Edit(site.path, start, end, new_doc.encode(), f"paged-flag:{site.wrapper}:doc"))
    else:
        insert_at = doc_start + len(old_doc)
        prefix = f"{indent}///\n" if old_doc.strip() else ""
        edits.append(Edit(site.path, insert_at, insert_at, (prefix + new_doc).encode(),
                          f"paged-flag:{site.wrapper}:doc"))
    return edits


def _resolver_arguments(source: bytes, function: tree_sitter.Node, backend: str) -> tuple[list[str] | None, str | None]:
    """Arguments for a call of the resolver with `backend`, max batch 8 and an unsupported model."""
    parameters = function.child_by_field_name("parameters")
    arguments = []
    for parameter in parameters.named_children:
        if parameter.type != "parameter":
            return None, f"unexpected parameter {text(source, parameter)!r}"
        name = text(source, parameter.child_by_field_name("pattern"))
        kind = text(source, parameter.child_by_field_name("type")).replace(" ", "")
        if kind.split("::")[-1] == BACKEND_TYPE:
            arguments.append(f"{BACKEND_TYPE}::{backend}")
        elif kind in ("usize", "u32", "u64", "i32", "i64") and re.search(r"batch|parallel", name):
            arguments.append(str(MAX_BATCH))
        elif kind == "bool" and re.search(r"paged|support", name):
            arguments.append("false")
        else:
            return None, f"cannot supply parameter `{name}: {kind}`"
    return arguments, None


def _resolver_test(workspace: Workspace, key: str, site: FamilySite, document: str,
                   findings: list[Finding]) -> list[Edit]:
    scheduler = next((p for p in SCHEDULER_FILES if workspace.read(p) is not None), None)
    if scheduler is None:
        findings.append(Finding(SCHEDULER_FILES[0], 0, 0, "missing-file", f"no scheduler module ({', '.join(SCHEDULER_FILES)})"))
        return []
    source = workspace.read(scheduler)
    tree = parse(source, RUST)
    resolver = find_function(tree.root_node, RESOLVER)
    if resolver is None:
        findings.append(Finding(scheduler, 0, 0, "shape-mismatch", f"{RESOLVER} not found in {scheduler}"))
        return []
    calls = {}
    for backend in ("Auto", "Paged"):
        arguments, problem = _resolver_arguments(source, resolver, backend)
        if arguments is None:
            line, col = line_col(source, resolver.start_byte)
            findings.append(Finding(scheduler, line, col, "signature-mismatch",
                                    f"cannot generate a test for {RESOLVER}: {problem}"))
            return []
        calls[backend] = arguments
    test_name = f"{key}_auto_and_paged_resolve_to_dense_at_parallel_{MAX_BATCH}"
    test_file = next((p for p in (scheduler, *SCHEDULER_TEST_FILES) if workspace.read(p) is not None
                      and _tests_module(workspace.read(p), p) is not None), None)
    if test_file is None:
        findings.append(Finding(scheduler, 0, 0, "shape-mismatch", "no scheduler test module to add the test to"))
        return []
    test_source = workspace.read(test_file)
    if find_function(parse(test_source, RUST).root_node, test_name) is not None:
        return []
    module = _tests_module(test_source, test_file)
    close = module.end_byte - 1
    line_start = test_source.rfind(b"\n", 0, close) + 1
    indent = line_indent(test_source, module.start_byte) + "    " if module.type == "mod_item" else ""
    body = "\n".join(
        f"assert_eq!({RESOLVER}({', '.join(calls[b])}), {BACKEND_TYPE}::Dense);" for b in ("Auto", "Paged")
    )
    doc = _wrap_doc(indent, [f"{site.display} does not support the paged backend (measured: `{document}`): "
                             f"at --parallel {MAX_BATCH}, Auto and Paged resolve to Dense."])
    code = f"#[test]\nfn {test_name}() {{\n" + "\n".join(f"    {line}" for line in body.split("\n")) + "\n}"
    formatted = format_statements(code, indent, workspace.root) if indent else code + "\n"
    insert_at = line_start if module.type == "mod_item" else len(test_source)
    text_to_insert = "\n" + doc + formatted
    return [Edit(test_file, insert_at, insert_at, text_to_insert.encode(), f"paged-flag:{key}:test")]


def _tests_module(source: bytes, path: str) -> tree_sitter.Node | None:
    """The `#[cfg(test)] mod tests { ... }` of a file, or the file itself for a tests file."""
    tree = parse(source, RUST)
    for item in rust_items(source, tree):
        if item.kind == "mod" and item.name == "tests" and any("cfg(test)" in a for a in item.attributes):
            body = item.node.child_by_field_name("body")
            if body is not None and b"use super::*;" in source[body.start_byte : body.end_byte]:
                return item.node
    if path in SCHEDULER_TEST_FILES:
        return tree.root_node
    return None


def _unpin_parity_tests(workspace: Workspace, key: str, site: FamilySite, document: str,
                        findings: list[Finding]) -> list[Edit]:
    source = workspace.read(PARITY_TESTS)
    if source is None:
        return []
    tree = parse(source, RUST)
    constants = {i.name for i in rust_items(source, tree)
                 if i.kind == "const" and site.checkpoint.encode() in source[i.node.start_byte : i.node.end_byte]}
    edits = []
    both = re.compile(rb"\[\s*(?:\w+::)*" + BACKEND_TYPE.encode() + rb"::Paged\s*,\s*(?:\w+::)*"
                      + BACKEND_TYPE.encode() + rb"::Dense\s*,?\s*\]")
    for item in rust_items(source, tree):
        if item.kind != "test":
            continue
        body = source[item.node.start_byte : item.node.end_byte]
        mentions_family = site.checkpoint.encode() in body or any(
            re.search(rb"\b" + re.escape(c.encode()) + rb"\b", body) for c in constants)
        if not mentions_family or b"::Paged" not in body:
            continue
        loop = _loop_over_both_backends(item.node, both)
        if loop is None:
            line, col = line_col(source, item.node.start_byte)
            findings.append(Finding(PARITY_TESTS, line, col, "shape-mismatch",
                                    f"{item.name} pins the paged backend for {site.checkpoint} in a form this "
                                    "recipe does not rewrite; update it by hand"))
            continue
        # `for b in [Paged, Dense] { ... }` becomes `{ let b = Dense; ... }`.
        pattern = text(source, loop.child_by_field_name("pattern"))
        block = loop.child_by_field_name("body")
        indent = line_indent(source, loop.start_byte)
        edits.append(Edit(PARITY_TESTS, loop.start_byte, block.start_byte + 1,
                          f"{{\n{indent}    let {pattern} = {BACKEND_TYPE}::Dense;".encode(),
                          f"paged-flag:{key}:parity"))
        doc = source[item.start : item.node.start_byte]
        position = doc.find(b"on both backends")
        if position >= 0:
            at = item.start + position
            edits.append(Edit(PARITY_TESTS, at, at + len(b"on both backends"),
                              b"on the dense backend",
                              f"paged-flag:{key}:parity-doc"))
    return edits


def _loop_over_both_backends(function: tree_sitter.Node, both: re.Pattern[bytes]) -> tree_sitter.Node | None:
    """The `for` loop of a test that iterates over the paged and dense backends."""
    stack = [function]
    while stack:
        node = stack.pop()
        if node.type == "for_expression":
            value = node.child_by_field_name("value")
            if value is not None and both.fullmatch(value.text):
                return node
        stack.extend(node.children)
    return None


def _record_in_docs(workspace: Workspace, site: FamilySite, value: bool, document: str,
                    findings: list[Finding]) -> list[Edit]:
    source = workspace.read(CONTINUOUS_BATCHING)
    if source is None:
        findings.append(Finding(CONTINUOUS_BATCHING, 0, 0, "missing-file", f"{CONTINUOUS_BATCHING} not found"))
        return []
    note = (f"Measured in `{document}`: dense wins, so an explicit `--decode-storage-backend paged` "
            "resolves to dense and the engine-parity paged row reports n/a.")
    row = re.compile(rb"^\| " + re.escape(site.display.encode()) + rb" \|[^\n]*\|$", re.M)
    match = row.search(source)
    wanted = f"| {site.display} | {'true' if value else 'false'} | {note} |".encode()
    if match is not None:
        if match.group() == wanted:
            return []
        return [Edit(CONTINUOUS_BATCHING, match.start(), match.end(), wanted, f"paged-flag:{site.display}:docs")]
    line = f"- {site.display}: `supports_paged_decode_backend` is false. {note}\n".encode()
    if line in source:
        return []
    tail = b"" if source.endswith(b"\n") else b"\n"
    return [Edit(CONTINUOUS_BATCHING, len(source), len(source), tail + b"\n" + line, f"paged-flag:{site.display}:docs")]


def set_flags_from_decision(workspace: Workspace) -> StepResult:
    """The whole recipe as one step: every edit the decision implies."""
    decision = load_decision_option(workspace)
    document = decision["results_document"]
    findings: list[Finding] = []
    edits: list[Edit] = []
    for key, family in decision["families"].items():
        site = FAMILIES.get(key)
        if site is None:
            findings.append(Finding(CONTINUOUS_BATCHING, 0, 0, "unknown-family",
                                    f"decision names family {key!r}, which this recipe does not know "
                                    f"(known: {', '.join(FAMILIES)})", severity="note"))
            continue
        value = bool(family["supports_paged_decode_backend"])
        edits += _set_flag(workspace, site, value, decision, family, findings)
        if not value:
            edits += _resolver_test(workspace, key, site, document, findings)
            edits += _unpin_parity_tests(workspace, key, site, document, findings)
            edits += _record_in_docs(workspace, site, value, document, findings)
    return StepResult(edits=tuple(edits), findings=tuple(findings))


RECIPE = Recipe(
    id="paged-flag",
    summary="Set each family's supports_paged_decode_backend from a measured decision (#2230 b)",
    steps=(set_flags_from_decision,),
    parameters=("decision",),
    expects=tuple(site.path for site in FAMILIES.values()),
    check_scope=(),
    protected=("docs/adr",),
)
