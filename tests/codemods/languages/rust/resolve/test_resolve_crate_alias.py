"""A crate reached under another name: `extern crate x as y`, `use x as y`, `pub use x`, `pub use x
as y` and `pub extern crate x as y` (at a crate root or in a module) bind a name to another crate's
root, and every path through that name (a call, a `use`, a type, a glob) reaches the crate's items.

Each case writes a workspace of four crates: `sprocket` declares `spin` and `Spindle` (deleted),
`pulley` declares namesakes that are never deleted, `hinge` may re-export both under other names,
and `lever` uses them. A line of `lever` marked `// REF` must be reported at each spelling of a
deleted name on it, and nothing else: the uses of `pulley`'s namesakes through an alias are not.
The cargo tests build the tree before (it compiles) and after an overridden apply (it does not,
and every resolution error rustc reports is at a finding's line).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from codemod_helpers import run_codemod
from resolve_helpers import write_tree

RECIPE = """\
id = "sprocket-trim"

[[delete]]
path = "sprocket/src/lib.rs"
language = "rust"
kind = "fn"
name = "spin"

[[delete]]
path = "sprocket/src/lib.rs"
language = "rust"
kind = "struct"
name = "Spindle"
"""

SPROCKET = """
pub fn spin() -> u32 {
    3
}

pub struct Spindle;

pub fn idle() -> u32 {
    0
}
"""

PULLEY = """
pub fn spin() -> u32 {
    4
}

pub struct Spindle;
"""

# {root}/{sub}: the path to `sprocket` at lever's root and in its modules; {other}: to `pulley`
# in a module.
LEVER = """
{prelude}
pub fn turn() -> u32 {{
    {root}::spin() // REF
}}

pub fn hold(part: {root}::Spindle) -> {root}::Spindle {{ // REF
    part
}}

pub mod named {{
    use {sub}::spin; // REF

    pub fn again() -> u32 {{
        spin() // REF through the import
    }}
}}

pub mod globbed {{
    use {sub}::*;

    pub fn once_more() -> u32 {{
        spin() // REF
    }}
}}

pub mod unrelated {{
    use {other}::spin;

    pub fn spare(part: {other}::Spindle) -> u32 {{
        let _ = part;
        spin() + {other}::spin()
    }}
}}
"""


@dataclass(frozen=True)
class AliasForm:
    """Where the alias is declared (hinge's root, lever's root) and how lever's paths spell it."""

    hinge: str
    prelude: str
    lever_dependencies: tuple[str, ...]
    root: str
    sub: str
    other: str


FORMS = {
    "pub extern crate x as y": AliasForm(
        "pub extern crate sprocket as cog;\npub extern crate pulley as belt;\n",
        "",
        ("hinge",),
        "hinge::cog",
        "hinge::cog",
        "hinge::belt",
    ),
    "extern crate x as y": AliasForm(
        "",
        "extern crate pulley as belt;\nextern crate sprocket as cog;\n",
        ("sprocket", "pulley"),
        "cog",
        "cog",
        "belt",
    ),
    "use x as y": AliasForm(
        "", "use pulley as belt;\nuse sprocket as cog;\n", ("sprocket", "pulley"), "cog", "crate::cog", "crate::belt"
    ),
    "pub use x": AliasForm(
        "pub use pulley;\npub use sprocket;\n", "", ("hinge",), "hinge::sprocket", "hinge::sprocket", "hinge::pulley"
    ),
    "pub use x as y": AliasForm(
        "pub use pulley as belt;\npub use sprocket as cog;\n", "", ("hinge",), "hinge::cog", "hinge::cog", "hinge::belt"
    ),
    "module: pub extern crate x as y": AliasForm(
        "pub mod gears {\n    pub extern crate pulley as belt;\n    pub extern crate sprocket as cog;\n}\n",
        "",
        ("hinge",),
        "hinge::gears::cog",
        "hinge::gears::cog",
        "hinge::gears::belt",
    ),
    "module: pub use x as y": AliasForm(
        "pub mod gears {\n    pub use pulley as belt;\n    pub use sprocket as cog;\n}\n",
        "",
        ("hinge",),
        "hinge::gears::cog",
        "hinge::gears::cog",
        "hinge::gears::belt",
    ),
    "extern crate of a re-exporting crate": AliasForm(
        "pub extern crate pulley as belt;\npub extern crate sprocket as cog;\n",
        "extern crate hinge as axle;\n",
        ("hinge",),
        "axle::cog",
        "axle::cog",
        "axle::belt",
    ),
}

DELETED = re.compile(r"\b(spin|Spindle)\b")


def _manifest(name: str, dependencies: tuple[str, ...] = ()) -> str:
    lines = [f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]']
    lines += [f'{d} = {{ path = "../{d}" }}' for d in dependencies]
    return "\n".join(lines) + "\n"


def _workspace(root: Path, form: AliasForm) -> Path:
    prelude = form.prelude + "\n" if form.prelude else ""
    write_tree(
        root,
        {
            "Cargo.toml": '[workspace]\nmembers = ["sprocket", "pulley", "hinge", "lever"]\nresolver = "2"\n',
            "sprocket/Cargo.toml": _manifest("sprocket"),
            "sprocket/src/lib.rs": SPROCKET,
            "pulley/Cargo.toml": _manifest("pulley"),
            "pulley/src/lib.rs": PULLEY,
            "hinge/Cargo.toml": _manifest("hinge", ("sprocket", "pulley")),
            "hinge/src/lib.rs": form.hinge or "pub fn latch() {}\n",
            "lever/Cargo.toml": _manifest("lever", form.lever_dependencies),
            "lever/src/lib.rs": LEVER.format(prelude=prelude, root=form.root, sub=form.sub, other=form.other),
        },
    )
    (root.parent / "sprocket-trim.toml").write_text(RECIPE)
    return root.parent / "sprocket-trim.toml"


def _expected(root: Path, through_imports: bool = True) -> set[tuple[str, int, int]]:
    """(path, line, col) of each spelling of a deleted name on a line marked `// REF` (and, with
    `through_imports`, `// REF through the import`)."""
    found = set()
    text = (root / "lever/src/lib.rs").read_text()
    for number, line in enumerate(text.splitlines(), 1):
        if line.endswith("// REF") or through_imports and line.endswith("// REF through the import"):
            code = line[: line.index("//")]
            found |= {("lever/src/lib.rs", number, m.start() + 1) for m in DELETED.finditer(code)}
    return found


def _apply(root: Path, recipe: Path, *options: str) -> tuple[int, list[dict]]:
    result = run_codemod("apply", "--json", "--recipe", str(recipe), *options, str(root))
    return result.exit_code, json.loads(result.stdout)["findings"]


@pytest.mark.parametrize("form", FORMS.values(), ids=list(FORMS))
def test_a_use_through_a_crate_alias_blocks_the_apply_where_it_is(tmp_path: Path, form: AliasForm) -> None:
    root = tmp_path / "works"
    recipe = _workspace(root, form)
    before = (root / "sprocket/src/lib.rs").read_bytes()
    code, findings = _apply(root, recipe)
    assert code == 1
    assert (root / "sprocket/src/lib.rs").read_bytes() == before  # refused: nothing written
    assert {f["code"] for f in findings} == {"dangling-reference"}
    assert {f["certainty"] for f in findings} == {"definite"}
    # Every use through the alias, at its place; none of the namesakes of `pulley` reached through
    # the other alias.
    assert {(f["path"], f["line"], f["col"]) for f in findings} == _expected(root)


def _rustc_errors(root: Path, target_dir: Path) -> tuple[int, set[tuple[str, int]]]:
    """cargo build's exit status and the (file, line) of rustc's errors."""
    environment = dict(os.environ, CARGO_TARGET_DIR=str(target_dir), CARGO_NET_OFFLINE="true")
    environment.setdefault("RUSTUP_TOOLCHAIN", "stable")
    result = subprocess.run(
        ["cargo", "build", "--offline", "--quiet", "--message-format=json"],
        cwd=root,
        capture_output=True,
        text=True,
        env=environment,
    )
    errors = set()
    for line in result.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-message" and message["message"]["level"] == "error":
            errors |= {(s["file_name"], s["line_start"]) for s in message["message"]["spans"] if s["is_primary"]}
    return result.returncode, errors


@pytest.fixture(scope="module")
def target_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("crate-alias-target")


@pytest.mark.cargo
@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
@pytest.mark.parametrize(
    "form",
    [FORMS["pub extern crate x as y"], FORMS["extern crate x as y"], FORMS["module: pub extern crate x as y"]],
    ids=["pub extern crate x as y", "extern crate x as y", "module: pub extern crate x as y"],
)
def test_the_tree_written_over_the_finding_does_not_build(tmp_path: Path, target_dir: Path, form: AliasForm) -> None:
    root = tmp_path / "works"
    recipe = _workspace(root, form)
    assert _rustc_errors(root, target_dir) == (0, set())
    code, findings = _apply(root, recipe, "--allow-dangling")
    assert code == 0
    assert b"fn spin" not in (root / "sprocket/src/lib.rs").read_bytes()
    status, errors = _rustc_errors(root, target_dir)
    assert status != 0
    # rustc stops at the first unresolved segment of each path, and reports a use through a named
    # import at the import only: each error is at a finding's line, and each finding's line that
    # rustc can report is.
    assert errors and errors <= {(f["path"], f["line"]) for f in findings}
    assert errors == {(path, line) for path, line, _ in _expected(root, through_imports=False)}


def test_a_crate_naming_itself_through_extern_crate_self_is_resolved(tmp_path: Path) -> None:
    root = tmp_path / "works"
    recipe = _workspace(root, FORMS["pub use x"])
    (root / "sprocket/src/lib.rs").write_text(
        SPROCKET.lstrip("\n")
        + (
            "\nextern crate self as sprocket_root;\n\n"
            "pub mod rim {\n"
            "    pub fn wobble() -> u32 {\n"
            "        sprocket_root::spin() + sprocket_root::idle()\n"
            "    }\n"
            "}\n"
        )
    )
    (root / "lever/src/lib.rs").write_text("pub fn nothing() {}\n")
    code, findings = _apply(root, recipe)
    assert code == 1
    assert [(f["path"], f["line"], f["col"], f["certainty"]) for f in findings] == [
        ("sprocket/src/lib.rs", 15, 24, "definite")
    ]
