"""The tests the paged-flag recipe writes, moves and guards for a family whose flag becomes false:
a unit test on effective_decode_storage_backend generated from its actual signature (and a second one
reading the wrapper's constant), the engine-parity tests moved onto dense, and a refusal when a
decision keeps paged but the scheduler tests still assert dense."""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from codemods.edit.codes import Code
from codemods.edit.values import Edit, Finding, line_col
from codemods.core.registry import LANGUAGES
from codemods.parse import RUST, descendants, node_text, parse
from codemods.search.files import files_with_words
from codemods.languages.rust.items import RustItem, rust_items
from codemods.languages.rust.resolve import RustResolver
from codemods.languages.rust.statements import find_function, line_indent
from codemods.config.recipe import Workspace
from codemods.recipes.mlxcel.flag_sites import BACKEND_TYPE, CONSTANT, METHOD, FamilySite, method_in_impl, wrap_doc

RESOLVER = "effective_decode_storage_backend"
SCHEDULER_FILES = ("src/server/batch/scheduler/mod.rs", "src/server/batch/scheduler.rs")
SCHEDULER_TEST_FILES = ("src/server/batch/scheduler/tests.rs", "src/server/batch/scheduler_tests.rs")
PARITY_TESTS = "src/server/batch/scheduler_real_batch_parity_tests.rs"
MAX_BATCH = 8
_INTEGER_TYPES = ("usize", "u32", "u64", "i32", "i64", "isize")


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
            if (
                name is not None
                and name.type == "identifier"
                and node_text(name) == RESOLVER
                and not _is_test_context(items, node)
            ):
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
    chosen = method_in_impl(rust_items(source), site, method)
    body = chosen.node.child_by_field_name("body") if not isinstance(chosen, str) else None
    if body is None or body.named_child_count != 1 or body.named_children[0].type != "boolean_literal":
        return None
    return node_text(body.named_children[0])


def resolver_arguments(
    workspace: Workspace, function: tree_sitter.Node, site: FamilySite, flag: bool
) -> list[ResolverArgument] | str:
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
            return (
                f"cannot determine what {site.wrapper}::{method} returns (parameter `{name}`): "
                f"its {site.path} impl does not return a single true/false"
            )
        arguments.append(ResolverArgument(name, method, value))
    if not any(a.source == METHOD for a in arguments):
        return f"no argument of {RESOLVER} comes from {METHOD}(), so the flag could not decide the test"
    return arguments


def resolver_test_item(
    key: str, arguments: list[ResolverArgument], name: str | None = None, flag_expression: str | None = None
) -> str:
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


def test_site(workspace: Workspace, site: FamilySite, findings: list[Finding]) -> TestSite | None:
    """The scheduler module, its test file and the wrapper's path from there; findings when absent."""
    scheduler = next((p for p in SCHEDULER_FILES if workspace.read(p) is not None), None)
    if scheduler is None:
        findings.append(
            Finding(SCHEDULER_FILES[0], 0, 0, Code.MISSING_FILE, f"no scheduler module ({', '.join(SCHEDULER_FILES)})")
        )
        return None
    test_file = next(
        (
            p
            for p in (scheduler, *SCHEDULER_TEST_FILES)
            if (source := workspace.read(p)) is not None and _tests_module(source, p) is not None
        ),
        None,
    )
    if test_file is None:
        findings.append(Finding(scheduler, 0, 0, Code.SHAPE_MISMATCH, "no scheduler test module to add the test to"))
        return None
    crates = RustResolver(workspace.root, workspace.read).crates
    wrapper_in = {root: module for root, module in crates.instances(site.path)}
    shared = [root for root, _ in crates.instances(test_file) if root in wrapper_in]
    if len(shared) != 1 or len(wrapper_in) != 1:
        return TestSite(
            scheduler, test_file, None, f"{site.path} and {test_file} are not compiled once each into one crate"
        )
    path = "::".join(("crate", *wrapper_in[shared[0]], site.wrapper))
    return TestSite(scheduler, test_file, path)


def resolver_test(
    workspace: Workspace, key: str, site: FamilySite, results_document: str, where: TestSite, findings: list[Finding]
) -> list[Edit]:
    scheduler, test_file = where.scheduler, where.test_file
    source, test_source = workspace.read(scheduler), workspace.read(test_file)
    module = _tests_module(test_source, test_file) if test_source is not None else None
    if source is None or test_source is None or module is None:  # `test_site` found both
        findings.append(Finding(test_file, 0, 0, Code.SHAPE_MISMATCH, "no scheduler test module to add the test to"))
        return []
    resolver = find_function(parse(source, RUST).root_node, RESOLVER)
    if resolver is None:
        findings.append(Finding(scheduler, 0, 0, Code.SHAPE_MISMATCH, f"{RESOLVER} not found in {scheduler}"))
        return []
    arguments = resolver_arguments(workspace, resolver, site, flag=False)
    if isinstance(arguments, str):
        line, col = line_col(source, resolver.start_byte)
        findings.append(
            Finding(
                scheduler, line, col, Code.SIGNATURE_MISMATCH, f"cannot generate a test for {RESOLVER}: {arguments}"
            )
        )
        return []
    unseen = [n for n in (RESOLVER, BACKEND_TYPE) if n.encode() not in _identifier_names(module)
              and not _has_glob_use(module)]  # fmt: skip
    if unseen:
        findings.append(
            Finding(
                test_file, 0, 0, Code.SHAPE_MISMATCH, f"the scheduler tests do not have {' and '.join(unseen)} in scope"
            )
        )
        return []
    indent = line_indent(test_source, module.start_byte) + "    " if module.type == "mod_item" else ""
    root = parse(test_source, RUST).root_node
    tests = []
    if find_function(root, literal_test_name(key)) is None:
        doc = [
            f"{site.display} does not support the paged backend (measured: `{results_document}`). "
            f"With what `{site.wrapper}` returns, the flag alone decides: at --parallel {MAX_BATCH}, "
            "Auto and Paged resolve to Dense."
        ]
        tests.append((doc, resolver_test_item(key, arguments)))
    if where.wrapper_path is None:
        findings.append(
            Finding(
                test_file,
                0,
                0,
                Code.NOT_ADDED,
                f"no test reads {site.display}'s flag from {site.wrapper}: {where.why_not}",
                severity="note",
            )
        )
    elif find_function(root, wrapper_test_name(key)) is None:
        doc = [
            f"{site.display}'s flag as `{site.wrapper}` itself answers it (`{site.wrapper}::{CONSTANT}`, "
            f"what its `{METHOD}` returns): setting the wrapper back to paged fails this test."
        ]
        tests.append(
            (doc, resolver_test_item(key, arguments, wrapper_test_name(key), f"{where.wrapper_path}::{CONSTANT}"))
        )
    if not tests:
        return []
    rust = LANGUAGES[RUST]
    text_to_insert = ""
    for doc, item in tests:
        formatted = rust.operations.format_item(item, indent, workspace.root, test_file)
        if formatted is None:
            findings.append(
                Finding(
                    test_file,
                    0,
                    0,
                    Code.UNFORMATTED,
                    f"{rust.formatter} is not available or rejected the generated test; it is inserted as written",
                    severity="note",
                )
            )
            formatted = "".join(f"{indent}{line}\n" if line else "\n" for line in item.split("\n"))
        text_to_insert += "\n" + wrap_doc(indent, doc) + formatted
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
    return any(
        c.type == "use_declaration"
        and c.named_children
        and c.named_children[0].type == "use_wildcard"
        and c.named_children[0].text == b"super::*"
        for c in body.named_children
    )


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


def unpin_parity_tests(
    workspace: Workspace, key: str, site: FamilySite, results_document: str, findings: list[Finding]
) -> tuple[list[Edit], ParityOutcome]:
    """Edits moving the family's parity tests onto dense, and what the texts may say about it.

    Without the parity test file, or without a test in it that runs the family's
    checkpoint on a backend, there is nothing to update: a note says so.
    """
    source = workspace.read(PARITY_TESTS)
    if source is None:
        findings.append(
            Finding(
                PARITY_TESTS,
                0,
                0,
                Code.NOT_IN_TREE,
                f"not in this tree: no engine-parity test to move onto dense for {site.display}; the texts say so",
                severity="note",
            )
        )
        return [], ParityOutcome(present=False)
    tree = parse(source, RUST)
    constants = {
        i.name.encode()
        for i in rust_items(source, tree)
        if i.kind == "const" and _names_checkpoint(i.node, site.checkpoint)
    }
    edits: list[Edit] = []
    family_tests = []
    for item in rust_items(source, tree):
        if item.kind != "test":
            continue
        mentions_family = _names_checkpoint(item.node, site.checkpoint) or bool(
            constants & _identifier_names(item.node)
        )
        if not mentions_family or not _backend_variants(item.node):
            continue
        family_tests.append(item.name)
        if "Paged" not in _backend_variants(item.node):
            continue
        loop = _loop_over_both_backends(item.node)
        block = loop.child_by_field_name("body") if loop is not None else None
        if loop is None or block is None:
            line, col = line_col(source, item.node.start_byte)
            findings.append(
                Finding(
                    PARITY_TESTS,
                    line,
                    col,
                    Code.SHAPE_MISMATCH,
                    f"{item.name} pins the paged backend for {site.checkpoint} in a form this "
                    "recipe does not rewrite; update it by hand",
                )
            )
            continue
        # `for b in [Paged, Dense] { ... }` becomes `{ let b = Dense; ... }`.
        pattern = node_text(loop.child_by_field_name("pattern"))
        indent = line_indent(source, loop.start_byte)
        edits.append(
            Edit(
                PARITY_TESTS,
                loop.start_byte,
                block.start_byte + 1,
                f"{{\n{indent}    let {pattern} = {BACKEND_TYPE}::Dense;".encode(),
                f"paged-flag:{key}:parity",
            )
        )
        doc = source[item.start : item.node.start_byte]
        position = doc.find(b"on both backends")
        if position >= 0:
            at = item.start + position
            edits.append(
                Edit(
                    PARITY_TESTS,
                    at,
                    at + len(b"on both backends"),
                    b"on the dense backend",
                    f"paged-flag:{key}:parity-doc",
                )
            )
    if not family_tests:
        findings.append(
            Finding(
                PARITY_TESTS,
                0,
                0,
                Code.NOTHING_TO_UPDATE,
                f"no test in {PARITY_TESTS} runs {site.checkpoint} on a decode storage backend; "
                "nothing to move onto dense",
                severity="note",
            )
        )
    return edits, ParityOutcome(present=True, tests=tuple(family_tests))


def _loop_over_both_backends(function: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `for` loop of a test that iterates over `[<..>DecodeStorageBackend::Paged, <..>::Dense]`."""
    for node in descendants(function):
        if node.type == "for_expression":
            value = node.child_by_field_name("value")
            if (
                value is not None
                and value.type == "array_expression"
                and [_backend_variant(e) for e in value.named_children] == ["Paged", "Dense"]
            ):
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


def refuse_stale_tests(workspace: Workspace, key: str, site: FamilySite, findings: list[Finding]) -> None:
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
                findings.append(
                    Finding(
                        path,
                        line,
                        col,
                        Code.STALE_TEST,
                        f"{name} asserts {site.display} resolves to dense, which this decision "
                        "undoes; remove it (it was generated when the flag became false)",
                    )
                )
