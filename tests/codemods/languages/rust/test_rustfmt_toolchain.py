"""rustfmt in a tree that pins a toolchain rustup does not have goes straight to the default one."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods.languages.rust.format import _pinned_toolchain_missing


@pytest.fixture()
def rustup_home(tmp_path: Path, monkeypatch) -> Path:
    home = tmp_path / "rustup"
    (home / "toolchains" / "stable-x86_64-unknown-linux-gnu").mkdir(parents=True)
    (home / "toolchains" / "1.80.0-x86_64-unknown-linux-gnu").mkdir()
    monkeypatch.setenv("RUSTUP_HOME", str(home))
    monkeypatch.delenv("RUSTUP_TOOLCHAIN", raising=False)
    return home


@pytest.mark.parametrize(
    "name, text, missing",
    [
        ("rust-toolchain.toml", '[toolchain]\nchannel = "9.99.9"\n', True),
        ("rust-toolchain.toml", '[toolchain]\nchannel = "1.80.0"\n', False),
        ("rust-toolchain.toml", '[toolchain]\nchannel = "stable"\n', False),
        ("rust-toolchain", "9.99.9\n", True),
        ("rust-toolchain", "stable\n", False),
    ],
)
def test_a_pinned_toolchain_is_looked_up_in_rustups_home(tmp_path, rustup_home, name, text, missing):
    tree = tmp_path / "tree"
    (tree / "crates" / "a").mkdir(parents=True)
    (tree / name).write_text(text)
    assert _pinned_toolchain_missing(tree) is missing
    assert _pinned_toolchain_missing(tree / "crates" / "a") is missing  # found in a parent, as rustup does


def test_unknown_cases_run_rustfmt_as_before(tmp_path, rustup_home, monkeypatch):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "rust-toolchain.toml").write_text('[toolchain]\nchannel = "9.99.9"\n')
    monkeypatch.setenv("RUSTUP_TOOLCHAIN", "stable")
    assert not _pinned_toolchain_missing(tree)
    monkeypatch.delenv("RUSTUP_TOOLCHAIN")
    monkeypatch.setenv("RUSTUP_HOME", str(tmp_path / "no-rustup"))
    assert not _pinned_toolchain_missing(tree)
    assert not _pinned_toolchain_missing(None)
