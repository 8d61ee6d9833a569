"""Build a real large Rust workspace from the Cargo registry sources on this machine (issue 31).

The crates of `/usr/share/cargo/registry` (and `~/.cargo/registry/src/*/`
when present) are copied side by side under ROOT/crates/, each member's
dependencies on another member get a `path` next to their version (as a
vendored monorepo has them, so the reference check follows calls across
crates), and ROOT/Cargo.toml lists them as members of one virtual workspace.
The sources are the crates' own, unchanged. ROOT/delete-methods.toml is a
recipe that deletes methods with common names (`len`, `new`, `parse`, ...)
of specific types of specific crates.

Written under bench/out/ (never committed); skipped when the manifest says
the same registry was copied before.

    python bench/registry_workspace.py [--out DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "bench" / "out" / "registry-workspace"
REGISTRIES = (Path("/usr/share/cargo/registry"), *sorted((Path.home() / ".cargo" / "registry" / "src").glob("*")))
VERSION = 1  # bump when the builder's output changes

# The deleted methods: (crate folder prefix, file in it, qualified name). Common method
# names, so that same-named calls on other types fill every crate.
DELETED = (
    ("smallvec-", "src/lib.rs", "crate::SmallVec::len"),
    ("smallvec-", "src/lib.rs", "crate::SmallVec::is_empty"),
    ("indexmap-", "src/map.rs", "crate::IndexMap::get"),
    ("hashbrown-", "src/map.rs", "crate::HashMap::insert"),
    ("regex-syntax-", "src/ast/parse.rs", "crate::Parser::parse"),
    ("itoa-", "src/lib.rs", "crate::Buffer::new"),
)
DEPENDENCY_TABLE = re.compile(r"^\[((?:target\.[^\]]+\.)?(?:dev-|build-)?dependencies)\.([A-Za-z0-9_-]+)\]\s*$")


def crate_dirs() -> list[Path]:
    """The crate folders of the registries, one per package name (the first registry wins)."""
    seen: dict[str, Path] = {}
    for registry in REGISTRIES:
        if not registry.is_dir():
            continue
        for crate in sorted(registry.iterdir()):
            manifest = crate / "Cargo.toml"
            if manifest.is_file():
                name = tomllib.loads(manifest.read_text()).get("package", {}).get("name")
                if name and name not in seen:
                    seen[name] = crate
    return list(seen.values())


def with_member_paths(manifest: str, members: dict[str, str]) -> str:
    """`manifest` with `path = "../DIR"` added to each dependency table naming a member."""
    lines = manifest.splitlines()
    out: list[str] = []
    pending: tuple[int, str] | None = None
    for line in lines:
        if line.startswith("["):
            pending = None
            found = DEPENDENCY_TABLE.match(line)
            if found and found.group(2) in members:
                out.append(line)
                out.append(f'path = "../{members[found.group(2)]}"')
                pending = (len(out) - 1, found.group(2))
                continue
        elif pending and line.replace(" ", "").startswith("package="):
            # A renamed dependency: the path is the package's, not the key's.
            package = tomllib.loads(line)["package"]
            index, _ = pending
            if package in members:
                out[index] = f'path = "../{members[package]}"'
            else:
                del out[index]
            pending = None
        out.append(line)
    return "\n".join(out) + "\n"


def build(out: Path = DEFAULT_OUT) -> dict:
    """Copy the registry crates into `out` as one workspace; returns its manifest (files, lines, crates)."""
    crates = crate_dirs()
    key = hashlib.sha256(json.dumps([VERSION, [str(c) for c in crates], DELETED]).encode()).hexdigest()
    manifest_path = out / "manifest.json"
    if manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("key") == key:
            return manifest
    if not crates:
        raise SystemExit("bench: no Cargo registry sources found in " + ", ".join(map(str, REGISTRIES)))
    shutil.rmtree(out, ignore_errors=True)
    (out / "crates").mkdir(parents=True)
    members = {tomllib.loads((c / "Cargo.toml").read_text())["package"]["name"]: c.name for c in crates}
    for crate in crates:
        target = out / "crates" / crate.name
        shutil.copytree(crate, target, symlinks=False, ignore=shutil.ignore_patterns(".cargo-checksum.json"))
        text = (target / "Cargo.toml").read_text()
        (target / "Cargo.toml").write_text(with_member_paths(text, members))
    (out / "Cargo.toml").write_text(
        '[workspace]\nresolver = "2"\nmembers = [\n' + "".join(f'    "crates/{c.name}",\n' for c in crates) + "]\n"
    )
    recipe = [
        'id = "delete-methods"',
        'summary = "delete methods with common names of six registry crates"',
        'check_scope = ["crates"]',
        "",
    ]
    for prefix, path, name in DELETED:
        folder = next(c.name for c in crates if c.name.startswith(prefix) and c.name[len(prefix)].isdigit())
        recipe += [
            "[[delete]]",
            f'path = "crates/{folder}/{path}"',
            'language = "rust"',
            'kind = "fn"',
            f'name = "{name}"',
            "",
        ]
    (out / "delete-methods.toml").write_text("\n".join(recipe))
    sources = sorted((out / "crates").rglob("*.rs"))
    manifest = {
        "key": key,
        "crates": len(crates),
        "files": len(sources),
        "lines": sum(p.read_bytes().count(b"\n") for p in sources),
        "registries": [str(r) for r in REGISTRIES if r.is_dir()],
    }
    manifest_path.write_text(json.dumps(manifest, indent=2))
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    print(json.dumps(build(args.out), indent=2))


if __name__ == "__main__":
    main()
