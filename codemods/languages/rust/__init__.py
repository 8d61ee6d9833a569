"""Rust: locating items (with their doc comments and attributes) and deleting them."""

from codemods.languages.rust.items import RustItem, delete_rust_items, rust_items

__all__ = ["RustItem", "delete_rust_items", "rust_items"]
