"""`codemod apply --verify`: the planned tree is built in a scratch copy, and a new build error
refuses the write even where the reference check was overridden. Trees are ours: small C++
files with a compile_commands.json we write, small Cargo workspaces with no dependencies, and
the fixture crate (offline, its dependencies from the seed target directory)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from codemods import ItemTarget, Recipe, changes_of, plan_recipe, verify_plan
from codemods.cli.main import main
from codemods.edit.codes import Code
from fixture_crate import copy_fixture, seed_target_dir, write_offline_cargo_config

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
needs_cargo = pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo")
# Kept between runs (a second run's cargo check is incremental); one per kind of tree.
CACHE_ROOT = Path(os.environ.get("CODEMOD_TEST_VERIFY_CACHE", "/tmp/verify-target"))


def _write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def _build_errors(stderr: str) -> list[str]:
    """The `build-error` findings of `codemod apply`'s stderr, one line each."""
    return [line for line in stderr.splitlines() if line.endswith("(new: the tree as it is has no such error)")]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _apply(root: Path, recipe: str, *flags: str) -> tuple[int, str, str]:
    (root.parent / "recipe.toml").write_text(recipe, encoding="utf-8")
    result = CliRunner().invoke(main, ["apply", "--recipe", str(root.parent / "recipe.toml"), *flags, str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def cache(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The verify cache of this test's kind of tree (a stable folder, so cargo reuses its builds)."""
    folder = CACHE_ROOT / request.node.originalname
    monkeypatch.setenv("CODEMOD_VERIFY_CACHE", str(folder))
    monkeypatch.setenv("RUSTUP_TOOLCHAIN", os.environ.get("RUSTUP_TOOLCHAIN", "stable"))
    return folder


# --- C++ with a compile_commands.json ------------------------------------------------------------


def _cpp_tree(root: Path, files: dict[str, str]) -> Path:
    _write(root, files)
    units = [p for p in files if p.endswith(".cpp")]
    (root / "compile_commands.json").write_text(
        json.dumps(
            [
                {
                    "directory": str(root),
                    "file": str(root / unit),
                    "arguments": ["g++", "-std=c++17", f"-I{root}/include", "-c", unit, "-o", f"{unit}.o"],
                }
                for unit in units
            ]
        )
    )
    return root


DIAL = {
    "include/dial.h": "#pragma once\nint dial_turn(int step);\nint dial_rest(int step);\nint dial_spare(int step);\n",
    "src/dial.cpp": (
        '#include "dial.h"\nint dial_turn(int step) { return step * 3; }\n'
        "int dial_rest(int step) { return step - 1; }\nint dial_spare(int step) { return step; }\n"
    ),
    "src/panel.cpp": '#include "dial.h"\n\nint panel_value() { return dial_turn(2) + dial_rest(4); }\n',
}


def _drop(name: str) -> str:
    return (
        f'id = "drop-{name}"\nsummary = "drop {name}"\n'
        f'[[delete]]\npath = "include/dial.h"\nlanguage = "cpp"\nkind = "declaration"\nname = "{name}"\n'
        f'[[delete]]\npath = "src/dial.cpp"\nlanguage = "cpp"\nkind = "function"\nname = "{name}"\n'
    )


@needs_gxx
def test_cpp_a_plan_that_does_not_compile_is_refused_at_the_compilers_place(tmp_path: Path, cache: Path) -> None:
    root = _cpp_tree(tmp_path / "dial", DIAL)
    before = _snapshot(root)
    code, _, stderr = _apply(root, _drop("dial_turn"), "--allow-dangling", "--verify")
    assert code == 1, stderr
    errors = _build_errors(stderr)
    assert len(errors) == 1 and errors[0].startswith("src/panel.cpp:3:") and "dial_turn" in errors[0], stderr
    assert "nothing written" in stderr
    assert _snapshot(root) == before
    assert not (cache / "tree").exists()
    lines = stderr.splitlines()
    assert any(line.startswith("codemod: verify: 1 check(s) in") for line in lines)
    assert "verified by 1 check(s) in" in lines[-1]


@needs_gxx
def test_cpp_a_plan_that_compiles_is_written(tmp_path: Path, cache: Path) -> None:
    root = _cpp_tree(tmp_path / "dial", DIAL)
    code, _, stderr = _apply(root, _drop("dial_spare"), "--verify")
    assert code == 0, stderr
    assert "dial_spare" not in (root / "src/dial.cpp").read_text()


@needs_gxx
def test_cpp_an_error_already_there_does_not_block(tmp_path: Path, cache: Path) -> None:
    broken = {**DIAL, "src/panel.cpp": DIAL["src/panel.cpp"] + "int panel_broken() { return undeclared_knob; }\n"}
    root = _cpp_tree(tmp_path / "dial", broken)
    code, _, stderr = _apply(root, _drop("dial_spare"), "--verify")
    assert code == 0, stderr
    assert "dial_spare" not in (root / "include/dial.h").read_text()


@needs_gxx
@pytest.mark.parametrize("output_format", ["json", "sarif", "github"])
def test_cpp_build_errors_are_in_every_output_format(tmp_path: Path, cache: Path, output_format: str) -> None:
    root = _cpp_tree(tmp_path / "dial", DIAL)
    code, stdout, _ = _apply(root, _drop("dial_turn"), "--allow-dangling", "--verify", "--format", output_format)
    assert code == 1
    assert "build-error" in stdout and "src/panel.cpp" in stdout
    if output_format == "json":
        document = json.loads(stdout)
        found = [f for f in document["findings"] if f["code"] == "build-error"]
        assert found[0]["path"] == "src/panel.cpp" and found[0]["line"] == 3
        # Two targets spell it (the declaration and the definition): the finding names the symbol, no target.
        assert found[0]["symbol"] == "dial_turn" and "target" not in found[0]
        assert document["verify"]["checks"][0]["new_errors"] == 1


def test_nothing_to_verify_with_is_a_usage_error_naming_what_was_looked_for(tmp_path: Path, cache: Path) -> None:
    root = _write(tmp_path / "dial", DIAL)
    code, _, stderr = _apply(root, _drop("dial_spare"), "--verify")
    assert code == 2
    assert "Cargo.toml" in stderr and "compile_commands.json" in stderr and "Python" in stderr
    assert "dial_spare" in (root / "src/dial.cpp").read_text()


@needs_gxx
def test_ctrl_c_leaves_no_scratch_copy_and_no_change(tmp_path: Path, cache: Path) -> None:
    root = _cpp_tree(tmp_path / "dial", DIAL)
    before = _snapshot(root)
    recipe = Recipe(
        id="drop",
        summary="",
        deletions=(
            ItemTarget("src/dial.cpp", "cpp", "function", "dial_spare"),
            ItemTarget("include/dial.h", "cpp", "declaration", "dial_spare"),
        ),
    )
    plan = plan_recipe(root, recipe)

    def interrupt(message: str) -> None:
        if "planned tree" in message:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        verify_plan(plan, progress=interrupt, cache=cache)
    assert not (cache / "tree").exists()
    assert _snapshot(root) == before


# --- Cargo: small workspaces of our own ----------------------------------------------------------


def _crate(name: str, body: str, deps: str = "", extra: str = "") -> dict[str, str]:
    return {
        f"{name}/Cargo.toml": f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n{extra}'
        f"\n[dependencies]\n{deps}",
        f"{name}/src/lib.rs": body,
    }


def _workspace(root: Path, *crates: dict[str, str]) -> Path:
    members = [next(iter(c)).split("/")[0] for c in crates]
    files = {"Cargo.toml": f'[workspace]\nmembers = {json.dumps(members)}\nresolver = "2"\n'}
    for crate in crates:
        files.update(crate)
    return _write(root, files)


@needs_cargo
def test_rust_an_item_reached_through_a_crate_alias_is_refused_by_the_build(tmp_path: Path, cache: Path) -> None:
    """Issue 37, point 1: `pub extern crate x as y;` and a call through `y`."""
    root = _workspace(
        tmp_path / "ws",
        _crate("spool", "pub fn unwind(n: u32) -> u32 {\n    n + 1\n}\n\npub fn rewind() -> u32 {\n    2\n}\n"),
        _crate("loom", "pub extern crate spool as thread;\n", deps='spool = { path = "../spool" }\n'),
        _crate(
            "weaver", "pub fn weave() -> u32 {\n    loom::thread::unwind(3)\n}\n", deps='loom = { path = "../loom" }\n'
        ),
    )
    before = _snapshot(root)
    recipe = (
        'id = "drop-unwind"\nsummary = "drop unwind"\n[[delete]]\npath = "spool/src/lib.rs"\n'
        'language = "rust"\nkind = "fn"\nname = "unwind"\n'
    )
    code, _, stderr = _apply(root, recipe, "--allow-dangling", "--verify")
    assert code == 1, stderr
    assert any(line.startswith("weaver/src/lib.rs:2:") for line in _build_errors(stderr)), stderr
    assert _snapshot(root) == before


@needs_cargo
def test_rust_a_subset_keeping_an_import_removal_its_skipped_rewrite_caused_is_refused(
    tmp_path: Path, cache: Path
) -> None:
    """Issue 37, point 3: skip the rewrite that made an import unused; the deletion stays."""
    root = _workspace(tmp_path / "ws", _crate("abacus", "pub mod beads;\npub mod tally;\n"))
    _write(
        root,
        {
            "abacus/src/beads.rs": "pub fn old_count(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n"
            "pub fn new_count(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
            "abacus/src/tally.rs": "use crate::beads::old_count;\n\npub fn total() -> i32 {\n    old_count(1, 2)\n}\n",
        },
    )
    recipe_text = (
        'id = "recount"\nsummary = "old_count -> new_count"\n[[delete]]\npath = "abacus/src/beads.rs"\n'
        'language = "rust"\nkind = "fn"\nname = "old_count"\n[[rewrite]]\npath = "abacus/src/tally.rs"\n'
        'language = "rust"\npattern = "old_count($A, $B)"\nreplace = "crate::beads::new_count($A, $B)"\n'
    )
    (tmp_path / "recipe.toml").write_text(recipe_text, encoding="utf-8")
    from codemods import load_recipe

    changes = changes_of(plan_recipe(root, load_recipe(str(tmp_path / "recipe.toml"))))
    rewrite = next(c.id for c in changes if c.path == "abacus/src/tally.rs" and any("rewrite" in o for o in c.origins))
    before = _snapshot(root)
    code, _, stderr = _apply(root, recipe_text, "--skip", rewrite, "--allow-dangling", "--verify")
    assert code == 1, stderr
    assert any(line.startswith("abacus/src/tally.rs:") for line in _build_errors(stderr)), stderr
    assert "nothing written" in stderr
    assert _snapshot(root) == before


@needs_cargo
def test_rust_an_unmatched_reword_hiding_a_dangling_reexport_is_refused(tmp_path: Path, cache: Path) -> None:
    """Issue 37, point 4: a `[[reword]]` that matches nothing (let through) on a file the plan also edits
    hid that file's dangling `pub use` of the deleted function and its unreworded mention."""
    root = _workspace(
        tmp_path / "ws",
        _crate("rotor", "pub fn spin_up(n: u32) -> u32 {\n    n * 3\n}\n\npub fn idle() -> u32 {\n    0\n}\n"),
        _crate(
            "turbine",
            "//! Turbines: call spin_up to start.\n\nextern crate rotor as hub;\n"
            "pub use hub::spin_up;\n\n/// Old helper.\npub fn legacy_vane() -> u32 {\n"
            "    1\n}\n\npub fn vane() -> u32 {\n    2\n}\n",
            deps='rotor = { path = "../rotor" }\n',
        ),
        # Another crate uses the re-export, so the plan keeps the `pub use` (dangling).
        _crate(
            "mill", "pub fn grind() -> u32 {\n    turbine::spin_up(2)\n}\n", deps='turbine = { path = "../turbine" }\n'
        ),
    )
    recipe = (
        'id = "drop-spin-up"\nsummary = "drop spin_up"\ndead_symbol_pattern = "spin_up"\n'
        '[[delete]]\npath = "rotor/src/lib.rs"\nlanguage = "rust"\nkind = "fn"\nname = "spin_up"\n'
        '[[delete]]\npath = "turbine/src/lib.rs"\nlanguage = "rust"\nkind = "fn"\nname = "legacy_vane"\n'
        '[[reword]]\npath = "turbine/src/lib.rs"\nfind = "windmills turn"\nreplace = "rotors rest"\n'
    )
    before = _snapshot(root)
    code, _, stderr = _apply(root, recipe, "--allow-unmatched", "--allow-dangling", "--allow-unreworded", "--verify")
    assert code == 1, stderr
    assert any(line.startswith("turbine/src/lib.rs:4:") for line in _build_errors(stderr)), stderr
    assert "nothing written" in stderr
    assert _snapshot(root) == before


KILN = _crate(
    "kiln",
    "pub fn fire() -> u32 {\n    4\n}\n\npub fn cool() -> u32 {\n    1\n}\n\n"
    '#[cfg(feature = "glaze")]\npub fn glazed() -> u32 {\n    fire() + 1\n}\n',
    extra="\n[features]\nglaze = []\n",
)
DROP_FIRE = (
    'id = "drop-fire"\nsummary = "drop fire"\n[[delete]]\npath = "kiln/src/lib.rs"\n'
    'language = "rust"\nkind = "fn"\nname = "fire"\n'
)


@needs_cargo
def test_trust_build_lets_through_a_reference_the_clean_build_contradicts(tmp_path: Path, cache: Path) -> None:
    root = _workspace(tmp_path / "ws", KILN)
    code, _, stderr = _apply(root, DROP_FIRE)
    assert code == 1 and "kiln/src/lib.rs:11:" in stderr  # the reference check sees the use under cfg
    code, _, stderr = _apply(root, DROP_FIRE, "--verify", "--trust-build")
    assert code == 0, stderr
    assert "the build compiles without it" in stderr
    assert "pub fn fire" not in (root / "kiln/src/lib.rs").read_text()


@needs_cargo
def test_trust_build_holds_only_for_the_configurations_built(tmp_path: Path, cache: Path) -> None:
    root = _workspace(tmp_path / "ws", KILN)
    recipe = 'verify = ["cargo check --workspace", "cargo check --workspace --features glaze"]\n' + DROP_FIRE
    before = _snapshot(root)
    code, _, stderr = _apply(root, recipe, "--verify", "--trust-build")
    assert code == 1, stderr
    # The compiler's place: in a file the plan changes, a line of the planned text.
    assert any(line.startswith("kiln/src/lib.rs:7:") and "E0425" in line for line in _build_errors(stderr)), stderr
    assert _snapshot(root) == before


# --- C++: a member function called through an object (issue 37, point 2) -------------------------


@needs_gxx
def test_cpp_a_member_called_through_an_object_in_another_file_is_refused(tmp_path: Path, cache: Path) -> None:
    root = _cpp_tree(
        tmp_path / "gauge",
        {
            "include/needle.h": "#pragma once\nstruct Needle {\n  int sweep() { return 1; }\n  int park() { return 0; }\n};\n",
            "src/face.cpp": '#include "needle.h"\n\nint face_reading() {\n  Needle n;\n  return n.sweep() + n.park();\n}\n',
        },
    )
    before = _snapshot(root)
    recipe = (
        'id = "drop-sweep"\nsummary = "drop sweep"\n[[delete]]\npath = "include/needle.h"\n'
        'language = "cpp"\nkind = "function"\nname = "Needle::sweep"\n'
    )
    code, _, stderr = _apply(root, recipe, "--allow-dangling", "--verify")
    assert code == 1, stderr
    assert any(line.startswith("src/face.cpp:5:") and "sweep" in line for line in _build_errors(stderr)), stderr
    assert _snapshot(root) == before


# --- the fixture crate (offline) ------------------------------------------------------------------


@pytest.fixture
def fixture_tree(tmp_path: Path, cache: Path) -> Path:
    root = copy_fixture(tmp_path / "mini")
    write_offline_cargo_config(root)
    if not (cache / "target").exists():
        cache.mkdir(parents=True, exist_ok=True)
        shutil.copytree(seed_target_dir(), cache / "target", symlinks=True, ignore=shutil.ignore_patterns(".seeded"))
    return root


def _drop_rust(path: str, name: str, kind: str = "fn") -> str:
    return (
        f'id = "drop-one"\nsummary = "drop {name}"\n[[delete]]\npath = "{path}"\nlanguage = "rust"\n'
        f'kind = "{kind}"\nname = "{name}"\n'
    )


@needs_cargo
def test_fixture_a_plan_that_does_not_compile_is_refused(fixture_tree: Path) -> None:
    before = _snapshot(fixture_tree)
    code, stdout, stderr = _apply(
        fixture_tree, _drop_rust("src/models/mod.rs", "load_wrapper"), "--allow-dangling", "--verify", "--json"
    )
    assert code == 1, stderr
    errors = [f for f in json.loads(stdout)["findings"] if f["code"] == Code.BUILD_ERROR]
    assert {f["path"] for f in errors} >= {"src/main.rs"}
    assert all(f["line"] > 0 and f["target"]["name"] == "load_wrapper" for f in errors)
    assert _snapshot(fixture_tree) == before


@needs_cargo
def test_fixture_a_plan_that_compiles_is_written(fixture_tree: Path) -> None:
    code, _, stderr = _apply(
        fixture_tree, _drop_rust("src/models/llama4.rs", "Llama4Wrapper::attention_chunk_size"), "--verify"
    )
    assert code == 0, stderr
    assert "fn attention_chunk_size" not in (fixture_tree / "src/models/llama4.rs").read_text()


@needs_cargo
def test_fixture_an_error_already_there_does_not_block(fixture_tree: Path) -> None:
    gemma = fixture_tree / "src/models/gemma3.rs"
    gemma.write_text(gemma.read_text() + '\npub fn broken_before() -> u32 {\n    "not a number"\n}\n')
    code, _, stderr = _apply(
        fixture_tree, _drop_rust("src/models/llama4.rs", "Llama4Wrapper::attention_chunk_size"), "--verify"
    )
    assert code == 0, stderr
    assert "fn attention_chunk_size" not in (fixture_tree / "src/models/llama4.rs").read_text()


FORGE = {
    "Cargo.toml": '[package]\nname = "forge"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": (
        "pub struct Anvil;\n\nimpl Anvil {\n    pub fn strike(&self) -> u32 {\n        1\n    }\n}\n\n"
        "pub struct Bellows;\n\nimpl Bellows {\n    pub fn strike(&self) -> u32 {\n        2\n    }\n}\n\n"
        "fn pick() -> Bellows {\n    Bellows\n}\n\npub fn work() -> u32 {\n    let tool = pick();\n"
        "    tool.strike()\n}\n"
    ),
}
DROP_STRIKE = (
    'id = "drop-strike"\nsummary = "drop Anvil::strike"\n[[delete]]\npath = "src/lib.rs"\n'
    'language = "rust"\nkind = "fn"\nname = "Anvil::strike"\n'
)


@needs_cargo
def test_a_possible_use_the_clean_build_contradicts_says_so(tmp_path: Path, cache: Path) -> None:
    root = _write(tmp_path / "forge", FORGE)
    code, _, stderr = _apply(root, DROP_STRIKE, "--strict")
    assert code == 1 and "src/lib.rs:23:" in stderr  # a method call on a receiver of unknown type
    code, _, stderr = _apply(root, DROP_STRIKE, "--dry-run", "--verify")
    assert code == 0
    assert any(
        line.startswith("src/lib.rs:23:") and "the build compiles without it" in line for line in stderr.splitlines()
    ), stderr
    code, _, stderr = _apply(root, DROP_STRIKE, "--strict", "--verify", "--trust-build")
    assert code == 0, stderr
    assert "fn strike(&self) -> u32 {\n        1" not in (root / "src/lib.rs").read_text()


def test_python_an_import_of_a_deleted_function_is_refused(tmp_path: Path, cache: Path) -> None:
    root = _write(
        tmp_path / "py",
        {
            "loom/__init__.py": "",
            "loom/mill.py": "def churn(n):\n    return n + 1\n\n\ndef settle(n):\n    return n\n",
            "loom/line.py": "from loom.mill import churn\n\n\ndef batch():\n    return churn(2)\n",
        },
    )
    recipe = (
        'id = "drop-churn"\nsummary = "drop churn"\n[[delete]]\npath = "loom/mill.py"\nlanguage = "python"\n'
        'kind = "function"\nname = "{name}"\n'
    )
    before = _snapshot(root)
    code, _, stderr = _apply(root, recipe.format(name="churn"), "--allow-dangling", "--verify")
    assert code == 1, stderr
    assert any(line.startswith("loom/line.py:1:") and "ImportError" in line for line in _build_errors(stderr)), stderr
    assert _snapshot(root) == before
    code, _, stderr = _apply(root, recipe.format(name="settle"), "--verify")
    assert code == 0, stderr
    assert "def settle" not in (root / "loom/mill.py").read_text()


@needs_gxx
@pytest.mark.parametrize("form", ["--verify=CMD", "--verify CMD"])
def test_a_command_of_your_own_is_run_and_its_text_errors_read(tmp_path: Path, cache: Path, form: str) -> None:
    root = _write(tmp_path / "dial", DIAL)
    command = "g++ -std=c++17 -Iinclude -fsyntax-only src/panel.cpp src/dial.cpp"
    flags = [f"--verify={command}"] if form == "--verify=CMD" else ["--verify", command]
    before = _snapshot(root)
    code, _, stderr = _apply(root, _drop("dial_turn"), "--allow-dangling", *flags)
    assert code == 1, stderr
    errors = _build_errors(stderr)
    assert errors and errors[0].startswith("src/panel.cpp:3:") and f"`{command}` error" in errors[0], stderr
    assert _snapshot(root) == before
    code, _, stderr = _apply(root, _drop("dial_spare"), *flags)
    assert code == 0, stderr


def test_a_command_of_your_own_that_rewrites_sources_never_reaches_the_tree(tmp_path: Path, cache: Path) -> None:
    """A check command may rewrite files in place (a formatter's `-i`, `cargo clippy --fix`): the
    scratch tree then holds real copies, so ROOT's unchanged files keep their bytes."""
    root = _write(tmp_path / "dial", DIAL)
    before = _snapshot(root)
    rewrite_all = "find . -type f -exec sh -c 'echo scribbled >> \"$1\"' _ {} \\;"
    code, _, stderr = _apply(root, _drop("dial_spare"), "--dry-run", f"--verify={rewrite_all}")
    assert code == 0, stderr
    assert _snapshot(root) == before


@needs_gxx
def test_the_library_returns_typed_results(tmp_path: Path, cache: Path) -> None:
    from codemods import BuildError, CheckRun, Verification, apply_recipe

    root = _cpp_tree(tmp_path / "dial", DIAL)
    recipe = Recipe(
        id="drop",
        summary="",
        deletions=(
            ItemTarget("src/dial.cpp", "cpp", "function", "dial_turn"),
            ItemTarget("include/dial.h", "cpp", "declaration", "dial_turn"),
        ),
    )
    proof = verify_plan(plan_recipe(root, recipe, allow_dangling=True), cache=cache)
    assert isinstance(proof, Verification) and isinstance(proof.checks[0], CheckRun)
    assert proof.new_errors == (BuildError("src/panel.cpp", 3, 28, proof.new_errors[0].message, None),)
    assert [f.code for f in proof.plan.blocking] == [Code.BUILD_ERROR] and not proof.clean
    run = apply_recipe(root, recipe, allow_dangling=True, verify=True)
    assert not run.written and run.verification is not None and run.verification.new_errors
    assert "dial_turn" in (root / "src/dial.cpp").read_text()
