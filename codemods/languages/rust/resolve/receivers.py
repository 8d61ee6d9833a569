"""Receiver types: what type the receiver of a method call `x.name(...)` has, where the source
shows it (`self` in an impl, a field of a struct the file declares, a local or parameter with a
written type or an evident constructor, a literal), followed through imports, renames and
`type` aliases to the struct, enum or union it is; so that a call is a definite use of a deleted
method where the receiver is its type, no use where it is another, and a possible one elsewhere."""

from __future__ import annotations

import re

import tree_sitter

from codemods.languages.resolution import DEFINITE, POSSIBLE, Reference
from codemods.languages.rust.resolve.lookup import PathLookup
from codemods.languages.rust.resolve.scopes import binds, binds_here, generic_here
from codemods.languages.rust.resolve.syntax import enclosing_impl, impl_type, root_of
from codemods.languages.rust.resolve.values import (
    EXTERNAL,
    TYPE,
    Def,
    DeletedRustItem,
    ModuleKey,
    Place,
    SourceFile,
    Spelling,
)
from codemods.parse import enclosing, node_text
from codemods.words import blanks_before, word_ends_at, word_matches


class ReceiverTypes:
    """Method calls judged by their receiver's type, the type names resolved through `paths`."""

    def __init__(self, paths: PathLookup) -> None:
        self.paths = paths
        self._file_types: dict[str, FileTypes] = {}  # of the files as read, where an alias is
        self._derefs: dict[tuple[Def, str, int], str | None] = {}  # `_deref_target`'s answers
        self._deref_spelled: dict[str, tuple[bytes, bool]] = {}  # `_spells_deref`'s, by file
        self._whole_impls: dict[tuple[str, int], bool] = {}  # `_impl_is_whole`'s, by method

    def method_call(
        self, key: ModuleKey, file: SourceFile, types: FileTypes, receiver: tree_sitter.Node | None, spelling: Spelling
    ) -> Reference | None:
        """`receiver.name(...)` in the module `key` of `file` (whose declared types are `types`):
        definite where the receiver's type is the deleted method's type, nothing where it is known
        to be another type, possible where it is not known."""
        name = spelling.name
        methods = [t for t in spelling.candidates if t.owner is not None]
        if not methods:
            return None
        known = receiver_type(receiver, types) if receiver is not None else None
        if known is not None and known[1] and not types.declares(known[0]):
            # `self` in `impl Trait for Imported` (or `for a::Imported`): a type of another file,
            # resolved by the impl's path for it.
            known = (_impl_type_path(receiver) if receiver is not None else None) or known[0], False
        definition = None  # the tree's declaration of the receiver's type, where it shows
        if receiver is not None and known is not None and not known[1] and _is_type_path(known[0]):
            behind = self._tree_type(key, Place(file, receiver), known[0])
            known, definition = (behind[:2], behind[2]) if behind is not None else (None, None)
        if known is None and receiver is not None and receiver.type == "call_expression":
            chained = self._builder_chain(key, file, types, receiver, methods)
            if chained is not None:
                return _call(
                    file,
                    spelling,
                    DEFINITE,
                    f"the receiver is a {chained} (a chain of its methods returning Self); "
                    f"resolves to {chained}::{name}",
                )
        if known is not None:
            type_name, declared_in_this_file = known
            same_type = [t for t in methods if t.owner == type_name]
            if definition is not None and all(t.owner_declared_here and t.path != definition.file for t in same_type):
                same_type = []  # a namesake: the type resolved to is declared elsewhere than the deleted impl's
            if not same_type:
                if definition is None and declared_in_this_file and receiver is not None and self._spells_deref(file):
                    behind = self._tree_type(key, Place(file, receiver), type_name)
                    definition = behind[2] if behind is not None else None
                through = (
                    self._deref_target(definition, name, {t.owner for t in methods if t.owner})
                    if definition is not None
                    else None
                )
                if through is None:
                    return None
                return _call(
                    file,
                    spelling,
                    POSSIBLE,
                    f"the receiver is a {type_name}, which has no method {name} in its file and may reach "
                    f"the deleted one by auto-deref ({through})",
                )
            if declared_in_this_file and any(t.path == file.path and self._impl_is_whole(t) for t in same_type):
                return _call(
                    file, spelling, DEFINITE, f"the receiver is a {type_name}; resolves to {type_name}::{name}"
                )
            if declared_in_this_file and all(t.owner_declared_here and t.path != file.path for t in same_type):
                return None  # this file's own type of that name, not the deleted impl's
            if definition is not None and any(self._is_owner(definition, t) for t in same_type):
                return _call(
                    file,
                    spelling,
                    DEFINITE,
                    f"the receiver is a {type_name} ({self.paths.describe(definition)}); "
                    f"resolves to {type_name}::{name}",
                )
        deleted = ", ".join(dict.fromkeys(f"{t.owner}::{t.name}" for t in methods))
        return _call(
            file, spelling, POSSIBLE, f"`.{name}(...)` on a receiver whose type is not known here (deleted: {deleted})"
        )

    def _builder_chain(
        self,
        key: ModuleKey,
        file: SourceFile,
        types: FileTypes,
        receiver: tree_sitter.Node,
        methods: list[DeletedRustItem],
    ) -> str | None:
        """The deleted method's type where `receiver` is a chain `base.a(..).b(..)` whose base is
        of that type (a constructor call `Type::new(..)`, or a receiver the file types) and whose
        every method an impl of the type in the deleted method's file declares `-> Self` (or the
        type): the builder pattern. None where that does not show."""
        chain: list[str] = []
        base: tree_sitter.Node | None = receiver
        while base is not None and base.type == "call_expression":
            function = base.child_by_field_name("function")
            if function is None or function.type != "field_expression":
                break
            chain.append(node_text(function.child_by_field_name("field")))
            base = function.child_by_field_name("value")
        if base is None:
            return None
        constructed = _constructed_type(base) if base.type == "call_expression" else None
        if constructed is not None:
            known = _named_type(constructed, base, False, types)
        else:
            known = receiver_type(base, types) if chain else None
        if known is None or not _is_type_path(known[0]):
            return None
        if not known[1]:
            behind = self._tree_type(key, Place(file, base), known[0])
            known = behind[:2] if behind is not None else None
        if known is None:
            return None
        for method in methods:
            if method.owner != known[0]:
                continue
            found = self.paths.scopes.tree(method.path)
            if found is not None and all(_returns_own_type(found[1].root_node, known[0], link) for link in chain):
                return known[0]
        return None

    def _tree_type(
        self, key: ModuleKey, place: Place, type_name: str, depth: int = 0
    ) -> tuple[str, bool, Def | None] | None:
        """What the type name or path `type_name` (`Name` not declared in this file, or `a::Name`)
        is at `place`: the struct, enum or union it resolves to (through imports, renames and type
        aliases), whether the file of `place` declares it, and its declaration where one alone
        shows; None where it may be anything (a name resolution cannot follow), or a type
        outside the tree. A path is resolved as written, not by its last name: in the module it
        is written in that name may be another type, or the alias `pub type Name = a::Name;`."""
        segments = tuple(type_name.split("::"))
        if len(segments) > 1:
            outcomes = self.paths.resolve_segments(key, place, segments, TYPE)
        else:
            outcomes = self.paths.lexical(key, place, type_name, TYPE)
        names = set()
        declarations: set[Def | None] = set()
        here = True  # whether every type found is declared in the file of `place`
        for outcome in outcomes:
            target = outcome.target
            if isinstance(target, Def) and target.kind in _TYPE_ITEMS:
                names.add(target.name)
                declarations.add(target)
                here = here and target.file == place.file.path
            elif isinstance(target, Def) and target.kind == "type_item" and depth < 8:
                aliased = self._alias_target(target, depth)
                if aliased is None:
                    return None
                names.add(aliased[0])
                declarations.add(aliased[1])
                here = False
            elif target != EXTERNAL:
                return None
        if len(names) > 1:
            return None
        if names:
            return names.pop(), here, declarations.pop() if len(declarations) == 1 else None
        # Outside the tree (std, a registry crate), or not found (a prelude type): by its name.
        return ("<a type outside the tree>", False, None) if outcomes else (segments[-1], False, None)

    def _alias_target(self, alias: Def, depth: int) -> tuple[str, Def | None] | None:
        """The type a `type` alias stands for (followed to a struct, enum or union), where that
        shows, with its declaration where that shows too."""
        found = self.paths.scopes.tree(alias.file)
        node = enclosing(found[1].root_node, alias.start, ("type_item",)) if found else None
        aliased = node.child_by_field_name("type") if node is not None else None
        if found is None or aliased is None:
            return None
        named = _named_type(aliased, aliased, False, self._types_of(alias.file, found[1]))
        if named is None or not _is_type_path(named[0]):
            return None
        if named[1]:
            return named[0], None
        behind = self._tree_type(alias.module, Place(SourceFile(alias.file, *found), aliased), named[0], depth + 1)
        return (behind[0], behind[2]) if behind is not None else None

    def _impl_is_whole(self, method: DeletedRustItem) -> bool:
        """Whether the impl that declares the deleted `method` is of its type with any arguments
        (`impl Type`, `impl<T> Type<T>`), not of some of them only (`impl Type<u8>`, where a call
        on a `Type<u16>` may reach another impl's method of the name)."""
        whole = self._whole_impls.get((method.path, method.start))
        if whole is None:
            found = self.paths.scopes.tree(method.path)
            impl = enclosing(found[1].root_node, method.start, ("impl_item",)) if found is not None else None
            kind = impl.child_by_field_name("type") if impl is not None else None
            arguments = kind.child_by_field_name("type_arguments") if kind is not None else None
            parameters = impl.child_by_field_name("type_parameters") if impl is not None else None
            declared = {
                node_text(p.child_by_field_name("name") or p)
                for p in (parameters.named_children if parameters is not None else [])
            }
            whole = self._whole_impls[(method.path, method.start)] = impl is not None and all(
                a.type == "lifetime" or a.type == "type_identifier" and node_text(a) in declared
                for a in (arguments.named_children if arguments is not None else [])
            )
        return whole

    def _spells_deref(self, file: SourceFile) -> bool:
        """Whether `file`'s text spells `Deref` (an impl of it may be there), read once per text."""
        kept = self._deref_spelled.get(file.path)
        if kept is None or kept[0] is not file.source:
            kept = self._deref_spelled[file.path] = (file.source, b"Deref" in file.source)
        return kept[1]

    def _is_owner(self, definition: Def, method: DeletedRustItem) -> bool:
        """Whether the type declaration `definition` is the one whose inherent impl has the deleted
        `method`: declared in the method's file, the only type of its name there."""
        if method.trait or method.in_trait or not method.owner_declared_here or definition.file != method.path:
            return False
        if not self._impl_is_whole(method):
            return False
        found = self.paths.scopes.tree(method.path)
        return found is not None and len(self._types_of(method.path, found[1]).declarations(definition.name)) == 1

    def _types_of(self, path: str, tree: tree_sitter.Tree) -> FileTypes:
        """The types the file at `path` as read declares (its tree `tree`)."""
        if path not in self._file_types:
            self._file_types[path] = FileTypes(tree.root_node)
        return self._file_types[path]

    def _deref_target(self, definition: Def, name: str, owners: set[str], depth: int = 0) -> str | None:
        """Where a call `.name(..)` on a value of the tree's type `definition` may reach a method
        of one of `owners` by auto-deref: the type's file has an `impl Deref for Type` whose
        `Target` is one of them, or a type not known there (a generic parameter), or a type that
        does so in turn, and no impl of that file gives the type a method `name` of its own
        (which the call would take first). Its description then ("Type derefs to Target"), else
        None. Only the type's own file is read: the impls Rust keeps next to the type."""
        memo = (definition, name, depth)
        if memo in self._derefs:
            return self._derefs[memo]
        self._derefs[memo] = None  # a cycle of derefs reaches nothing new
        text = self.paths.scopes.text(definition.file)  # the file is parsed only where it spells Deref
        found = self.paths.scopes.tree(definition.file) if text is not None and b"Deref" in text else None
        target = _deref_type(found[1].root_node, definition.name) if found is not None else None
        through = None
        if found is not None and target is not None and not _declares_method(found[1].root_node, definition.name, name):
            named = _named_type(target, target, False, self._types_of(definition.file, found[1]))
            shown = f"{definition.name} derefs to {node_text(target)}"
            if named is None or named[0] in owners:
                through = shown
            elif _is_type_path(named[0]) and depth < 3:
                place = Place(SourceFile(definition.file, *found), target)
                behind = self._tree_type(definition.module, place, named[0])
                if behind is not None and behind[0] in owners:
                    through = shown
                elif behind is not None and behind[2] is not None:
                    further = self._deref_target(behind[2], name, owners, depth + 1)
                    through = f"{shown}, which {further.split(' ', 1)[1]}" if further is not None else None
        self._derefs[memo] = through
        return through


_TYPE_ITEMS = frozenset({"struct_item", "enum_item", "union_item"})
_BUILTIN_TYPES = frozenset(
    {"primitive_type", "array_type", "tuple_type", "pointer_type", "function_type", "unit_type", "never_type"}
)
_PRIMITIVES = frozenset(
    {
        "bool",
        "char",
        "str",
        "u8",
        "u16",
        "u32",
        "u64",
        "u128",
        "usize",
        "i8",
        "i16",
        "i32",
        "i64",
        "i128",
        "isize",
        "f32",
        "f64",
    }
)
# The type of a literal receiver (`"text".len()`); byte strings and numbers are left unknown.
_LITERAL_TYPES = {
    "string_literal": "str",
    "raw_string_literal": "str",
    "char_literal": "char",
    "boolean_literal": "bool",
}
_POINTERS = frozenset({"Box", "Arc", "Rc", "RefCell", "Mutex", "RwLock"})
# The pointers whose constructor `P::new(value)` gives a value that derefs to `value`'s type.
_OWNING_POINTERS = frozenset({"Box", "Arc", "Rc"})
# Other std types (and the same-named ones of common crates) that deref to their type parameter.
_DEREF_WRAPPERS = frozenset(
    {
        "Ref",
        "RefMut",
        "MutexGuard",
        "RwLockReadGuard",
        "RwLockWriteGuard",
        "MappedMutexGuard",
        "Cow",
        "ManuallyDrop",
        "Pin",
        "LazyLock",
        "LazyCell",
        "Lazy",
        "AssertUnwindSafe",
    }
)
_SEQUENCES = frozenset({"Vec", "VecDeque", "SmallVec"})


def _call(file: SourceFile, spelling: Spelling, certainty: str, resolution: str) -> Reference:
    """The reference a method call `.name(..)` (the spelling `spelling` of `file`) makes."""
    return Reference(file.path, spelling.start, spelling.end, spelling.name, certainty, "method call", resolution)


def _is_type_path(text: str) -> bool:
    """Whether `text` (from `_named_type`) names a type that resolution may follow: `Name` or a
    path `a::b::Name` (`crate`, `self`, `super`, a leading `::` included), not a primitive."""
    segments = text.split("::")
    if segments[0] == "" and len(segments) > 1:
        segments = segments[1:]
    return all(s.isidentifier() for s in segments) and segments[-1] not in _PRIMITIVES


def _after_type_keyword(source: bytes, at: int) -> bool:
    """Whether `struct`, `enum` or `union` and blanks come right before byte `at` (regex
    `\\b(?:struct|enum|union)\\s+` ending there)."""
    start = blanks_before(source, at)
    return start != at and word_ends_at(source, start, (b"struct", b"enum", b"union"))


class FileTypes:
    """The types a file declares (struct, enum, union, at any depth), asked by name: whether it
    declares one, and the field types of its first struct of that name. Each name is looked up
    where the source spells `struct NAME` (or enum, union), and confirmed in the tree there: a
    file is asked about a few names, and a walk or a query of all its nodes costs milliseconds."""

    def __init__(self, root: tree_sitter.Node) -> None:
        self._root = root
        self._source: bytes | None = None  # the root's text, read on the first question
        self._items: dict[str, list[tree_sitter.Node]] = {}

    def declarations(self, name: str) -> list[tree_sitter.Node]:
        """The struct, enum and union items of the file named `name`."""
        if name not in self._items:
            found = []
            base = self._root.start_byte
            if self._source is None:
                self._source = (
                    self._root.text or b""
                )  # from the root's first byte (not the file's, after leading blanks)
            for match in word_matches(self._source, (name,)):
                if not _after_type_keyword(self._source, match.start()):
                    continue  # not `struct NAME`, `enum NAME` or `union NAME`
                node = self._root.descendant_for_byte_range(base + match.start(), base + match.end())
                item = node.parent if node is not None else None
                if item is not None and item.type in _TYPE_ITEMS and item.child_by_field_name("name") == node:
                    found.append(item)
            self._items[name] = found
        return self._items[name]

    def declares(self, name: str) -> bool:
        return bool(self.declarations(name))

    def fields(self, name: str) -> dict[str, tree_sitter.Node | None]:
        """Field name -> type node of the first struct `name` with named fields ({} if none)."""
        for item in self.declarations(name):
            body = item.child_by_field_name("body")
            if item.type == "struct_item" and body is not None:
                return {
                    node_text(d.child_by_field_name("name")): d.child_by_field_name("type")
                    for d in body.named_children
                    if d.type == "field_declaration"
                }
        return {}


def receiver_type(receiver: tree_sitter.Node, types: FileTypes) -> tuple[str, bool] | None:
    """(type name, whether this file declares it) where the source shows the receiver's type:
    `self` in an impl; a field (`self.field`, `value.field`, and `...[i]`) of a struct this file
    declares, with the field's declared type; a local or parameter with a type annotation, a
    `Type { .. }` or `Type::new(..)` value (a constructor: `new`, `default`, `with_...`); a string
    or char literal."""
    if receiver.type == "self":
        owner = impl_type(receiver)
        return (owner, True) if owner else None
    if receiver.type in _LITERAL_TYPES:
        return _named_type(receiver, receiver, False, types)
    indexed = receiver.type == "index_expression"
    access = (receiver.named_children[0] if receiver.named_children else None) if indexed else receiver
    if access is not None and access.type == "field_expression":
        value = access.child_by_field_name("value")
        assert value is not None  # a field expression has its value
        owner = impl_type(access) if value.type == "self" else _struct_of(value, types)
        fields = types.fields(owner) if owner else {}
        return _named_type(fields.get(node_text(access.child_by_field_name("field"))), access, indexed, types)
    if receiver.type == "identifier":
        binder, below, scope = _nearest_binding(receiver)
        loop = _loop_over_field(binder) if binder is not None and binder.type == "for_expression" else None
        if loop is not None:
            owner = impl_type(loop)
            fields = types.fields(owner) if owner else {}
            return _named_type(fields.get(node_text(loop.child_by_field_name("field"))), loop, True, types)
        return _named_type(_local_type(receiver, binder, below, scope), receiver, False, types)
    return None


def _struct_of(value: tree_sitter.Node, types: FileTypes) -> str | None:
    """The struct this file declares that `value` (the left of `value.field`) is, where that shows."""
    if value.type not in ("identifier", "field_expression", "index_expression"):
        return None
    known = receiver_type(value, types)
    return known[0] if known is not None and known[1] else None


def _nearest_binding(
    variable: tree_sitter.Node,
) -> tuple[tree_sitter.Node | None, tree_sitter.Node, tree_sitter.Node | None]:
    """(the node nearest above `variable` that binds its name for it, its child on the way down to
    `variable`, the `function_item` or closure it is in): a `for` whose pattern binds it around the
    body, a block with a `let` of it before that child, or another binder (`binds_here`); the
    first is None where none does up to the function or closure (the child is then the one below
    that), the third None outside one. One walk up for both `_loop_over_field`
    and `_local_type`, which stop at the same node (each `.parent` step is a descent from the
    root in tree-sitter 0.26)."""
    name = variable.text or b""
    child, current = variable, variable.parent
    while current is not None and current.type not in ("function_item", "closure_expression"):
        if current.type == "for_expression" and child == current.child_by_field_name("body"):
            if binds(current.child_by_field_name("pattern"), name):
                return current, child, None
        elif binds_here(current, child, name):
            return current, child, None
        child, current = current, current.parent
    return None, child, current


def _loop_over_field(binder: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `self.field` walked by the `for variable in &self.field` (or `self.field.iter()`,
    `.iter_mut()`) loop `binder` that binds the variable (`_nearest_binding`), where it binds it
    alone (its pattern is the variable)."""
    pattern = binder.child_by_field_name("pattern")
    return (
        _walked_field(binder.child_by_field_name("value"))
        if pattern is not None and pattern.type == "identifier"
        else None
    )


def _walked_field(value: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """`self.field` for the loop values `&self.field`, `&mut self.field`, `self.field.iter()`, `self.field.iter_mut()`."""
    if value is not None and value.type == "reference_expression":
        value = value.child_by_field_name("value")
    if value is not None and value.type == "call_expression":
        method = value.child_by_field_name("function")
        arguments = value.child_by_field_name("arguments")
        if (
            method is None
            or method.type != "field_expression"
            or arguments is None
            or arguments.named_children
            or node_text(method.child_by_field_name("field")) not in ("iter", "iter_mut")
        ):
            return None
        value = method.child_by_field_name("value")
    if value is not None and value.type == "field_expression":
        owner = value.child_by_field_name("value")
        if owner is not None and owner.type == "self":
            return value
    return None


def _named_type(
    node: tree_sitter.Node | None, place: tree_sitter.Node, indexed: bool, types: FileTypes
) -> tuple[str, bool] | None:
    """The name of a type node, or its path as written (through references, Box/Arc/Rc, the
    associated types of the `impl` around `place` (`Self::Item`), and for `indexed` a Vec's or an
    array's element), unless it is a generic parameter; and whether this file declares it."""
    hops = 0
    wrapped = False  # through a `_DEREF_WRAPPERS` type: a named type it wraps is not known
    while node is not None:
        if node.type == "reference_type":
            node = node.child_by_field_name("type")
        elif indexed and node.type in ("array_type", "slice_type"):
            node, indexed = (
                node.child_by_field_name("element") or (node.named_children[0] if node.named_children else None),
                False,
            )
        elif node.type == "generic_type":
            path = "".join(node_text(node.child_by_field_name("type")).split())
            base = path.split("::")[-1]
            arguments = node.child_by_field_name("type_arguments")
            inner = next((a for a in arguments.named_children if a.type != "lifetime"), None) if arguments else None
            if base in _POINTERS or indexed and base in _SEQUENCES:
                indexed = indexed and base not in _SEQUENCES
                node = inner
            elif base in _DEREF_WRAPPERS and not indexed:
                # A guard or wrapper that derefs to its parameter: the parameter's methods are
                # called through it, but the name may be a type of the tree's own: a builtin
                # parameter (`Cow<'_, str>`) shows the call's type, a named one is not known.
                wrapped, node = True, inner
            elif _is_associated(path) and hops < 4:
                # `Self::Item<'a>`: the impl's `type Item<'a> = ...;`, its own parameters in it.
                node, hops = _associated_type(place, base), hops + 1
            else:
                return None if indexed or wrapped else _declared_type(path, place, types)
        elif node.type in ("type_identifier", "scoped_type_identifier", "identifier", "scoped_identifier"):
            path = "".join(node_text(node).split())
            if wrapped:
                return None
            if path == "Self":
                owner = impl_type(place)
                return (owner, True) if owner and not indexed else None
            if _is_associated(path) and hops < 4:
                node, hops = _associated_type(place, path[len("Self::") :]), hops + 1
                continue
            return None if indexed else _declared_type(path, place, types)
        elif node.type in _BUILTIN_TYPES and not indexed and node.child_by_field_name("length") is None:
            # A primitive, slice, tuple or pointer: no struct's or enum's method is called on it.
            # (An array is left unknown: its methods include those of the slice it unsizes to.)
            return "".join(node_text(node).split()), False
        elif node.type in _LITERAL_TYPES and not indexed and not (node.text or b"").startswith(b"b"):
            return _LITERAL_TYPES[node.type], False
        else:
            return None
    return None


def _deref_type(root: tree_sitter.Node, type_name: str) -> tree_sitter.Node | None:
    """The `Target` type of an `impl Deref for type_name` (or `impl<T> ops::Deref for
    type_name<T>`) of the file `root`, where it declares one."""
    source = root.text or b""
    for match in re.finditer(rb"\bDeref\b", source):
        token = root.descendant_for_byte_range(match.start(), match.end())
        node = enclosing_impl(token) if token is not None else None
        if node is None:
            continue
        trait = node.child_by_field_name("trait")
        if trait is None or node_text(trait).split("<")[0].split("::")[-1].strip() != "Deref":
            continue
        if impl_type(trait) != type_name:
            continue
        body = node.child_by_field_name("body")
        for item in body.named_children if body is not None else []:
            if item.type == "type_item" and node_text(item.child_by_field_name("name")) == "Target":
                return item.child_by_field_name("type")
    return None


def _declares_method(root: tree_sitter.Node, type_name: str, name: str) -> bool:
    """Whether an impl of the file `root` (inherent or of a trait) gives `type_name` a function `name`."""
    for match in re.finditer(rb"\bfn\s+(" + re.escape(name.encode()) + rb")\b", root.text or b""):
        node = root.descendant_for_byte_range(match.start(1), match.end(1))
        function = node.parent if node is not None else None
        body = function.parent if function is not None and function.type == "function_item" else None
        if (
            function is not None
            and body is not None
            and body.type == "declaration_list"
            and body.parent is not None
            and body.parent.type == "impl_item"
            and impl_type(function) == type_name
        ):
            return True
    return False


def _impl_type_path(node: tree_sitter.Node) -> str | None:
    """The path of the type implemented by the `impl` around `node` as written there, without its
    generic arguments or a reference (`a::Imported` of `impl<T> Trait for &a::Imported<T>`); None
    outside one."""
    impl = enclosing_impl(node)
    kind = impl.child_by_field_name("type") if impl is not None else None
    while kind is not None and kind.type == "reference_type":
        kind = kind.child_by_field_name("type")  # `impl Trait for &Type`: `self` derefs to a Type
    if kind is not None and kind.type == "generic_type":
        kind = kind.child_by_field_name("type")
    return "".join(node_text(kind).split()) if kind is not None else None


def _is_associated(path: str) -> bool:
    """Whether the type path `path` is `Self::Name`, an associated type of the impl it is in."""
    return path.startswith("Self::") and path.count("::") == 1


def _associated_type(place: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
    """The type that the `impl` around `place` gives its associated type `name` (`type Item =
    T;`), None outside an impl or where it declares none of that name (a trait's default method
    knows no more than the trait's bounds)."""
    impl = enclosing_impl(place)
    body = impl.child_by_field_name("body") if impl is not None else None
    for item in body.named_children if body is not None else []:
        if item.type == "type_item" and node_text(item.child_by_field_name("name")) == name:
            return item.child_by_field_name("type")
    return None


def _declared_type(name: str, place: tree_sitter.Node, types: FileTypes) -> tuple[str, bool] | None:
    """(name, declared in this file) unless `name` is a generic parameter around `place`; a path
    `a::Name` as written (no generic parameter, and which type it is its resolution tells)."""
    if "::" in name:
        return name, False
    current: tree_sitter.Node | None = place
    while current is not None:
        if generic_here(current, name.encode()):
            return None
        current = current.parent
    return name, types.declares(name)


def _local_type(
    variable: tree_sitter.Node, binder: tree_sitter.Node | None, below: tree_sitter.Node, scope: tree_sitter.Node | None
) -> tree_sitter.Node | None:
    """The type of a local or parameter where it is written: `let x: T`, `let x = T { .. }`, `x: T`;
    `binder`, `below` and `scope` are `_nearest_binding(variable)`'s."""
    name = variable.text or b""
    if binder is not None:
        if binder.type != "block":
            return None  # a `for`, a `match` arm, a closure parameter, `if let`: not written here
        latest = None
        for statement in binder.named_children:
            if statement.start_byte >= below.start_byte:
                break
            pattern = statement.child_by_field_name("pattern") if statement.type == "let_declaration" else None
            if pattern is not None and binds(pattern, name):
                latest = statement
        assert latest is not None  # the block binds it (`binds_here`): a `let` before it does
        latest_pattern = latest.child_by_field_name("pattern")
        if latest_pattern is None or latest_pattern.type != "identifier":
            return None
        value = latest.child_by_field_name("value")
        if latest.child_by_field_name("type") is None and value is not None:
            return _constructed_type(value)
        return latest.child_by_field_name("type")
    if scope is not None and scope.type == "function_item":
        parameters = scope.child_by_field_name("parameters")
        for parameter in parameters.named_children if parameters is not None else []:
            pattern = parameter.child_by_field_name("pattern")
            if (
                parameter.type == "parameter"
                and pattern is not None
                and pattern.type == "identifier"
                and pattern.text == name
            ):
                return parameter.child_by_field_name("type")
    return None


def _constructed_type(value: tree_sitter.Node) -> tree_sitter.Node | None:
    """The node naming the type a `let` value evidently has: `Type { .. }`, a constructor call
    `Type::new(..)`, `Type::default()` or `Type::with_...(..)` (by Rust's naming convention these
    return the type), a string or char literal; None for any other value."""
    if value.type == "struct_expression":
        return value.child_by_field_name("name")
    if value.type in _LITERAL_TYPES:
        return value
    function = value.child_by_field_name("function") if value.type == "call_expression" else None
    if function is None or function.type != "scoped_identifier":
        return None
    name = node_text(function.child_by_field_name("name"))
    path = function.child_by_field_name("path")
    # The path names a type (UpperCamelCase, as rustc asks), not a module's function `new`.
    last = node_text(path.child_by_field_name("type") if path is not None and path.type == "generic_type" else path)
    if last.split("::")[-1] in _OWNING_POINTERS and name in ("new", "pin"):
        # `Arc::new(value)` derefs to the value's type: a method call on it reaches the value's.
        arguments = value.child_by_field_name("arguments")
        inner = arguments.named_children[0] if arguments is not None and arguments.named_children else None
        return _constructed_type(inner) if inner is not None else None
    is_type = last.split("::")[-1][:1].isupper()
    conventional = name in ("new", "default") or name.startswith("with_")
    return path if is_type and (conventional or _returns_own_type(value, last.split("::")[-1], name)) else None


def _returns_own_type(place: tree_sitter.Node, owner: str, name: str) -> bool:
    """Whether the file of `place` has an impl of `owner` whose function `name` is declared to
    return `Self` or `owner` (`fn unlit() -> Self`): a call of it gives an `owner`."""
    root = root_of(place)
    spelled = re.compile(
        rb"\bfn\s+("
        + re.escape(name.encode())
        + rb")\b[^{;]*?->\s*(?:Self|"
        + re.escape(owner.encode())
        + rb")\s*(?:\{|where\b)"
    )
    for match in spelled.finditer(root.text or b""):
        node = root.descendant_for_byte_range(root.start_byte + match.start(1), root.start_byte + match.end(1))
        function = node.parent if node is not None else None
        if function is not None and function.type == "function_item" and impl_type(function) == owner:
            return True
    return False
