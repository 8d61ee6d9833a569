"""Which crate and module a Rust file is, from Cargo.toml files and `mod` declarations.

Everything is found lazily, walking up from the files the check looks at:
the package is the nearest Cargo.toml with a [package] table above the file;
its crate roots are the targets Cargo would build (src/lib.rs, src/main.rs,
src/bin/*, tests/*, examples/*, benches/*, build.rs, and the paths of
[lib]/[[bin]]/[[test]]/[[example]]/[[bench]] tables). A file's module path is
found by walking up the directory conventions (`a/b.rs` or `a/b/mod.rs` is
declared by `mod b;` in `a.rs`, `a/mod.rs` or a crate root in `a/`) and by the
`#[path = "..."]` declarations of its package (one rg search per package).
Only the declarations on the way are parsed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any, Callable, NamedTuple

try:  # tomli's compiled (mypyc) wheel parses a workspace's manifests about four times as fast
    import tomli as toml
except ImportError:  # pragma: no cover - the standard library's pure Python copy of it
    import tomllib as toml  # type: ignore[no-redef]

# std and friends: names in every crate's extern prelude that are never items of the tree.
BUILTIN_CRATES = frozenset({"std", "core", "alloc", "proc_macro", "test"})
# `mod NAME;` as spelled (a lexical cut before a file's mod declarations are parsed).
_SPELLED_MOD = re.compile(rb"\bmod\s+(\w+)\s*;")
_WORD = re.compile(rb"\w+")


@lru_cache(maxsize=256)
def _spelled_mod_pattern(name: bytes) -> re.Pattern[bytes]:
    """`mod NAME;` for a name that is not all word bytes (a file stem with a `-`, or non-ASCII)."""
    return re.compile(rb"\bmod\s+" + re.escape(name) + rb"\s*;")


class ModDeclaration(NamedTuple):
    """An out-of-line `mod name;` of a file: the inline modules around it, its name, and its
    `#[path]` value (None without one)."""

    inline: tuple[str, ...]
    name: str
    path: str | None


@dataclass(frozen=True)
class Crate:
    """One compilation unit: the root file and the crates it can name (`extern` prelude).

    `externs` maps a crate name to the lib root of a package in the tree, or
    to None for a crate from a registry (its items are never ours).
    """

    root: str
    name: str
    externs: tuple[tuple[str, str | None], ...]

    def extern(self, name: str) -> tuple[bool, str | None]:
        """(known, lib root or None) for a name of the extern prelude."""
        for extern_name, root in self.externs:
            if extern_name == name:
                return True, root
        return name in BUILTIN_CRATES, None


@dataclass
class Package:
    """A Cargo package: its folder, lib root and crate name, and its other crate roots."""

    dir: str
    name: str
    lib: str | None
    roots: list[str]
    dependencies: dict[str, str | None] = field(default_factory=dict)
    # The lib roots its library is built with ([dependencies], also per target): what a crate
    # depending on this one can reach through it. Dev- and build-dependencies are not.
    library_dependencies: frozenset[str] = frozenset()


def _crate_name(name: str) -> str:
    return name.replace("-", "_")


def join_path(*parts: str) -> str:
    """A normalized relative POSIX path ('' parts and '.' dropped, '..' applied)."""
    out: list[str] = []
    for part in "/".join(p for p in parts if p).split("/"):
        if part in ("", "."):
            continue
        if part == ".." and out and out[-1] != "..":
            out.pop()
        else:
            out.append(part)
    return "/".join(out)


@lru_cache(maxsize=4096)
def parse_manifest(data: bytes | None) -> dict[str, Any] | None:
    """A Cargo.toml's table, or None when it is missing or not TOML: parsed once per text and
    process (the resolver and the formatter's edition lookup read the same manifests). The
    table is shared: callers read it, never change it."""
    if data is None:
        return None
    try:
        return toml.loads(data.decode("utf-8"))
    except (toml.TOMLDecodeError, UnicodeDecodeError):
        return None


class CrateIndex:
    """Packages, crates and module paths of the files of one tree, computed on demand.

    `exists(path)` and `read(path)` see the tree as it was before the plan;
    `parse_mods(path)` returns the out-of-line `mod` declarations of a file (ModDeclaration:
    inline module path, name, #[path] value or None).
    """

    def __init__(
        self,
        root: Path,
        exists: Callable[[str], bool],
        read: Callable[[str], bytes | None],
        parse_mods: Callable[[str], list[ModDeclaration]],
        prefetched: "PathAttributeSearch | None" = None,
    ) -> None:
        self._root = root
        self._prefetched = prefetched
        self._exists = exists
        self._read = read
        self._parse_mods = parse_mods
        self._packages: dict[str, Package | None] = {}
        self._path_decls: dict[str, dict[str, list[tuple[str, str]]]] = {}
        self._instances: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        self._crates: dict[str, Crate] = {}
        self._nearest: dict[str, Package | None] = {}
        self._reachable: dict[str, frozenset[str]] = {}
        self._manifests: dict[str, dict[str, Any] | None] = {}
        self._spelled_mods: dict[str, frozenset[bytes]] = {}
        self._folder_parents: dict[tuple[str, str | None, tuple[str, ...]], list[str]] = {}
        self._workspaces: dict[str, tuple[str, dict[str, Any]]] = {}

    # -- packages -----------------------------------------------------------

    def _manifest(self, directory: str) -> dict[str, Any] | None:
        """The Cargo.toml of `directory`, parsed once per index: a workspace whose members inherit
        dependencies (`dep = { workspace = true }`) asks for the root manifest once per such entry."""
        if directory in self._manifests:
            return self._manifests[directory]
        manifest = parse_manifest(self._read(join_path(directory, "Cargo.toml")))
        self._manifests[directory] = manifest
        return manifest

    def package(self, directory: str) -> Package | None:
        """The package whose Cargo.toml is in `directory`, or None."""
        if directory in self._packages:
            return self._packages[directory]
        manifest = self._manifest(directory)
        package = None
        if manifest is not None and isinstance(manifest.get("package"), dict):
            package = self._load_package(directory, manifest)
        # Recorded before its dependencies are read: (dev-)dependencies may form a
        # cycle (a dev-dependency on a crate that depends on this one).
        self._packages[directory] = package
        if package is not None and manifest is not None:
            package.dependencies = self._dependencies(directory, manifest)
            package.library_dependencies = frozenset(
                lib for lib in self._dependencies(directory, manifest, ("dependencies",)).values() if lib is not None
            )
        return package

    def _load_package(self, directory: str, manifest: dict[str, Any]) -> Package:
        name = str(manifest["package"].get("name", PurePosixPath(directory).name or "crate"))
        lib_table: dict[str, Any] = manifest["lib"] if isinstance(manifest.get("lib"), dict) else {}
        lib_path = join_path(directory, str(lib_table.get("path", "src/lib.rs")))
        lib = lib_path if self._exists(lib_path) else None
        roots = []
        for table in ("bin", "test", "example", "bench"):
            for target in manifest.get(table, []) if isinstance(manifest.get(table), list) else []:
                if isinstance(target, dict) and "path" in target:
                    roots.append(join_path(directory, str(target["path"])))
        for conventional in ("src/main.rs", "build.rs"):
            if self._exists(join_path(directory, conventional)):
                roots.append(join_path(directory, conventional))
        for folder in ("src/bin", "tests", "examples", "benches"):
            roots += self._target_files(join_path(directory, folder))
        return Package(directory, _crate_name(str(lib_table.get("name", name))), lib, sorted(set(roots) - {lib}))

    def _target_files(self, folder: str) -> list[str]:
        base = self._root / folder
        if not base.is_dir():
            return []
        found = []
        for entry in sorted(base.iterdir()):
            if entry.suffix == ".rs" and entry.is_file():
                found.append(join_path(folder, entry.name))
            elif entry.is_dir() and (entry / "main.rs").is_file():
                found.append(join_path(folder, entry.name, "main.rs"))
        return found

    def _workspace_dependencies(self, directory: str) -> tuple[str, dict[str, Any]]:
        """(folder, [workspace.dependencies]) of the workspace above `directory`, found once per
        package (each of its `dep = { workspace = true }` entries asks)."""
        if directory not in self._workspaces:
            self._workspaces[directory] = self._find_workspace_dependencies(directory)
        return self._workspaces[directory]

    def _find_workspace_dependencies(self, directory: str) -> tuple[str, dict[str, Any]]:
        current = PurePosixPath(directory)
        while True:
            manifest = self._manifest(str(current) if str(current) != "." else "")
            if manifest is not None and isinstance(manifest.get("workspace"), dict):
                deps = manifest["workspace"].get("dependencies", {})
                return (str(current) if str(current) != "." else ""), deps if isinstance(deps, dict) else {}
            if str(current) in ("", "."):
                return "", {}
            current = current.parent

    def _dependencies(
        self,
        directory: str,
        manifest: dict[str, Any],
        kinds: tuple[str, ...] = ("dependencies", "dev-dependencies", "build-dependencies"),
    ) -> dict[str, str | None]:
        """Extern crate name -> lib root in the tree (path dependencies) or None, from the tables `kinds`."""
        found: dict[str, str | None] = {}
        tables = [manifest.get(k, {}) for k in kinds]
        for target in (manifest.get("target") or {}).values():
            if isinstance(target, dict):
                tables += [target.get(k, {}) for k in kinds]
        for table in tables:
            if not isinstance(table, dict):
                continue
            for key, spec in table.items():
                base = directory
                if isinstance(spec, dict) and spec.get("workspace") is True:
                    base, workspace_deps = self._workspace_dependencies(directory)
                    spec = workspace_deps.get(key, {})
                lib = None
                if isinstance(spec, dict) and "path" in spec:
                    dependency = self.package(join_path(base, str(spec["path"])))
                    lib = dependency.lib if dependency is not None else None
                found[_crate_name(key)] = lib
        return found

    def depends_on(self, package: Package, lib: str) -> bool:
        """Whether `package` depends on the crate whose lib root is `lib`, directly or through
        the libraries of other packages of the tree (a re-export can pass an item on; a
        dependency's own dev- and build-dependencies cannot)."""
        return lib in self._reachable_libs(package)

    def _reachable_libs(self, package: Package) -> frozenset[str]:
        """The lib roots of the tree that `package` depends on, directly or through other packages'
        libraries (computed once per package: a workspace asks it for every file and deleted item)."""
        if package.dir not in self._reachable:
            direct = {d for d in package.dependencies.values() if d is not None}
            found = set(direct)
            seen = {package.dir}
            pending = list(direct)
            while pending:
                middle = self.package_of(pending.pop())
                if middle is None or middle.dir in seen:
                    continue
                seen.add(middle.dir)
                fresh = middle.library_dependencies - found
                found |= fresh
                pending += fresh
            self._reachable[package.dir] = frozenset(found)
        return self._reachable[package.dir]

    def package_of(self, path: str) -> Package | None:
        """The nearest package above `path`."""
        folder = path.rpartition("/")[0]
        if folder not in self._nearest:
            self._nearest[folder] = self._nearest_package(folder)
        return self._nearest[folder]

    def _nearest_package(self, folder: str) -> Package | None:
        current = PurePosixPath(folder or ".")
        while True:
            directory = "" if str(current) == "." else str(current)
            package = self.package(directory)
            if package is not None:
                return package
            if directory == "":
                return None
            current = current.parent

    def crate(self, root: str) -> Crate:
        """The crate whose root file is `root`."""
        if root not in self._crates:
            package = self.package_of(root)
            externs = dict(package.dependencies) if package else {}
            name = package.name if package else PurePosixPath(root).stem
            if package is not None and package.lib is not None and root != package.lib:
                externs.setdefault(package.name, package.lib)
                name = PurePosixPath(root).stem
            self._crates[root] = Crate(root, name, tuple(sorted(externs.items())))
        return self._crates[root]

    # -- modules ------------------------------------------------------------

    def instances(self, path: str) -> list[tuple[str, tuple[str, ...]]]:
        """Every (crate root, module path) the file at `path` is compiled as."""
        if path not in self._instances:
            self._instances[path] = []
            self._instances[path] = self._find_instances(path)
        return self._instances[path]

    def _find_instances(self, path: str) -> list[tuple[str, tuple[str, ...]]]:
        package = self.package_of(path) or self._loose_package(path)
        if path == package.lib or path in package.roots:
            return [(path, ())]
        found: list[tuple[str, tuple[str, ...]]] = []
        file = PurePosixPath(path)
        name = file.parent.name if file.name == "mod.rs" else file.stem
        folder = file.parent.parent if file.name == "mod.rs" else file.parent
        for parent in self._parents_of_folder(str(folder), package):
            if not self._may_declare_mod(parent, name):
                continue
            for inline, declared, attr_path in self._parse_mods(parent):
                if declared == name and attr_path is None and not inline:
                    found += [(root, module + (name,)) for root, module in self.instances(parent)]
        if not found:
            for parent, inline, declared in self._declared_by_path(path, package):
                found += [(root, module + inline + (declared,)) for root, module in self.instances(parent)]
        return list(dict.fromkeys(found))

    def _loose_package(self, path: str) -> Package:
        """The crate a file without a Cargo.toml above it belongs to: rooted at the nearest
        `lib.rs` or `main.rs` on the way up from its folder (its modules load from there as in a
        package), or at the file itself where there is none."""
        current = PurePosixPath(path).parent
        while True:
            folder = "" if str(current) == "." else str(current)
            for stem in ("lib.rs", "main.rs"):
                root = join_path(folder, stem)
                if self._exists(root):
                    return Package(
                        folder,
                        PurePosixPath(folder).name or "crate",
                        root if stem == "lib.rs" else None,
                        [] if stem == "lib.rs" else [root],
                    )
            if folder == "":
                return Package(str(PurePosixPath(path).parent), PurePosixPath(path).stem, None, [path])
            current = current.parent

    def _may_declare_mod(self, parent: str, name: str) -> bool:
        """Whether the text of `parent` spells `mod name;` (regex `\\bmod\\s+NAME\\s*;`; no parse):
        the names so spelled are read once per file, a folder's files all asking its parents."""
        spelled = self._spelled_mods.get(parent)
        if spelled is None:
            spelled = self._spelled_mods[parent] = frozenset(_SPELLED_MOD.findall(self._read(parent) or b""))
        encoded = name.encode()
        if _WORD.fullmatch(encoded):
            return encoded in spelled
        return _spelled_mod_pattern(encoded).search(self._read(parent) or b"") is not None

    def _parents_of_folder(self, folder: str, package: Package) -> list[str]:
        """Files whose `mod x;` declarations load files from `folder` (found once per folder and
        package roots: every file of the folder asks)."""
        key = (folder, package.lib, tuple(package.roots))
        if key not in self._folder_parents:
            self._folder_parents[key] = self._find_parents_of_folder(folder, package)
        return self._folder_parents[key]

    def _find_parents_of_folder(self, folder: str, package: Package) -> list[str]:
        folder_path = PurePosixPath(folder)
        candidates = [join_path(str(folder_path.parent), folder_path.name + ".rs"), join_path(folder, "mod.rs")]
        # A crate root loads its modules from its own folder, as a mod.rs does.
        candidates += [
            r
            for r in (package.lib, *package.roots)
            if r is not None and str(PurePosixPath(r).parent) == str(folder_path)
        ]
        return [c for c in dict.fromkeys(candidates) if self._exists(c)]

    def _path_declarations(self, package: Package) -> dict[str, list[tuple[str, str]]]:
        """File name -> [(declaring file, `#[path]` value)] for the `#[path]` attributes of a package."""
        if package.dir not in self._path_decls:
            found: dict[str, list[tuple[str, str]]] = {}
            for declaring, value in self._path_attributes(package.dir):
                found.setdefault(PurePosixPath(value).name, []).append((declaring, value))
            self._path_decls[package.dir] = found
        return self._path_decls[package.dir]

    def _declared_by_path(self, path: str, package: Package) -> list[tuple[str, tuple[str, ...], str]]:
        """(declaring file, inline module path, module name) of the `#[path]` mods that load `path`."""
        found = []
        for declaring, value in self._path_declarations(package).get(PurePosixPath(path).name, []):
            base = PurePosixPath(declaring).parent
            for inline, name, attr_path in self._parse_mods(declaring):
                if attr_path is None or attr_path != value:
                    continue
                if inline:
                    stem = PurePosixPath(declaring)
                    inner = base if stem.name in ("mod.rs", "lib.rs", "main.rs") else base / stem.stem
                    target = join_path(str(inner), *inline, attr_path)
                else:
                    target = join_path(str(base), attr_path)
                if target == path:
                    found.append((declaring, inline, name))
        return found

    def _path_attributes(self, directory: str) -> list[tuple[str, str]]:
        """(file, value) of every `#[path = "value"]` under `directory`: from the search of the
        whole tree started with the plan (`PathAttributeSearch`), else one rg search here."""
        if self._prefetched is not None and "target" not in PurePosixPath(directory).parts:
            found = self._prefetched.under(directory)
            if found is not None:
                return found
        return path_attributes(self._root, directory)


class PathAttributeSearch:
    """The `#[path = "value"]` attributes under some folders of the tree (the packages of the
    files a recipe deletes in), searched by rg (in its own process) from the plan's start
    (`start_searches`), so that the module lookups find them waiting. Those under a folder
    inside one of them are those its own search finds: rg reads the same ignore files either
    way, and a folder inside a `target/` (which these searches skip) is searched on its own,
    as is any folder outside them. `close()` stops a search nobody asked (the plan's end)."""

    def __init__(self, root: Path, folders: list[str]) -> None:
        self._folders = folders
        self._found: list[tuple[str, str]] | None = None
        self._process: subprocess.Popen[bytes] | None = None
        rg = shutil.which("rg")
        if rg is not None and folders:
            try:
                self._process = subprocess.Popen(
                    _path_attribute_command(rg, [f or "." for f in folders]),
                    cwd=root,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                )
            except OSError:
                self._process = None

    def under(self, directory: str) -> list[tuple[str, str]] | None:
        """(file, value) of the attributes under `directory` ("": all); None where this search
        does not cover it or failed."""
        if not any(not f or directory == f or directory.startswith(f + "/") for f in self._folders):
            return None
        if self._process is not None:
            output, _ = self._process.communicate()
            self._found = _path_attribute_lines(output, "")  # as path_attributes reads it, whatever rg exits with
            self._process = None
        if self._found is None:
            return None
        prefix = directory.rstrip("/") + "/" if directory else ""
        return [(file, value) for file, value in self._found if file.startswith(prefix)]

    def close(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.communicate()
            self._process = None


_PATH_ATTRIBUTE = r'#\[\s*path\s*=\s*"([^"]*)"'


def _path_attribute_command(rg: str, paths: list[str]) -> list[str]:
    return [
        rg,
        "--no-config",
        "--only-matching",
        "--no-line-number",
        "--with-filename",
        "--null",
        "--no-messages",
        "--glob",
        "*.rs",
        "--glob",
        "!target/",
        "--replace",
        "$1",
        "-e",
        _PATH_ATTRIBUTE,
        "--",
        *paths,
    ]


def _path_attribute_lines(output: bytes, directory: str) -> list[tuple[str, str]]:
    found = []
    for line in output.decode("utf-8", "surrogateescape").splitlines():
        file, _, value = line.partition("\0")
        found.append((join_path(directory, file), value))
    return found


def package_folder(root: Path, path: str) -> str:
    """The folder of the nearest `Cargo.toml` above `path` (relative to `root`; "" for the root
    itself or none)."""
    folder = PurePosixPath(path).parent
    while str(folder) not in ("", "."):
        if (root / folder / "Cargo.toml").is_file():
            return str(folder)
        folder = folder.parent
    return ""


def path_attributes(root: Path, directory: str) -> list[tuple[str, str]]:
    """(file, value) of every `#[path = "value"]` under `directory` of `root` (one rg search)."""
    rg = shutil.which("rg")
    base = root / directory if directory else root
    found = []
    if rg is not None:
        result = subprocess.run(_path_attribute_command(rg, ["."]), cwd=base, capture_output=True)
        return _path_attribute_lines(result.stdout, directory)
    compiled = re.compile(_PATH_ATTRIBUTE.encode())
    for file in sorted(base.rglob("*.rs")):
        if "target" in file.parts:
            continue
        for match in compiled.finditer(file.read_bytes()):
            found.append((join_path(directory, file.relative_to(base).as_posix()), match.group(1).decode()))
    return found
