"""What the house's packages share beside the codemod engine's public surface.

- `interchange.decision`: the decision.json schema. ``paged-bench report``
  (analysis) writes it; the ``paged-flag`` recipe (a bundled recipe of the
  codemods package, its first user's, not the engine) reads it with
  `load_decision` and receives typed, validated values.
- `interchange.atomic_file`: the one atomic single-file write (temporary file in
  the same folder, fsync, ``os.replace``, fsync of the folder): the engine's
  own (`codemods/write/atomic_file.py`), which the analysis package uses too.
- `interchange.cli_style`: the one error style of every console script: the
  `codemod` command's own (`codemods/cli/style.py`), which ``paged-bench``,
  ``ssm-diff`` and ``ssm-generations`` use too.

Dependency direction: the engine (codemods but its bundled recipes) imports
nothing of this package; the last two modules name the engine's own, so that
``analysis`` and ``kernels`` import the engine's modules only through here
(and otherwise only `codemods.__all__`). ``decision`` imports only the
standard library: the producer of decision.json (analysis, whose runner loads
``http.client`` and ``socket``) and its consumer (a codemod recipe, which
loads tree-sitter) can each be imported without the other.
"""
