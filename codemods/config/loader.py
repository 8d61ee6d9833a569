"""Loading a recipe: a bundled one by id (from the catalog, `catalog.py`), or a recipe
file (.toml, or .py defining RECIPE), validated once, as it loads.

A recipe file's data becomes a `Recipe`; the Python module of the same name
beside the file, when there is one, registers the builder that adds what data
cannot say (steps, parameters, paths the steps read): see `builders.py`.
The dead-symbol settings `codemod check` needs are read from the files alone
(`settings.py`), without the engine.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import re
import tomllib
import types
from pathlib import Path, PurePosixPath
from typing import Any

from codemods.edit.errors import RecipeError, one_line
from codemods.edit.values import ItemTarget, closest_names
from codemods.core.registry import FILE_KIND, LANGUAGES, language_of, parsed_languages
from codemods.config.builders import builder_for, forget
from codemods.config.catalog import bundled_files, module_name, recipe_files
from codemods.config.extends import extended
from codemods.config.recipe import TEXT, Insertion, PatternRewrite, Recipe, Rewording
from codemods.search.files import search_pattern_problem


def bundled_recipes() -> list[Recipe]:
    return [load_recipe(recipe_id) for recipe_id in bundled_files()]


def _module_from_file(path: Path) -> types.ModuleType:
    """The Python file at `path`, executed as a module (RecipeError when it cannot be)."""
    name = f"codemod_recipe_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None or not path.is_file():
        raise RecipeError(f"{path}: cannot load as a Python module")
    forget(name)  # what an earlier file of this name registered
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:
        raise RecipeError(f"{path}: recipe failed to load: {type(error).__name__}: {one_line(error)}") from None
    return module


def _from_module_file(path: Path) -> Recipe:
    recipe = getattr(_module_from_file(path), "RECIPE", None)
    if not isinstance(recipe, Recipe):
        raise RecipeError(f"{path}: defines no RECIPE of type codemods.Recipe")
    return recipe


def _from_toml_file(path: Path) -> Recipe:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise RecipeError(f"{path}: cannot read the recipe file: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise RecipeError(f"{path}: not valid TOML: {one_line(error)}") from None
    for key in ("delete", "rewrite", "reword", "insert", "check_scope", "protected", "verify"):
        if not isinstance(data.get(key, []), list):
            raise RecipeError(f"{path}: recipe does not match the schema: {key} must be a list")
    _refuse_unknown_keys(path, data)
    base = _extended_base(path, str(data["extends"])) if "extends" in data else None
    if base is None and "id" not in data:
        raise RecipeError(f"{path}: recipe does not match the schema: missing key 'id'")
    if base is None and not isinstance(data["id"], str):
        raise RecipeError(f"{path}: recipe does not match the schema: id must be a string, not {data['id']!r}")
    try:
        own = _fields(path, data)
        if base is not None:
            fields = {f.name: getattr(base, f.name) for f in dataclasses.fields(base)}
            recipe = dataclasses.replace(base, **extended(fields, own, path.stem))
        else:
            recipe = Recipe(**{"summary": "", **own})
    except (TypeError, ValueError, AttributeError) as error:
        raise RecipeError(f"{path}: recipe does not match the schema: {one_line(error)}") from None
    return _built(path, recipe)


def _fields(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """The `Recipe` fields a recipe file's data gives (only the keys it has)."""
    source = data["id"] if isinstance(data.get("id"), str) and data["id"] else path.name
    converters: dict[str, tuple[str, Any]] = {
        "id": ("id", lambda v: v),
        "summary": ("summary", str),
        "delete": ("deletions", lambda v: tuple(ItemTarget(**d) for d in v)),
        "rewrite": ("rewrites", lambda v: tuple(PatternRewrite(**r) for r in v)),
        "reword": ("rewordings", lambda v: rewordings_from(v, source)),
        "insert": ("insertions", lambda v: tuple(Insertion(**r) for r in v)),
        "dead_symbol_pattern": ("dead_symbol_pattern", lambda v: v),
        "check_scope": ("check_scope", tuple),
        "protected": ("protected", tuple),
        "verify": ("verify", tuple),
        "namespace_macros": ("namespace_macros", lambda v: _namespace_macros(path, v)),
        "unused_imports": ("unused_imports", lambda v: v),
    }
    return {converters[key][0]: converters[key][1](data[key]) for key in converters if key in data}


def rewordings_from(tables: list[dict[str, Any]], source: str) -> tuple[Rewording, ...]:
    """`[[reword]]` tables as rules, each labelled `SOURCE [[reword]] N` for messages."""
    return tuple(
        dataclasses.replace(Rewording(**table), rule=f"{source} [[reword]] {number}")
        for number, table in enumerate(tables, start=1)
    )


def _built(path: Path, recipe: Recipe) -> Recipe:
    """`recipe` completed by its builder: the function that the Python module beside the file,
    of the same name (`NAME.py` beside `NAME.toml`), registers for its id with `@builds`
    (config/builders.py; a bundled recipe's module is imported from its package, found through
    the catalog); the recipe itself when there is no such module."""
    companion = path.with_suffix(".py")
    if not companion.is_file():
        return recipe
    importable = module_name(path, path.stem)
    try:
        module = importlib.import_module(importable) if importable is not None else _module_from_file(companion)
    except RecipeError:
        raise
    except (Exception, SystemExit) as error:
        raise RecipeError(
            f"{companion}: recipe module failed to load: {type(error).__name__}: {one_line(error)}"
        ) from None
    builder = builder_for(recipe.id, module.__name__)
    try:
        built = builder(recipe)
    except RecipeError:
        raise
    except (Exception, SystemExit) as error:
        raise RecipeError(
            f"{companion}: the builder of {recipe.id} failed: {type(error).__name__}: {one_line(error)}"
        ) from None
    if not isinstance(built, Recipe):
        raise RecipeError(f"{companion}: the builder of {recipe.id} returned {type(built).__name__}, not a Recipe")
    return built


# The recipe file schema (docs/recipes.md): top-level keys, and the keys of each table.
TOML_KEYS = (
    "id",
    "summary",
    "extends",
    "dead_symbol_pattern",
    "check_scope",
    "protected",
    "namespace_macros",
    "verify",
    "unused_imports",
    "delete",
    "rewrite",
    "reword",
    "insert",
)
TOML_TABLE_KEYS = {
    "delete": tuple(f.name for f in dataclasses.fields(ItemTarget) if f.name != "namespace_macros"),
    "rewrite": tuple(f.name for f in dataclasses.fields(PatternRewrite)),
    "reword": tuple(f.name for f in dataclasses.fields(Rewording) if f.name != "rule"),
    "insert": tuple(f.name for f in dataclasses.fields(Insertion)),
}
# Keys a table must have (`replace = ""` deletes the text: it must be said, never implied).
TOML_REQUIRED_KEYS = {"reword": ("path", "replace")}


def _closest(word: str, valid: tuple[str, ...]) -> str:
    close = closest_names(word, valid, count=1, cutoff=0.5)
    return f"did you mean {close[0]!r}?" if close else f"valid: {', '.join(valid)}"


def _refuse_unknown_keys(path: Path, data: dict[str, Any]) -> None:
    """RecipeError naming the first key the schema does not have, and the closest one it has."""
    if "build" in data:
        raise RecipeError(
            f"{path}: the key 'build' is gone: put the module beside the file under the file's "
            f"name ({path.stem}.py) and register its function with @codemods.builds(RECIPE_ID)"
        )
    for key in data:
        if key not in TOML_KEYS:
            shown = (
                f"[[{key}]]"
                if isinstance(data[key], list) and all(isinstance(v, dict) for v in data[key]) and data[key]
                else repr(key)
            )
            raise RecipeError(f"{path}: unknown key {shown} ({_closest(key, TOML_KEYS)})")
    for table, keys in TOML_TABLE_KEYS.items():
        for number, entry in enumerate(data.get(table, []), start=1):
            if not isinstance(entry, dict):
                raise RecipeError(f"{path}: recipe does not match the schema: {table} must be a list of tables")
            for key in entry:
                if key not in keys:
                    raise RecipeError(
                        f"{path}: [[{table}]] entry {number}: unknown key {key!r} ({_closest(key, keys)})"
                    )
            for key in TOML_REQUIRED_KEYS.get(table, ()):
                if key not in entry:
                    hint = ' (replace = "" deletes the text)' if key == "replace" else ""
                    raise RecipeError(f"{path}: [[{table}]] entry {number}: missing key {key!r}{hint}")


def _extended_base(path: Path, base_id: str) -> Recipe:
    """The bundled recipe a file `extends` (merged with it by `extends.extended`).

    This is how a tree whose prose differs from the bundled rules gets its own
    rewordings (`extends = "BUNDLED-ID"` and `[[reword]]` entries)
    without copying the recipe.
    """
    if base_id not in bundled_files():
        raise RecipeError(f"{path}: extends unknown recipe {base_id!r} (bundled: {', '.join(bundled_files())})")
    return load_recipe(base_id)


def _namespace_macros(path: Path, value: object) -> tuple[tuple[str, str], ...]:
    """The `namespace_macros` table as sorted (macro, namespace) pairs; RecipeError unless it maps
    identifiers to strings."""
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and re.fullmatch(r"[A-Za-z_]\w*", k) and isinstance(v, str) for k, v in value.items()
    ):
        raise RecipeError(
            f"{path}: recipe does not match the schema: namespace_macros must be a table of "
            f"macro names to namespaces (strings), not {value!r}"
        )
    return tuple(sorted(value.items()))


def _bad_path(path: object) -> str | None:
    """Why `path` cannot name a file of the tree (None if it can): relative POSIX, inside ROOT."""
    if not isinstance(path, str) or not path:
        return f"path must be a non-empty string, not {path!r}"
    parts = PurePosixPath(path).parts
    if path.startswith("/") or "\\" in path or ".." in parts:
        return f"path {path!r} must be relative to ROOT, with / separators and no .."
    return None


def validate_recipe(recipe: Recipe, origin: str) -> Recipe:
    """`recipe` if its data is well formed; RecipeError naming the first problem otherwise.

    Checks what would otherwise fail late, in the middle of a plan: field
    types, item kinds per language, and paths that are relative and stay
    inside ROOT.
    """
    if not isinstance(recipe.id, str) or not recipe.id:
        raise RecipeError(f"{origin}: recipe id must be a non-empty string")
    for target in recipe.deletions:
        for name in ("path", "language", "kind", "name"):
            if not isinstance(getattr(target, name), str):
                raise RecipeError(f"{origin}: delete entry {target}: {name} must be a string")
        if target.branch is not None and not isinstance(target.branch, str):
            raise RecipeError(f"{origin}: delete entry {target.name!r}: branch must be a string")
        problem = _bad_path(target.path)
        if problem:
            raise RecipeError(f"{origin}: delete entry {target.name!r}: {problem}")
        kinds = LANGUAGES[target.language].item_kinds if target.language in LANGUAGES else ()
        if target.kind not in kinds:
            raise RecipeError(
                f"{origin}: delete entry {target.name!r}: unknown {target.language} kind "
                f"{target.kind!r} (one of: {', '.join(kinds)})"
            )
        if (target.kind == FILE_KIND) != (not target.name):
            raise RecipeError(
                f"{origin}: delete entry {target.name or target.path!r}: "
                + ("kind 'file' is the whole file and takes no name" if target.name else "name is missing")
            )
    for rewrite in recipe.rewrites:
        _validate_rewrite(rewrite, origin)
    for insertion in recipe.insertions:
        _validate_insertion(insertion, origin)
    for rewording in recipe.rewordings:
        if not all(isinstance(v, str) for v in (rewording.path, rewording.find, rewording.replace)):
            raise RecipeError(f"{origin}: reword entry {rewording}: path, find and replace must be strings")
        if not (rewording.item is None or isinstance(rewording.item, str)) or not all(
            isinstance(v, str) and v for v in rewording.symbols
        ):
            raise RecipeError(f"{origin}: reword entry {rewording}: item and symbols must be strings")
        problem = _bad_path(rewording.path)
        if problem:
            raise RecipeError(f"{origin}: reword entry: {problem}")
        if bool(rewording.find) == bool(rewording.symbols):
            raise RecipeError(f"{origin}: reword entry in {rewording.path}: give either find or symbols")
        if not isinstance(rewording.strings, bool) or rewording.strings and (rewording.symbols or rewording.block):
            raise RecipeError(
                f"{origin}: reword entry in {rewording.path}: strings must be true or false, and "
                f"goes with find (not symbols or block)"
            )
        if not isinstance(rewording.optional, bool):
            raise RecipeError(f"{origin}: reword entry in {rewording.path}: optional must be true or false")
        if not isinstance(rewording.block, bool) or rewording.block and rewording.replace:
            raise RecipeError(
                f"{origin}: reword entry in {rewording.path}: block must be true or false, and "
                f"block = true deletes the comment block: its replace must be empty"
            )
        if not isinstance(rewording.sentences, int) or isinstance(rewording.sentences, bool) or rewording.sentences < 1:
            raise RecipeError(f"{origin}: reword entry in {rewording.path}: sentences must be a positive integer")
    if recipe.dead_symbol_pattern is not None:
        if not isinstance(recipe.dead_symbol_pattern, str):
            raise RecipeError(f"{origin}: dead_symbol_pattern must be a string")
        problem = search_pattern_problem(recipe.dead_symbol_pattern)
        if problem:
            raise RecipeError(
                f"{origin}: dead_symbol_pattern {recipe.dead_symbol_pattern!r} is not a valid pattern: {problem}"
            )
    for scope in (*recipe.check_scope, *recipe.protected):
        if not isinstance(scope, str):
            raise RecipeError(f"{origin}: check_scope and protected must be lists of strings")
    return recipe


def _validate_insertion(insertion: Insertion, origin: str) -> None:
    """RecipeError unless an insert rule names one file, one place (an item or a pattern that
    compiles) and a position, and has text."""
    # here: patterns load the parsers (tree-sitter), which `codemod check` does not need
    from codemods.pattern import Pattern, PatternError

    where = f"{origin}: insert entry in {insertion.path}"
    if not all(isinstance(v, str) for v in (insertion.path, insertion.text, insertion.position)) or not all(
        v is None or isinstance(v, str) for v in (insertion.item, insertion.pattern, insertion.language)
    ):
        raise RecipeError(f"{where}: path, text, position, item, pattern and language must be strings")
    problem = _bad_path(insertion.path)
    if problem:
        raise RecipeError(f"{where}: {problem}")
    if (insertion.item is None) == (insertion.pattern is None):
        raise RecipeError(f"{where}: give either item or pattern")
    if insertion.position not in ("before", "after"):
        raise RecipeError(f'{where}: position must be "before" or "after", not {insertion.position!r}')
    if not insertion.text.strip() or not isinstance(insertion.optional, bool):
        raise RecipeError(f"{where}: text must not be empty, optional must be true or false")
    language = insertion.language or language_of(insertion.path)
    if insertion.pattern is not None:
        try:
            Pattern(insertion.pattern, language or "")
        except PatternError as error:
            raise RecipeError(f"{where}: {error}") from None


def _validate_rewrite(rewrite: PatternRewrite, origin: str) -> None:
    """RecipeError unless a rewrite rule names files patterns parse (Rust, C++, Python), its pattern compiles, and its
    replacement uses only metavariables the pattern captures."""
    # here: patterns load the parsers (tree-sitter), which `codemod check` does not need
    from codemods.pattern import Pattern, PatternError, metavariables

    if not all(isinstance(v, str) for v in (rewrite.path, rewrite.pattern, rewrite.replace)) or not all(
        v is None or isinstance(v, str) for v in (rewrite.item, rewrite.language)
    ):
        raise RecipeError(
            f"{origin}: rewrite entry {rewrite}: path, pattern, replace, item and language must be strings"
        )
    if not isinstance(rewrite.optional, bool):
        raise RecipeError(f"{origin}: rewrite entry in {rewrite.path}: optional must be true or false")
    problem = _bad_path(rewrite.path)
    if problem:
        raise RecipeError(f"{origin}: rewrite entry: {problem}")
    language = rewrite.file_language()
    if language == TEXT:
        if rewrite.item is not None or rewrite.where or not rewrite.pattern.strip():
            raise RecipeError(
                f"{origin}: rewrite entry for {rewrite.path}: a text rewrite takes a pattern of "
                f"whole lines, no item and no where"
            )
        return
    if language is None:
        raise RecipeError(
            f"{origin}: rewrite entry for {rewrite.path}: give its language (rust, cpp, python or text); "
            f"the path has no source suffix"
        )
    if language not in parsed_languages():
        raise RecipeError(
            f"{origin}: rewrite entry for {rewrite.path}: patterns work on {', '.join(parsed_languages())} files only"
        )
    try:
        Pattern(rewrite.pattern, language)
    except PatternError as error:
        raise RecipeError(f"{origin}: rewrite entry for {rewrite.path}: {error}") from None
    unknown = sorted(metavariables(rewrite.replace) - metavariables(rewrite.pattern))
    if unknown:
        raise RecipeError(
            f"{origin}: rewrite entry for {rewrite.path}: the replacement uses "
            f"{', '.join('$' + n for n in unknown)}, which the pattern does not capture"
        )
    if not isinstance(rewrite.where, tuple):
        raise RecipeError(f"{origin}: rewrite entry for {rewrite.path}: where must be a table")
    for name, texts in rewrite.where:
        if name not in metavariables(rewrite.pattern):
            raise RecipeError(
                f"{origin}: rewrite entry for {rewrite.path}: where names {name}, which the "
                f"pattern does not capture (write it without the $)"
            )
        if not isinstance(texts, tuple) or not texts or not all(isinstance(t, str) and t for t in texts):
            raise RecipeError(
                f"{origin}: rewrite entry for {rewrite.path}: where.{name} must be a non-empty "
                f"list of non-empty strings"
            )


@functools.cache
def _bundled(recipe_id: str) -> Recipe:
    path = bundled_files()[recipe_id]
    return validate_recipe(_from_toml_file(path), recipe_id)


def load_recipe(spec: str) -> Recipe:
    """A bundled recipe by id, or a recipe file (.py defining RECIPE, or .toml, with its builder
    module beside it). RecipeError for an unknown id, a file that does not load or does not
    match the schema (docs/recipes.md), or a builder that fails."""
    if spec in bundled_files():
        return _bundled(spec)
    path = Path(spec)
    if path.suffix in (".py", ".toml"):
        if not path.is_file():
            raise RecipeError(f"{spec}: recipe file not found")
        recipe = _from_module_file(path) if path.suffix == ".py" else _from_toml_file(path)
        recipe = dataclasses.replace(recipe, sources=tuple(str(p) for p in recipe_files(spec)))
        return validate_recipe(recipe, spec)
    known = ", ".join(bundled_files())
    raise RecipeError(f"unknown recipe {spec!r} (bundled: {known}; or give a .py or .toml file)")


__all__ = [
    "TOML_KEYS",
    "TOML_REQUIRED_KEYS",
    "TOML_TABLE_KEYS",
    "RecipeError",
    "bundled_recipes",
    "load_recipe",
    "rewordings_from",
    "validate_recipe",
]
