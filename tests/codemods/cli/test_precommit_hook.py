"""The pre-commit hook, driven by the real `pre-commit` package in a temporary git repository.

`.pre-commit-hooks.yaml` declares the hook with `language: python`, with which
pre-commit pip-installs this repository into its own environment: that needs
the network. To stay offline and fast, the repository under test uses a
`repo: local` hook that copies every key of the manifest's hook (entry,
types_or, files, ...) except `language`, which becomes `system`, and points
`entry` at this venv's `codemod`. The manifest itself is validated with
pre-commit's own schema.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
MANIFEST = REPO / ".pre-commit-hooks.yaml"
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None
    or shutil.which("rg") is None
    or not (BIN / "pre-commit").exists()
    or not (BIN / "codemod").exists(),
    reason="needs git, rg, and pre-commit and codemod in the running venv",
)


def manifest_hook() -> dict:
    from pre_commit.clientlib import load_manifest

    hooks = load_manifest(str(MANIFEST))
    assert [h["id"] for h in hooks] == ["codemod-check"]
    return hooks[0]


def test_manifest_is_valid_and_covers_rust_cpp_cuda_python():
    from identify.identify import tags_from_filename

    hook = manifest_hook()
    assert hook["entry"] == "codemod check --in-scope" and hook["language"] == "python" and hook["pass_filenames"]
    assert hook["files"] == ""  # the recipe's check_scope is the hook's scope, not a pattern here
    for name in ("a.rs", "a.cpp", "a.cc", "a.h", "a.hpp", "a.cu", "a.cuh", "a.py"):
        assert set(hook["types_or"]) & tags_from_filename(name), name
    assert not set(hook["types_or"]) & tags_from_filename("a.md")


def _local_config(hook: dict) -> str:
    keys = ("id", "name", "types_or", "files", "require_serial", "pass_filenames")
    lines = ["repos:", "  - repo: local", "    hooks:", f"      - id: {hook['id']}"]
    lines += [f"        {key}: {hook[key]!r}".replace("'", '"') for key in keys[1:]]
    lines += [f"        entry: {BIN / 'codemod'} {hook['entry'].split(' ', 1)[1]}", "        language: system"]
    return "\n".join(lines).replace("True", "true").replace("False", "false") + "\n"


def _make_repo(tmp_path: Path, config: str) -> tuple[Path, dict]:
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    }

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True)

    assert git("init", "-q", "-b", "main").returncode == 0
    (repo / ".pre-commit-config.yaml").write_text(config)
    (repo / ".codemod.toml").write_text('recipe = "paged-compat-removal"\n')
    (repo / "src").mkdir()
    (repo / "src" / "cache.rs").write_text("pub struct PooledMeta {\n    pub block: usize,\n}\n")
    (repo / "docs").mkdir()
    (repo / "docs" / "adr.rs").write_text("// PagedDecodeMetadata: out of the recipe's scope, never checked\n")
    installed = subprocess.run([str(BIN / "pre-commit"), "install"], cwd=repo, env=env, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    git("add", "-A")
    first = git("commit", "-q", "-m", "clean start")
    assert first.returncode == 0, first.stdout + first.stderr
    return repo, {"git": git, "env": env}


@pytest.fixture()
def git_repo(tmp_path: Path) -> tuple[Path, dict]:
    return _make_repo(tmp_path, _local_config(manifest_hook()))


def test_commit_bringing_a_dead_symbol_back_is_rejected_with_its_location(git_repo):
    repo, tools = git_repo
    git = tools["git"]
    (repo / "src" / "cache.rs").write_text(
        "pub struct PooledMeta {\n    pub block: usize,\n}\n\n/// Replaces [`PagedDecodeMetadata`].\n"
        "pub fn meta() -> crate::cache::PagedDecodeMetadata {\n    todo!()\n}\n"
    )
    (repo / "src" / "kernel.cu").write_text('void go() { k<<<1, 1>>>("paged_decode_attention_dense_compat"); }\n')
    git("add", "-A")
    rejected = git("commit", "-m", "bring it back")
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0, output
    assert "src/cache.rs:5:16: PagedDecodeMetadata [comment]" in output
    assert "src/cache.rs:6:32: PagedDecodeMetadata [code]" in output
    assert "src/kernel.cu:1:26: paged_decode_attention_dense_compat [string]" in output
    assert "docs/adr.rs" not in output
    assert git("rev-list", "--count", "HEAD").stdout.strip() == "1"


def test_clean_commit_passes(git_repo):
    repo, tools = git_repo
    git = tools["git"]
    (repo / "src" / "layers.rs").write_text("/// Pooled decode attention.\npub fn paged_decode_attention_pooled() {}\n")
    (repo / "src" / "tool.py").write_text(
        "# the pooled path is the only one\nPOOLED = 'paged_decode_attention_pooled'\n"
    )
    git("add", "-A")
    accepted = git("commit", "-m", "pooled only")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "removed symbols stay removed" in accepted.stdout + accepted.stderr
    assert git("rev-list", "--count", "HEAD").stdout.strip() == "2"


def readme_consumer_config() -> str:
    """The `.pre-commit-config.yaml` snippet the README gives for a repository to guard."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    return textwrap.dedent(block)


def test_readme_consumer_config_is_valid_and_the_hook_prints_one_total(tmp_path):
    """The README's snippet passes pre-commit's config schema and names the manifest's hook; run (as
    a local hook, offline) on more files than one batch, the hook prints one list and one total."""
    from pre_commit.clientlib import load_config

    snippet = tmp_path / "snippet.yaml"
    snippet.write_text(readme_consumer_config())
    [repo_entry] = load_config(str(snippet))["repos"]
    [hook] = repo_entry["hooks"]
    assert repo_entry["rev"] and hook["id"] == manifest_hook()["id"]
    repo, tools = _make_repo(tmp_path, _local_config({**manifest_hook(), **hook}))
    for index in range(40):
        (repo / "src" / f"m{index:02d}.rs").write_text(f"// PagedDecodeMetadata {index}\n")
    tools["git"]("add", "-A")
    result = subprocess.run(
        [str(BIN / "pre-commit"), "run", "--all-files"], cwd=repo, env=tools["env"], capture_output=True, text=True
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    totals = [line for line in output.splitlines() if line.startswith("codemod check: ")]
    assert totals == ["codemod check: 40 mention(s) of removed symbols in 40 file(s)"], output
    assert all(f"src/m{index:02d}.rs:1:4: PagedDecodeMetadata [comment]" in output for index in range(40))


@pytest.mark.skipif(
    os.environ.get("CODEMOD_TEST_NETWORK") != "1",
    reason="pip-installs this repository with its dependencies: set CODEMOD_TEST_NETWORK=1",
)
def test_try_repo_installs_the_manifest_hook_and_rejects_a_mention(tmp_path):
    """The manifest as users get it: `language: python`, installed by pre-commit itself (needs the network)."""
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "a.rs").write_text("// PagedDecodeMetadata\n")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home"), "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", "init", "-q"], cwd=work, env=env, check=True)
    subprocess.run(["git", "add", "-A"], cwd=work, env=env, check=True)
    result = subprocess.run(
        [str(BIN / "pre-commit"), "try-repo", str(REPO), "codemod-check", "--files", "src/a.rs"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "src/a.rs:1:4: PagedDecodeMetadata [comment]" in result.stdout


def test_readme_snippet_pinned_to_a_commit_of_a_local_clone_runs_the_hook(tmp_path):
    """The README's snippet as a user fills it in, against a clone of this repository: its URL
    the clone, `<sha>` the clone's HEAD. pre-commit fetches the repository at that commit and
    reads its manifest; only the hook's language is made `system` (and its entry this venv's
    codemod), so that nothing is pip-installed (offline)."""
    clone = tmp_path / "mlxcel-codemods"
    cloned = subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], capture_output=True, text=True)
    assert cloned.returncode == 0, cloned.stderr
    sha = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    snippet = readme_consumer_config()
    url = snippet.split("repo: ", 1)[1].split()[0]
    assert "rev: <sha>" in snippet
    config = (
        snippet.replace(url, str(clone))
        .replace("<sha>", sha)
        .replace(
            "- id: codemod-check\n",
            f"- id: codemod-check\n        language: system\n        entry: {BIN / 'codemod'} check --in-scope\n",
        )
    )
    repo, tools = _make_repo(tmp_path, config)
    (repo / "src" / "cache.rs").write_text("// PagedDecodeMetadata is back\n")
    tools["git"]("add", "-A")
    result = subprocess.run(
        [str(BIN / "pre-commit"), "run", "--all-files"],
        cwd=repo,
        env=tools["env"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "src/cache.rs:1:4: PagedDecodeMetadata [comment]" in output
    assert "removed symbols stay removed" in output
