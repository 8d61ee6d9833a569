"""The bundled recipes: one package folder per user, each recipe a `NAME.toml` file
with its optional `NAME.py` builder module. Found as files by the catalog
(`codemods/config/catalog.py`); nothing here is imported by the engine.
"""
