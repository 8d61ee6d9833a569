"""Copying and building the ``fixtures/mlxcel-mini`` Cargo workspace.

Tests work on copies so that the committed fixture never gains a
``target/``, a ``Cargo.lock`` or a ``.cargo/config.toml``.

Each copy builds into its own ``target/``. Sharing one target directory
between copies is unsafe: cargo hashes workspace members by their path
relative to the workspace root, so two copies at different places share
artifacts, and a copy whose sources are older than another copy's build is
taken as fresh and linked against the other copy's code. Instead, the
dependencies (cxx, cxx-build and theirs) are compiled once per machine into
a seed target directory under ``build/cargo-target/seed`` and each copy's
``target/`` starts as a clone of it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "mlxcel-mini"
CARGO_BUILD_ROOT = REPO / "build" / "cargo-target"
SEED_TARGET_DIR = CARGO_BUILD_ROOT / "seed"
SEED_STAMP = SEED_TARGET_DIR / ".seeded"
SEED_LOCK = CARGO_BUILD_ROOT / "seed.lock"
FIXTURE_PACKAGES = ("mlxcel", "mlxcel-core")
DEBIAN_CARGO_REGISTRY = Path("/usr/share/cargo/registry")

# Debian's librust-*-dev packages put vendored crates there; pointing
# crates-io at them lets the fixture build with no network.
OFFLINE_CARGO_CONFIG = f"""\
[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "{DEBIAN_CARGO_REGISTRY}"

[net]
offline = true
"""

OUTPUT_TAIL_LINES = 60


def copy_fixture(dest: Path) -> Path:
    """Copy the fixture workspace into ``dest`` (created if missing) and return it.

    Build outputs, the lock file and any local cargo configuration are left
    out. Files get the current time as mtime, so cargo never takes a seed
    artifact as fresh for them.
    """
    shutil.copytree(
        FIXTURE,
        dest,
        ignore=shutil.ignore_patterns("target", "Cargo.lock", ".cargo"),
        copy_function=shutil.copy,
        dirs_exist_ok=True,
    )
    return dest


def write_offline_cargo_config(crate_root: Path) -> Path | None:
    """Point cargo at Debian's vendored registry, where this machine has one.

    Returns the written ``.cargo/config.toml``, or ``None`` when the registry
    folder is absent and cargo should keep using crates.io.
    """
    if not DEBIAN_CARGO_REGISTRY.is_dir():
        return None
    config = crate_root / ".cargo" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(OFFLINE_CARGO_CONFIG, encoding="utf-8")
    return config


def cargo_env(target_dir: Path) -> dict[str, str]:
    """The environment cargo runs in: ``target_dir`` and a stable toolchain."""
    env = dict(os.environ)
    env["CARGO_TARGET_DIR"] = str(target_dir)
    env.setdefault("RUSTUP_TOOLCHAIN", "stable")
    env.setdefault("CARGO_TERM_COLOR", "never")
    return env


def _run_cargo(crate_root: Path, target_dir: Path, args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["cargo", *args], cwd=crate_root, env=cargo_env(target_dir), capture_output=True, text=True, check=False
    )


def seed_target_dir() -> Path:
    """The seed target directory, holding only the fixture's compiled dependencies.

    Built on first use (under a file lock, so concurrent sessions build it
    once) from a pristine copy of the fixture, with the fixture's own
    packages cleaned out afterwards. A fixture that fails to compile still
    leaves its dependencies in the seed.
    """
    CARGO_BUILD_ROOT.mkdir(parents=True, exist_ok=True)
    with SEED_LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not SEED_STAMP.exists():
            shutil.rmtree(SEED_TARGET_DIR, ignore_errors=True)
            source = CARGO_BUILD_ROOT / "seed-src"
            shutil.rmtree(source, ignore_errors=True)
            copy_fixture(source)
            write_offline_cargo_config(source)
            _run_cargo(source, SEED_TARGET_DIR, ("build", "--workspace", "--all-targets"))
            _run_cargo(source, SEED_TARGET_DIR, ("clippy", "--workspace", "--all-targets"))
            clean = ["clean"] + [arg for package in FIXTURE_PACKAGES for arg in ("-p", package)]
            _run_cargo(source, SEED_TARGET_DIR, tuple(clean))
            # cxx-build's links to the cleaned packages' generated headers.
            shutil.rmtree(SEED_TARGET_DIR / "cxxbridge", ignore_errors=True)
            shutil.rmtree(source, ignore_errors=True)
            SEED_STAMP.write_text("dependencies of fixtures/mlxcel-mini\n", encoding="utf-8")
    return SEED_TARGET_DIR


def copy_target_dir(crate_root: Path) -> Path:
    """``crate_root/target``, cloned from the seed the first time it is needed."""
    target = crate_root / "target"
    if not target.exists():
        shutil.copytree(seed_target_dir(), target, symlinks=True, ignore=shutil.ignore_patterns(SEED_STAMP.name))
    return target


def cargo(crate_root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``cargo *args`` in ``crate_root``, building into the copy's own ``target/``.

    With ``check`` (the default) a non-zero exit fails with the command and
    the tails of its stdout (test failures) and stderr (compiler errors).
    """
    result = _run_cargo(crate_root, copy_target_dir(crate_root), args)
    if check and result.returncode != 0:
        stdout_tail = "\n".join(result.stdout.splitlines()[-OUTPUT_TAIL_LINES:])
        stderr_tail = "\n".join(result.stderr.splitlines()[-OUTPUT_TAIL_LINES:])
        raise AssertionError(
            f"`cargo {' '.join(args)}` in {crate_root} exited {result.returncode}\n"
            f"--- stdout tail ---\n{stdout_tail}\n--- stderr tail ---\n{stderr_tail}"
        )
    return result
