"""Generate a big multi-crate Cargo workspace for the scale benchmark (issue 25).

A workspace of `--crates` crates (default 40) under `crates/`, about `--lines`
lines of Rust in all (default 2.1M), deterministic for a seed. What makes it
hard for a reference check, on purpose:

- a dependency graph where each crate depends on a few lower ones, and one
  dev-dependency cycle (`base` dev-depends on `testkit`, which depends on
  `base`), as real workspaces have;
- re-exports (`pub use`), glob imports (`use base::kv::*;`), renames
  (`use ... as ...`);
- the same item names in many crates (every crate has `fn block_count`,
  `struct Config`, `mod kv`), so spelling alone says nothing;
- six items the recipe deletes, in two crates (`base` and `sched`), named
  from other crates through plain, grouped, glob and re-exported imports,
  qualified paths, and by same-name items that are not them.

Writes ROOT/Cargo.toml, ROOT/crates/*/..., and ROOT/delete-six.toml (the
recipe: deleting the six items) and a manifest; skips regeneration when the
manifest says nothing changed.

    python bench/gen_workspace.py [--out DIR] [--lines N] [--crates N] [--seed S]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "bench" / "out" / "workspace"
VERSION = 2  # bump when the generator's output changes

NOUNS = [
    "tensor",
    "block",
    "token",
    "head",
    "layer",
    "window",
    "expert",
    "router",
    "rope",
    "norm",
    "weight",
    "scale",
    "batch",
    "prompt",
    "sampler",
    "logit",
    "vocab",
    "shard",
    "stream",
    "queue",
    "slot",
    "page",
    "lane",
    "grid",
    "tile",
    "chunk",
    "span",
    "state",
    "gate",
    "mask",
]
VERBS = [
    "build",
    "apply",
    "split",
    "merge",
    "resolve",
    "prepare",
    "update",
    "compute",
    "collect",
    "reduce",
    "rotate",
    "align",
    "pack",
    "unpack",
    "encode",
    "decode",
    "filter",
    "route",
    "clamp",
    "scatter",
]
MODULES = ["kv", "attention", "sampling", "loader", "metrics", "config", "router", "quant", "vision", "audio"]
# Names every crate defines again (same spelling, other items).
SHARED_NAMES = ("block_count", "evict_stale", "Config", "reset_pages")

# The six deleted items: (crate, module, kind, name).
DELETED = (
    ("base", "kv", "fn", "evict_stale_pages"),
    ("base", "kv", "fn", "legacy_block_count"),
    ("base", "kv", "struct", "LegacyPageTable"),
    ("base", "attention", "fn", "dense_compat_attend"),
    ("sched", "kv", "fn", "drain_legacy_queue"),
    ("sched", "router", "struct", "LegacyRoute"),
)


def crate_names(count: int) -> list[str]:
    fixed = ["base", "testkit", "sched"]
    return fixed + [f"c{index:02d}" for index in range(count - len(fixed))]


class Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.counter = 0

    def unique(self) -> int:
        self.counter += 1
        return self.counter

    def fn_name(self) -> str:
        return f"{self.rng.choice(VERBS)}_{self.rng.choice(NOUNS)}_{self.unique()}"

    def doc(self, indent: str) -> list[str]:
        words = " ".join(self.rng.choice(NOUNS) for _ in range(self.rng.randint(4, 12)))
        return [f"{indent}/// {words.capitalize()}."]

    def body(self, indent: str, calls: list[str]) -> list[str]:
        rng = self.rng
        out = []
        for _ in range(rng.randint(3, 8)):
            var = f"{rng.choice(NOUNS)}_{rng.randint(0, 99)}"
            roll = rng.random()
            if roll < 0.35:
                out.append(f"{indent}let {var}: usize = {rng.randint(1, 64)} * {rng.randint(1, 9)};")
            elif roll < 0.55:
                out.append(f"{indent}for {var} in 0..{rng.randint(2, 64)} {{")
                out.append(f"{indent}    total += {var};")
                out.append(f"{indent}}}")
            elif roll < 0.7 and calls:
                out.append(f"{indent}total += {rng.choice(calls)}({rng.randint(0, 9)});")
            elif roll < 0.85:
                out.append(
                    f"{indent}let {var} = [{rng.randint(0, 9)}usize, {rng.randint(0, 9)}].iter().sum::<usize>();"
                )
                out.append(f"{indent}total += {var};")
            else:
                out.append(f"{indent}// {rng.choice(VERBS)} the {rng.choice(NOUNS)} before the {rng.choice(NOUNS)}.")
        return out

    def function(self, name: str, calls: list[str], public: bool = True) -> list[str]:
        lines = self.doc("")
        lines.append(f"{'pub ' if public else ''}fn {name}(seed: usize) -> usize {{")
        lines.append("    let mut total = seed;")
        lines += self.body("    ", calls)
        lines.append("    total")
        lines.append("}")
        lines.append("")
        return lines

    def structure(self, name: str) -> list[str]:
        fields = [f"    pub {self.rng.choice(NOUNS)}_{i}: usize," for i in range(self.rng.randint(2, 6))]
        return [
            *self.doc(""),
            "#[derive(Debug, Clone, Default)]",
            f"pub struct {name} {{",
            *fields,
            "}",
            "",
            f"impl {name} {{",
            "    pub fn size(&self) -> usize {",
            "        0",
            "    }",
            "}",
            "",
        ]


def module_text(gen: Gen, crate: str, module: str, lines: int, extra: list[str], calls: list[str]) -> str:
    out = [f"//! The {module} module of {crate}.", ""]
    out += extra
    shared = [f"{name}" for name in SHARED_NAMES if name[0].islower()]
    for name in shared:
        out += gen.function(name if module == "kv" else f"{name}_{module}", [])
    out += gen.structure("Config" if module == "config" else f"{module.capitalize()}Config")
    local: list[str] = []
    while len(out) < lines:
        name = gen.fn_name()
        out += gen.function(name, calls + local[-3:], public=gen.rng.random() < 0.7)
        local.append(name)
        if gen.rng.random() < 0.1:
            out += gen.structure(f"{gen.rng.choice(NOUNS).capitalize()}{gen.unique()}")
    out.append("#[cfg(test)]")
    out.append("mod tests {")
    out.append("    use super::*;")
    out.append("")
    out.append("    #[test]")
    out.append(f"    fn {module}_block_count_is_stable() {{")
    out.append("        assert_eq!(block_count(1), block_count(1));" if module == "kv" else "        assert!(true);")
    out.append("    }")
    out.append("}")
    return "\n".join(out) + "\n"


def uses_of_deleted(crate: str, module: str, index: int) -> list[str]:
    """Code in another crate that names the deleted items, in the ways real code does."""
    roll = index % 5
    if roll == 0:
        return [
            "use base::kv::{evict_stale_pages, legacy_block_count};",
            "",
            "pub fn uses_core_kv(pages: usize) -> usize {",
            "    evict_stale_pages(pages) + legacy_block_count(pages)",
            "}",
            "",
        ]
    if roll == 1:
        return [
            "use base::kv::*;",
            "",
            "pub fn uses_glob(pages: usize) -> usize {",
            "    let table = LegacyPageTable::default();",
            "    table.size() + legacy_block_count(pages)",
            "}",
            "",
        ]
    if roll == 2:
        return [
            "use base::attention::dense_compat_attend as attend_old;",
            "",
            "pub fn uses_renamed(q: usize) -> usize {",
            "    attend_old(q)",
            "}",
            "",
        ]
    if roll == 3:
        return [
            "pub fn uses_qualified(q: usize) -> usize {",
            "    sched::kv::drain_legacy_queue(q) + base::prelude::evict_stale_pages(q)",
            "}",
            "",
        ]
    # A same-name function that is not the deleted one: not a reference.
    return [
        "fn legacy_block_count(pages: usize) -> usize {",
        "    pages",
        "}",
        "",
        "pub fn uses_own_same_name(pages: usize) -> usize {",
        "    legacy_block_count(pages)",
        "}",
        "",
    ]


def generate(out: Path, lines: int, crates: int, seed: int) -> dict:
    key = {"version": VERSION, "lines": lines, "crates": crates, "seed": seed}
    manifest_path = out / "manifest.json"
    if manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("key") == key:
            return manifest
    shutil.rmtree(out, ignore_errors=True)
    (out / "crates").mkdir(parents=True)
    gen = Gen(seed)
    names = crate_names(crates)
    per_module = max(200, lines // (crates * 48))
    files = 0
    total = 0
    for position, crate in enumerate(names):
        root = out / "crates" / crate
        (root / "src").mkdir(parents=True)
        dependencies = {"base"} if crate != "base" else set()
        if position > 3:
            dependencies |= {gen.rng.choice(names[3:position]) for _ in range(2)} | {"sched"}
        if crate == "sched":
            dependencies = {"base"}
        dev = {"testkit"} if crate == "base" else set()
        cargo = [f'[package]\nname = "{crate}"\nversion = "0.1.0"\nedition = "2021"\n', "[dependencies]"]
        cargo += [f'{d} = {{ path = "../{d}" }}' for d in sorted(dependencies)]
        if dev:
            cargo += ["", "[dev-dependencies]"] + [f'{d} = {{ path = "../{d}" }}' for d in sorted(dev)]
        (root / "Cargo.toml").write_text("\n".join(cargo) + "\n")
        modules = list(MODULES)
        # 48 modules a crate: the ten named ones, then numbered ones.
        modules += [f"part{i:02d}" for i in range(48 - len(modules))]
        lib = [f"//! The {crate} crate.", ""]
        lib += [f"pub mod {m};" for m in modules]
        lib += ["", "pub mod prelude {", "    pub use crate::kv::*;", "}", ""]
        (root / "src" / "lib.rs").write_text("\n".join(lib) + "\n")
        for index, module in enumerate(modules):
            extra: list[str] = []
            for d_crate, d_module, kind, name in DELETED:
                if d_crate == crate and d_module == module:
                    extra += gen.function(name, []) if kind == "fn" else gen.structure(name)
            if crate not in ("base", "sched", "testkit") and module.startswith("part") and index % 6 == 0:
                extra += uses_of_deleted(crate, module, index + position)
            text = module_text(gen, crate, module, per_module, extra, [])
            (root / "src" / f"{module}.rs").write_text(text)
            files += 1
            total += text.count("\n")
    members = ",\n".join(f'    "crates/{c}"' for c in names)
    (out / "Cargo.toml").write_text(f'[workspace]\nresolver = "2"\nmembers = [\n{members},\n]\n')
    recipe = [
        'id = "delete-six"',
        'summary = "delete six items of two crates that other crates use"',
        'dead_symbol_pattern = "' + "|".join(name for *_, name in DELETED) + '"',
        'check_scope = ["crates"]',
        "",
    ]
    for crate, module, kind, name in DELETED:
        recipe += [
            "[[delete]]",
            f'path = "crates/{crate}/src/{module}.rs"',
            'language = "rust"',
            f'kind = "{kind}"',
            f'name = "crate::{name}"',
            "",
        ]
    (out / "delete-six.toml").write_text("\n".join(recipe))
    digest = hashlib.sha256()
    for path in sorted((out / "crates").rglob("*.rs"))[:50]:
        digest.update(path.read_bytes())
    manifest = {"key": key, "files": files, "lines": total, "crates": len(names), "digest": digest.hexdigest()}
    manifest_path.write_text(json.dumps(manifest, indent=2))
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--lines", type=int, default=2_100_000)
    parser.add_argument("--crates", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2230)
    args = parser.parse_args()
    manifest = generate(args.out, args.lines, args.crates, args.seed)
    print(f"{args.out}: {manifest['crates']} crates, {manifest['files']} files, {manifest['lines']} lines of Rust")


if __name__ == "__main__":
    main()
