"""A second real workspace for the scale bench (issue 41): databend, fetched, at a pinned commit.

databend (Apache-2.0) is a Cargo workspace of about 110 packages, 3,800 `.rs` files and 930k
lines of Rust whose members inherit their dependencies from the root manifest
(`dep = { workspace = true }` in 108 of its 110 manifests): the shape whose manifests the
resolver used to parse thousands of times. The tree is its Rust sources and TOML files at
COMMIT, taken from a bare mirror made by the session tool `fetch github:databendlabs/databend`
(default: /work/.mirror/databendlabs+databend/repo; `--mirror DIR` or $CODEMOD_BENCH_DATABEND
for another), written under bench/out/ (never committed). ROOT/delete-methods.toml deletes six
methods with common names (`len`, `get`, `insert`) of three crates, so that same-named calls on
other types fill the workspace; the plan refuses (other crates use them), like the registry's.

    python bench/real_workspace.py [--mirror DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "bench" / "out" / "databend"
DEFAULT_MIRROR = Path(os.environ.get("CODEMOD_BENCH_DATABEND", "/work/.mirror/databendlabs+databend/repo"))
COMMIT = "43b24ec040cc1f346c65dd03f836fe5d37e2acee"
VERSION = 1  # bump when the tree or the recipe changes

# (file, qualified name): common method names of types of three crates.
DELETED = (
    ("src/common/column/src/bitmap/immutable.rs", "crate::Bitmap::len"),
    ("src/common/column/src/bitmap/immutable.rs", "crate::Bitmap::get"),
    ("src/common/column/src/buffer/immutable.rs", "crate::Buffer::len"),
    ("src/common/column/src/offset.rs", "crate::Offsets::len"),
    ("src/common/statistics/src/kll_sketch.rs", "crate::KllSketch::insert"),
    ("src/common/statistics/src/kll_sketch.rs", "crate::KllSketch::len"),
)


def build(out: Path = DEFAULT_OUT, mirror: Path = DEFAULT_MIRROR) -> dict:
    """Write the tree and its recipe under `out` (once) and return its manifest
    (files, lines, commit); a missing mirror raises FileNotFoundError naming it."""
    manifest_path = out / "manifest.json"
    if manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("version") == VERSION and manifest.get("commit") == COMMIT:
            return manifest
    if not (mirror / "HEAD").is_file():
        raise FileNotFoundError(f"no mirror of databend at {mirror} (fetch github:databendlabs/databend)")
    listing = subprocess.run(
        ["git", "-C", str(mirror), "ls-tree", "-r", "--name-only", COMMIT], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    wanted = [path for path in listing if path.endswith((".rs", ".toml"))]
    archive = subprocess.run(
        ["git", "-C", str(mirror), "archive", COMMIT, "--", *wanted], capture_output=True, check=True
    ).stdout
    out.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(out, filter="data")
    recipe = [
        'id = "delete-methods"',
        'summary = "delete methods with common names of three databend crates"',
        'check_scope = ["src"]',
        "",
    ]
    for path, name in DELETED:
        recipe += ["[[delete]]", f'path = "{path}"', 'language = "rust"', 'kind = "fn"', f'name = "{name}"', ""]
    (out / "delete-methods.toml").write_text("\n".join(recipe))
    sources = [path for path in wanted if path.endswith(".rs")]
    lines = sum((out / path).read_bytes().count(b"\n") for path in sources)
    manifests = [path for path in wanted if path.endswith("Cargo.toml")]
    inheriting = sum(b"workspace = true" in (out / path).read_bytes() for path in manifests)
    manifest = {
        "version": VERSION,
        "commit": COMMIT,
        "files": len(sources),
        "lines": lines,
        "manifests": len(manifests),
        "inheriting": inheriting,
    }
    manifest_path.write_text(json.dumps(manifest, indent=2))
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    args = parser.parse_args()
    manifest = build(args.out, args.mirror)
    print(
        f"{args.out}: {manifest['files']} files, {manifest['lines']} lines of Rust, {manifest['manifests']} "
        f"manifests ({manifest['inheriting']} inherit workspace dependencies), databend {COMMIT[:12]}"
    )


if __name__ == "__main__":
    main()
