"""What a recipe file's data cannot say, added in Python: builders, registered by recipe id.

A recipe file `NAME.toml` may have a Python module `NAME.py` beside it (in a bundled recipe's
package, or anywhere). The loader imports it when it loads the file, and the module registers
the function that completes the recipe made from the file's data::

    from codemods import Recipe, builds

    @builds("tidy-ledger")
    def tidy_ledger(recipe: Recipe) -> Recipe:
        return dataclasses.replace(recipe, steps=(...,), parameters=(...,))

The function takes the recipe made from the file and returns it with its steps, parameters and
the paths its steps read. The id ties the two together: a module beside the file that registers
no builder for the file's id is refused, as is a second builder for one id.
"""

from __future__ import annotations

from typing import Callable

from codemods.edit.errors import RecipeError
from codemods.config.recipe import Recipe

RecipeBuilder = Callable[[Recipe], Recipe]

_BUILDERS: dict[str, tuple[str, RecipeBuilder]] = {}


def builds(recipe_id: str) -> Callable[[RecipeBuilder], RecipeBuilder]:
    """Register the decorated function as the builder of the recipe `recipe_id`. The same module
    loaded again replaces its own builder; another module's builder for the id is a RecipeError."""

    def register(builder: RecipeBuilder) -> RecipeBuilder:
        owner = getattr(builder, "__module__", "")
        registered = _BUILDERS.get(recipe_id)
        if registered is not None and registered[0] != owner:
            raise RecipeError(f"recipe {recipe_id!r} has two builders: in {registered[0]} and in {owner}")
        _BUILDERS[recipe_id] = (owner, builder)
        return builder

    return register


def forget(module: str) -> None:
    """Drop the builders `module` registered, before a recipe file's module is executed again
    (its file may have changed, or another file of its name be loaded)."""
    for recipe_id in [i for i, (owner, _) in _BUILDERS.items() if owner == module]:
        del _BUILDERS[recipe_id]


def builder_for(recipe_id: str, module: str) -> RecipeBuilder:
    """The builder `module` registered for `recipe_id`; RecipeError naming what it registers
    when it registered none for it."""
    registered = _BUILDERS.get(recipe_id)
    if registered is None or registered[0] != module:
        own = sorted(i for i, (owner, _) in _BUILDERS.items() if owner == module)
        said = f"it registers {', '.join(own)}" if own else "it registers none"
        raise RecipeError(
            f"{module} registers no builder for recipe {recipe_id!r} ({said}); "
            f"decorate its function with @codemods.builds({recipe_id!r})"
        )
    return registered[1]


__all__ = ["RecipeBuilder", "builder_for", "builds", "forget"]
