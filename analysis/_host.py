"""What host.json records about the machine and the target repository.

Every probe is best effort: what cannot be found is recorded as null, never
guessed. The MLX pin is looked up, in this order, in a version file at the
repository root (``mlx.version``, ``MLX_VERSION``, ``.mlx-version``), in a git
submodule whose path ends in ``mlx`` (its recorded commit), in a CMake
``FetchContent_Declare(mlx ... GIT_TAG x)``, in an assignment such as
``MLX_GIT_TAG = "v0.29.1"`` or ``set(MLX_VERSION 0.29.1)`` in a tracked build.rs,
CMake file, Makefile or Cargo.toml, and in ``Cargo.lock`` packages whose name
is ``mlx`` or starts with ``mlx-``/``mlx_`` and that come from a registry or git
(not the repository's own crates).
"""

from __future__ import annotations

import platform
import re
import socket
import subprocess
from importlib import metadata
from pathlib import Path

_VERSION_FILES = ("mlx.version", "MLX_VERSION", ".mlx-version")
_CMAKE_MLX_TAG = re.compile(r"FetchContent_Declare\(\s*mlx\b[^)]*?GIT_TAG\s+([^\s)]+)", re.IGNORECASE | re.DOTALL)
_MLX_ASSIGNMENT = re.compile(
    r"\bMLX_(?:GIT_TAG|TAG|VERSION|REV|COMMIT)\b\s*(?:[:=]|\s)\s*(?:&?str\s*=\s*)?\"?([\w.+-]+)\"?"
)
_BUILD_FILE_PATTERNS = (
    "build.rs",
    "*/build.rs",
    "*CMakeLists.txt",
    "*.cmake",
    "Makefile",
    "*.mk",
    "Cargo.toml",
    "*/Cargo.toml",
)
_CARGO_LOCK_PACKAGE = re.compile(
    r'\[\[package\]\]\s*name\s*=\s*"([^"]+)"\s*version\s*=\s*"([^"]+)"(?:\s*source\s*=\s*"([^"]+)")?'
)


def collect_host_info(repo: Path, command_line: list[str]) -> dict:
    """The host.json content for a run driven by ``command_line`` against ``repo``."""
    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu_model(),
        "gpu": gpu_names(),
        "repo": str(repo.resolve()),
        "commit": _git(repo, "rev-parse", "HEAD"),
        "dirty": _git_dirty(repo),
        "mlx_pin": find_mlx_pin(repo),
        "tool_version": tool_version(),
        "command_line": command_line,
    }


def tool_version() -> str | None:
    try:
        return metadata.version("mlxcel-codemods")
    except metadata.PackageNotFoundError:
        return None


def cpu_model() -> str | None:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Model", "Hardware") and value.strip():
                return value.strip()
    brand = _run(["sysctl", "-n", "machdep.cpu.brand_string"])
    return brand or platform.processor() or None


def gpu_names() -> list[str] | None:
    """GPU names from nvidia-smi; on Apple silicon the GPU is the CPU's chip."""
    listing = _run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
    if listing:
        return [line.strip() for line in listing.splitlines() if line.strip()]
    if platform.system() == "Darwin" and platform.machine() == "arm64":
        chip = cpu_model()
        return [f"{chip} (integrated)"] if chip else None
    return None


def find_mlx_pin(repo: Path) -> dict | None:
    """``{"source": file, "pin": text}`` for the first pin found, else None."""
    for name in _VERSION_FILES:
        path = repo / name
        if path.is_file():
            return {"source": name, "pin": path.read_text(errors="replace").strip()}
    return _submodule_pin(repo) or _cmake_pin(repo) or _assignment_pin(repo) or _cargo_lock_pin(repo)


def _submodule_pin(repo: Path) -> dict | None:
    listing = _git(repo, "submodule", "status")
    for line in (listing or "").splitlines():
        parts = line.strip().lstrip("+-U").split()
        if len(parts) >= 2 and Path(parts[1]).name.lower() == "mlx":
            return {"source": f"submodule {parts[1]}", "pin": parts[0]}
    return None


def _cmake_pin(repo: Path) -> dict | None:
    files = _git(repo, "ls-files", "*CMakeLists.txt", "*.cmake") or ""
    for name in files.splitlines():
        match = _CMAKE_MLX_TAG.search((repo / name).read_text(errors="replace"))
        if match:
            return {"source": name, "pin": match.group(1)}
    return None


def _assignment_pin(repo: Path) -> dict | None:
    files = _git(repo, "ls-files", *_BUILD_FILE_PATTERNS) or ""
    for name in files.splitlines():
        path = repo / name
        if path.is_file():
            match = _MLX_ASSIGNMENT.search(path.read_text(errors="replace"))
            if match:
                return {"source": name, "pin": match.group(1)}
    return None


def _cargo_lock_pin(repo: Path) -> dict | None:
    lock = repo / "Cargo.lock"
    if not lock.is_file():
        return None
    pins = [
        f"{name} {version}" + (f" ({source})" if source else "")
        for name, version, source in _CARGO_LOCK_PACKAGE.findall(lock.read_text(errors="replace"))
        if source and (name == "mlx" or name.startswith(("mlx-", "mlx_")))
    ]
    return {"source": "Cargo.lock", "pin": "; ".join(pins)} if pins else None


def _git(repo: Path, *args: str) -> str | None:
    return _run(["git", "-C", str(repo), *args])


def _git_dirty(repo: Path) -> bool | None:
    status = _run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"], keep_empty=True)
    return None if status is None else bool(status.strip())


def _run(argv: list[str], keep_empty: bool = False) -> str | None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    output = done.stdout.strip()
    return output if output or keep_empty else None
