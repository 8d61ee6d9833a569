"""The Rust plug-in: items (`items`), name resolution (the `resolve` package, `crates`), rustfmt (`format`),
cxx bridges (`bridge`), statements (`statements`), and the operations the registry calls
(`language`). Its lexical scan is `codemods/core/rust_lexer.py`, below the parser."""
