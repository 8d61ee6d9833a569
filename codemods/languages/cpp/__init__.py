"""The C++ plug-in: items (`items`), in-file name resolution (`resolve`), and the operations the
registry calls (`language`). Its lexical scan is `codemods/core/cpp_lexer.py`, below the parser."""
