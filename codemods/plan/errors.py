"""The error a recipe that cannot be loaded raises (an unknown id, a file that does not load or
match the schema): kept apart so that `codemod check` can catch it without loading the engine."""


class RecipeError(Exception):
    """A recipe id that is unknown or a recipe file that does not load."""
