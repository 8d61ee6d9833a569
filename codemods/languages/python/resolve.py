"""Uses of deleted Python functions and classes, resolved by scope and module (with `ast`).

A name is resolved the way Python binds it: a function's parameters, assignments,
imports and definitions are local to it (unless declared `global`); a class body's
bindings are seen only in that body; the rest resolve at module level, where they
are bound by the module's own statements. What a binding refers to is a dotted
path from the tree's root (`import pkg.mod as m` binds `m` to `pkg.mod`; `from .mod
import f` to the importing package's `mod.f`); a dotted path names a deleted item
when it ends with the item's module path (from its file's path: `pkg/mod.py` is
`pkg.mod`, `mod` or any such tail) and qualified name.

Certainty, as for the Rust and C++ plug-ins:
- definite (blocks): an import of the deleted item (`from pkg.mod import f`), a
  use of a name so bound, `m.f` with `m` bound to its module, a name left unbound
  that the deleted definition bound (in its own module, or the enclosing function
  or class body of a nested one), `self.meth` in the deleted method's own class.
- possible (listed): the same when the name has other bindings as well (a
  fallback import), an import from an ancestor package of the item's module (a
  re-export the package's `__init__` may hold; that re-export is itself definite),
  `obj.meth` on a receiver whose class is not known, a method of a class with bases
  (the name may still resolve to the base's).
Names bound otherwise (a parameter, a local, a keyword argument, an attribute of
an unrelated receiver, another definition) are not uses. A deleted dunder method
is never used by name: the base class's one takes over.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from codemods.languages.python.classes import UNKNOWN, PythonClasses, from_module, module_parts
from codemods.languages.resolution import DEFINITE, POSSIBLE, Reference


@dataclass(frozen=True)
class DeletedPythonItem:
    """A deleted Python function or class: `name` (the last part of `qualified`, its dotted name in
    its module, e.g. `Cls.method`), the file `path` defining it, and whether the class holding it
    names bases (`inherited`: a method's name may then still resolve to a base class's), and whether
    it is a pytest fixture (`fixture`: decorated `@fixture` or `@pytest.fixture(...)`, used by the
    parameters of that name of the functions of its module, or of the tree under its `conftest.py`)."""

    name: str
    path: str
    qualified: str = ""
    kind: str = ""
    inherited: bool = False
    fixture: bool = False

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple((self.qualified or self.name).split("."))


def _package_parts(path: str) -> tuple[str, ...]:
    parts = module_parts(path)
    return parts if path.replace("\\", "/").endswith("__init__.py") else parts[:-1]


def _match(dotted: tuple[str, ...], item: DeletedPythonItem) -> str | None:
    """DEFINITE when `dotted` names `item` (a tail of its module path, then its qualified name);
    POSSIBLE when it names its name in a package above its module (a re-export may hold it)."""
    qualified = item.parts
    module = module_parts(item.path)
    if len(dotted) <= len(qualified) or dotted[-len(qualified) :] != qualified:
        return None
    head = dotted[: -len(qualified)]
    if module[len(module) - len(head) :] == head:
        return DEFINITE
    if len(qualified) == 1:
        for start in range(len(module)):
            for end in range(start + 1, len(module)):
                if module[start:end] == head:
                    return POSSIBLE
    return None


# What a dotted path is: a reference (an import, a module attribute), a function or class still
# defined in the file (not a deleted item then, though a class's attributes may be), an instance
# of a class the file defines, of what a call's callee names (a class, or a factory: a guess), or
# an attribute of such an instance (a member).
REF, FUNCTION, CLASS, INSTANCE, GUESS, MEMBER = "ref", "function", "class", "instance", "guess", "member"


@dataclass(frozen=True)
class _Path:
    dotted: tuple[str, ...]
    kind: str = REF

    def attribute(self, name: str) -> "_Path | None":
        """The path of `.name` on what this names (None: not followed, an attribute of a member)."""
        if self.kind == MEMBER:
            return None
        return _Path(self.dotted + (name,), MEMBER if self.kind in (INSTANCE, GUESS) else REF)


@dataclass(frozen=True)
class _Instance:
    """A name bound to `callee(...)`, or annotated `name: callee`: resolved where it is looked up."""

    callee: ast.expr


# One binding of a name: a path, an instance of what an expression names, or None (not followed).
Binding = _Path | _Instance | None

_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


@dataclass
class _Scope:
    node: ast.AST | None  # None: the module
    qualified: tuple[str, ...]  # the dotted name of a def/class scope in its module
    is_class: bool = False
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    declared_global: set[str] = field(default_factory=set)
    first_parameter: str | None = None
    star_modules: list[tuple[str, ...]] = field(default_factory=list)


@dataclass(frozen=True)
class _Lookup:
    """Where a name resolves (`_Resolver.lookup`): the scope (None: unbound), its bindings there
    and the scope's index in the chain (-1: unbound)."""

    scope: _Scope | None
    bindings: list[Binding]
    index: int


class _Resolver:
    def __init__(
        self,
        path: str,
        text: bytes,
        tree: ast.Module,
        items: Sequence[DeletedPythonItem],
        classes: PythonClasses | None = None,
    ) -> None:
        self.path = path
        self.classes = classes
        # The instance attributes each class of the file types (by the class node's id: the tree
        # lives as long as the resolver).
        self.attribute_types: dict[int, dict[str, ast.expr]] = {}
        self.text = text
        self.items = [i for i in items if not (len(i.parts) > 1 and _dunder(i.name))]
        self.names = {i.name for i in self.items}
        self.watched = set(self.names)  # the names to resolve: the deleted ones, and aliases of them
        self.module = module_parts(path)
        self.package = _package_parts(path)
        starts = [0]
        for line in text.splitlines(keepends=True):
            starts.append(starts[-1] + len(line))
        self.line_starts = starts
        self.found: list[Reference] = []
        self.tree = tree

    # Positions ------------------------------------------------------------------------------
    def offset(self, line: int, col: int) -> int:
        return self.line_starts[line - 1] + col if line - 1 < len(self.line_starts) else 0

    def add(self, start: int, spelled: str, certainty: str, kind: str, resolution: str, name: str = "") -> None:
        """A use spelled `spelled` at `start` of the deleted item named `name` (`spelled` when not given)."""
        self.found.append(
            Reference(self.path, start, start + len(spelled.encode()), name or spelled, certainty, kind, resolution)
        )

    # Bindings -------------------------------------------------------------------------------
    def import_target(self, node: ast.ImportFrom) -> tuple[str, ...]:
        return from_module(self.package, node)

    def collect(self, scope: _Scope, body: Sequence[ast.AST]) -> None:
        """The bindings of `scope` made by `body` (nested scopes left out, but for their names)."""

        def bind(name: str, value: Binding) -> None:
            scope.bindings.setdefault(name, []).append(value)

        stack: list[ast.AST] = list(body)
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                named = scope.node is None or scope.is_class
                kind = CLASS if isinstance(node, ast.ClassDef) else FUNCTION
                bind(node.name, _Path(self.module + scope.qualified + (node.name,), kind) if named else None)
                stack += node.decorator_list
                if isinstance(node, ast.ClassDef):
                    stack += node.bases + [k.value for k in node.keywords]
                else:
                    stack += _defaults(node.args)
                    stack += [x for x in (node.returns,) if x is not None]
                continue
            if isinstance(node, ast.Lambda):
                stack += _defaults(node.args)
                continue
            if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                stack.append(node.generators[0].iter)
                # A walrus in a comprehension binds in the enclosing function.
                stack += [n for n in ast.walk(node) if isinstance(n, ast.NamedExpr)]
                continue
            typed = _typed_binding(node)
            if typed is not None:
                bind(*typed)
                value = getattr(node, "value", None)
                stack += [value] if isinstance(value, ast.AST) else []
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                bind(node.id, None)
            elif isinstance(node, ast.NamedExpr):
                bind(node.target.id, None)
                stack.append(node.value)
                continue
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        bind(alias.asname, _Path(tuple(alias.name.split("."))))
                    else:
                        bind(alias.name.split(".")[0], _Path((alias.name.split(".")[0],)))
            elif isinstance(node, ast.ImportFrom):
                target = self.import_target(node)
                for alias in node.names:
                    if alias.name == "*":
                        scope.star_modules.append(target)
                    else:
                        bind(alias.asname or alias.name, _Path(target + (alias.name,)))
                        if alias.asname and alias.name in self.names:
                            self.watched.add(alias.asname)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                if isinstance(node, ast.Global):
                    scope.declared_global.update(node.names)
                else:
                    for name in node.names:
                        bind(name, None)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                bind(node.name, None)
            elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                bind(node.name, None)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                bind(node.rest, None)
            stack += ast.iter_child_nodes(node)
        for name in scope.declared_global:
            scope.bindings.pop(name, None)

    def scope_of(self, node: ast.AST, parent: _Scope) -> _Scope:
        if isinstance(node, ast.ClassDef):
            scope = _Scope(node, parent.qualified + (node.name,), is_class=True)
            self.collect(scope, node.body)
            return scope
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            name = node.name if not isinstance(node, ast.Lambda) else "<lambda>"
            scope = _Scope(node, parent.qualified + (name,))
            args = node.args
            parameters = [
                *args.posonlyargs,
                *args.args,
                *args.kwonlyargs,
                *[a for a in (args.vararg, args.kwarg) if a is not None],
            ]
            for parameter in parameters:
                typed = isinstance(parameter.annotation, (ast.Name, ast.Attribute)) and parameter not in (
                    args.vararg,
                    args.kwarg,
                )
                scope.bindings.setdefault(parameter.arg, []).append(
                    _Instance(parameter.annotation) if typed and parameter.annotation is not None else None
                )
            ordered = [*args.posonlyargs, *args.args]
            scope.first_parameter = ordered[0].arg if parent.is_class and ordered else None
            body = node.body if not isinstance(node, ast.Lambda) else [node.body]
            self.collect(scope, body)
            for name, checked in _asserted_classes(body).items():
                # `assert isinstance(p, Klass)` in the body itself: the parameter `p`, not bound
                # again, is a Klass from there on (the function fails otherwise).
                if scope.bindings.get(name) == [None] and name in {p.arg for p in parameters}:
                    scope.bindings[name] = [_Instance(checked)]
            return scope
        assert isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
        scope = _Scope(node, parent.qualified + ("<comprehension>",))
        for generator in node.generators:
            for target in ast.walk(generator.target):
                if isinstance(target, ast.Name):
                    scope.bindings.setdefault(target.id, []).append(None)
        return scope

    # Resolution -----------------------------------------------------------------------------
    def lookup(self, name: str, chain: list[_Scope]) -> _Lookup:
        """The scope `name` resolves to from the innermost scope of `chain`, its bindings there and
        its index in `chain` (None, [], -1: unbound)."""
        for index in range(len(chain) - 1, -1, -1):
            scope = chain[index]
            if scope.is_class and index != len(chain) - 1:
                continue
            if name in chain[-1].declared_global and index != 0:
                continue
            if name in scope.bindings:
                return _Lookup(scope, scope.bindings[name], index)
        return _Lookup(None, [], -1)

    def candidates(self, node: ast.expr, chain: list[_Scope], depth: int = 0) -> list[_Path | None] | None:
        """The dotted paths an expression (a name or attribute chain) may refer to; None when not a
        name or attribute chain."""
        if isinstance(node, ast.Name):
            found = self.lookup(node.id, chain)
            if found.scope is None:
                return [None, *[_Path(m + (node.id,)) for m in chain[0].star_modules]]
            return [path for b in found.bindings for path in self.instance_of(b, chain[: found.index + 1], depth)]
        if isinstance(node, ast.Attribute):
            typed = self.instance_attribute(node, chain, depth)
            if typed is not None:
                return typed
            inner = self.candidates(node.value, chain, depth)
            if inner is None:
                return None
            return [None if b is None else b.attribute(node.attr) for b in inner]
        return None

    def instance_attribute(self, node: ast.Attribute, chain: list[_Scope], depth: int) -> list[_Path | None] | None:
        """`self.attr` in a method, where the methods of its class give `attr` one class only
        (`self.attr = Klass(...)`, `self.attr: Klass`; `= None` aside): an instance of it."""
        if not isinstance(node.value, ast.Name) or depth >= 8:
            return None
        found = self.lookup(node.value.id, chain)
        index = found.index
        if index < 1 or found.scope is None or found.scope.first_parameter != node.value.id:
            return None
        owner = chain[index - 1]
        if not owner.is_class or not isinstance(owner.node, ast.ClassDef):
            return None
        attributes = self.attribute_types.get(id(owner.node))
        if attributes is None:
            attributes = self.attribute_types[id(owner.node)] = _instance_attributes(owner.node)
        callee = attributes.get(node.attr)
        if callee is None:
            return None
        return self.instance_of(_Instance(callee), chain[: index - 1], depth + 1)

    def instance_of(self, binding: Binding, chain: list[_Scope], depth: int) -> list[_Path | None]:
        """The paths of one binding: an instance's, of what its callee names in `chain` (an
        instance of a class the file defines, or a guess)."""
        if not isinstance(binding, _Instance):
            return [binding]
        callee = self.candidates(binding.callee, chain, depth + 1) if depth < 8 else None
        if callee is None:
            return [None]
        return [
            None
            if c is None or c.kind not in (REF, CLASS)
            else _Path(c.dotted, INSTANCE if self.is_class(c) else GUESS)
            for c in callee
        ]

    def is_class(self, path: _Path) -> bool:
        """Whether a callee names a class: one the file defines, or (an import) one the tree does."""
        return path.kind == CLASS or (self.classes is not None and self.classes.find(path.dotted) is not None)

    def judge(self, bindings: Sequence[Binding], item: DeletedPythonItem) -> str | None:
        """DEFINITE when every binding names `item`, POSSIBLE when some may, else None. A member
        of an instance is followed to the class that provides it (a base in another module)."""
        verdicts = [
            self.member_match(b, item) if isinstance(b, _Path) and b.kind in (REF, MEMBER) else None for b in bindings
        ]
        if not any(verdicts):
            return None
        if all(v == DEFINITE for v in verdicts) and not (len(item.parts) > 1 and self.inherited(item)):
            return DEFINITE
        return POSSIBLE

    def member_match(self, path: _Path, item: DeletedPythonItem) -> str | None:
        """`_match` of a path, where a member of an instance (`Klass.name`) is the member of the
        class that provides it: `Klass` itself or a base (classes.py)."""
        verdict = _match(path.dotted, item)
        if verdict == POSSIBLE and self.classes is not None and len(path.dotted) >= 2:
            # Through a package above the item's module: definite where its `__init__` imports
            # the item from that module (a re-export), no use where it binds the name otherwise.
            target = self.classes.imported(path.dotted[:-1], path.dotted[-1])
            if target is not None:
                return DEFINITE if _match(target, item) == DEFINITE else None
        if verdict is not None or path.kind != MEMBER or self.classes is None or len(path.dotted) < 2:
            return verdict
        provider = self.classes.provider(path.dotted[:-1], path.dotted[-1])
        if provider is None or provider == UNKNOWN or provider == path.dotted[:-1]:
            return None
        return _match((*provider, path.dotted[-1]), item)

    def inherited(self, item: DeletedPythonItem) -> bool:
        """Whether a base of the deleted method's class may still provide its name: the class
        names bases, and one is not in the tree or defines the name."""
        if not item.inherited or self.classes is None:
            return item.inherited
        return self.classes.bases_provide((*module_parts(item.path), *item.parts[:-1]), item.name)

    def name_use(self, node: ast.Name, chain: list[_Scope]) -> None:
        found = self.lookup(node.id, chain)
        scope, bindings = found.scope, found.bindings
        start = self.offset(node.lineno, node.col_offset)
        for item in self.items:
            if item.name != node.id and scope is None:
                continue
            if scope is None:
                # Unbound: the deleted definition bound it in a scope the use sees.
                seen = [s.qualified for i, s in enumerate(chain) if not s.is_class or i == len(chain) - 1]
                if item.path == self.path and item.parts[:-1] in seen:
                    self.add(start, node.id, DEFINITE, "name", "the name the deleted definition bound, now unbound")
                    continue
                verdict = self.judge([_Path(m + (node.id,)) for m in chain[0].star_modules], item)
                if verdict:
                    self.add(start, node.id, verdict, "name", "a name a star import brings from the item's module")
                continue
            verdict = self.judge(bindings, item)
            if verdict:
                self.add(
                    start,
                    node.id,
                    verdict,
                    "name",
                    "a name bound by an import of the deleted item"
                    + ("" if verdict == DEFINITE else " (among other bindings, or through a package)"),
                    item.name,
                )

    def attribute_use(self, node: ast.Attribute, chain: list[_Scope]) -> None:
        start = self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0) - len(node.attr.encode())
        receiver = self.candidates(node.value, chain)
        for item in self.items:
            if item.name != node.attr:
                continue
            verdict = (
                None
                if receiver is None
                else self.judge([b.attribute(node.attr) if b else None for b in receiver], item)
            )
            if verdict:
                typed = receiver is not None and any(b is not None and b.kind in (INSTANCE, GUESS) for b in receiver)
                self.add(
                    start,
                    node.attr,
                    verdict,
                    "method" if typed else "attribute",
                    "an attribute of an instance of the deleted item's class"
                    if typed
                    else "an attribute of the deleted item's module or class",
                )
                continue
            if len(item.parts) < 2:
                continue  # a module-level item is an attribute of its module only
            if self.own_receiver(node.value, chain, item):
                inherited = self.inherited(item)
                self.add(
                    start,
                    node.attr,
                    POSSIBLE if inherited else DEFINITE,
                    "method",
                    "an attribute of `self` in the deleted item's class"
                    + (" (a base class may define it)" if inherited else ""),
                )
            elif receiver is None or any(b is None or b.kind not in (CLASS, INSTANCE, FUNCTION) for b in receiver):
                self.add(start, node.attr, POSSIBLE, "method", "an attribute of a receiver of unknown type")

    def own_receiver(self, value: ast.expr, chain: list[_Scope], item: DeletedPythonItem) -> bool:
        """Whether `value` is the first parameter of a method of the class holding `item`."""
        if item.path != self.path or not isinstance(value, ast.Name) or len(chain) < 2:
            return False
        method, owner = chain[-1], chain[-2]
        return (
            owner.is_class
            and owner.qualified == item.parts[:-1]
            and method.first_parameter == value.id
            and self.lookup(value.id, chain).scope is method
        )

    def fixture_uses(self, args: ast.arguments) -> None:
        """Parameters naming a deleted pytest fixture that this file sees (its own, or its
        conftest.py's folder's)."""
        for parameter in _parameters(args):
            for item in self.items:
                if item.fixture and item.name == parameter.arg and self.sees_fixtures_of(item.path):
                    self.add(
                        self.offset(parameter.lineno, parameter.col_offset),
                        parameter.arg,
                        DEFINITE,
                        "fixture",
                        "a parameter pytest fills with the deleted fixture",
                    )

    def sees_fixtures_of(self, path: str) -> bool:
        folder, _, file = path.replace("\\", "/").rpartition("/")
        if file != "conftest.py":
            return path == self.path
        return not folder or self.path.replace("\\", "/").startswith(folder + "/")

    def import_uses(self, node: ast.ImportFrom) -> None:
        target = self.import_target(node)
        for alias in node.names:
            for item in self.items:
                if alias.name != item.name:
                    continue
                verdict = self.member_match(_Path(target + (alias.name,)), item)
                if verdict:
                    line, col = getattr(alias, "lineno", node.lineno), getattr(alias, "col_offset", node.col_offset)
                    start = self._find(alias.name, self.offset(line, col))
                    self.add(
                        start,
                        alias.name,
                        verdict,
                        "import",
                        "an import of the deleted item"
                        + ("" if verdict == DEFINITE else " from a package above its module (a re-export may hold it)"),
                    )

    def _find(self, name: str, start: int) -> int:
        found = self.text.find(name.encode(), start)
        return found if found >= 0 else start

    def walk(self, node: ast.AST, chain: list[_Scope]) -> None:
        for child in ast.iter_child_nodes(node):
            self.visit(child, chain)

    def visit(self, node: ast.AST, chain: list[_Scope]) -> None:
        if isinstance(node, _SCOPES):
            # Decorators, bases and defaults are evaluated in the enclosing scope.
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                outer: list[ast.AST] = list(node.decorator_list)
                if isinstance(node, ast.ClassDef):
                    outer += node.bases + [k.value for k in node.keywords]
                else:
                    outer += _defaults(node.args) + [x for x in (node.returns,) if x is not None]
                    outer += [a.annotation for a in _parameters(node.args) if a.annotation is not None]
                for child in outer:
                    self.visit(child, chain)
                if not isinstance(node, ast.ClassDef):
                    self.fixture_uses(node.args)
                inner = self.scope_of(node, chain[-1])
                for statement in node.body:
                    self.visit(statement, chain + [inner])
                return
            if isinstance(node, ast.Lambda):
                for child in _defaults(node.args):
                    self.visit(child, chain)
                self.visit(node.body, chain + [self.scope_of(node, chain[-1])])
                return
            comprehension = self.scope_of(node, chain[-1])
            generators = node.generators
            self.visit(generators[0].iter, chain)
            for index, generator in enumerate(generators):
                if index:
                    self.visit(generator.iter, chain + [comprehension])
                for condition in generator.ifs:
                    self.visit(condition, chain + [comprehension])
            for part in ("elt", "key", "value"):
                value = getattr(node, part, None)
                if isinstance(value, ast.AST):
                    self.visit(value, chain + [comprehension])
            return
        if isinstance(node, ast.Name):
            if node.id in self.watched and isinstance(node.ctx, (ast.Load, ast.Del)):
                self.name_use(node, chain)
            return
        if isinstance(node, ast.Attribute):
            if node.attr in self.names:
                self.attribute_use(node, chain)
            self.visit(node.value, chain)
            return
        if isinstance(node, ast.ImportFrom):
            self.import_uses(node)
            return
        self.walk(node, chain)

    def run(self) -> list[Reference]:
        module = _Scope(None, ())
        self.collect(module, self.tree.body)
        for statement in self.tree.body:
            self.visit(statement, [module])
        return self.found


def _typed_binding(node: ast.AST) -> tuple[str, Binding] | None:
    """`name = Callee(...)` or `name: Type [= ...]`: the name, bound to an instance of what the
    callee or annotation names; None for any other statement."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        value = node.value
        if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)):
            return node.targets[0].id, _Instance(value.func)
    if (
        isinstance(node, ast.AnnAssign)
        and isinstance(node.target, ast.Name)
        and isinstance(node.annotation, (ast.Name, ast.Attribute))
    ):
        return node.target.id, _Instance(node.annotation)
    return None


def _dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _instance_attributes(klass: ast.ClassDef) -> dict[str, ast.expr]:
    """The instance attributes that the methods of `klass` give one class only: `self.a =
    Klass(...)` or `self.a: Klass` (an `= None` aside; any other value makes `a` unknown), `self`
    being each method's first parameter; by attribute, the class expression."""
    seen: dict[str, list[ast.expr | None]] = {}
    for method in klass.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        ordered = [*method.args.posonlyargs, *method.args.args]
        if not ordered:
            continue
        own = ordered[0].arg
        for statement in ast.walk(method):
            targets: list[ast.expr] = []
            value: ast.expr | None = None
            annotation: ast.expr | None = None
            if isinstance(statement, ast.Assign):
                targets, value = statement.targets, statement.value
            elif isinstance(statement, ast.AnnAssign):
                targets, value, annotation = [statement.target], statement.value, statement.annotation
            elif isinstance(statement, ast.AugAssign):
                targets = [statement.target]
            for target in targets:
                if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
                    continue
                if target.value.id != own:
                    continue
                kind: ast.expr | None = None
                if isinstance(annotation, (ast.Name, ast.Attribute)):
                    kind = annotation
                elif isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)):
                    kind = value.func
                elif isinstance(value, ast.Constant) and value.value is None and len(targets) == 1:
                    continue
                seen.setdefault(target.attr, []).append(kind)
    result: dict[str, ast.expr] = {}
    for name, kinds in seen.items():
        spelled = {ast.dump(k) for k in kinds if k is not None}
        if None not in kinds and len(spelled) == 1:
            result[name] = next(k for k in kinds if k is not None)
    return result


def _asserted_classes(body: Sequence[ast.AST]) -> dict[str, ast.expr]:
    """The names a function body's own statements assert an instance of one class
    (`assert isinstance(name, Klass)`, `Klass` a name or attribute chain), with the class."""
    found: dict[str, ast.expr] = {}
    for statement in body:
        test = statement.test if isinstance(statement, ast.Assert) else None
        if (
            isinstance(test, ast.Call)
            and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance"
            and len(test.args) == 2
            and not test.keywords
            and isinstance(test.args[0], ast.Name)
            and isinstance(test.args[1], (ast.Name, ast.Attribute))
        ):
            found[test.args[0].id] = test.args[1]
    return found


def _parameters(args: ast.arguments) -> list[ast.arg]:
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *[a for a in (args.vararg, args.kwarg) if a is not None]]


def _defaults(args: ast.arguments) -> list[ast.AST]:
    return [*args.defaults, *[d for d in args.kw_defaults if d is not None]]


def python_references(
    path: str, text: bytes, items: Sequence[DeletedPythonItem], classes: PythonClasses | None = None
) -> list[Reference] | None:
    """The uses in the Python file `path` (its text after the plan) that resolve, or may resolve, to
    a deleted item; in a file `ast` does not parse (Python 2 code), the tokens spelling a deleted
    name (`lexical_references`); None when it does not even tokenize (then matched by spelling)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return lexical_references(path, text, items)
    try:
        return _Resolver(path, text, tree, items, classes).run()
    except RecursionError:  # an expression nested deeper than the walk's recursion allows
        return lexical_references(path, text, items)


def lexical_references(path: str, text: bytes, items: Sequence[DeletedPythonItem]) -> list[Reference] | None:
    """The NAME tokens spelling a deleted item's name, but for those that cannot be a use whatever
    the file's scopes: a name a `def` or `class` defines, a keyword argument or parameter default
    (`name=` within brackets), a dunder method. An attribute (`x.name`), or a method's bare name, is
    a possible use; a module-level item's bare name a definite one. None: the file does not tokenize."""
    wanted: dict[str, list[DeletedPythonItem]] = {}
    for item in items:
        if not (len(item.parts) > 1 and _dunder(item.name)):
            wanted.setdefault(item.name, []).append(item)
    if not wanted:
        return []
    try:
        tokens = [
            t
            for t in tokenize.tokenize(io.BytesIO(text).readline)
            if t.type not in (tokenize.NL, tokenize.COMMENT, tokenize.ENCODING)
        ]
    except (tokenize.TokenError, SyntaxError, IndentationError, UnicodeDecodeError):
        return None
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    lines = text.splitlines()
    found: list[Reference] = []
    depth = 0
    for index, token in enumerate(tokens):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth = max(0, depth - 1)
        if token.type != tokenize.NAME or token.string not in wanted:
            continue
        before = tokens[index - 1].string if index else ""
        after = tokens[index + 1].string if index + 1 < len(tokens) else ""
        if before in ("def", "class") or (after == "=" and depth > 0):
            continue
        row = token.start[0]
        prefix = (
            lines[row - 1].decode("utf-8", "replace")[: token.start[1]].encode("utf-8") if row <= len(lines) else b""
        )
        start = (starts[row - 1] if row - 1 < len(starts) else 0) + len(prefix)
        for item in wanted[token.string]:
            certainty = DEFINITE if before != "." and len(item.parts) == 1 else POSSIBLE
            found.append(
                Reference(
                    path,
                    start,
                    start + len(token.string.encode()),
                    item.name,
                    certainty,
                    "attribute" if before == "." else "name",
                    "same spelling in a file `ast` does not parse"
                    + (" (an attribute of a receiver of unknown type)" if before == "." else ""),
                )
            )
    return found


def definition_facts(source: bytes, qualified: Sequence[str]) -> Iterator[tuple[bool, bool]]:
    """For each dotted name in `qualified` (of a definition in `source`, before it is deleted):
    whether the class directly holding it names bases (`class C(Base):`), and whether it is a
    pytest fixture (a decorator `fixture`, `x.fixture`, or a call of one); both False where the
    source does not parse or the definition is not found."""
    try:
        tree: ast.AST | None = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    for name in qualified:
        holder, node = None, tree
        for part in name.split("."):
            body = getattr(node, "body", []) if node is not None else []
            holder, node = (
                node,
                next(
                    (
                        n
                        for n in body
                        if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == part
                    ),
                    None,
                ),
            )
        inherited = "." in name and isinstance(holder, ast.ClassDef) and bool(holder.bases or holder.keywords)
        decorators = [d.func if isinstance(d, ast.Call) else d for d in getattr(node, "decorator_list", [])]
        fixture = any(
            isinstance(d, ast.Name) and d.id == "fixture" or isinstance(d, ast.Attribute) and d.attr == "fixture"
            for d in decorators
        )
        yield inherited, fixture
