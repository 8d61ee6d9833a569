"""C++: locating function definitions and declarations, with their comments, and deleting them."""

from codemods.languages.cpp.items import CppItem, CppTarget, cpp_items, delete_cpp_items

__all__ = ["CppItem", "CppTarget", "cpp_items", "delete_cpp_items"]
