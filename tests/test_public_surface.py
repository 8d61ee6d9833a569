"""The one documented public surface: `codemods.__all__` names every export, each resolves and
says what it is, and the version is the installed distribution's."""

from __future__ import annotations

import ast
import inspect
import pydoc
import re
import sys
import types
from importlib.metadata import version

import codemods


def test_all_is_every_export_and_each_resolves() -> None:
    assert codemods.__all__ == sorted(set(codemods.__all__), key=codemods.__all__.index)
    assert set(codemods.__all__) == {*codemods._EXPORTS, "__version__"}
    for name in codemods.__all__:
        assert getattr(codemods, name) is not None, name


def test_the_subset_workflow_is_public() -> None:
    assert {"Change", "Subset", "changes_of", "plan_subset", "Code", "CodemodError"} <= set(codemods.__all__)


def test_every_class_and_function_of_the_surface_says_what_it_is() -> None:
    undocumented = [
        name
        for name in codemods.__all__
        if (inspect.isclass(value := getattr(codemods, name)) or inspect.isfunction(value))
        and not inspect.getdoc(value)
    ]
    assert undocumented == []


def test_the_version_is_the_distributions() -> None:
    assert codemods.__version__ == version("mlxcel-codemods")


def test_help_and_dir_list_every_public_name() -> None:
    """The exports are imported on first use; `help(codemods)`, `dir(codemods)` and completion
    list them all the same (issue 37, point 15)."""
    assert set(codemods.__all__) <= set(dir(codemods))
    shown = pydoc.render_doc(codemods, renderer=pydoc.plaintext)
    listed = {
        name
        for name in codemods.__all__
        if name != "__version__"
        if re.search(rf"^ {{4}}(class )?{re.escape(name)}\b", shown, re.MULTILINE)
    }
    assert listed == set(codemods.__all__) - {"__version__"}


def test_the_type_checkers_see_every_public_name() -> None:
    """Type checkers and IDEs read the `if TYPE_CHECKING:` imports of the package: every export
    is among them, from the module `_EXPORTS` names."""
    tree = ast.parse(inspect.getsource(codemods))
    guarded = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    imported = {
        alias.name: node.module for node in guarded.body if isinstance(node, ast.ImportFrom) for alias in node.names
    }
    assert imported == codemods._EXPORTS


def test_the_package_docstring_describes_every_public_name() -> None:
    """`help(codemods)` opens with the package's docstring: every export is described there."""
    assert [name for name in codemods.__all__ if not re.search(rf"\b{re.escape(name)}\b", codemods.__doc__ or "")] == []


# Members of an exported class that are the package's own, each documented as such by its class.
_PACKAGE_MEMBERS = {"PlanBasis": {"mentioning", "referring", "recheck", "settle"}}


def _annotated_names(obj: object) -> set[str]:
    """The names (dotted parts kept) of the annotations of a function, or of a class's public
    fields, properties and methods (its bases in the package included), as written."""
    annotations: list[object] = []
    if inspect.isfunction(obj):
        annotations += obj.__annotations__.values()
    elif inspect.isclass(obj):
        own = _PACKAGE_MEMBERS.get(obj.__name__, set())
        for klass in obj.__mro__:
            if not klass.__module__.startswith("codemods"):
                continue
            annotations += [
                a
                for name, a in vars(klass).get("__annotations__", {}).items()
                if not name.startswith("_") and name not in own
            ]
            for name, member in vars(klass).items():
                if (name.startswith("_") and name != "__init__") or name in own:
                    continue
                function = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
                if inspect.isfunction(function):  # a field of the package's own is a parameter of __init__
                    annotations += [a for parameter, a in function.__annotations__.items() if parameter not in own]
    return {word for a in annotations if isinstance(a, str) for word in re.findall(r"[A-Za-z_]\w*", a)}


def _aliases_of(module: types.ModuleType) -> set[str]:
    """The names a module of the package assigns at its top level (its type aliases among them)."""
    tree = ast.parse(inspect.getsource(module))
    return {
        target.id
        for node in tree.body
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }


def test_public_signatures_name_only_public_types() -> None:
    """A type named in the signature of an export (a function's parameters and result, a class's
    fields, properties and methods) is exported too, so that a script can name it: a class of
    the package, or a type alias one of its modules defines (`Step`), is one of `__all__`
    (issue 37, point 16). Private names (`_HasChanges`, a shape any value of which is taken)
    are not types to name."""
    private: dict[str, set[str]] = {}
    for export in codemods.__all__:
        value = getattr(codemods, export)
        if not (inspect.isclass(value) or inspect.isfunction(value)):
            continue
        module = sys.modules[value.__module__]
        for name in _annotated_names(value) - set(codemods.__all__):
            named = getattr(module, name, None)
            if name.startswith("_") or named is None or inspect.ismodule(named):
                continue
            defined_here = (
                inspect.isclass(named)
                and named.__module__.startswith("codemods")
                or not inspect.isclass(named)
                and any(
                    name in _aliases_of(m)
                    for m in list(sys.modules.values())
                    if m.__name__.startswith("codemods.") and getattr(m, name, None) is named
                )
            )
            if defined_here:
                private.setdefault(name, set()).add(export)
    assert private == {}
