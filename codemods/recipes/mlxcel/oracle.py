"""Rewriting the pooled tests' oracle onto a generated dense reference helper.

In each named test, every call of the dense fallback is the end of an oracle
run: the call's result is bound (`let OUT = FALLBACK(Q, &KEYS, &VALUES, &META,
SCALE).unwrap();`, or `.expect(...)`), and earlier statements in scope (of its
block or an enclosing one) bind the three locals it reads,

    let META = <path>::Metadata::from_visible_lengths(LENGTHS, BLOCK).unwrap();
    let KEYS = vec![K0 as *const T, K1 as *const T, ...];
    let VALUES = vec![V0 as *const T, ...];

in any order, with any names, any expressions K/V/LENGTHS/BLOCK, comments in
between and any layout. The run becomes one call of the helper on the
reference K/V those pointers are made from (`let OUT = helper(Q, K0, V0,
SCALE);`); a batch of several sequences becomes per-sequence calls on the
matching row of the query, concatenated on the batch axis. The helper reads
the whole contiguous K/V, which is what the fallback reads through identity
metadata. The run's statements are deleted, and so is every binding that only
fed them (transitively). Every part is recognised by a structural pattern;
whatever does not match is a blocking finding naming the part, and nothing is
guessed.

Before the helper is generated, each bridge function it calls is looked up in
the target tree's `#[cxx::bridge]` (name and parameter count, after the plan's
own deletions); a missing one is a blocking finding.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import tree_sitter

from codemods.edit.codes import Code
from codemods.edit.values import Edit, Finding, line_col
from codemods.parse import RUST, node_text, parse
from codemods.edit.item_spans import deletion_edits, whole_lines
from codemods.pattern import Match, Pattern
from codemods.languages.rust.bridge import bridge_calls, bridge_functions
from codemods.languages.rust.format import crate_edition, format_statement_groups
from codemods.languages.rust.items import leading_trivia
from codemods.languages.rust.statements import find_function, identifiers, let_binding, line_indent, statement_deletion
from codemods.config.recipe import StepResult, Workspace
from codemods.search.mentions import CODE, compile_pattern, mentions_in_source

# Forms of the oracle run's parts (FALLBACK and METADATA are filled in per recipe).
_CALL_PATTERNS = ("$_::{fallback}($$$)", "{fallback}($$$)")
# The result is unwrapped (`.unwrap()` or `.expect(...)`).
_CALL_STATEMENTS = (
    "let $OUT = $CALL($Q, &$KEYS, &$VALUES, &$META, $SCALE).unwrap();",
    "let $OUT = $CALL($Q, &$KEYS, &$VALUES, &$META, $SCALE).expect($_);",
)
_POINTER_VEC = "let $NAME = vec![$$$ELEMENTS];"
_POINTER = "$ARRAY as *const $_"
_METADATA_PATTERNS = tuple(
    f"let $NAME = {path}::from_visible_lengths($LENGTHS, $BLOCK).{unwrap};"
    for path in ("$_::{metadata}", "{metadata}")
    for unwrap in ("unwrap()", "expect($_)")
)
_LITERAL_LENGTHS = "&[$$$LENGTHS]"
_BRIDGE_MODULE = "ffi"


def template(name: str) -> str:
    """A Rust template kept with the recipes (templates/NAME.rs.tmpl, package data beside this
    module: a plain file read, where importlib.resources would cost a dry run ~5 ms of imports)."""
    return (Path(__file__).parent / "templates" / f"{name}.rs.tmpl").read_text(encoding="utf-8")


@dataclass(frozen=True)
class _Run:
    """One matched oracle run: the statements to delete, the call statement, what to call instead."""

    removed: tuple[tree_sitter.Node, ...]
    call_statement: tree_sitter.Node
    call: Match
    keys: tuple[tree_sitter.Node, ...]
    values: tuple[tree_sitter.Node, ...]

    @property
    def kept(self) -> tuple[tree_sitter.Node, ...]:
        """The expressions of the run that live on in the helper call."""
        return (self.call["Q"], self.call["SCALE"], *self.keys, *self.values)


@dataclass(frozen=True)
class _OraclePatterns:
    """The patterns an oracle run is recognised by (one rewrite's fallback and metadata type)."""

    calls: tuple[Pattern, ...]  # a call of the fallback
    statements: tuple[Pattern, ...]  # the `let` statement holding it
    pointers: Pattern  # `let KEYS = vec![ARRAY as *const T, ...];`
    pointer: Pattern  # one element of it
    metadata: tuple[Pattern, ...]  # identity metadata built from visible lengths
    literal_lengths: Pattern  # those lengths written as a literal


class _Mismatch(Exception):
    """A part of an oracle run that does not have the expected form (the message names it)."""


# The template's float32 tag, read off an array; a file that names `dtype::FLOAT32` gets that.
_FLOAT32_FROM_ARRAY = (
    "    // The float32 dtype tag, read off a float32 array.\n"
    f"    let float32 = {_BRIDGE_MODULE}::array_dtype(&scale_array);\n"
)


def _code_mentions(source: bytes, text: str) -> int:
    """How often `text` (letters, digits, `_` and `:` only) occurs in the code of a Rust file
    (comments and strings left out)."""
    return sum(1 for m in mentions_in_source("f.rs", source, compile_pattern(text)) if m.kind == CODE)


def _with_dtype_constant(piece: str, source: bytes) -> str:
    """The generated code using `dtype::FLOAT32` where the file it goes into does."""
    if _FLOAT32_FROM_ARRAY not in piece or not _code_mentions(source, "dtype::FLOAT32"):
        return piece
    return piece.replace(_FLOAT32_FROM_ARRAY, "").replace(", float32)", ", dtype::FLOAT32)")


def _with_bridge_names_as_written(piece: str, source: bytes) -> str:
    """The generated code calling bridge functions unqualified where the file it goes into never
    writes `ffi::` (it reaches them through `use super::*;` or the like)."""
    if _code_mentions(source, f"{_BRIDGE_MODULE}::"):
        return piece
    return piece.replace(f"{_BRIDGE_MODULE}::", "")


# rustfmt's default max_width: the width the helper calls are laid out to without rustfmt.
MAX_WIDTH = 100


@dataclass(frozen=True)
class _HelperStatement:
    """`let OUT = HELPER(ROW);` for one row, `let OUT = concat_batch_rows(&[HELPER(ROW), ...]);`
    for several; each row the helper's four arguments."""

    out: str
    helper: str
    rows: tuple[tuple[str, ...], ...]


def _call_lines(callee: str, arguments: tuple[str, ...], indent: str, head: str = "", tail: str = "") -> list[str]:
    """`HEAD CALLEE(ARGUMENTS)TAIL` at `indent` as rustfmt lays a call out: on one line when it
    fits in MAX_WIDTH, else one argument per line."""
    one = f"{indent}{head}{callee}({', '.join(arguments)}){tail}"
    if len(one) <= MAX_WIDTH:
        return [one]
    return [f"{indent}{head}{callee}(", *(f"{indent}    {a}," for a in arguments), f"{indent}){tail}"]


def _laid_out(statement: _HelperStatement, indent: str) -> str:
    """The statement at `indent`, laid out as rustfmt does (without rustfmt): a `let` whose call
    does not fit moves the call to the next line if it fits there, else breaks its arguments;
    a batch is the overflowed array of rows, each row a call laid out the same way."""
    if len(statement.rows) == 1:
        lines = _call_lines(statement.helper, statement.rows[0], indent, f"let {statement.out} = ", ";")
        if len(lines) > 1:
            moved = _call_lines(statement.helper, statement.rows[0], indent + "    ", tail=";")
            if len(moved) == 1:
                lines = [f"{indent}let {statement.out} =", *moved]
    else:
        lines = [f"{indent}let {statement.out} = concat_batch_rows(&["]
        for row in statement.rows:
            lines += _call_lines(statement.helper, row, indent + "    ", tail=",")
        lines.append(f"{indent}]);")
    return "".join(f"{line}\n" for line in lines)


@dataclass(frozen=True)
class OracleRewrite:
    """Move the named tests' oracle from `fallback` to the generated `helper`.

    `bridge` is the file holding the `#[cxx::bridge]` the helper calls into.
    """

    path: str
    tests: tuple[str, ...]
    fallback: str
    metadata_type: str
    bridge: str
    helper: str = "dense_reference_decode_attention"

    @cached_property
    def _patterns(self) -> _OraclePatterns:
        return _OraclePatterns(
            calls=tuple(Pattern(p.format(fallback=self.fallback), RUST) for p in _CALL_PATTERNS),
            statements=tuple(Pattern(p, RUST) for p in _CALL_STATEMENTS),
            pointers=Pattern(_POINTER_VEC, RUST),
            pointer=Pattern(_POINTER, RUST),
            metadata=tuple(Pattern(p.format(metadata=self.metadata_type), RUST) for p in _METADATA_PATTERNS),
            literal_lengths=Pattern(_LITERAL_LENGTHS, RUST),
        )

    def __call__(self, workspace: Workspace) -> StepResult:
        source = workspace.read(self.path)
        if source is None:
            return StepResult()
        tree = parse(source, RUST)
        findings: list[Finding] = []
        runs: list[tuple[tree_sitter.Node, _Run]] = []
        first_test = None
        for name in self.tests:
            function = find_function(tree.root_node, name)
            if function is None:
                findings.append(Finding(self.path, 0, 0, Code.NOT_FOUND, f"test {name} not found", severity="note"))
                continue
            if first_test is None or function.start_byte < first_test.start_byte:
                first_test = function
            for call in self._fallback_calls(source, function):
                try:
                    runs.append((function, self._match_run(source, function, call)))
                except _Mismatch as mismatch:
                    line, col = line_col(source, call.start_byte)
                    findings.append(
                        Finding(
                            self.path,
                            line,
                            col,
                            Code.REFERENCE_RUN_SHAPE,
                            f"{name}: oracle run does not have the expected shape ({mismatch}); not rewritten",
                        )
                    )
        if not runs or any(f.blocking for f in findings):
            return StepResult(findings=tuple(findings))
        # rustfmt lays out the helper calls (in another process) while the rest is planned here.
        layout = self._start_layout(source, [run for _, run in runs], workspace)
        pieces = [
            _with_dtype_constant(p, source)
            for p in self._helper_pieces(tree, any(len(run.keys) > 1 for _, run in runs))
        ]
        findings += self._missing_bridge_functions(workspace, pieces)
        pieces = [_with_bridge_names_as_written(p, source) for p in pieces]
        if any(f.blocking for f in findings):
            layout()
            return StepResult(findings=tuple(findings))
        removed = []
        for function in {f.id: f for f, _ in runs}.values():
            mine = [run for f, run in runs if f.id == function.id]
            removed += _without_dead_bindings(function, mine)
        deletions = [statement_deletion(source, s, f"{self.helper}:drop-binding") for s in removed]
        edits = deletion_edits(self.path, source, deletions)
        replacements, formatted = layout()
        edits += replacements
        if not formatted:
            findings.append(
                Finding(
                    self.path,
                    0,
                    0,
                    Code.FORMATTED_WITHOUT_RUSTFMT,
                    f"rustfmt is not available or rejected the helper calls; they are laid out "
                    f"as rustfmt lays them out at max_width {MAX_WIDTH}",
                    severity="note",
                )
            )
        if pieces and first_test is not None:
            edits.append(self._helper_insertion(source, tree, first_test, pieces))
        return StepResult(edits=tuple(edits), findings=tuple(findings))

    # -- recognising a run -----------------------------------------------------------

    def _fallback_calls(self, source: bytes, function: tree_sitter.Node) -> list[tree_sitter.Node]:
        calls = {m.node.id: m.node for p in self._patterns.calls for m in p.find_all(source, function)}
        return sorted(calls.values(), key=lambda n: n.start_byte)

    def _match_run(self, source: bytes, function: tree_sitter.Node, call: tree_sitter.Node) -> _Run:
        statement: tree_sitter.Node | None = call
        while statement is not None and statement.type != "let_declaration" and statement.id != function.id:
            statement = statement.parent
        matched = (
            None
            if statement is None
            else next((m for p in self._patterns.statements if (m := p.match(source, statement))), None)
        )
        callee = call.child_by_field_name("function")
        if statement is None or matched is None or callee is None or matched["CALL"].id != callee.id:
            raise _Mismatch("the call is not `let NAME = FALLBACK(Q, &KEYS, &VALUES, &METADATA, SCALE).unwrap();`")
        earlier = _lets_before(statement, function)
        keys, keys_statement = self._pointers(source, earlier, matched.text("KEYS"))
        values, values_statement = self._pointers(source, earlier, matched.text("VALUES"))
        if len(keys) != len(values):
            raise _Mismatch(f"{len(keys)} key arrays but {len(values)} value arrays")
        metadata_statement = self._metadata(source, earlier, matched.text("META"), len(keys))
        run = _Run((metadata_statement, keys_statement, values_statement), statement, matched, keys, values)
        for bound in (matched.text("KEYS"), matched.text("VALUES"), matched.text("META")):
            outside = [
                n
                for n in identifiers(function)
                if node_text(n) == bound
                and not any(s.start_byte <= n.start_byte < s.end_byte for s in (*run.removed, statement))
            ]
            if outside:
                line, _ = line_col(source, outside[0].start_byte)
                raise _Mismatch(f"`{bound}` is also used at line {line}")
        return run

    @staticmethod
    def _binding(earlier: list[tree_sitter.Node], name: str) -> tree_sitter.Node | None:
        """The last `let NAME = ...;` among the statements before the call."""
        bound = [s for s in earlier if let_binding(s) == name]
        return bound[-1] if bound else None

    def _pointers(
        self, source: bytes, earlier: list[tree_sitter.Node], name: str
    ) -> tuple[tuple[tree_sitter.Node, ...], tree_sitter.Node]:
        statement = self._binding(earlier, name)
        if statement is None:
            raise _Mismatch(f"no `let {name}` in scope before the call")
        matched = self._patterns.pointers.match(source, statement)
        if matched is None:
            raise _Mismatch(f"`{name}` is not bound to `vec![ARRAY as *const T, ...]`")
        arrays = []
        for element in matched.named("ELEMENTS"):
            pointer = self._patterns.pointer.match(source, element)
            if pointer is None:
                raise _Mismatch(f"element `{node_text(element)}` of `{name}` is not `ARRAY as *const T`")
            arrays.append(pointer["ARRAY"])
        if not arrays:
            raise _Mismatch(f"`{name}` is an empty vec!")
        return tuple(arrays), statement

    def _metadata(self, source: bytes, earlier: list[tree_sitter.Node], name: str, sequences: int) -> tree_sitter.Node:
        statement = self._binding(earlier, name)
        if statement is None:
            raise _Mismatch(f"no `let {name}` in scope before the call")
        matched = next((m for p in self._patterns.metadata if (m := p.match(source, statement))), None)
        if matched is None:
            raise _Mismatch(
                f"`{name}` is not identity metadata "
                f"`{self.metadata_type}::from_visible_lengths(LENGTHS, BLOCK).unwrap()`"
            )
        literal = self._patterns.literal_lengths.match(source, matched["LENGTHS"])
        if literal is not None and len(literal.named("LENGTHS")) != sequences:
            raise _Mismatch(f"{len(literal.named('LENGTHS'))} visible lengths for {sequences} sequences")
        return statement

    # -- generating ---------------------------------------------------------------------

    def _start_layout(
        self, source: bytes, runs: list[_Run], workspace: Workspace
    ) -> Callable[[], tuple[list[Edit], bool]]:
        """Start rustfmt on the helper calls in a thread; the returned function waits and gives
        `_replacements`. The texts to format are made here, in the planner's thread (they read
        the file's tree); the thread only runs rustfmt."""
        groups = [(self._helper_call(source, run), line_indent(source, run.call_statement.start_byte)) for run in runs]
        edition = crate_edition(workspace.root, self.path)
        laid_out: list[tuple[list[str], bool]] = []
        thread = threading.Thread(
            target=lambda: laid_out.append(format_statement_groups(groups, workspace.root, edition))
        )
        thread.start()

        def finish() -> tuple[list[Edit], bool]:
            thread.join()
            texts, formatted = laid_out[0] if laid_out else ([], False)
            return self._replacements(source, runs, texts, formatted)

        return finish

    def _replacements(
        self, source: bytes, runs: list[_Run], texts: list[str], formatted: bool
    ) -> tuple[list[Edit], bool]:
        """One edit per run: its call statement becomes the helper call, formatted by rustfmt
        (`texts`, where `formatted`) or, where rustfmt is not there, laid out as rustfmt lays out
        these two statement shapes (`_laid_out`); and whether rustfmt ran."""
        groups = [(None, line_indent(source, run.call_statement.start_byte)) for run in runs]
        edits = []
        if not formatted:
            texts = [_laid_out(self._helper_statement(source, run), indent) for run, (_, indent) in zip(runs, groups)]
        for run, replacement in zip(runs, texts):
            statement = run.call_statement
            start, end = whole_lines(source, statement.start_byte, statement.end_byte, (b"//",))
            edits.append(Edit(self.path, start, end, replacement.encode(), f"{self.helper}:rewrite-oracle"))
        return edits, formatted

    def _helper_statement(self, source: bytes, run: _Run) -> _HelperStatement:
        """The statement that replaces a run: `let OUT = HELPER(q, k, v, scale);`, or for a batch
        the rows of `let OUT = concat_batch_rows(&[HELPER(&batch_row(q, i), k, v, scale), ...]);`."""
        call = run.call

        def text(node: tree_sitter.Node) -> str:
            return source[node.start_byte : node.end_byte].decode("utf-8", "replace")

        rows = tuple(
            (
                f"&batch_row({call.text('Q')}, {i})" if len(run.keys) > 1 else call.text("Q"),
                text(k),
                text(v),
                call.text("SCALE"),
            )
            for i, (k, v) in enumerate(zip(run.keys, run.values))
        )
        return _HelperStatement(call.text("OUT"), self.helper, rows)

    def _helper_call(self, source: bytes, run: _Run) -> str:
        """The replacing statement on one line (rows of a batch one per line), for rustfmt."""
        statement = self._helper_statement(source, run)
        calls = [f"{statement.helper}({', '.join(row)})" for row in statement.rows]
        if len(calls) == 1:
            return f"let {statement.out} = {calls[0]};"
        rows = "".join(f"    {c},\n" for c in calls)
        return f"let {statement.out} = concat_batch_rows(&[\n{rows}]);"

    def _helper_pieces(self, tree: tree_sitter.Tree, batch: bool) -> list[str]:
        existing = {
            node_text(n.child_by_field_name("name")) for n in tree.root_node.named_children if n.type == "function_item"
        }
        pieces = []
        if self.helper not in existing:
            pieces.append(template(self.helper))
        if batch and "batch_row" not in existing:
            pieces.append(template("batch_rows"))
        return pieces

    def _missing_bridge_functions(self, workspace: Workspace, pieces: list[str]) -> list[Finding]:
        """A blocking finding for each bridge call of the generated code the target bridge lacks."""
        calls = [c for piece in pieces for c in bridge_calls(piece, {_BRIDGE_MODULE})]
        if not calls:
            return []
        source = workspace.read(self.bridge)
        if source is None:
            return [
                Finding(
                    self.bridge,
                    0,
                    0,
                    Code.HELPER_BRIDGE,
                    f"{self.helper}: the bridge file is missing; the helper is not generated",
                )
            ]
        deleted = [e for e in workspace.planned(self.bridge) if not e.replacement]
        declared = {
            f.name: f
            for f in bridge_functions(source)
            if f.module == _BRIDGE_MODULE and not any(e.start <= f.start and f.end <= e.end for e in deleted)
        }
        findings = []
        for call in dict.fromkeys(calls):
            function = declared.get(call.name)
            if function is None:
                problem = f"the bridge declares no `{call.name}`"
            elif function.parameters != call.arguments:
                plural = "" if function.parameters == 1 else "s"
                problem = (
                    f"`{call.name}` takes {function.parameters} parameter{plural}, the helper passes {call.arguments}"
                )
            else:
                continue
            findings.append(
                Finding(
                    self.bridge,
                    0,
                    0,
                    Code.HELPER_BRIDGE,
                    f"{self.helper}: calls {_BRIDGE_MODULE}::{call.name}, but {problem} "
                    "in this tree's #[cxx::bridge]; the helper is not generated",
                )
            )
        return findings

    def _helper_insertion(
        self, source: bytes, tree: tree_sitter.Tree, first_test: tree_sitter.Node, pieces: list[str]
    ) -> Edit:
        helpers_before = [
            n
            for n in tree.root_node.named_children
            if n.type == "function_item" and n.end_byte <= first_test.start_byte and not _is_test(source, n)
        ]
        if helpers_before:
            _, end = whole_lines(source, helpers_before[-1].start_byte, helpers_before[-1].end_byte, (b"//",))
            text_to_insert = "".join("\n" + piece for piece in pieces)
        else:
            start, _ = leading_trivia(source, first_test)
            end, _ = whole_lines(source, start, first_test.end_byte, (b"//",))
            text_to_insert = "".join(piece + "\n" for piece in pieces)
        return Edit(self.path, end, end, text_to_insert.encode(), f"{self.helper}:insert-helper")


_TEST_ATTRIBUTE = Pattern("#[test]", RUST)


def _is_test(source: bytes, function: tree_sitter.Node) -> bool:
    prev = function.prev_sibling
    while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment"):
        if prev.type == "attribute_item" and _TEST_ATTRIBUTE.match(source, prev) is not None:
            return True
        prev = prev.prev_sibling
    return False


def _lets_before(statement: tree_sitter.Node, function: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The `let`s in scope at `statement`: earlier ones of its block and of every enclosing block
    of the function, in source order (the last of a name is the one visible)."""
    found = []
    block = statement.parent
    while block is not None:
        if block.type == "block":
            found += [
                s for s in block.named_children if s.type == "let_declaration" and s.end_byte <= statement.start_byte
            ]
        if block.id == function.id:
            break
        block = block.parent
    return sorted(found, key=lambda s: s.start_byte)


def _lets(function: tree_sitter.Node) -> list[tree_sitter.Node]:
    found = []
    stack = [function]
    while stack:
        node = stack.pop()
        if node.type == "let_declaration":
            found.append(node)
        stack.extend(node.named_children)
    return found


def _reads_local(node: tree_sitter.Node) -> bool:
    """Whether an identifier may read a local: not a field or method name (`x.len`), also
    inside macro token trees, where the grammar leaves `.len` as plain tokens."""
    if node.type != "identifier":
        return False
    previous = node.prev_sibling
    return not (
        node.parent is not None and node.parent.type == "token_tree" and previous is not None and previous.type == "."
    )


def _without_dead_bindings(function: tree_sitter.Node, runs: list[_Run]) -> list[tree_sitter.Node]:
    """The runs' statements, and every `let` of the function that only removed code read.

    A name counts as read where an identifier spells it outside the `let`s that
    bind it; reads inside deleted or replaced statements do not count, except
    in the expressions the helper call keeps. Repeated until nothing more dies.
    """
    removed = [s for run in runs for s in run.removed]
    replaced = [run.call_statement for run in runs]
    kept = [node for run in runs for node in run.kept]
    lets = _lets(function)
    binding_sites = {
        n.id for s in lets if (pattern := s.child_by_field_name("pattern")) is not None for n in identifiers(pattern)
    }

    def inside(node: tree_sitter.Node, spans: list[tree_sitter.Node]) -> bool:
        return any(s.start_byte <= node.start_byte < s.end_byte for s in spans)

    reads = [n for n in identifiers(function) if _reads_local(n) and n.id not in binding_sites]
    while True:
        gone = removed + replaced
        live = {n.text for n in reads if not inside(n, gone) or inside(n, kept)}
        dead_reads = {n.text for n in reads if inside(n, gone) and not inside(n, kept)}
        dead = [
            s
            for s in lets
            if s not in removed and (bound := let_binding(s)) is not None and bound.encode() in dead_reads - live
        ]
        if not dead:
            return removed
        removed += dead
