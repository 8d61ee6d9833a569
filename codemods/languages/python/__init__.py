"""Python: deleting functions and classes by qualified name through libcst."""

from codemods.languages.python.items import PythonTarget, delete_python_items

__all__ = ["PythonTarget", "delete_python_items"]
