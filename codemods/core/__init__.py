"""The bottom layer beside parse/ and edit/: the language registry and the contracts a language
plug-in implements (`registry.py`: `Language`, the protocol `LanguageOperations` and the values its
operations return, `Deletions`, `References`, `DeletedWith`, and `PlanState`), and the
lexical scan of comments and strings, no parse: what every language shares (`lexer.py`) and
each registered language's scanner (`rust_lexer.py`, `cpp_lexer.py`, `python_lexer.py`), and work
spread over forked processes (`parallel.py`, for the plug-ins' resolution of many files)."""
