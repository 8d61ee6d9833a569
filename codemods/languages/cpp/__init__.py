"""The C++ plug-in: items (`items`), in-file name resolution (`resolve`), the lexical scan
(`lexer`), and the operations the registry calls (`language`)."""
