#!/usr/bin/env bash
# Issue 41 point 3 on the device machine (16 CPU cores): bench_cores.py there, offline.
#
# Here, first: `bash bench/device_cores.sh pack [DIR]` writes a bundle (default
# bench/out/cores-device/, git-ignored) holding this script, the checkout's tracked and
# untracked files (code.tar.xz), the registry and databend trees built here
# (trees.tar.xz: bench/registry_workspace.py needs /usr/share/cargo/registry, the
# databend tree a fetched mirror; the generated workspace is generated there), the mlxcel
# archive, wheels of the engine's dependencies and ast-grep for Python 3.12 (WHEELS, made
# with `pip download`, see below) and rg with its libpcre2 (used only where the machine has
# no rg). Then, on the device machine, with the bundle carried (the `run` tool sends the
# checkout its session started in, which for a helper's worktree is the main checkout: copy
# the bundle to the same git-ignored path there, name it in `carry`, remove it afterwards):
#
#     bash BUNDLE/device_cores.sh run [RUNS] [ONLY]
#
# unpacks into /tmp/cores, installs the wheels offline (--target), runs
# bench/bench_cores.py at 2, 4, 8 and 16 cores (CORES=1,2,16: others) with a profile at 16
# (PROFILE=0: none; FLOOR=1: each tree's parse floor too, bench_cores.py --floor; TRACE=1: then
# the timeline of one dry run per workspace at 16 cores, bench/trace_forks.py; PARSE_SCALING=1: then
# databend's files parsed by 1, 2 and 16 processes at once, bench/parse_scaling.py); with BASE=COMMIT given to `pack` (base.tar.xz: that commit's tracked
# files), that checkout's dry run is timed beside this one's (bench_cores.py --baseline), and writes to $OUT:
# log.txt (the machine and the table), cores.json, profile.txt and prof.tar.gz.
#
# The wheels: python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12
#   --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64
#   --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d WHEELS tree-sitter==0.26.1
#   tree-sitter-rust==0.24.2 tree-sitter-cpp==0.23.4 tree-sitter-python==0.25.0 libcst==1.9.0
#   click==8.5.1 pyyaml==6.0.2 tomli==2.5.0
#   ast-grep-cli==0.51.1
set -euo pipefail

pack() {
    local repo bundle wheels
    repo=$(cd "$(dirname "$0")/.." && pwd)
    bundle=${1:-$repo/bench/out/cores-device}
    wheels=${WHEELS:-/tmp/cores-whl}
    rm -rf "$bundle"
    mkdir -p "$bundle/whl" "$bundle/bin"
    cp "$repo/bench/device_cores.sh" "$bundle/"
    echo "$(git -C "$repo" rev-parse --short HEAD) ($(git -C "$repo" status --porcelain | wc -l) files changed since)" \
        >"$bundle/commit"
    (cd "$repo" && git ls-files -co --exclude-standard | tar -cf - -T - | xz -T2 -6 >"$bundle/code.tar.xz")
    if [[ -n "${BASE:-}" ]]; then
        git -C "$repo" archive "$BASE" | xz -T2 -6 >"$bundle/base.tar.xz"
        git -C "$repo" rev-parse --short "$BASE" >"$bundle/base-commit"
    fi
    (cd "$repo/bench/out" && tar -cf - registry-workspace databend | xz -T2 -6 >"$bundle/trees.tar.xz")
    cp "$repo/../../shared/corpora/mlxcel-2026-07.tar.xz" "$bundle/" 2>/dev/null \
        || cp "$repo/../shared/corpora/mlxcel-2026-07.tar.xz" "$bundle/" 2>/dev/null || true
    cp "$wheels"/*.whl "$bundle/whl/"
    cp "$(command -v rg)" "$bundle/bin/rg"
    cp "$(ldd "$(command -v rg)" | awk '/libpcre2-8/ {print $3}')" "$bundle/bin/"
    du -sh "$bundle"
}

run() {
    local bundle runs only work site
    bundle=$(cd "$(dirname "$0")" && pwd)
    runs=${1:-5}
    only=${2:-generated,registry,databend,real}
    work=/tmp/cores
    site=/tmp/cores-site
    : "${OUT:=/tmp/cores-out}"
    mkdir -p "$OUT"
    rm -rf "$work" "$site"
    mkdir -p "$work/bench/out" "$work/.shim"
    tar -xJf "$bundle/code.tar.xz" -C "$work"
    tar -xJf "$bundle/trees.tar.xz" -C "$work/bench/out"
    local baseline=()
    if [[ -f "$bundle/base.tar.xz" ]]; then
        rm -rf /tmp/cores-base && mkdir -p /tmp/cores-base
        tar -xJf "$bundle/base.tar.xz" -C /tmp/cores-base
        baseline=(--baseline /tmp/cores-base)
    fi
    # Byte-compiled as pip installs them (the machine may set PYTHONDONTWRITEBYTECODE: modules
    # left uncompiled would be compiled again by every run, 0.07-0.1 s each, seen in a first run).
    python3 -m pip install -q --no-index --no-deps --no-cache-dir --target "$site" "$bundle"/whl/*.whl
    export PYTHONPATH="$work:$site"
    local python
    python=$(command -v python3)
    printf '#!%s\nimport sys\nfrom codemods.cli.entry import run\nif __name__ == "__main__":\n    sys.exit(run())\n' \
        "$python" >"$work/.shim/codemod"
    chmod +x "$work/.shim/codemod"
    ln -sf "$python" "$work/.shim/python"
    if ! command -v rg >/dev/null; then
        printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s/rg "$@"\n' "$bundle/bin" "$bundle/bin" >"$work/.shim/rg"
        chmod +x "$work/.shim/rg"
    fi
    export PATH="$work/.shim:$site/bin:$PATH" PYTHONUNBUFFERED=1
    {
        date -u
        echo "commit measured: $(cat "$bundle/commit")"
        [[ -f "$bundle/base-commit" ]] && echo "baseline: $(cat "$bundle/base-commit")"
        uname -a
        python3 --version
        env | grep -E '^PYTHON' || true
        echo "nproc $(nproc); affinity $(python3 -c 'import os; print(sorted(os.sched_getaffinity(0)))')"
        lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node|MHz' || true
        lscpu -e 2>/dev/null | head -20 || true
        free -g | head -2
        echo "taskset: $(command -v taskset || echo missing); rg: $(command -v rg) $(rg --version | head -1)"
        echo "ast-grep: $(ast-grep --version); rustfmt: $(command -v rustfmt || echo missing)"
        echo "cargo registry: $(ls /usr/share/cargo/registry 2>/dev/null | wc -l) crates"
        uptime
    } 2>&1 | tee "$OUT/log.txt"
    cd "$work"
    set +e
    timeout "${BENCH_LIMIT:-500}" python3 bench/bench_cores.py --runs "$runs" --only "$only" --cores "${CORES:-2,4,8,16}" --profile "${PROFILE:-16}" \
        --profile-dir /tmp/cores-prof --save "$OUT/cores.json" --corpus "$bundle/mlxcel-2026-07.tar.xz" \
        "${baseline[@]}" ${FLOOR:+--floor} 2>&1 \
        | tee -a "$OUT/log.txt"
    echo "bench_cores exit: ${PIPESTATUS[0]}" | tee -a "$OUT/log.txt"
    if [[ -n "${TRACE:-}" ]]; then
        # The timeline of one dry run per tree at 16 cores (bench/trace_forks.py), 3 runs in a row.
        local tree
        for tree in databend registry-workspace; do
            echo "== trace: $tree at 16 cores" | tee -a "$OUT/log.txt"
            (cd "bench/out/$tree" && timeout 120 taskset -c 0-15 python3 "$work/bench/trace_forks.py" --jobs 16 \
                --runs 3 -- apply --dry-run --recipe delete-methods.toml . 2>&1 | grep -v '^codemod:\|^src/\|^crates/') \
                | tee -a "$OUT/log.txt"
        done
    fi
    if [[ -n "${PARSE_SCALING:-}" ]]; then
        echo "== parse scaling: databend" | tee -a "$OUT/log.txt"
        timeout 120 taskset -c 0-15 python3 bench/parse_scaling.py bench/out/databend --procs 1,2,16 --env-malloc \
            2>&1 | tee -a "$OUT/log.txt"
    fi
    uptime | tee -a "$OUT/log.txt"
    cp /tmp/cores-prof/profile.txt "$OUT/" 2>/dev/null
    tar -czf "$OUT/prof.tar.gz" -C /tmp cores-prof 2>/dev/null
    return 0
}

case "${1:-}" in
    pack) shift; pack "$@" ;;
    run) shift; run "$@" ;;
    *) echo "usage: $0 pack [BUNDLE] | run [RUNS] [ONLY]" >&2; exit 2 ;;
esac
