"""Edits: the values every operation returns (`values`: Edit, Finding), how they are spliced
into a file's bytes (`splice`: FileChange, overlaps, line endings), and where an item's deletion
starts and ends (`item_spans`: whole lines, attached comments, blank lines)."""

from codemods.startup import install as _install

# Before any of the engine's dataclasses is defined (each of its modules imports this folder first):
# their generated methods come compiled from the table beside the bytecode (codemods/startup.py).
_install()
