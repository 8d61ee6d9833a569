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
from dataclasses import dataclass
from pathlib import Path

import tree_sitter

from interchange.decision import (
    VERDICT_NO_DATA,
    DecisionDocument,
    DecisionSchemaError,
    FamilyDecision,
    load_decision,
)

from codemods.edit.codes import Code
from codemods.edit.errors import RecipeInputError
from codemods.edit.values import Edit, Finding, line_col
from codemods.core.registry import LANGUAGES
from codemods.parse import RUST, descendants, node_text, parse
from codemods.edit.item_spans import whole_lines
from codemods.search.files import files_with_words
from codemods.languages.rust.items import RustItem, leading_trivia, rust_items
from codemods.languages.rust.resolve import RustResolver
from codemods.languages.rust.statements import find_function, line_indent
from codemods.config.builders import builds
from codemods.config.recipe import Parameter, Recipe, StepResult, Workspace
from codemods.recipes.mlxcel.markdown import section_end, table_row

METHOD = "supports_paged_decode_backend"
RESOLVER = "effective_decode_storage_backend"
BACKEND_TYPE = "DecodeStorageBackend"
SCHEDULER_FILES = ("src/server/batch/scheduler/mod.rs", "src/server/batch/scheduler.rs")
SCHEDULER_TEST_FILES = ("src/server/batch/scheduler/tests.rs", "src/server/batch/scheduler_tests.rs")
PARITY_TESTS = "src/server/batch/scheduler_real_batch_parity_tests.rs"
CONTINUOUS_BATCHING = "docs/CONTINUOUS_BATCHING.md"
DOC_MARKER = "/// Decided by measurement"
CONSTANT = "SUPPORTS_PAGED_DECODE_BACKEND"
MAX_BATCH = 8
_INTEGER_TYPES = ("usize", "u32", "u64", "i32", "i64", "isize")


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


def _load_decision_option(path: object) -> DecisionDocument:
    """The validated decision document the --decision option names: a decision.json, or the run
    folder of `paged-bench report` that holds it."""
    path = Path(str(path))
    if path.is_dir():
        if not (path / "decision.json").is_file():
            raise RecipeInputError(f"decision: {path} is a folder without decision.json; give the run folder "
                                   f"`paged-bench report` wrote, or its decision.json")
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


@dataclass(frozen=True)
class ParityOutcome:
    """What the plan does to the engine-parity tests for one family, as the texts describe it.

    ``present`` is whether the tree has the parity test file; ``tests`` are its tests
    that run the family's checkpoint on a decode storage backend, all of them on
    dense only once the plan is applied.
    """

    present: bool
    tests: tuple[str, ...] = ()

    def sentence(self, site: FamilySite) -> str:
        if not self.present:
            return f"This tree has no engine-parity test (`{PARITY_TESTS}`), so no parity row was updated."
        if not self.tests:
            return f"No engine-parity test in `{PARITY_TESTS}` runs {site.checkpoint}, so none was updated."
        names = ", ".join(f"`{name}`" for name in self.tests)
        return f"The engine-parity test {names} runs {site.checkpoint} on the dense backend only."


def _doc_paragraphs(site: FamilySite, value: bool, decision: DecisionDocument,
                    family: FamilyDecision, parity: ParityOutcome | None) -> list[str]:
    head = (f"Decided by measurement: {'dense' if not value else 'paged'} decode storage for {site.display}, "
            f"see `{decision.results_document}`. {_sentence(family.reason)}")
    paragraphs = [head]
    if not value:
        tail = f" {parity.sentence(site)}" if parity is not None else ""
        paragraphs.append("So an explicit `--decode-storage-backend paged` resolves to dense for this family."
                          + tail)
    return paragraphs


def _method_in_impl(items: list[RustItem], site: FamilySite, method: str = METHOD) -> RustItem | str:
    """The wrapper's `method` in a trait impl, or why there is not exactly one."""
    impls = [i for i in items if i.kind == "impl" and i.name == site.wrapper and i.trait is not None]
    methods = [i for i in items if i.kind == "fn" and i.module_path[-1:] == (site.wrapper,) and i.name == method]
    chosen = [m for m in methods if any(i.node.start_byte <= m.node.start_byte < i.node.end_byte for i in impls)]
    if len(chosen) != 1:
        return f"expected one {method} in a trait impl for {site.wrapper}, found {len(chosen)}"
    return chosen[0]


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
    doc = _wrap_doc(indent, [f"What `{METHOD}` returns for {site.display} (its doc comment says why). The "
                             f"scheduler test `{test_name}` reads it here, so changing it fails that test."])
    return f"{doc}{indent}pub(crate) const {CONSTANT}: bool = {str(value).lower()};\n"


def _introduce_constant(source: bytes, items: list[RustItem], site: FamilySite, value: bool, method: RustItem,
                        test_name: str, findings: list[Finding]) -> list[Edit] | None:
    """Edits that add the constant to the wrapper's first inherent impl (or a new one), or None."""
    impls = [i for i in items if i.kind == "impl" and i.name == site.wrapper and i.trait is None]
    if impls:
        impl = impls[0].node
        if impl.child_by_field_name("type_parameters") is not None:
            line, col = line_col(source, impl.start_byte)
            findings.append(Finding(site.path, line, col, Code.NOT_ADDED,
                                    f"{site.wrapper} is generic: no associated constant, so no scheduler test "
                                    "reads the flag from the wrapper", severity="note"))
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


def _set_flag(workspace: Workspace, site: FamilySite, value: bool, decision: DecisionDocument,
              family: FamilyDecision, findings: list[Finding], parity: ParityOutcome | None = None,
              wrapper_test: str | None = None) -> list[Edit]:
    """Set the family's flag and its doc comment.

    With ``wrapper_test`` (the name of the scheduler test that will read it) the
    value goes into the wrapper's associated constant, which the method returns.
    """
    source = workspace.read(site.path)
    if source is None:
        findings.append(Finding(site.path, 0, 0, Code.MISSING_FILE, f"{site.path} not found"))
        return []
    items = rust_items(source)
    method = _method_in_impl(items, site)
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
        findings.append(Finding(site.path, line, col, Code.SHAPE_MISMATCH,
                                f"{site.wrapper}::{METHOD} body is not a single true/false"
                                + (f" nor `Self::{CONSTANT}` with a true/false constant" if constant or
                                   (expression is not None and _is_self_constant(expression)) else "")
                                + "; not changed"))
        return []
    edits: list[Edit] = []
    wanted = b"true" if value else b"false"
    if constant is None and wrapper_test is not None and not value:
        added = _introduce_constant(source, items, site, value, method, wrapper_test, findings)
        if added is not None:
            edits += added
            edits.append(Edit(site.path, literal.start_byte, literal.end_byte, f"Self::{CONSTANT}".encode(),
                              f"paged-flag:{site.wrapper}"))
    if not edits and literal.text != wanted:
        edits.append(Edit(site.path, literal.start_byte, literal.end_byte, wanted, f"paged-flag:{site.wrapper}"))
    indent = line_indent(source, method.node.start_byte)
    new_doc = _wrap_doc(indent, _doc_paragraphs(site, value, decision, family, parity))
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


@dataclass(frozen=True)
class ResolverArgument:
    """One parameter of the resolver and what the generated test passes for it.

    ``source`` says where the value comes from: ``requested`` (the backend under
    test), ``batch`` (``MAX_BATCH``, the server's ``--parallel 8``), or the model
    method whose value it is at the resolver's call site
    (``supports_paged_decode_backend``, ``supports_batching``, ...).
    """

    name: str
    source: str
    value: str

    @property
    def expression(self) -> str:
        """What the test's call passes: the loop's backend, the batch size, or the bound method value."""
        return self.value if self.source == "batch" else self.source


def _resolver_parameters(function: tree_sitter.Node) -> list[tuple[str, str]] | str:
    """(name, type) per parameter of the resolver, or why they are not plain parameters."""
    parameters = []
    listed = function.child_by_field_name("parameters")
    for parameter in listed.named_children if listed is not None else ():
        if parameter.type != "parameter":
            return f"unexpected parameter `{node_text(parameter)}`"
        name = node_text(parameter.child_by_field_name("pattern"))
        kind = node_text(parameter.child_by_field_name("type")).replace(" ", "")
        parameters.append((name, kind))
    return parameters


def _is_test_context(items: list[RustItem], node: tree_sitter.Node) -> bool:
    """Whether `node` lies in a #[test] function or a #[cfg(test)] module."""
    return any(
        (item.kind == "test" or (item.kind == "mod" and any("cfg(test)" in a for a in item.attributes)))
        and item.node.start_byte <= node.start_byte < item.node.end_byte
        for item in items
    )


def _resolver_call_sites(workspace: Workspace) -> list[tuple[str, bytes, tree_sitter.Node]]:
    """Every call of the resolver outside tests, under src/: (path, source, call node)."""
    sites = []
    for path in files_with_words(workspace.root, [RESOLVER]):
        if not path.startswith("src/") or not path.endswith(".rs"):
            continue
        source = workspace.read(path)
        if source is None:
            continue
        tree = parse(source, RUST)
        items = rust_items(source, tree)
        for node in descendants(tree.root_node, named=True):
            if node.type != "call_expression":
                continue
            function = node.child_by_field_name("function")
            if function is None:
                continue
            name = function.child_by_field_name("name") if function.type == "scoped_identifier" else function
            if name is not None and name.type == "identifier" and node_text(name) == RESOLVER \
                    and not _is_test_context(items, node):
                sites.append((path, source, node))
    return sites


def _model_method(argument: tree_sitter.Node) -> str | None:
    """For an argument `RECEIVER.method()` (no arguments), the method's name."""
    arguments = argument.child_by_field_name("arguments")
    if argument.type != "call_expression" or arguments is None or arguments.named_child_count:
        return None
    function = argument.child_by_field_name("function")
    if function is None or function.type != "field_expression":
        return None
    return node_text(function.child_by_field_name("field"))


def _wrapper_returns(workspace: Workspace, site: FamilySite, method: str) -> str | None:
    """The boolean literal the family's wrapper returns from `method` in its trait impl, if that is all it does."""
    source = workspace.read(site.path)
    if source is None:
        return None
    chosen = _method_in_impl(rust_items(source), site, method)
    body = chosen.node.child_by_field_name("body") if not isinstance(chosen, str) else None
    if body is None or body.named_child_count != 1 or body.named_children[0].type != "boolean_literal":
        return None
    return node_text(body.named_children[0])


def resolver_arguments(workspace: Workspace, function: tree_sitter.Node, site: FamilySite,
                       flag: bool) -> list[ResolverArgument] | str:
    """What the generated test passes for each parameter, derived from the tree, or why it cannot.

    Each bool parameter gets the value the family's wrapper gives the argument
    at the resolver's call sites outside tests (`model.supports_batching()` ->
    what `<Wrapper>::supports_batching` returns); the flag's own method gets
    `flag`. The DecodeStorageBackend parameter is the backend under test, the
    one integer parameter the batch size. Anything else is refused.
    """
    parameters = _resolver_parameters(function)
    if isinstance(parameters, str):
        return parameters
    sites = _resolver_call_sites(workspace)
    if not sites:
        return f"no call of {RESOLVER} outside tests under src/ says where its arguments come from"
    integers = [name for name, kind in parameters if kind in _INTEGER_TYPES]
    arguments: list[ResolverArgument] = []
    for index, (name, kind) in enumerate(parameters):
        if kind.split("::")[-1] == BACKEND_TYPE:
            arguments.append(ResolverArgument(name, "requested", "requested"))
            continue
        if kind in _INTEGER_TYPES and len(integers) == 1:
            arguments.append(ResolverArgument(name, "batch", str(MAX_BATCH)))
            continue
        methods: set[str | None] = set()
        for path, source, call in sites:
            passed = call.child_by_field_name("arguments")
            given = passed.named_children if passed is not None else []
            if len(given) != len(parameters):
                line, _ = line_col(source, call.start_byte)
                return f"the call at {path}:{line} passes {len(given)} arguments for {len(parameters)} parameters"
            methods.add(_model_method(given[index]))
        method = methods.pop() if len(methods) == 1 else None
        if kind != "bool" or method is None:
            shown = ", ".join(sorted(f"`{m}()`" for m in methods if m)) or "no model method"
            return f"cannot supply parameter `{name}: {kind}` (its call sites pass {shown})"
        if method == METHOD:
            arguments.append(ResolverArgument(name, method, str(flag).lower()))
            continue
        value = _wrapper_returns(workspace, site, method)
        if value is None:
            return (f"cannot determine what {site.wrapper}::{method} returns (parameter `{name}`): "
                    f"its {site.path} impl does not return a single true/false")
        arguments.append(ResolverArgument(name, method, value))
    if not any(a.source == METHOD for a in arguments):
        return f"no argument of {RESOLVER} comes from {METHOD}(), so the flag could not decide the test"
    return arguments


def resolver_test_item(key: str, arguments: list[ResolverArgument], name: str | None = None,
                       flag_expression: str | None = None) -> str:
    """The unformatted test: the wrapper's values bound by name, each backend asserted to resolve to Dense.

    With ``flag_expression`` the flag is bound to that expression (the wrapper's
    constant) instead of the decided literal.
    """
    bound = [a for a in arguments if a.source not in ("requested", "batch")]
    call = ", ".join(a.expression for a in arguments)
    values = {a.source: (flag_expression if a.source == METHOD and flag_expression else a.value) for a in bound}
    lines = [
        "#[test]",
        f"fn {name or literal_test_name(key)}() {{",
        *(f"    let {a.source} = {values[a.source]};" for a in bound),
        f"    for requested in [{BACKEND_TYPE}::Auto, {BACKEND_TYPE}::Paged] {{",
        f"        assert_eq!({RESOLVER}({call}), {BACKEND_TYPE}::Dense);",
        "    }",
        "}",
    ]
    return "\n".join(lines)


def literal_test_name(key: str) -> str:
    return f"{key}_auto_and_paged_resolve_to_dense_at_parallel_{MAX_BATCH}"


def wrapper_test_name(key: str) -> str:
    return f"{key}_wrapper_flag_resolves_to_dense_at_parallel_{MAX_BATCH}"


@dataclass(frozen=True)
class TestSite:
    """Where the generated tests go, and how they name the family's wrapper (None: they cannot)."""

    scheduler: str
    test_file: str
    wrapper_path: str | None
    why_not: str | None = None


def _test_site(workspace: Workspace, site: FamilySite, findings: list[Finding]) -> TestSite | None:
    """The scheduler module, its test file and the wrapper's path from there; findings when absent."""
    scheduler = next((p for p in SCHEDULER_FILES if workspace.read(p) is not None), None)
    if scheduler is None:
        findings.append(Finding(SCHEDULER_FILES[0], 0, 0, Code.MISSING_FILE, f"no scheduler module ({', '.join(SCHEDULER_FILES)})"))
        return None
    test_file = next((p for p in (scheduler, *SCHEDULER_TEST_FILES) if (source := workspace.read(p)) is not None
                      and _tests_module(source, p) is not None), None)
    if test_file is None:
        findings.append(Finding(scheduler, 0, 0, Code.SHAPE_MISMATCH, "no scheduler test module to add the test to"))
        return None
    crates = RustResolver(workspace.root, workspace.read).crates
    wrapper_in = {root: module for root, module in crates.instances(site.path)}
    shared = [root for root, _ in crates.instances(test_file) if root in wrapper_in]
    if len(shared) != 1 or len(wrapper_in) != 1:
        return TestSite(scheduler, test_file, None,
                        f"{site.path} and {test_file} are not compiled once each into one crate")
    path = "::".join(("crate", *wrapper_in[shared[0]], site.wrapper))
    return TestSite(scheduler, test_file, path)


def _resolver_test(workspace: Workspace, key: str, site: FamilySite, results_document: str,
                   where: TestSite, findings: list[Finding]) -> list[Edit]:
    scheduler, test_file = where.scheduler, where.test_file
    source, test_source = workspace.read(scheduler), workspace.read(test_file)
    module = _tests_module(test_source, test_file) if test_source is not None else None
    if source is None or test_source is None or module is None:  # `_test_site` found both
        findings.append(Finding(test_file, 0, 0, Code.SHAPE_MISMATCH, "no scheduler test module to add the test to"))
        return []
    resolver = find_function(parse(source, RUST).root_node, RESOLVER)
    if resolver is None:
        findings.append(Finding(scheduler, 0, 0, Code.SHAPE_MISMATCH, f"{RESOLVER} not found in {scheduler}"))
        return []
    arguments = resolver_arguments(workspace, resolver, site, flag=False)
    if isinstance(arguments, str):
        line, col = line_col(source, resolver.start_byte)
        findings.append(Finding(scheduler, line, col, Code.SIGNATURE_MISMATCH,
                                f"cannot generate a test for {RESOLVER}: {arguments}"))
        return []
    unseen = [n for n in (RESOLVER, BACKEND_TYPE) if n.encode() not in _identifier_names(module)
              and not _has_glob_use(module)]  # fmt: skip
    if unseen:
        findings.append(Finding(test_file, 0, 0, Code.SHAPE_MISMATCH,
                                f"the scheduler tests do not have {' and '.join(unseen)} in scope"))
        return []
    indent = line_indent(test_source, module.start_byte) + "    " if module.type == "mod_item" else ""
    root = parse(test_source, RUST).root_node
    tests = []
    if find_function(root, literal_test_name(key)) is None:
        doc = [f"{site.display} does not support the paged backend (measured: `{results_document}`). "
               f"With what `{site.wrapper}` returns, the flag alone decides: at --parallel {MAX_BATCH}, "
               "Auto and Paged resolve to Dense."]
        tests.append((doc, resolver_test_item(key, arguments)))
    if where.wrapper_path is None:
        findings.append(Finding(test_file, 0, 0, Code.NOT_ADDED,
                                f"no test reads {site.display}'s flag from {site.wrapper}: {where.why_not}",
                                severity="note"))
    elif find_function(root, wrapper_test_name(key)) is None:
        doc = [f"{site.display}'s flag as `{site.wrapper}` itself answers it (`{site.wrapper}::{CONSTANT}`, "
               f"what its `{METHOD}` returns): setting the wrapper back to paged fails this test."]
        tests.append((doc, resolver_test_item(key, arguments, wrapper_test_name(key),
                                              f"{where.wrapper_path}::{CONSTANT}")))
    if not tests:
        return []
    rust = LANGUAGES[RUST]
    text_to_insert = ""
    for doc, item in tests:
        formatted = rust.operations.format_item(item, indent, workspace.root, test_file)
        if formatted is None:
            findings.append(Finding(test_file, 0, 0, Code.UNFORMATTED,
                                    f"{rust.formatter} is not available or rejected the generated test; it is "
                                    "inserted as written", severity="note"))
            formatted = "".join(f"{indent}{line}\n" if line else "\n" for line in item.split("\n"))
        text_to_insert += "\n" + _wrap_doc(indent, doc) + formatted
    if module.type == "mod_item":
        close = module.end_byte - 1
        insert_at = test_source.rfind(b"\n", 0, close) + 1
    else:
        insert_at = len(test_source)
    return [Edit(test_file, insert_at, insert_at, text_to_insert.encode(), f"paged-flag:{key}:test")]


def _identifier_names(node: tree_sitter.Node) -> set[bytes]:
    return {d.text for d in descendants(node) if d.type in ("identifier", "type_identifier") and d.text is not None}


def _has_glob_use(module: tree_sitter.Node) -> bool:
    """Whether the module imports its parent's names with `use super::*;`."""
    body = module.child_by_field_name("body") or module
    return any(c.type == "use_declaration" and c.named_children and c.named_children[0].type == "use_wildcard"
               and c.named_children[0].text == b"super::*" for c in body.named_children)


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


def _unpin_parity_tests(workspace: Workspace, key: str, site: FamilySite, results_document: str,
                        findings: list[Finding]) -> tuple[list[Edit], ParityOutcome]:
    """Edits moving the family's parity tests onto dense, and what the texts may say about it.

    Without the parity test file, or without a test in it that runs the family's
    checkpoint on a backend, there is nothing to update: a note says so.
    """
    source = workspace.read(PARITY_TESTS)
    if source is None:
        findings.append(Finding(PARITY_TESTS, 0, 0, Code.NOT_IN_TREE,
                                f"not in this tree: no engine-parity test to move onto dense for {site.display}; "
                                "the texts say so", severity="note"))
        return [], ParityOutcome(present=False)
    tree = parse(source, RUST)
    constants = {i.name.encode() for i in rust_items(source, tree)
                 if i.kind == "const" and _names_checkpoint(i.node, site.checkpoint)}
    edits: list[Edit] = []
    family_tests = []
    for item in rust_items(source, tree):
        if item.kind != "test":
            continue
        mentions_family = _names_checkpoint(item.node, site.checkpoint) or bool(
            constants & _identifier_names(item.node))
        if not mentions_family or not _backend_variants(item.node):
            continue
        family_tests.append(item.name)
        if "Paged" not in _backend_variants(item.node):
            continue
        loop = _loop_over_both_backends(item.node)
        block = loop.child_by_field_name("body") if loop is not None else None
        if loop is None or block is None:
            line, col = line_col(source, item.node.start_byte)
            findings.append(Finding(PARITY_TESTS, line, col, Code.SHAPE_MISMATCH,
                                    f"{item.name} pins the paged backend for {site.checkpoint} in a form this "
                                    "recipe does not rewrite; update it by hand"))
            continue
        # `for b in [Paged, Dense] { ... }` becomes `{ let b = Dense; ... }`.
        pattern = node_text(loop.child_by_field_name("pattern"))
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
    if not family_tests:
        findings.append(Finding(PARITY_TESTS, 0, 0, Code.NOTHING_TO_UPDATE,
                                f"no test in {PARITY_TESTS} runs {site.checkpoint} on a decode storage backend; "
                                "nothing to move onto dense", severity="note"))
    return edits, ParityOutcome(present=True, tests=tuple(family_tests))


def _loop_over_both_backends(function: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `for` loop of a test that iterates over `[<..>DecodeStorageBackend::Paged, <..>::Dense]`."""
    for node in descendants(function):
        if node.type == "for_expression":
            value = node.child_by_field_name("value")
            if value is not None and value.type == "array_expression" and \
                    [_backend_variant(e) for e in value.named_children] == ["Paged", "Dense"]:
                return node
    return None


def _backend_variant(node: tree_sitter.Node) -> str | None:
    """`Paged` for a path `DecodeStorageBackend::Paged` (any prefix), else None."""
    if node.type != "scoped_identifier":
        return None
    path = node.child_by_field_name("path")
    enum = path.child_by_field_name("name") if path is not None and path.type == "scoped_identifier" else path
    name = node.child_by_field_name("name")
    if enum is None or node_text(enum) != BACKEND_TYPE or name is None:
        return None
    return node_text(name)


def _backend_variants(node: tree_sitter.Node) -> set[str]:
    return {v for d in descendants(node) if (v := _backend_variant(d)) is not None}


def _names_checkpoint(node: tree_sitter.Node, checkpoint: str) -> bool:
    """Whether a string literal under `node` names the checkpoint."""
    return any(d.type == "string_literal" and checkpoint.encode() in (d.text or b"") for d in descendants(node))


def _record_in_docs(workspace: Workspace, flipped: list[tuple[FamilySite, ParityOutcome]], results_document: str,
                    findings: list[Finding]) -> list[Edit]:
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
        note = (f"Measured in `{results_document}`: dense wins, so an explicit `--decode-storage-backend paged` "
                f"resolves to dense. {parity.sentence(site)}")
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
        raise RecipeInputError("decision: expected a decision document that names its results document "
                               "(`paged-bench report` writes one)")
    results_document = decision.results_document
    findings: list[Finding] = []
    edits: list[Edit] = []
    flipped: list[tuple[FamilySite, ParityOutcome]] = []
    if workspace.read(results_document) is None:
        findings.append(Finding(results_document, 0, 0, Code.MISSING_RESULTS_DOCUMENT,
                                f"the decision cites {results_document}, which this tree does not hold: write the "
                                f"report into the tree (`paged-bench report {decision.run_dir} --out "
                                f"ROOT/{results_document}`), or apply the decision to the tree it was written into"))
    for family in decision.families:
        key = family.name
        site = FAMILIES.get(key)
        if site is None:
            findings.append(Finding("", 0, 0, Code.UNKNOWN_FAMILY,
                                    f"the decision names family {key!r}, which this recipe does not know "
                                    f"(known: {', '.join(FAMILIES)})", severity="note"))
            continue
        if not _has_complete_cell(family):
            why = "; ".join(family.notes) or "no cell has a complete round"
            findings.append(Finding(site.path, 0, 0, Code.NO_DATA,
                                    f"the decision has no complete cell for {key} ({family.model}): {why}; "
                                    f"{site.wrapper}::{METHOD} is left as it is, with no 'Decided by measurement' "
                                    "comment. Measure it (`paged-bench run`, then `report`) and apply that decision"))
            continue
        value = family.supports_paged_decode_backend
        if value:
            edits += _set_flag(workspace, site, value, decision, family, findings)
            _refuse_stale_tests(workspace, key, site, findings)
            continue
        parity_edits, parity = _unpin_parity_tests(workspace, key, site, results_document, findings)
        where = _test_site(workspace, site, findings)
        wrapper_test = wrapper_test_name(key) if where is not None and where.wrapper_path else None
        flag_edits = _set_flag(workspace, site, value, decision, family, findings, parity, wrapper_test)
        if where is not None and where.wrapper_path and not _wrapper_has_constant(workspace, site, flag_edits):
            where = TestSite(where.scheduler, where.test_file, None, f"{site.wrapper} has no {CONSTANT} to read")
        edits += flag_edits
        if where is not None:
            edits += _resolver_test(workspace, key, site, results_document, where, findings)
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


def _refuse_stale_tests(workspace: Workspace, key: str, site: FamilySite, findings: list[Finding]) -> None:
    """A decision that keeps paged, on a tree whose scheduler tests assert the family resolves to dense."""
    for path in (*SCHEDULER_FILES, *SCHEDULER_TEST_FILES):
        source = workspace.read(path)
        if source is None:
            continue
        root = parse(source, RUST).root_node
        for name in (literal_test_name(key), wrapper_test_name(key)):
            test = find_function(root, name)
            if test is not None:
                line, col = line_col(source, test.start_byte)
                findings.append(Finding(path, line, col, Code.STALE_TEST,
                                        f"{name} asserts {site.display} resolves to dense, which this decision "
                                        "undoes; remove it (it was generated when the flag became false)"))


@builds("paged-flag")
def build(recipe: Recipe) -> Recipe:
    """paged_flag.toml's recipe with its step, its decision parameter and the wrapper files it reads."""
    return dataclasses.replace(recipe, steps=(set_flags_from_decision,), parameters=(DECISION,),
                               expects=tuple(site.path for site in FAMILIES.values()))
