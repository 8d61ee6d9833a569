"""Wrong input to any console script: one line `PROG: error: ...`, exit 2, never a traceback.

One table, run through the installed console scripts as a user types them:
the cases of issue 15 first (on a copy of the real tree where they name one),
then more. Each row: the command line, the folder it runs in, the exit code
and a part of the one error line. With --json the error is also the JSON
document `{"error": MESSAGE, "exit_code": 2}` on stdout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
SCRIPTS = ("codemod", "paged-bench", "ssm-diff", "ssm-generations")

pytestmark = pytest.mark.skipif(
    not all((BIN / s).exists() for s in SCRIPTS), reason="needs the console scripts installed in the running venv"
)


@dataclass(frozen=True)
class Case:
    """`args` may use {tree} (a copy of the real tree), {parent} (the folder holding it) and {inputs}
    (the folder of bad inputs below); `cwd` is one of those too, or "." for the inputs folder."""

    args: tuple[str, ...]
    message: str
    cwd: str = "{inputs}"
    exit_code: int = 2

    @property
    def needs_tree(self) -> bool:
        return any("{tree}" in a or "{parent}" in a for a in (*self.args, self.cwd))


def case(command: str, message: str, cwd: str = "{inputs}", exit_code: int = 2) -> Case:
    import shlex

    return Case(tuple(shlex.split(command)), message, cwd, exit_code)


INPUTS = {
    "deletions.toml": 'id = "x"\n[[deletions]]\npath = "src/a.rs"\nlanguage = "rust"\nkind = "fn"\nname = "f"\n',
    "unknown_key.toml": 'id = "x"\nsumary = "misspelt"\n',
    "delete_key.toml": 'id = "x"\n[[delete]]\npath = "src/a.rs"\nlanguage = "rust"\nkind = "fn"\nnmae = "f"\n',
    "bad_regex.toml": 'extends = "paged-compat-removal"\ndead_symbol_pattern = "paged_decode_attention_(dense"\n',
    "bad_kind.toml": 'id = "x"\n[[delete]]\npath = "src/a.rs"\nlanguage = "rust"\nkind = "function"\nname = "f"\n',
    "id_number.toml": "id = 5\n",
    "no_replace.toml": 'extends = "paged-compat-removal"\n[[reword]]\npath = "src/lib/mlxcel-core/src/layers.rs"\n'
    'item = "paged_decode_attention_pooled"\nsymbols = ["paged_decode_attention_dense_compat"]\n',
    "bad.json": "{not json",
    "object.json": '{"ids": [1, 2]}',
    "tokens.txt": "1 2 3\n",
    "decision.json": "{}",
    "empty-runs/runs.jsonl": "",
    "blank-runs/runs.jsonl": "\n\n",
    "resumable/runs.jsonl": '{"run_id": "x"}\n',
    "empty-folder/": "",
}

PLAN = "paged-bench plan --family gemma3=models/gemma-3-1b-it-4bit"

CASES = {
    # ---- the cases of issue 15, as written there (with the recipe named: the tree names none)
    "check-subfolder-of-tree": case(
        "codemod check --recipe paged-compat-removal src/models", "ROOT src/models holds no src/", cwd="{tree}"
    ),
    "check-from-inside-src": case(
        "codemod check --recipe paged-compat-removal", "ROOT . holds no src/", cwd="{tree}/src"
    ),
    "check-empty-folder": case(
        "codemod check --recipe paged-compat-removal {inputs}/empty-folder", "holds no src/ (the scope recipe"
    ),
    "apply-dry-run-on-parent": case(
        "codemod apply --recipe paged-compat-removal --dry-run {parent}", "give the repository root, probably"
    ),
    "recipe-misspelt-table": case(
        "codemod apply --dry-run --recipe deletions.toml {tree}", "unknown key [[deletions]] (did you mean 'delete'?)"
    ),
    "recipe-unknown-key": case(
        "codemod apply --dry-run --recipe unknown_key.toml {tree}", "unknown key 'sumary' (did you mean 'summary'?)"
    ),
    "decision-to-recipe-taking-none": case(
        "codemod apply --recipe paged-compat-removal --dry-run --decision decision.json {tree}",
        "No such option: --decision",
    ),
    "decide-empty-runs": case("paged-bench decide empty-runs", "empty-runs/runs.jsonl holds no runs"),
    "report-empty-runs": case(
        "paged-bench report empty-runs --out {inputs}/docs/results.md", "empty-runs/runs.jsonl holds no runs"
    ),
    "serve-cmd-without-backend": case(
        PLAN + " --serve-cmd 'srv {{model}} {{port}}'", "lacks {backend}: without it the paged, dense and null arms"
    ),
    "apply-invalid-pattern": case(
        "codemod apply --recipe bad_regex.toml {tree}", "is not a valid pattern: missing ), unterminated subpattern"
    ),
    "ssm-diff-cuda-without-cuda": case("ssm-diff --device cuda", "--device cuda: this torch"),
    "ssm-diff-batch-too-big": case("ssm-diff --batch 1000000", "--batch 1000000: needs about"),
    "check-json-missing-path": case("codemod check --json {inputs}/nowhere", "no such file or folder"),
    "ssm-generations-bad-json-named": case("ssm-generations bad.json tokens.txt", "bad.json: not valid JSON"),
    "paged-bench-unknown-option": case("paged-bench decide --frob .", "No such option '--frob'"),
    "check-unknown-option": case("codemod check --frob", "No such option '--frob'"),
    "infer-one-tree": case(
        "codemod infer {inputs}/empty-folder", "give two trees, BEFORE AFTER, or --commit REV [ROOT]"
    ),
    "infer-commit-not-a-repository": case("codemod infer --commit HEAD {inputs}/empty-folder", "--commit HEAD: "),
    # ---- issue 23: what a new user hit on the real tree
    "codemod-without-command": case(
        "codemod", "no command given (one of: apply, check, infer, recipes; see `codemod --help`)"
    ),
    "paged-bench-without-command": case("paged-bench", "no command given (one of: decide, plan, report, run"),
    "recipe-id-not-a-string": case(
        "codemod apply --dry-run --recipe id_number.toml {tree}", "id must be a string, not 5"
    ),
    "reword-without-replace": case(
        "codemod apply --dry-run --recipe no_replace.toml {tree}", "[[reword]] entry 1: missing key 'replace'"
    ),
    "perturb-unknown-function": case(
        "codemod apply --recipe perturb-pooled-output --param function=nope --dry-run {tree}",
        "--param function=nope: no function nope in src/lib/mlxcel-core/src/layers.rs",
    ),
    # ---- more
    "apply-subfolder-of-tree": case(
        "codemod apply --recipe paged-compat-removal --dry-run src/models", "probably", cwd="{tree}"
    ),
    "apply-empty-folder": case(
        "codemod apply --recipe paged-compat-removal empty-folder", "holds none of src/lib/mlxcel-core"
    ),
    "apply-json-on-parent": case(
        "codemod apply --recipe paged-compat-removal --json --dry-run {parent}", "give the repository root"
    ),
    "apply-no-recipe-named": case("codemod apply --dry-run {tree}", "no recipe given: pass --recipe ID|PATH"),
    "check-no-recipe-named": case("codemod check {tree}", 'or [tool.codemod] recipe = "ID" in pyproject.toml'),
    "apply-missing-root": case("codemod apply {inputs}/nowhere", "does not exist"),
    "apply-unknown-recipe": case("codemod apply --recipe frob {tree}", "unknown recipe 'frob'"),
    "apply-unknown-delete-key": case(
        "codemod apply --recipe delete_key.toml {tree}", "[[delete]] entry 1: unknown key 'nmae' (did you mean 'name'?)"
    ),
    "apply-unknown-kind": case("codemod apply --recipe bad_kind.toml {tree}", "unknown rust kind 'function'"),
    "check-invalid-pattern": case("codemod check --recipe bad_regex.toml {tree}", "is not a valid pattern"),
    "check-folder-and-file": case("codemod check {tree} {tree}/Cargo.toml", "give one ROOT folder"),
    "paged-flag-decision-missing": case(
        "codemod apply --recipe paged-flag --decision nowhere.json {tree}", "decision file nowhere.json not found"
    ),
    "paged-flag-decision-bad": case(
        "codemod apply --recipe paged-flag --decision decision.json {tree}", "decision file does not match its schema"
    ),
    "perturb-on-parent": case(
        "codemod apply --recipe perturb-pooled-output --dry-run {parent}", "holds no src/lib/mlxcel-core/src/layers.rs"
    ),
    "perturb-factor-nan": case(
        "codemod apply --recipe perturb-pooled-output --param factor=nan --dry-run {tree}",
        "factor must be a finite number",
    ),
    "perturb-factor-one": case(
        "codemod apply --recipe perturb-pooled-output --param factor=1.0 --dry-run {tree}", "factor 1 changes nothing"
    ),
    "param-not-taken": case(
        "codemod apply --recipe paged-compat-removal --param frob=1 --dry-run {tree}", "takes no option 'frob'"
    ),
    "param-without-value": case(
        "codemod apply --recipe paged-compat-removal --param frob --dry-run {tree}", "give NAME=VALUE"
    ),
    "stat-with-sarif": case("codemod apply --stat --format sarif --dry-run {tree}", "--stat shows the text diff"),
    "recipes-unknown-option": case("codemod recipes --frob", "No such option '--frob'"),
    "decide-blank-runs": case("paged-bench decide --json blank-runs", "holds no runs"),
    "decide-missing-folder": case("paged-bench decide nowhere", "Directory 'nowhere' does not exist"),
    "serve-cmd-bad-placeholder": case(PLAN + " --serve-cmd 'srv {{modle}} {{backend}}'", "bad placeholder 'modle'"),
    "serve-cmd-without-model": case(PLAN + " --serve-cmd 'srv {{backend}}'", "lacks {model}"),
    "port-0-without-port": case(PLAN + " --port 0 --serve-cmd 'srv {{model}} {{backend}}'", "lacks {port}"),
    "bench-cmd-without-lengths": case(PLAN + " --bench-cmd 'bench {{port}}'", "lacks {prompt_tokens}"),
    "family-without-model": case("paged-bench plan --family gemma3", "expected NAME=MODEL_PATH"),
    "run-negative-timeout": case(
        "paged-bench run --family gemma3=m --out o --startup-timeout -1", "Invalid value for '--startup-timeout'"
    ),
    "run-no-resume-with-runs": case(
        "paged-bench run --family gemma3=m --out resumable --no-resume",
        "resumable/runs.jsonl exists and --no-resume was given",
    ),
    "report-not-markdown": case("paged-bench report resumable --out results.txt", "expected a .md path"),
    # ---- issue 24: what a run needs is checked before the first server starts
    "run-server-not-on-path": case(
        "paged-bench run --family gemma3=models/x --out D --rounds 1 --prompt-tokens 64",
        "cannot start the server: mlxcel not found on PATH; give --serve-cmd",
    ),
    "run-bench-program-missing": case(
        "paged-bench run --family gemma3=m --out D --prompt-tokens 64 "
        "--serve-cmd 'python3 -m http.server {{port}} {{model}} {{backend}}' "
        "--bench-cmd 'no-such-bench --port {{port}}'",
        "cannot run the bench: no-such-bench not found on PATH; give --bench-cmd",
    ),
    "run-bench-script-missing": case(
        "paged-bench run --family gemma3=m --out D --serve-cmd 'python3 -m http.server {{port}} {{model}} {{backend}}'",
        "cannot run the bench: scripts/bench_serving_concurrency.py not found in ",
    ),
    "run-bench-option-unknown": case(
        "paged-bench run --family gemma3=m --out D --repo {tree} --prompt-tokens 64 "
        "--serve-cmd 'python3 -m http.server {{port}} {{model}} {{backend}}' "
        "--bench-cmd 'python3 scripts/bench_serving_concurrency.py --port {{port}} --frob'",
        "--bench-cmd passes --frob, which scripts/bench_serving_concurrency.py does not take",
    ),
    "plan-unknown-family": case(
        "paged-bench plan --family mistral=/x", "unknown family 'mistral' (known: gemma3, llama4"
    ),
    "ssm-diff-batch-zero": case("ssm-diff --batch 0", "Invalid value for '--batch'"),
    "ssm-diff-unknown-shape": case("ssm-diff --json --shape frob", "Invalid value for '--shape'"),
    "ssm-diff-tree-not-mlxcel-json": case(
        "ssm-diff --json --show-kernel --tree {inputs}", "has no src/lib/mlxcel-core/cpp/"
    ),
    "ssm-generations-missing-file": case("ssm-generations nowhere.txt tokens.txt", "'nowhere.txt' does not exist"),
    "ssm-generations-wrong-shape": case(
        "ssm-generations object.json tokens.txt", "object.json: expected a list of tokens"
    ),
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("inputs")
    for name, text in INPUTS.items():
        path = folder / name
        if name.endswith("/"):
            path.mkdir(parents=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    return folder


@pytest.mark.parametrize("name", list(CASES))
def test_wrong_input_is_one_line_and_exit_2(name: str, inputs: Path, request: pytest.FixtureRequest) -> None:
    row = CASES[name]
    if name == "ssm-diff-cuda-without-cuda":
        import torch

        if torch.cuda.is_available():
            pytest.skip("this torch has CUDA")
    places = {"inputs": str(inputs), "tree": "", "parent": ""}
    if row.needs_tree:
        tree = request.getfixturevalue("corpus")
        places.update(tree=str(tree), parent=str(tree.parent))
    args = [a.format(**places) for a in row.args]
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    result = subprocess.run(
        [str(BIN / args[0]), *args[1:]],
        cwd=row.cwd.format(**places),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = result.stderr.splitlines()
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    assert (result.returncode, len(lines)) == (row.exit_code, 1), result.stdout + result.stderr
    assert lines[0].startswith(f"{args[0]}: error: "), lines[0]
    assert row.message.replace("{{", "{").replace("}}", "}") in lines[0], lines[0]
    if "--json" in args:
        assert json.loads(result.stdout) == {"error": lines[0].split(": error: ", 1)[1], "exit_code": 2}
    else:
        assert result.stdout == ""
    assert not (inputs / "docs").exists(), "report wrote a document for an empty run folder"
    assert not (inputs / "D").exists(), "run recorded something though it could not start"


def _commands():
    """(command line, click command) of every console script and every subcommand."""
    import click

    from analysis.cli import main as paged_bench
    from codemods.cli.main import main as codemod
    from kernels.cli import ssm_diff_main, ssm_generations_main

    for name, command in (
        ("codemod", codemod),
        ("paged-bench", paged_bench),
        ("ssm-diff", ssm_diff_main),
        ("ssm-generations", ssm_generations_main),
    ):
        yield name, command
        if isinstance(command, click.Group):
            yield from ((f"{name} {sub}", command.commands[sub]) for sub in sorted(command.commands))


@pytest.mark.parametrize("command", [name for name, _ in _commands()])
def test_every_command_takes_h_and_lists_its_exit_codes(command: str) -> None:
    script, *sub = command.split()
    result = subprocess.run([str(BIN / script), *sub, "-h"], capture_output=True, text=True, timeout=120)
    text = " ".join(result.stdout.split())
    assert result.returncode == 0, result.stderr
    assert "Exit codes: 0 " in text and f"2 usage error (one line, `{script}: error: ...`" in text
    assert [line for line in result.stdout.splitlines() if len(line) > 80] == []
    if command == "codemod apply":
        assert "130 interrupted (Ctrl-C)" in text


def test_every_option_has_help_text() -> None:
    import click

    missing = [
        f"{name} {param.opts[0]}"
        for name, command in _commands()
        for param in command.params
        if isinstance(param, click.Option) and not (param.help or "").strip()
    ]
    assert missing == []
