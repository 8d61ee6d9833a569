#!/usr/bin/env bash
# Installs everything the tool and its tests need on a fresh machine, once.
# Idempotent: a stamp keyed on pyproject.toml and this script skips the pip step when nothing changed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

need_apt=()
[ -d /usr/share/cargo/registry/cxx-build-1.0.87 ] || [ -n "$(ls -d /usr/share/cargo/registry/cxx-build-* 2>/dev/null)" ] \
    || need_apt+=(librust-cxx-dev librust-cxx-build-dev)
command -v rg >/dev/null 2>&1 || need_apt+=(ripgrep)
command -v tmux >/dev/null 2>&1 || need_apt+=(tmux)  # the terminal test of `codemod apply --interactive`
command -v clang-format >/dev/null 2>&1 || need_apt+=(clang-format)
if [ ${#need_apt[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "bootstrap: apt-get install ${need_apt[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
    echo "bootstrap: creating .venv" >&2
    python3 -m venv .venv
fi
stamp=".venv/.stamp-$(cat pyproject.toml scripts/bootstrap.sh | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    echo "bootstrap: installing Python packages into .venv" >&2
    .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
    .venv/bin/python -m pip install -q torch==2.13.0
    # The editable install as a path in a .pth file ("compat"), not an import hook: the hook costs
    # every start of `codemod` 25 ms (a pre-commit hook starts it on each commit).
    .venv/bin/python -m pip install -q -e ".[test,analysis,kernels]" --config-settings editable_mode=compat \
        2>/dev/null || .venv/bin/python -m pip install -q -e ".[test,analysis,kernels]"
    rm -f .venv/.stamp-*
    touch "$stamp"
fi
# The dataclasses' generated methods compiled once, beside the bytecode (codemods/startup.py): each
# `codemod` start would otherwise compile them again (0.1 s). Cheap, and done on every bootstrap
# so that the table matches the sources checked out.
.venv/bin/python -m codemods.startup >/dev/null
