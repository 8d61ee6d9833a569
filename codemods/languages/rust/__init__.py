"""The Rust plug-in: items (`items`, `members`), deleting a file's targets (`deletion`), name
resolution (the `resolve` package, `crates`), the import stage (`unused_imports`, `imports`),
what deletions take with them in other files (`cascade`, `modules`), cxx bridges (`bridge`,
`bridge_references`), rustfmt (`format`, `excerpt`), statements (`statements`), and the
operations the registry calls (`language`). Its lexical scan is `codemods/core/rust_lexer.py`,
below the parser."""
