"""Recipes as data: the `Recipe` and the Workspace/StepResult contract its steps keep (`recipe`),
recipe files loaded and validated once (`loader`, with `extends` and a file's Python `builders`),
the bundled recipes found as files (`catalog`), what `codemod check` reads of a recipe without the
engine (`settings`) and the recipe a tree names for itself (`tree_config`). Nothing here plans:
`plan/` imports this folder, never the other way."""
