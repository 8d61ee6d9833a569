"""Languages: the registry (`registry`), one plug-in package per language (`rust`, `cpp`,
`python`), what a name resolution says (`resolution`) and the lexical scan of comments and
strings (`lexer`). Generic code asks the registry; nothing outside a plug-in names a language."""
