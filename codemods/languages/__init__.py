"""Languages: one plug-in package per language (`rust`, `cpp`, `python`), each exporting its
typed `OPERATIONS` (the contract: codemods/core/registry.py), and what a name resolution says
(`resolution`). Generic code asks the registry; nothing outside a plug-in names a language."""
