"""The one documented public surface: `codemods.__all__` names every export, each resolves and
says what it is, and the version is the installed distribution's."""

from __future__ import annotations

import inspect
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
    undocumented = [name for name in codemods.__all__
                    if (inspect.isclass(value := getattr(codemods, name)) or inspect.isfunction(value))
                    and not inspect.getdoc(value)]
    assert undocumented == []


def test_the_version_is_the_distributions() -> None:
    assert codemods.__version__ == version("mlxcel-codemods")
