"""Rewriting the pooled tests' oracle onto a generated dense reference helper.

In each named test, the run of statements that builds decode metadata and
pointer vectors and calls the dense fallback,

    let metadata = ...Metadata::from_visible_lengths(&[len], block).unwrap();
    let cache_keys = vec![k_ref.as_ref().unwrap() as *const MlxArray];
    let cache_values = vec![v_ref.as_ref().unwrap() as *const MlxArray];
    let dense_out = ...::fallback(&q, &cache_keys, &cache_values, &metadata, scale).unwrap();

becomes one call of the helper on the reference K/V those vectors point at
(`let dense_out = helper(&q, &k_ref, &v_ref, scale);`). A batch of several
sequences becomes per-sequence calls on the matching row of `q`, concatenated
on the batch axis. Anything that does not match this shape is a blocking
finding at its location; nothing is guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import tree_sitter

from .._edit import Edit, Finding, line_col
from .._parse import RUST, parse
from .._spans import deletion_edits, whole_lines
from ..rust.format import format_statements
from ..rust.items import leading_trivia
from ..rust.statements import (
    call_arguments,
    call_path,
    find_function,
    identifiers,
    let_binding,
    line_indent,
    statement_deletion,
    statements,
    text,
    unwrap_call,
)
from ._model import StepResult, Workspace

_POINTER_VEC = re.compile(r"^\[\s*((?:\w+\.as_ref\(\)\.unwrap\(\)\s+as\s+\*const\s+\w+\s*,?\s*)+)\]$", re.S)
_POINTER_ELEMENT = re.compile(r"(\w+)\.as_ref\(\)\.unwrap\(\)\s+as\s+\*const\s+\w+")


def template(name: str) -> str:
    """A Rust template kept with the recipes (templates/NAME.rs.tmpl)."""
    return resources.files(__package__).joinpath("templates", f"{name}.rs.tmpl").read_text(encoding="utf-8")


@dataclass(frozen=True)
class _Run:
    """One matched oracle run: the statements to delete, the call statement, what to call instead."""

    removed: tuple[tree_sitter.Node, ...]
    call_statement: tree_sitter.Node
    binding: str
    query: str
    keys: tuple[str, ...]
    values: tuple[str, ...]
    scale: str


@dataclass(frozen=True)
class OracleRewrite:
    """Move the named tests' oracle from `fallback` to the generated `helper`."""

    path: str
    tests: tuple[str, ...]
    fallback: str
    metadata_type: str
    helper: str = "dense_reference_decode_attention"

    def __call__(self, workspace: Workspace) -> StepResult:
        source = workspace.read(self.path)
        if source is None:
            return StepResult()
        tree = parse(source, RUST)
        findings: list[Finding] = []
        runs: list[_Run] = []
        first_test = None
        for name in self.tests:
            function = find_function(tree.root_node, name)
            if function is None:
                findings.append(Finding(self.path, 0, 0, "not-found", f"test {name} not found", severity="note"))
                continue
            if first_test is None or function.start_byte < first_test.start_byte:
                first_test = function
            for call in self._fallback_calls(function):
                run, problem = self._match_run(source, function, call)
                if problem is not None:
                    line, col = line_col(source, call.start_byte)
                    findings.append(Finding(self.path, line, col, "oracle-shape",
                                            f"{name}: oracle run does not have the expected shape ({problem}); "
                                            "not rewritten"))
                elif run is not None:
                    runs.append(run)
        if any(f.blocking for f in findings):
            return StepResult(findings=tuple(findings))
        edits: list[Edit] = []
        deletions = [statement_deletion(source, s, f"{self.helper}:drop-binding") for r in runs for s in r.removed]
        edits += deletion_edits(self.path, source, deletions)
        for run in runs:
            edits.append(self._replacement(source, run, workspace))
        if runs and first_test is not None:
            insertion = self._helper_insertion(source, tree, first_test, any(len(r.keys) > 1 for r in runs))
            if insertion is not None:
                edits.append(insertion)
        return StepResult(edits=tuple(edits), findings=tuple(findings))

    def _fallback_calls(self, function: tree_sitter.Node) -> list[tree_sitter.Node]:
        calls = []
        stack = [function]
        while stack:
            node = stack.pop()
            if node.type == "call_expression":
                path = call_path(node)
                if path is not None and path.split("::")[-1] == self.fallback:
                    calls.append(node)
            stack.extend(node.children)
        return sorted(calls, key=lambda n: n.start_byte)

    def _match_run(self, source: bytes, function: tree_sitter.Node,
                   call: tree_sitter.Node) -> tuple[_Run | None, str | None]:
        parent = call.parent
        value = call
        if parent is not None and parent.type == "field_expression":
            unwrap = parent.parent
            if unwrap is None or unwrap_call(unwrap) is None or unwrap_call(unwrap).id != call.id:
                return None, "the call's result is used other than through .unwrap()"
            value = unwrap
        else:
            return None, "the call's result is not unwrapped"
        statement = value.parent
        if statement is None or statement.type != "let_declaration" or statement.child_by_field_name("value") != value:
            return None, "the unwrapped call is not the value of a let"
        binding = let_binding(statement)
        if binding is None:
            return None, "the let binds a pattern, not a name"
        arguments = call_arguments(call)
        if len(arguments) != 5:
            return None, f"expected 5 arguments, found {len(arguments)}"
        refs = []
        for argument in arguments[1:4]:
            if argument.type != "reference_expression" or argument.named_child_count != 1 or \
                    argument.named_children[0].type != "identifier":
                return None, f"argument {text(source, argument)!r} is not a reference to a local"
            refs.append(argument.named_children[0].text.decode())
        keys_name, values_name, metadata_name = refs
        block = statement.parent
        before = [s for s in statements(block) if s.end_byte <= statement.start_byte]
        lets = {}
        for candidate in before:
            bound = let_binding(candidate)
            if bound in refs:
                lets[bound] = candidate
        missing = [r for r in refs if r not in lets]
        if missing:
            return None, f"no `let {missing[0]}` before the call in the same block"
        keys = self._pointer_vec(source, lets[keys_name])
        values = self._pointer_vec(source, lets[values_name])
        if keys is None or values is None:
            return None, "cache_keys/cache_values are not vec![X.as_ref().unwrap() as *const MlxArray, ...]"
        if len(keys) != len(values):
            return None, "different numbers of key and value arrays"
        lengths = self._metadata_lengths(source, lets[metadata_name])
        if lengths is None:
            return None, f"metadata is not {self.metadata_type}::from_visible_lengths(&[...], block).unwrap()"
        if lengths != len(keys):
            return None, f"{lengths} visible lengths for {len(keys)} sequences"
        for name in refs:
            uses = [n for n in identifiers(function) if n.text.decode() == name]
            outside = [n for n in uses if not (lets[name].start_byte <= n.start_byte < lets[name].end_byte)
                       and not (call.start_byte <= n.start_byte < call.end_byte)]
            if outside:
                line, _ = line_col(source, outside[0].start_byte)
                return None, f"`{name}` is also used at line {line}"
        return _Run(
            removed=tuple(lets[r] for r in refs),
            call_statement=statement,
            binding=binding,
            query=text(source, arguments[0]),
            keys=tuple(keys),
            values=tuple(values),
            scale=text(source, arguments[4]),
        ), None

    @staticmethod
    def _pointer_vec(source: bytes, statement: tree_sitter.Node) -> list[str] | None:
        value = statement.child_by_field_name("value")
        if value is None or value.type != "macro_invocation":
            return None
        macro = value.child_by_field_name("macro")
        if macro is None or macro.text != b"vec":
            return None
        tokens = next((c for c in value.named_children if c.type == "token_tree"), None)
        if tokens is None:
            return None
        body = text(source, tokens)
        if not _POINTER_VEC.match(body):
            return None
        return _POINTER_ELEMENT.findall(body)

    def _metadata_lengths(self, source: bytes, statement: tree_sitter.Node) -> int | None:
        value = statement.child_by_field_name("value")
        if value is None:
            return None
        call = unwrap_call(value)
        if call is None:
            return None
        path = call_path(call) or ""
        if path.split("::")[-2:] != [self.metadata_type, "from_visible_lengths"]:
            return None
        arguments = call_arguments(call)
        if len(arguments) != 2 or arguments[0].type != "reference_expression":
            return None
        array = arguments[0].named_children[0] if arguments[0].named_child_count else None
        if array is None or array.type != "array_expression":
            return None
        return len([c for c in array.named_children if c.type not in ("line_comment", "block_comment")])

    def _replacement(self, source: bytes, run: _Run, workspace: Workspace) -> Edit:
        statement = run.call_statement
        indent = line_indent(source, statement.start_byte)
        if len(run.keys) == 1:
            code = f"let {run.binding} = {self.helper}({run.query}, &{run.keys[0]}, &{run.values[0]}, {run.scale});"
        else:
            query = run.query[1:] if run.query.startswith("&") else f"*{run.query}"
            rows = "".join(
                f"    {self.helper}(&batch_row(&{query}, {i}), &{k}, &{v}, {run.scale}),\n"
                for i, (k, v) in enumerate(zip(run.keys, run.values))
            )
            code = f"let {run.binding} = concat_batch_rows(&[\n{rows}]);"
        start, end = whole_lines(source, statement.start_byte, statement.end_byte, (b"//",))
        replacement = format_statements(code, indent, workspace.root)
        return Edit(self.path, start, end, replacement.encode(), f"{self.helper}:rewrite-oracle")

    def _helper_insertion(self, source: bytes, tree: tree_sitter.Tree, first_test: tree_sitter.Node,
                          batch: bool) -> Edit | None:
        existing = {n.child_by_field_name("name").text.decode()
                    for n in tree.root_node.named_children if n.type == "function_item"}
        pieces = []
        if self.helper not in existing:
            pieces.append(template(self.helper))
        if batch and "batch_row" not in existing:
            pieces.append(template("batch_rows"))
        if not pieces:
            return None
        helpers_before = [n for n in tree.root_node.named_children
                          if n.type == "function_item" and n.end_byte <= first_test.start_byte
                          and not _is_test(source, n)]
        if helpers_before:
            _, end = whole_lines(source, helpers_before[-1].start_byte, helpers_before[-1].end_byte, (b"//",))
            text_to_insert = "".join("\n" + piece for piece in pieces)
        else:
            start, _ = leading_trivia(source, first_test)
            end, _ = whole_lines(source, start, first_test.end_byte, (b"//",))
            text_to_insert = "".join(piece + "\n" for piece in pieces)
        return Edit(self.path, end, end, text_to_insert.encode(), f"{self.helper}:insert-helper")


def _is_test(source: bytes, function: tree_sitter.Node) -> bool:
    prev = function.prev_sibling
    while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment"):
        if prev.type == "attribute_item" and text(source, prev).replace(" ", "") in ("#[test]",):
            return True
        prev = prev.prev_sibling
    return False
