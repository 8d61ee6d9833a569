"""The ``paged-flag`` recipe (#2230 (b)): set each family's paged flag from the measured decision.

`codemod apply --recipe paged-flag --decision DIR/decision.json ROOT`

For each family in the decision it sets the body of
`supports_paged_decode_backend` in that family's `impl ModelWrapper for
<Wrapper>` (and nowhere else) to the decided value, and adds or updates the
method's doc comment citing the results document. For a family whose flag
becomes false it also records the consequences in the doc comment and in
docs/CONTINUOUS_BATCHING.md, adds a unit test on
effective_decode_storage_backend generated from that function's actual
signature, and moves real-checkpoint tests that pin the paged backend for
the family onto dense. Where the wrapper can be named from the scheduler
tests (same crate), the value moves into an associated constant of the
wrapper (`SUPPORTS_PAGED_DECODE_BACKEND`, returned by the method) and a
second test reads it from there, so setting the wrapper back fails a test.
The texts state only what the plan did: a tree without the engine-parity
test says so, in the texts and in a note. Anything that does not have the
expected shape is a blocking finding, and so are a results document the
tree does not hold and a family whose decision has no complete cell.

The decision arrives as a typed, validated `DecisionDocument` from
`interchange.decision`, the schema ``paged-bench report`` writes; reading it
loads neither the analysis package nor its runner.
"""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import tree_sitter

from interchange.decision import VERDICT_NO_DATA, DecisionDocument, DecisionSchemaError, FamilyDecision, load_decision

from codemods.edit.codes import Code
from codemods.edit.errors import RecipeInputError
from codemods.edit.values import Edit, Finding, line_col
from codemods.edit.item_spans import whole_lines
from codemods.languages.rust.items import RustItem, leading_trivia, rust_items
from codemods.languages.rust.statements import line_indent
from codemods.config.builders import builds
from codemods.config.recipe import Parameter, Recipe, StepResult, Workspace
from codemods.recipes.mlxcel.flag_sites import CONSTANT, FAMILIES, METHOD, FamilySite, method_in_impl, wrap_doc
from codemods.recipes.mlxcel.flag_tests import (
    ParityOutcome,
    TestSite,
    refuse_stale_tests,
    resolver_test,
    test_site,
    unpin_parity_tests,
    wrapper_test_name,
)
from codemods.recipes.mlxcel.markdown import section_end, table_row

CONTINUOUS_BATCHING = "docs/CONTINUOUS_BATCHING.md"
DOC_MARKER = "/// Decided by measurement"


def _load_decision_option(path: object) -> DecisionDocument:
    """The validated decision document the --decision option names: a decision.json, or the run
    folder of `paged-bench report` that holds it."""
    path = Path(str(path))
    if path.is_dir():
        if not (path / "decision.json").is_file():
            raise RecipeInputError(
                f"decision: {path} is a folder without decision.json; give the run folder "
                f"`paged-bench report` wrote, or its decision.json"
            )
        path = path / "decision.json"
    try:
        return load_decision(path)
    except DecisionSchemaError as error:
        raise RecipeInputError(f"decision file does not match its schema: {error}") from None


DECISION = Parameter(
    "decision",
    missing="the paged-flag recipe needs --decision DIR/decision.json (from `paged-bench report`)",
    load=_load_decision_option,
    help="the decision.json of `paged-bench report`, or the run folder holding it",
    flag="--decision",
    file=True,
)


def _sentence(reason: str) -> str:
    reason = reason.strip().rstrip(".")
    return reason[:1].upper() + reason[1:] + "."


def _doc_paragraphs(
    site: FamilySite, value: bool, decision: DecisionDocument, family: FamilyDecision, parity: ParityOutcome | None
) -> list[str]:
    head = (
        f"Decided by measurement: {'dense' if not value else 'paged'} decode storage for {site.display}, "
        f"see `{decision.results_document}`. {_sentence(family.reason)}"
    )
    paragraphs = [head]
    if not value:
        tail = f" {parity.sentence(site)}" if parity is not None else ""
        paragraphs.append("So an explicit `--decode-storage-backend paged` resolves to dense for this family." + tail)
    return paragraphs


def _constant_of(items: list[RustItem], site: FamilySite, source: bytes) -> RustItem | None:
    """The wrapper's `SUPPORTS_PAGED_DECODE_BACKEND` const in an inherent impl, if it has one."""
    impls = [i for i in items if i.kind == "impl" and i.name == site.wrapper and i.trait is None]
    found = [c for c in items if c.kind == "const" and c.name == CONSTANT and c.module_path[-1:] == (site.wrapper,)
             and any(i.node.start_byte <= c.node.start_byte < i.node.end_byte for i in impls)]  # fmt: skip
    return found[0] if len(found) == 1 else None


def _is_self_constant(node: tree_sitter.Node) -> bool:
    """Whether `node` is the path `Self::SUPPORTS_PAGED_DECODE_BACKEND`."""
    return node.type == "scoped_identifier" and (node.text or b"").replace(b" ", b"") == f"Self::{CONSTANT}".encode()


def _constant_item(site: FamilySite, value: bool, indent: str, test_name: str) -> str:
    doc = wrap_doc(
        indent,
        [
            f"What `{METHOD}` returns for {site.display} (its doc comment says why). The "
            f"scheduler test `{test_name}` reads it here, so changing it fails that test."
        ],
    )
    return f"{doc}{indent}pub(crate) const {CONSTANT}: bool = {str(value).lower()};\n"


def _introduce_constant(
    source: bytes,
    items: list[RustItem],
    site: FamilySite,
    value: bool,
    method: RustItem,
    test_name: str,
    findings: list[Finding],
) -> list[Edit] | None:
    """Edits that add the constant to the wrapper's first inherent impl (or a new one), or None."""
    impls = [i for i in items if i.kind == "impl" and i.name == site.wrapper and i.trait is None]
    if impls:
        impl = impls[0].node
        if impl.child_by_field_name("type_parameters") is not None:
            line, col = line_col(source, impl.start_byte)
            findings.append(
                Finding(
                    site.path,
                    line,
                    col,
                    Code.NOT_ADDED,
                    f"{site.wrapper} is generic: no associated constant, so no scheduler test "
                    "reads the flag from the wrapper",
                    severity="note",
                )
            )
            return None
        body = impl.child_by_field_name("body")
        if body is None:
            return None
        indent = line_indent(source, impl.start_byte) + "    "
        at = source.find(b"\n", body.start_byte) + 1
        following = source[at : source.find(b"\n", at)].strip()
        gap = "" if following in (b"}", b"") else "\n"
        text = _constant_item(site, value, indent, test_name) + gap
        return [Edit(site.path, at, at, text.encode(), f"paged-flag:{site.wrapper}:constant")]
    trait_impl = next(i for i in items if i.kind == "impl" and i.name == site.wrapper and i.trait is not None
                      and i.node.start_byte <= method.node.start_byte < i.node.end_byte)  # fmt: skip
    indent = line_indent(source, trait_impl.node.start_byte)
    text = f"{indent}impl {site.wrapper} {{\n{_constant_item(site, value, indent + '    ', test_name)}{indent}}}\n\n"
    return [Edit(site.path, trait_impl.start, trait_impl.start, text.encode(), f"paged-flag:{site.wrapper}:constant")]


def _set_flag(
    workspace: Workspace,
    site: FamilySite,
    value: bool,
    decision: DecisionDocument,
    family: FamilyDecision,
    findings: list[Finding],
    parity: ParityOutcome | None = None,
    wrapper_test: str | None = None,
) -> list[Edit]:
    """Set the family's flag and its doc comment.

    With ``wrapper_test`` (the name of the scheduler test that will read it) the
    value goes into the wrapper's associated constant, which the method returns.
    """
    source = workspace.read(site.path)
    if source is None:
        findings.append(Finding(site.path, 0, 0, Code.MISSING_FILE, f"{site.path} not found"))
        return []
    items = rust_items(source)
    method = method_in_impl(items, site)
    if isinstance(method, str):
        findings.append(Finding(site.path, 0, 0, Code.SHAPE_MISMATCH, method))
        return []
    body = method.node.child_by_field_name("body")
    expression = body.named_children[0] if body is not None and body.named_child_count == 1 else None
    constant = _constant_of(items, site, source) if expression is not None and _is_self_constant(expression) else None
    literal = expression if expression is not None and expression.type == "boolean_literal" else None
    if constant is not None:
        value_node = constant.node.child_by_field_name("value")
        literal = value_node if value_node is not None and value_node.type == "boolean_literal" else None
    if literal is None:
        line, col = line_col(source, method.node.start_byte)
        findings.append(
            Finding(
                site.path,
                line,
                col,
                Code.SHAPE_MISMATCH,
                f"{site.wrapper}::{METHOD} body is not a single true/false"
                + (
                    f" nor `Self::{CONSTANT}` with a true/false constant"
                    if constant or (expression is not None and _is_self_constant(expression))
                    else ""
                )
                + "; not changed",
            )
        )
        return []
    edits: list[Edit] = []
    wanted = b"true" if value else b"false"
    if constant is None and wrapper_test is not None and not value:
        added = _introduce_constant(source, items, site, value, method, wrapper_test, findings)
        if added is not None:
            edits += added
            edits.append(
                Edit(
                    site.path,
                    literal.start_byte,
                    literal.end_byte,
                    f"Self::{CONSTANT}".encode(),
                    f"paged-flag:{site.wrapper}",
                )
            )
    if not edits and literal.text != wanted:
        edits.append(Edit(site.path, literal.start_byte, literal.end_byte, wanted, f"paged-flag:{site.wrapper}"))
    indent = line_indent(source, method.node.start_byte)
    new_doc = wrap_doc(indent, _doc_paragraphs(site, value, decision, family, parity))
    doc_start, _ = leading_trivia(source, method.node)
    doc_start, _ = whole_lines(source, doc_start, doc_start, (b"//",))
    old_doc = (
        source[doc_start : source.rfind(b"\n", 0, method.node.start_byte) + 1]
        if doc_start < method.node.start_byte
        else b""
    )
    marker = (indent + DOC_MARKER).encode()
    position = old_doc.find(marker)
    if position >= 0:
        start, end = doc_start + position, doc_start + len(old_doc)
        if source[start:end] != new_doc.encode():
            edits.append(Edit(site.path, start, end, new_doc.encode(), f"paged-flag:{site.wrapper}:doc"))
    else:
        insert_at = doc_start + len(old_doc)
        prefix = f"{indent}///\n" if old_doc.strip() else ""
        edits.append(
            Edit(site.path, insert_at, insert_at, (prefix + new_doc).encode(), f"paged-flag:{site.wrapper}:doc")
        )
    return edits


def _record_in_docs(
    workspace: Workspace,
    flipped: list[tuple[FamilySite, ParityOutcome]],
    results_document: str,
    findings: list[Finding],
) -> list[Edit]:
    """Record each flipped family in docs/CONTINUOUS_BATCHING.md.

    A per-family table row (``| Gemma 3 | true | ... |``) is updated in place;
    without one, a paragraph per family goes at the end of the section that
    first mentions ``--decode-storage-backend`` (the end of the document if
    none does).
    """
    source = workspace.read(CONTINUOUS_BATCHING)
    if source is None:
        findings.append(Finding(CONTINUOUS_BATCHING, 0, 0, Code.MISSING_FILE, f"{CONTINUOUS_BATCHING} not found"))
        return []
    edits: list[Edit] = []
    paragraphs = []
    for site, parity in flipped:
        note = (
            f"Measured in `{results_document}`: dense wins, so an explicit `--decode-storage-backend paged` "
            f"resolves to dense. {parity.sentence(site)}"
        )
        row = table_row(source, site.display)
        wanted = f"| {site.display} | false | {note} |".encode()
        if row is not None:
            if source[row[0] : row[1]] != wanted:
                edits.append(Edit(CONTINUOUS_BATCHING, row[0], row[1], wanted, f"paged-flag:{site.display}:docs"))
            continue
        paragraph = textwrap.fill(f"{site.display}: `{METHOD}` is false. {note}", width=80,
                                  break_long_words=False, break_on_hyphens=False) + "\n"  # fmt: skip
        if paragraph.encode() not in source:
            paragraphs.append(paragraph)
    if paragraphs:
        at = section_end(source, b"--decode-storage-backend")
        block = "\n".join(paragraphs).encode()
        if at < len(source):
            text = block + b"\n"
        else:
            text = (b"" if source.endswith(b"\n\n") else b"\n" if source.endswith(b"\n") else b"\n\n") + block
        edits.append(Edit(CONTINUOUS_BATCHING, at, at, text, "paged-flag:docs"))
    return edits


def _has_complete_cell(family: FamilyDecision) -> bool:
    return any(cell.verdict != VERDICT_NO_DATA for cell in family.cells)


def set_flags_from_decision(workspace: Workspace) -> StepResult:
    """The whole recipe as one step: every edit the decision implies."""
    decision = workspace.options["decision"]
    if not isinstance(decision, DecisionDocument) or not decision.results_document:  # DECISION loads one with it
        raise RecipeInputError(
            "decision: expected a decision document that names its results document (`paged-bench report` writes one)"
        )
    results_document = decision.results_document
    findings: list[Finding] = []
    edits: list[Edit] = []
    flipped: list[tuple[FamilySite, ParityOutcome]] = []
    if workspace.read(results_document) is None:
        findings.append(
            Finding(
                results_document,
                0,
                0,
                Code.MISSING_RESULTS_DOCUMENT,
                f"the decision cites {results_document}, which this tree does not hold: write the "
                f"report into the tree (`paged-bench report {decision.run_dir} --out "
                f"ROOT/{results_document}`), or apply the decision to the tree it was written into",
            )
        )
    for family in decision.families:
        key = family.name
        site = FAMILIES.get(key)
        if site is None:
            findings.append(
                Finding(
                    "",
                    0,
                    0,
                    Code.UNKNOWN_FAMILY,
                    f"the decision names family {key!r}, which this recipe does not know "
                    f"(known: {', '.join(FAMILIES)})",
                    severity="note",
                )
            )
            continue
        if not _has_complete_cell(family):
            why = "; ".join(family.notes) or "no cell has a complete round"
            findings.append(
                Finding(
                    site.path,
                    0,
                    0,
                    Code.NO_DATA,
                    f"the decision has no complete cell for {key} ({family.model}): {why}; "
                    f"{site.wrapper}::{METHOD} is left as it is, with no 'Decided by measurement' "
                    "comment. Measure it (`paged-bench run`, then `report`) and apply that decision",
                )
            )
            continue
        value = family.supports_paged_decode_backend
        if value:
            edits += _set_flag(workspace, site, value, decision, family, findings)
            refuse_stale_tests(workspace, key, site, findings)
            continue
        parity_edits, parity = unpin_parity_tests(workspace, key, site, results_document, findings)
        where = test_site(workspace, site, findings)
        wrapper_test = wrapper_test_name(key) if where is not None and where.wrapper_path else None
        flag_edits = _set_flag(workspace, site, value, decision, family, findings, parity, wrapper_test)
        if where is not None and where.wrapper_path and not _wrapper_has_constant(workspace, site, flag_edits):
            where = TestSite(where.scheduler, where.test_file, None, f"{site.wrapper} has no {CONSTANT} to read")
        edits += flag_edits
        if where is not None:
            edits += resolver_test(workspace, key, site, results_document, where, findings)
        edits += parity_edits
        flipped.append((site, parity))
    if flipped:
        edits += _record_in_docs(workspace, flipped, results_document, findings)
    return StepResult(edits=tuple(edits), findings=tuple(findings))


def _wrapper_has_constant(workspace: Workspace, site: FamilySite, planned: list[Edit]) -> bool:
    """Whether the wrapper has the constant now or the plan adds it."""
    if any(edit.origin.endswith(":constant") for edit in planned):
        return True
    source = workspace.read(site.path)
    return source is not None and _constant_of(rust_items(source), site, source) is not None


@builds("paged-flag")
def build(recipe: Recipe) -> Recipe:
    """paged_flag.toml's recipe with its step, its decision parameter and the wrapper files it reads."""
    return dataclasses.replace(
        recipe,
        steps=(set_flags_from_decision,),
        parameters=(DECISION,),
        expects=tuple(site.path for site in FAMILIES.values()),
    )
