"""The Rust plug-in: items (`items`), name resolution (`resolve`, `crates`), the lexical scan
(`lexer`), rustfmt (`format`), cxx bridges (`bridge`), statements (`statements`), and the
operations the registry calls (`language`)."""
