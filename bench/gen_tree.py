"""Generate the benchmark tree: mlxcel's shape at mlxcel's size, around the fixture's targets.

The fixture crate's files (fixtures/mlxcel-mini) are copied to the same
relative paths and padded with unrelated items to the sizes of the real files
(layers.rs ~6k lines, cache.rs ~9k, ffi_tests.rs ~4k, lib.rs ~3k with a
larger cxx bridge, mlx_cxx_bridge.cpp ~5k and .h ~2k); the rest of the tree
is unrelated but realistic code: Rust modules of documented functions,
structs with derives and impl blocks, enums, trait impls and test modules;
C++ sources and headers; and a few CUDA files whose kernel launches
(`<<<grid, block>>>`) tree-sitter-cpp cannot parse.

Deterministic: the same seed, size and fixture give the same bytes. The
default output is bench/out/tree (git-ignored); a manifest there lets the
benchmarks skip regeneration when nothing changed.

    python bench/gen_tree.py [--out DIR] [--lines N] [--seed S]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "mlxcel-mini"
DEFAULT_OUT = REPO / "bench" / "out" / "tree"
CORE = "src/lib/mlxcel-core"

# Target files of the recipe and the size (lines) the real tree has them at.
PADDED = {
    f"{CORE}/src/layers.rs": 6000,
    f"{CORE}/src/cache.rs": 9000,
    f"{CORE}/src/ffi_tests.rs": 4000,
    f"{CORE}/src/lib.rs": 3000,
    f"{CORE}/cpp/mlx_cxx_bridge.cpp": 5000,
    f"{CORE}/cpp/mlx_cxx_bridge.h": 2000,
}
# Share of the generated lines that are C++ (mlxcel: ~27k of ~590k) and CUDA files among them.
CPP_SHARE = 0.06
CUDA_FILES = 6

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
    "kernel",
    "bias",
    "delta",
    "offset",
    "stride",
    "shape",
    "axis",
    "group",
    "session",
    "request",
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
    "gather",
    "project",
    "normalize",
    "quantize",
    "dequantize",
    "warm",
    "drain",
    "evict",
    "load",
    "store",
]
AREAS = [
    "models",
    "server",
    "engine",
    "sampling",
    "tokenizer",
    "quant",
    "loader",
    "metrics",
    "vision",
    "speculative",
    "lora",
    "config",
    "kv",
    "moe",
    "audio",
    "cli",
]
RUST_TYPES = ["usize", "i32", "u32", "f32", "f64", "bool", "u64", "i64"]
WORDS = (
    "the of each per when only after before stays keeps returns holds every shared current "
    "step size request limit budget cached pending ready layout contiguous"
).split()


def camel(*parts: str) -> str:
    return "".join(p.capitalize() for p in parts)


class Writer:
    """Seeded generators of Rust, C++ and CUDA items; every name is unique within the tree."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.counter = 0

    def _unique(self) -> int:
        self.counter += 1
        return self.counter

    def fn_name(self) -> str:
        return f"{self.rng.choice(VERBS)}_{self.rng.choice(NOUNS)}_{self.rng.choice(NOUNS)}_{self._unique()}"

    def type_name(self) -> str:
        return f"{camel(self.rng.choice(NOUNS), self.rng.choice(NOUNS))}{self._unique()}"

    def sentence(self, low: int = 5, high: int = 14) -> str:
        words = [self.rng.choice(WORDS + NOUNS) for _ in range(self.rng.randint(low, high))]
        return " ".join(words).capitalize() + "."

    def doc(self, indent: str, marker: str = "///") -> list[str]:
        lines = [f"{indent}{marker} {self.sentence()}"]
        if self.rng.random() < 0.6:
            lines.append(f"{indent}{marker}")
            lines += [f"{indent}{marker} {self.sentence()}" for _ in range(self.rng.randint(1, 4))]
        if self.rng.random() < 0.2:
            lines.append(
                f"{indent}{marker} See [`{self.fn_name()}`] and [`crate::{self.rng.choice(AREAS)}::{self.type_name()}`]."
            )
        return lines

    # Rust

    def rust_statements(self, indent: str, depth: int = 0) -> list[str]:
        rng = self.rng
        out = []
        for _ in range(rng.randint(3, 9)):
            var = f"{rng.choice(NOUNS)}_{rng.randint(0, 99)}"
            roll = rng.random()
            if roll < 0.3:
                out.append(
                    f"{indent}let {var}: {rng.choice(RUST_TYPES[:5])} = {rng.choice(NOUNS)}_count(&{rng.choice(NOUNS)}s, {rng.randint(1, 64)});"
                )
            elif roll < 0.45 and depth < 2:
                out.append(f"{indent}for {var} in 0..{rng.choice(['len', 'limit', 'heads', 'tokens'])} {{")
                out += self.rust_statements(indent + "    ", depth + 1)
                out.append(f"{indent}}}")
            elif roll < 0.6 and depth < 2:
                out.append(
                    f"{indent}if {var} > {rng.randint(0, 512)} && let Some(found) = lookup_{rng.choice(NOUNS)}({var}) {{"
                )
                out.append(f"{indent}    // {self.sentence()}")
                out += self.rust_statements(indent + "    ", depth + 1)
                out.append(f"{indent}}} else {{")
                out.append(f'{indent}    return Err(Error::msg("{rng.choice(VERBS)}: {self.sentence(3, 6)}"));')
                out.append(f"{indent}}}")
            elif roll < 0.72 and depth < 2:
                out.append(f"{indent}match {var} {{")
                for arm in range(rng.randint(2, 4)):
                    out.append(f"{indent}    {arm} => {rng.choice(VERBS)}_{rng.choice(NOUNS)}({var}, {arm}),")
                out.append(f"{indent}    _ => {{}}")
                out.append(f"{indent}}}")
            elif roll < 0.85:
                out.append(
                    f"{indent}let {var} = self.{rng.choice(NOUNS)}s.iter().map(|x| x * {rng.randint(2, 9)}).sum::<usize>();"
                )
            else:
                out.append(f"{indent}// {self.sentence()}")
        return out

    def rust_fn(self, indent: str = "", public: bool = True, method: bool = False) -> list[str]:
        rng = self.rng
        name = self.fn_name()
        params = [f"{rng.choice(NOUNS)}_{i}: {rng.choice(RUST_TYPES)}" for i in range(rng.randint(0, 4))]
        if method:
            params.insert(0, rng.choice(["&self", "&mut self"]))
        vis = "pub " if public else ""
        lines = self.doc(indent)
        if rng.random() < 0.15:
            lines.append(f"{indent}#[inline]")
        lines.append(f"{indent}{vis}fn {name}({', '.join(params)}) -> Result<{rng.choice(RUST_TYPES)}, Error> {{")
        lines += self.rust_statements(indent + "    ")
        lines.append(f"{indent}    Ok(Default::default())")
        lines.append(f"{indent}}}")
        return lines

    def rust_struct(self) -> list[str]:
        rng = self.rng
        name = self.type_name()
        lines = self.doc("")
        lines.append(f"#[derive({rng.choice(['Debug, Clone', 'Debug, Clone, PartialEq', 'Debug, Default'])})]")
        lines.append(f"pub struct {name} {{")
        for i in range(rng.randint(2, 8)):
            lines.append(f"    /// {self.sentence(3, 8)}")
            lines.append(
                f"    pub {rng.choice(NOUNS)}_{i}: {rng.choice(['Vec<i32>', 'usize', 'f32', 'Option<u64>', 'String'])},"
            )
        lines.append("}")
        lines.append("")
        lines.append(f"impl {name} {{")
        for index in range(rng.randint(1, 4)):
            if index:
                lines.append("")
            lines += self.rust_fn("    ", public=rng.random() < 0.7, method=True)
        lines.append("}")
        return lines

    def rust_enum(self) -> list[str]:
        name = self.type_name()
        lines = self.doc("")
        lines.append("#[derive(Debug, Clone, Copy, PartialEq, Eq)]")
        lines.append(f"pub enum {name} {{")
        for noun in self.rng.sample(NOUNS, self.rng.randint(2, 6)):
            lines.append(f"    /// {self.sentence(3, 8)}")
            lines.append(f"    {camel(noun)},")
        lines.append("}")
        lines.append("")
        lines.append(f"impl std::fmt::Display for {name} {{")
        lines.append("    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {")
        lines.append('        write!(f, "{self:?}")')
        lines.append("    }")
        lines.append("}")
        return lines

    def rust_tests(self) -> list[str]:
        lines = ["#[cfg(test)]", "mod tests {", "    use super::*;", ""]
        for index in range(self.rng.randint(2, 5)):
            if index:
                lines.append("")
            lines.append("    #[test]")
            lines.append(f"    fn {self.fn_name()}() {{")
            lines += self.rust_statements("        ")
            lines.append(
                f'        assert_eq!({self.rng.randint(0, 9)}, {self.rng.randint(0, 9)} - 0, "{self.sentence(3, 6)}");'
            )
            lines.append("    }")
        lines.append("}")
        return lines

    def rust_item(self) -> list[str]:
        roll = self.rng.random()
        if roll < 0.55:
            return self.rust_fn(public=self.rng.random() < 0.6)
        if roll < 0.85:
            return self.rust_struct()
        return self.rust_enum()

    def rust_items(self, lines: int) -> list[str]:
        out: list[str] = []
        while len(out) < lines:
            out += self.rust_item()
            out.append("")
        return out

    def rust_module(self, lines: int) -> str:
        out = self.doc("", "//!") + ["", "use crate::error::Error;", "use std::collections::HashMap;", ""]
        out += self.rust_items(lines - len(out) - 30)
        out += self.rust_tests()
        return "\n".join(out) + "\n"

    def bridge_entries(self, lines: int) -> list[str]:
        out = ['    unsafe extern "C++" {']
        while len(out) < lines:
            out += self.doc("        ")
            if self.rng.random() < 0.1:
                out.append(f'        #[rust_name = "{self.fn_name()}"]')
            params = [f"{self.rng.choice(NOUNS)}: &MlxArray" for _ in range(self.rng.randint(1, 3))]
            params += [f"{self.rng.choice(NOUNS)}_n: i32" for _ in range(self.rng.randint(0, 2))]
            out.append(f"        fn mlx_{self.fn_name()}({', '.join(params)}) -> UniquePtr<MlxArray>;")
            out.append("")
        out[-1] = "    }"
        out.append("")
        return out

    # C++

    def cpp_fn(self, declaration: bool = False) -> list[str]:
        rng = self.rng
        name = f"mlx_{self.fn_name()}"
        params = ["const MlxArray& input"] + [f"int32_t {rng.choice(NOUNS)}_{i}" for i in range(rng.randint(0, 3))]
        lines = [f"// {self.sentence()}"]
        if declaration:
            lines.append(f"std::unique_ptr<MlxArray> {name}({', '.join(params)});")
            return lines
        lines.append(f"std::unique_ptr<MlxArray> {name}(")
        lines += [f"    {p}," for p in params[:-1]] + [f"    {params[-1]}) {{"]
        lines.append("  const auto& shape = input.shape();")
        lines.append("  if (shape.empty()) {")
        lines.append(f'    throw std::invalid_argument("{name}: {self.sentence(3, 6)}");')
        lines.append("  }")
        lines.append("  std::vector<float> out(input.data().size());")
        for _ in range(rng.randint(1, 4)):
            lines.append("  for (size_t i = 0; i < out.size(); ++i) {")
            lines.append(f"    // {self.sentence(4, 9)}")
            lines.append(f"    out[i] = input.data()[i] * {rng.randint(1, 9)}.0f + {rng.random():.3f}f;")
            lines.append("  }")
        lines.append("  return std::make_unique<MlxArray>(shape, input.dtype(), std::move(out));")
        lines.append("}")
        return lines

    def cpp_class(self) -> list[str]:
        name = self.type_name()
        lines = [f"// {self.sentence()}", f"class {name} {{", " public:"]
        for i in range(self.rng.randint(2, 5)):
            lines.append(f"  int32_t {self.rng.choice(NOUNS)}_{i}() const {{ return {self.rng.choice(NOUNS)}_{i}_; }}")
        lines.append("")
        lines.append(" private:")
        for i in range(self.rng.randint(2, 5)):
            lines.append(f"  int32_t {self.rng.choice(NOUNS)}_{i}_ = {self.rng.randint(0, 64)};")
        lines.append("};")
        return lines

    def cpp_items(self, lines: int, declarations: bool = False) -> list[str]:
        out: list[str] = []
        while len(out) < lines:
            if self.rng.random() < 0.15:
                out += self.cpp_class()
            else:
                out += self.cpp_fn(declaration=declarations)
            out.append("")
        return out

    def cpp_source(self, lines: int) -> str:
        head = [
            "#include <memory>",
            "#include <stdexcept>",
            "#include <vector>",
            "",
            '#include "array.h"',
            "",
            f"namespace mlxcel_{self.rng.choice(AREAS)} {{",
            "",
        ]
        body = self.cpp_items(lines - len(head) - 2)
        return "\n".join(head + body + ["}  // namespace"]) + "\n"

    def cpp_header(self, lines: int) -> str:
        head = ["#pragma once", "", "#include <cstdint>", "#include <memory>", ""]
        return "\n".join(head + self.cpp_items(lines - len(head), declarations=True)) + "\n"

    def cuda_source(self, lines: int) -> str:
        out = ["#include <cuda_runtime.h>", ""]
        while len(out) < lines:
            name = self.fn_name()
            out += [
                f"// {self.sentence()}",
                f"__global__ void {name}_kernel(const float* in, float* out, int n) {{",
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;",
                f"  if (i < n) out[i] = in[i] * {self.rng.randint(2, 9)}.0f;",
                "}",
                "",
                f"void launch_{name}(const float* in, float* out, int n, cudaStream_t stream) {{",
                "  int threads = 256;",
                f"  {name}_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(in, out, n);",
                "}",
                "",
            ]
        return "\n".join(out) + "\n"


def _boundaries(lines: list[str], header: bool) -> list[int]:
    """Indices of blank lines between top-level items (after a closing brace or a top-level declaration)."""
    found = []
    for index in range(1, len(lines)):
        previous = lines[index - 1]
        if lines[index] != "" or not previous or previous[0].isspace():
            continue
        if previous in ("}", "};") or (header and previous.endswith(";") and not previous.startswith("#")):
            found.append(index)
    return found


def pad_file(path: str, text: str, target: int, writer: Writer) -> str:
    """`text` with unrelated items inserted between its top-level items until it has about `target` lines."""
    lines = text.rstrip("\n").split("\n")
    missing = target - len(lines)
    if missing <= 0:
        return text
    rust = path.endswith(".rs")
    if path.endswith("/lib.rs"):
        anchor = next((i for i, line in enumerate(lines) if line.startswith("pub mod ffi")), None)
        if anchor is not None:
            entries = writer.bridge_entries(missing // 2)
            lines[anchor + 1 : anchor + 1] = entries
            missing -= len(entries)
    header = path.endswith(".h")

    def items(size: int) -> list[str]:
        return writer.rust_items(size) if rust else writer.cpp_items(size, declarations=header)

    spots = _boundaries(lines, header)
    chunk = missing // (len(spots) + 1)
    for spot in sorted(spots, reverse=True):
        block = items(chunk)  # ends with a blank line, which separates it from the next item
        lines[spot + 1 : spot + 1] = block
        missing -= len(block)
    if missing > 0:
        lines += [""] + items(missing)[:-1]
    return "\n".join(lines) + "\n"


def _fixture_files() -> dict[str, bytes]:
    files = {}
    for path in sorted(FIXTURE.rglob("*")):
        relative = path.relative_to(FIXTURE).as_posix()
        if path.is_file() and not relative.startswith("target/") and "/target/" not in relative:
            files[relative] = path.read_bytes()
    return files


def _fingerprint(files: dict[str, bytes], lines: int, seed: int) -> str:
    digest = hashlib.sha256(f"{lines}:{seed}:{Path(__file__).read_bytes().hex()}".encode())
    for name, content in files.items():
        digest.update(name.encode() + b"\0" + content)
    return digest.hexdigest()


def generate(out: Path, lines: int, seed: int) -> dict:
    """Write the tree to `out` (replacing it) unless its manifest says it is already this tree."""
    fixture = _fixture_files()
    fingerprint = _fingerprint(fixture, lines, seed)
    manifest_path = out / ".bench-manifest.json"
    if manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("fingerprint") == fingerprint:
            return manifest
    if out.exists():
        shutil.rmtree(out)
    writer = Writer(seed)
    files: dict[str, str | bytes] = dict(fixture)
    for path, target in PADDED.items():
        if path in fixture:
            files[path] = pad_file(path, fixture[path].decode("utf-8"), target, writer)
    counts = {"rust": 0, "cpp": 0}

    def count(name: str, content: str | bytes) -> None:
        n = (content if isinstance(content, bytes) else content.encode()).count(b"\n")
        if name.endswith(".rs"):
            counts["rust"] += n
        elif name.endswith((".cpp", ".h", ".cu")):
            counts["cpp"] += n

    for name, content in files.items():
        count(name, content)
    cpp_goal = int(lines * CPP_SHARE)
    index = 0
    while counts["cpp"] < cpp_goal:
        area = AREAS[index % len(AREAS)]
        size = writer.rng.randint(200, 900)
        if index < CUDA_FILES:
            name, content = f"src/lib/mlxcel-core/cuda/{area}_kernels_{index}.cu", writer.cuda_source(size)
        elif index % 3 == 0:
            name, content = f"src/lib/mlxcel-core/cpp/{area}/{area}_{index}.h", writer.cpp_header(size // 3)
        else:
            name, content = f"src/lib/mlxcel-core/cpp/{area}/{area}_{index}.cpp", writer.cpp_source(size)
        files[name] = content
        count(name, content)
        index += 1
    while counts["rust"] + counts["cpp"] < lines:
        area = AREAS[index % len(AREAS)]
        name = f"src/{area}/{writer.rng.choice(NOUNS)}_{writer.rng.choice(VERBS)}_{index}.rs"
        content = writer.rust_module(writer.rng.randint(300, 1800))
        files[name] = content
        count(name, content)
        index += 1
    for name, content in files.items():
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content if isinstance(content, bytes) else content.encode())
    manifest = {
        "fingerprint": fingerprint,
        "seed": seed,
        "files": len(files),
        "lines": counts,
        "padded": {p: (out / p).read_bytes().count(b"\n") for p in PADDED if p in files},
    }
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--lines", type=int, default=550_000, help="Rust + C++ lines to reach (default 550000)")
    parser.add_argument("--seed", type=int, default=2230)
    args = parser.parse_args(argv)
    if not (FIXTURE / CORE / "src" / "layers.rs").is_file():
        print(f"gen_tree: fixture crate not found under {FIXTURE}", file=sys.stderr)
        return 2
    manifest = generate(args.out, args.lines, args.seed)
    total = manifest["lines"]["rust"] + manifest["lines"]["cpp"]
    print(
        f"{args.out}: {manifest['files']} files, {total} lines "
        f"(Rust {manifest['lines']['rust']}, C++/CUDA {manifest['lines']['cpp']})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
