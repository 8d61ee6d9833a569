"""Rust name resolution for the dangling-reference check.

A use of a name refers to a deleted item only if it resolves to it. This
module resolves names the way rustc does, as far as the source shows it:

* crates and modules come from Cargo.toml and `mod` declarations
  (codemods/languages/rust/crates.py); another crate reaches an item through its crate
  name or a re-export; `extern crate x as y` (and `use x as y`, `pub use x`) binds a name
  to crate `x`'s root like any import, and at a crate root adds it to the extern prelude;
* lexical scopes: a `let`, parameter, closure parameter, pattern binding,
  generic parameter or block item of the same name shadows module items;
  a nested `fn` does not see the locals of the function around it;
* module scopes: items, `use` declarations (renames, groups, `self`, globs,
  `pub use` re-exports, `crate`/`self`/`super` paths; in an edition 2015
  crate a `use` path starts at the crate root), then glob imports,
  which bring in only what is visible to the importing module
  (private: the item's module and its descendants; `pub(crate)`,
  `pub(super)`, `pub(in path)`);
* qualified paths, segment by segment, in the type namespace before the last;
* `#[serde(default = "f")]`-like attributes name functions;
* a method call or field access `x.name` refers to a deleted method only
  where the receiver is `self` in an impl of its type; elsewhere it is
  *possible*, as is a use inside a `macro_rules!` body or inside an
  invocation of a macro whose arguments are not known to be expressions.

Module scopes are read from the tree before the plan (where the deleted items
still exist); uses and their local scopes from the text after it.

The modules, by concern: `values` (what is resolved and what it resolves to), `syntax` (what
the resolver reads off nodes), `scopes` (what a module declares, what a lexical scope binds),
`lookup` (names and paths in a module and at a place), `occurrences` (what a spelling of a name
is), `receivers` (a method call's receiver type), `references` (the uses of deleted items in a
file, and the fan-out of many files over processes).
"""

from codemods.languages.rust.resolve.occurrences import EXPRESSION_MACROS, SERDE_FUNCTION_KEYS, SERDE_MODULE_KEYS
from codemods.languages.rust.resolve.references import PARALLEL_FILES, RustResolver, deleted_rust_items
from codemods.languages.rust.resolve.values import MACRO, TYPE, VALUE, DeletedRustItem

__all__ = [
    "EXPRESSION_MACROS",
    "MACRO",
    "PARALLEL_FILES",
    "SERDE_FUNCTION_KEYS",
    "SERDE_MODULE_KEYS",
    "TYPE",
    "VALUE",
    "DeletedRustItem",
    "RustResolver",
    "deleted_rust_items",
]
