"""Edits: the values every operation returns (`values`: Edit, Finding), how they are spliced
into a file's bytes (`splice`: FileChange, overlaps, line endings), and where an item's deletion
starts and ends (`item_spans`: whole lines, attached comments, blank lines)."""
