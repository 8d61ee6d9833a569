"""The house's layering: no import circles anywhere, the engine knows no recipe, a bundled recipe
is one dropped file, and a language is one plug-in (a toy language plans a deletion)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

HOUSE = Path(__file__).resolve().parents[1]
PACKAGES = ("codemods", "kernels", "analysis", "interchange")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((HOUSE / package).rglob("*.py")):
            parts = path.relative_to(HOUSE).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes under `if TYPE_CHECKING:`: imports for annotations, never run."""
    guarded = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
    ]
    return {id(inner) for node in guarded for statement in node.body for inner in ast.walk(statement)}


def _import_graph() -> dict[str, set[str]]:
    """Module -> the house's modules it imports anywhere in its text (function-level imports too;
    those under `if TYPE_CHECKING:` are annotations only and do not count)."""
    modules = _modules()

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        annotations_only = _type_checking_only(tree)
        for node in ast.walk(tree):
            if id(node) in annotations_only:
                continue
            if isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                module = ".".join([*base, *([node.module] if node.module else [])])
                candidates = [module, *(f"{module}.{alias.name}" for alias in node.names)]
            else:
                continue
            targets |= {t for c in candidates if (t := known(c)) and t != name}
        graph[name] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circles_anywhere_in_the_house() -> None:
    assert _cycles(_import_graph()) == []


# The folders of the engine, bottom first: a module imports only folders of its rank or below.
LAYERS = (
    ("codemods.edit", "codemods.startup"),  # Edit, Finding, ItemTarget, codes, errors, diff;
    # the dataclasses' compiled methods
    ("codemods.core", "codemods.words"),  # the language registry and contracts, the lexers;
    # words; forked work
    ("codemods.parse",),  # tree-sitter, once per file
    ("codemods.pattern", "codemods.search"),  # structural patterns; rg and mentions
    ("codemods.languages",),  # the plug-ins: rust/ cpp/ python/
    ("codemods.config",),  # recipes as data: the schema, the loader, the catalog
    ("codemods.plan", "codemods.testing"),  # the planner, the harness
    ("codemods.write", "codemods.report", "codemods.recipes"),  # the writer; reporters; bundled recipes
    ("codemods.cli", "codemods.__main__"),
)


def _folder(module: str) -> str:
    """The folder (or top-level module) of the house a module belongs to."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "codemods" and len(parts) > 1 else parts[0]


def test_every_folder_of_the_engine_has_a_layer() -> None:
    ranked = {folder for layer in LAYERS for folder in layer}
    folders = {_folder(module) for module in _import_graph() if module.startswith("codemods.")}
    assert folders == ranked


def test_the_layers_point_one_way() -> None:
    """Folder by folder: cli -> write/report/recipes -> plan -> config -> languages -> pattern/search ->
    parse -> core -> edit; reporters read results only; the engine never imports a bundled
    recipe (the catalog finds them as files); the package root imports nothing at run time."""
    rank = {folder: number for number, layer in enumerate(LAYERS) for folder in layer}
    graph = _import_graph()
    upward = sorted(
        (module, target)
        for module, targets in graph.items()
        if _folder(module) in rank
        for target in targets
        if _folder(target) in rank and rank[_folder(target)] > rank[_folder(module)]
    )
    assert upward == []
    into_recipes = sorted(
        (module, target)
        for module, targets in graph.items()
        if not module.startswith("codemods.recipes")
        for target in targets
        if target.startswith("codemods.recipes")
    )
    assert into_recipes == []
    readers = {"codemods.report": {"codemods.plan", "codemods.write"}}
    reading = sorted(
        (module, target)
        for module, targets in graph.items()
        for folder, banned in readers.items()
        if _folder(module) == folder
        for target in targets
        if _folder(target) in banned
    )
    assert reading == []
    assert graph["codemods"] == set()


def test_no_two_folders_import_each_other() -> None:
    graph = _import_graph()
    folders: dict[str, set[str]] = {}
    for module, targets in graph.items():
        folders.setdefault(_folder(module), set()).update(_folder(t) for t in targets if _folder(t) != _folder(module))
    assert _cycles({folder: {t for t in targets if t in folders} for folder, targets in folders.items()}) == []


# The engine's modules that the house's other packages share, each named by one module of
# interchange/ (the atomic file write, the console scripts' error style): one implementation.
SHARED = {"interchange/atomic_file.py": "codemods.write.atomic_file", "interchange/cli_style.py": "codemods.cli.style"}


def test_kernels_and_analysis_use_only_the_public_surface() -> None:
    """The other packages of the house import the codemods package itself (`from codemods import
    parse`: a name of `codemods.__all__`), never a module of the engine; the one exception is
    each module of interchange/ that names a shared module of the engine (SHARED)."""
    inside = []
    for package in ("kernels", "analysis", "interchange"):
        for path in sorted((HOUSE / package).rglob("*.py")):
            shared = SHARED.get(path.relative_to(HOUSE).as_posix())
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = (
                    [node.module or ""]
                    if isinstance(node, ast.ImportFrom)
                    else [alias.name for alias in node.names]
                    if isinstance(node, ast.Import)
                    else []
                )
                inside += [
                    f"{path.relative_to(HOUSE)}:{node.lineno}: {name}"
                    for name in names
                    if name.startswith("codemods.") and name != shared
                ]
    assert inside == []


def test_the_engine_imports_no_sibling_package() -> None:
    """No module of codemods/ imports interchange, analysis or kernels: the engine stands alone.
    Only the bundled recipes may (the first user's paged-flag recipe reads interchange's
    decision.json schema): they are the engine's users, not the engine."""
    siblings = tuple(f"{package}." for package in PACKAGES if package != "codemods")
    outside = sorted(
        (module, target)
        for module, targets in _import_graph().items()
        if module.startswith("codemods") and not module.startswith("codemods.recipes")
        for target in targets
        if target.startswith(siblings) or target in PACKAGES[1:]
    )
    assert outside == []


def test_nothing_outside_the_first_users_recipes_names_it() -> None:
    """`rg -il 'mlxcel|paged|oracle|--decision' codemods --glob '!codemods/recipes/mlxcel/**'` prints
    nothing: the CLI has no default recipe and no option of one recipe."""
    hits = []
    for path in sorted((HOUSE / "codemods").rglob("*")):
        relative = path.relative_to(HOUSE).as_posix()
        if not path.is_file() or relative.startswith("codemods/recipes/mlxcel/") or "__pycache__" in relative:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            lowered = line.lower()
            if any(word in lowered for word in ("mlxcel", "paged", "oracle", "--decision")):
                hits.append(f"{relative}:{number}: {line.strip()}")
    assert hits == []


TOY_RECIPE = """\
id = "toy-drop-in"
summary = "a recipe added by dropping this file"
dead_symbol_pattern = "gone_fn"
[[delete]]
path = "src/a.rs"
language = "rust"
kind = "fn"
name = "gone_fn"
"""


def test_a_bundled_recipe_is_added_by_dropping_a_toml_file(tmp_path: Path) -> None:
    import codemods.config.catalog as catalog

    folder = catalog.HERE / "zz_dropped_for_test"
    assert not folder.exists()
    tree = tmp_path / "tree"
    (tree / "src").mkdir(parents=True)
    (tree / "src/a.rs").write_text("fn keep() {}\n\nfn gone_fn() {}\n")
    try:
        folder.mkdir()
        (folder / "toy.toml").write_text(TOY_RECIPE)
        listed = subprocess.run([sys.executable, "-m", "codemods", "recipes"], capture_output=True, text=True)
        assert "toy-drop-in" in listed.stdout, listed.stderr
        applied = subprocess.run(
            [sys.executable, "-m", "codemods", "apply", "--recipe", "toy-drop-in", str(tree)],
            capture_output=True,
            text=True,
        )
        assert applied.returncode == 0, applied.stderr
        assert (tree / "src/a.rs").read_text() == "fn keep() {}\n"
        checked = subprocess.run(
            [sys.executable, "-m", "codemods", "check", "--recipe", "toy-drop-in", str(tree)],
            capture_output=True,
            text=True,
        )
        assert checked.returncode == 0, checked.stderr
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        catalog.bundled_files.cache_clear()


def _toy_operations() -> types.ModuleType:
    """A language whose files hold `fn NAME` lines: items are those lines, uses are spellings."""
    from codemods.core.registry import Deletions, LanguageOperations, References
    from codemods.edit.values import Edit, Finding
    from codemods.languages.resolution import DeletedName

    module = types.ModuleType("toy_language_operations")

    class ToyOperations(LanguageOperations):
        def parse_errors(self, source, tree):
            return []

        def identifiers(self, source, tree, hits):
            return hits

        def delete_items(self, path, source, targets, origin, absent, deleted):
            edits, findings = [], []
            for target in targets:
                line = f"fn {target.name}\n".encode()
                start = source.find(line)
                if start < 0:
                    findings.append(Finding(path, 0, 0, "not-found", f"no item {target.name}"))
                    continue
                edits.append(Edit(path, start, start + len(line), b"", f"{origin}:delete"))
                deleted.add("toy", [DeletedName(target.name, path)])
            return Deletions(tuple(edits), tuple(findings))

        def item_scopes(self, source, tree, name):
            return []

        def references(self, path, text, deleted, state):
            return References(by_spelling=tuple(i.name for i in deleted.of("toy")))

        def format_item(self, text, indent, root, path):
            return None

    module.OPERATIONS = ToyOperations()
    return module


def test_a_toy_language_registers_and_plans_a_deletion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codemods import ItemTarget, Recipe, plan_recipe
    from codemods.core.registry import Language, register, unregister

    monkeypatch.setitem(sys.modules, "toy_language_operations", _toy_operations())
    register(Language("toy", (".toy",), "toy_language_operations", deletable_kinds=("fn",)))
    try:
        (tmp_path / "a.toy").write_text("fn keep\nfn gone\n")
        (tmp_path / "b.toy").write_text("call gone\n")
        recipe = Recipe(id="toy", summary="", deletions=(ItemTarget("a.toy", "toy", "fn", "gone"),))
        plan = plan_recipe(tmp_path, recipe)
        assert [(c.path, c.after) for c in plan.changes] == [("a.toy", b"fn keep\n")]
        assert [(f.path, f.line, f.code) for f in plan.blocking] == [("b.toy", 1, "dangling-reference")]
        (tmp_path / "b.toy").write_text("call keep\n")
        assert plan_recipe(tmp_path, recipe).blocking == []
    finally:
        unregister("toy")


def test_the_registry_holds_typed_values_and_loads_no_parser() -> None:
    """A language's lexer is a callable of core/ (no "module:function" string looked up by name), and
    importing the registry, as `codemod check` does, loads neither a parser nor a plug-in."""
    import dataclasses

    from codemods.core.registry import LANGUAGES

    named = [
        (language.name, field.name)
        for language in LANGUAGES.values()
        for field in dataclasses.fields(language)
        if field.name != "operations_module"
        and isinstance(getattr(language, field.name), str)
        and ":" in getattr(language, field.name)
    ]
    assert named == []
    assert all(
        callable(language.lexer) and language.lexer.__module__.startswith("codemods.core.")
        for language in LANGUAGES.values()
    )
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, codemods.core.registry; "
            "print(sorted(m for m in sys.modules if m.startswith(('tree_sitter', 'codemods.parse', 'codemods.languages', "
            "'codemods.plan'))))",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=HOUSE,
    )
    assert loaded.stdout.strip() == "[]"


def test_a_toy_language_classifies_mentions_with_its_own_lexer() -> None:
    """A registered `lexer` is a plain function: `codemod check`'s kinds come from it."""
    from codemods.core.lexer import COMMENT, Spans
    from codemods.core.registry import Language, register, unregister
    from codemods.search.mentions import classify_spans

    def semicolon_comments(source: bytes, stop: int) -> Spans | None:
        start = source.find(b";")
        return Spans([start], [source.find(b"\n", start)], [COMMENT]) if start >= 0 else None

    register(Language("toy-lexed", (".toyl",), "toy_language_operations", lexer=semicolon_comments))
    try:
        source = b"call gone ; gone\n"
        assert classify_spans("a.toyl", source, [(5, 9), (12, 16)]) == ["code", COMMENT]
        assert classify_spans("a.toyl", b"call gone\n", [(5, 9)]) == ["unknown"]
    finally:
        unregister("toy-lexed")
