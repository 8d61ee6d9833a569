"""What the codemods and analysis packages share without depending on each other.

- `interchange.decision`: the decision.json schema. ``paged-bench report``
  (analysis) writes it; the ``paged-flag`` codemod recipe reads it with
  `load_decision` and receives typed, validated values.
- `interchange.atomic_file`: the one atomic single-file write (temporary file in
  the same folder, fsync, ``os.replace``, fsync of the folder) that the codemod
  journal and the analysis package both use.

Dependency direction: this package imports only the standard library, and
both ``codemods`` and ``analysis`` import it, never each other. The producer
of decision.json (analysis, whose runner loads ``http.client`` and
``socket``) and its consumer (a codemod recipe, which loads tree-sitter) can
each be imported without the other.
"""
