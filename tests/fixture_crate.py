"""Copying and building the ``fixtures/mlxcel-mini`` Cargo workspace.

Tests work on copies so that the committed fixture never gains a
``target/``, a ``Cargo.lock`` or a ``.cargo/config.toml``. Every copy shares
one cargo target directory under ``build/cargo-target`` so that the
dependencies (cxx, cxx-build and theirs) are compiled once per machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "mlxcel-mini"
CARGO_TARGET_DIR = REPO / "build" / "cargo-target"
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

STDERR_TAIL_LINES = 60


def copy_fixture(dest: Path) -> Path:
    """Copy the fixture workspace into ``dest`` (created if missing) and return it.

    Build outputs, the lock file and any local cargo configuration are left out.
    """
    shutil.copytree(
        FIXTURE,
        dest,
        ignore=shutil.ignore_patterns("target", "Cargo.lock", ".cargo"),
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


def cargo_env() -> dict[str, str]:
    """The environment cargo runs in: the shared target dir and a stable toolchain."""
    env = dict(os.environ)
    env["CARGO_TARGET_DIR"] = str(CARGO_TARGET_DIR)
    env.setdefault("RUSTUP_TOOLCHAIN", "stable")
    env.setdefault("CARGO_TERM_COLOR", "never")
    return env


def cargo(crate_root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``cargo *args`` in ``crate_root``.

    With ``check`` (the default) a non-zero exit fails with the command and
    the tail of its stderr.
    """
    command = ["cargo", *args]
    result = subprocess.run(
        command,
        cwd=crate_root,
        env=cargo_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    if check:
        tail = "\n".join(result.stderr.splitlines()[-STDERR_TAIL_LINES:])
        assert result.returncode == 0, (
            f"`{' '.join(command)}` in {crate_root} exited {result.returncode}; stderr tail:\n{tail}"
        )
    return result
