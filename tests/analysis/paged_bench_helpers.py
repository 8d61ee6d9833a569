"""Synthetic run folders for the paged-bench tests: runs.jsonl plus bench stdout files."""

from __future__ import annotations

import json
from pathlib import Path

from analysis._bench_output import SUMMARY_COLUMNS
from analysis._run_folder import DOCUMENTED_FIELDS
from analysis._schedule import BACKEND_OF_ARM, arm_order

ROOT = Path(__file__).resolve().parents[2]
FAKE_SERVE = ROOT / "fixtures" / "fake-serve"


def bench_stdout(
    aggregate_by_conc: dict[int, float], fail_by_conc: dict[int, int] | None = None, paged_launches: int | None = None
) -> str:
    """Output in the shape of mlxcel's bench script whose aggregate tok/s per level are the given numbers.

    With ``paged_launches`` it is the ``--metrics`` shape, each level launching that
    many paged-attention kernels.
    """
    fail_by_conc = fail_by_conc or {}
    lines = ["Server:       http://127.0.0.1:18080", "Model:        synthetic",
             "Prompt:       ~512 tokens (2591 chars)", "Max tokens:   128",
             f"Concurrency:  {list(aggregate_by_conc)}"]  # fmt: skip
    for conc in aggregate_by_conc:
        lines += ["", f">>> concurrency={conc} ..."]
        lines += ["    request error: HTTP 500: synthetic"] * fail_by_conc.get(conc, 0)
        if paged_launches is not None:
            lines += [
                f'    decode paths: paged_decode_launches_total{{path="fused_v2"}}=+{paged_launches}  '
                'paged_decode_launches_total{path="gather"}=+0  paged_decode_launches_total{path="cascade"}=+0',
                f"    batch counters: decode_steps=+128  decode_tokens=+{128 * conc}  mixed_steps=+0  "
                f"prefill_chunks=+{conc}  tokens_predicted_seconds=+1.000",
            ]
    header = "  ".join(SUMMARY_COLUMNS)
    lines += ["", header, "-" * len(header)]
    for conc, aggregate in aggregate_by_conc.items():
        fail = fail_by_conc.get(conc, 0)
        lines.append(f"{conc:>4}  {conc - fail:>3}  {fail:>4}  40.0  50.0  80.0  {aggregate:.4f}")
    return "\n".join(lines) + "\n\n"


def write_run_folder(
    folder: Path,
    aggregates: dict[tuple[str, int, int, str], dict[int, float]],
    *,
    fails: dict[tuple[str, int, int, str], dict[int, int]] | None = None,
    stdout_override: dict[tuple[str, int, int, str], str] | None = None,
    records_override: dict[tuple[str, int, int, str], dict] | None = None,
    documented_only: bool = False,
    paged_launches: dict[str, int] | None = None,
) -> Path:
    """Write runs.jsonl and stdout files; keys are (family, prompt_tokens, round, arm).

    With ``documented_only`` the records hold only runs.jsonl's documented fields;
    ``paged_launches`` (per backend) writes the ``--metrics`` shape.
    """
    fails = fails or {}
    stdout_override = stdout_override or {}
    records_override = records_override or {}
    (folder / "stdout").mkdir(parents=True, exist_ok=True)
    lines = []
    for key, by_conc in aggregates.items():
        family, prompt, round_number, arm = key
        stdout = Path("stdout") / f"{family}-p{prompt}-r{round_number}-{arm}.txt"
        launches = None if paged_launches is None else paged_launches[BACKEND_OF_ARM[arm]]
        text = stdout_override.get(key, bench_stdout(by_conc, fails.get(key), launches))
        (folder / stdout).write_text(text)
        failed = sum(fails.get(key, {}).values())
        record = {
            "family": family,
            "model": f"models/{family}",
            "prompt_tokens": prompt,
            "round": round_number,
            "position": arm_order(round_number).index(arm) + 1,
            "arm": arm,
            "backend": BACKEND_OF_ARM[arm],
            "command": "bench",
            "started_at": "2026-11-30T00:00:00+00:00",
            "exit_code": 0,
            "status": "failed-requests" if failed else "ok",
            "stdout": stdout.as_posix(),
            "server_log": f"server-logs/{family}-p{prompt}-r{round_number}-{arm}.log",
            "server_backend": BACKEND_OF_ARM[arm],
        }
        record.update(records_override.get(key, {}))
        if documented_only:
            record = {name: record[name] for name in DOCUMENTED_FIELDS if name in record}
        lines.append(json.dumps(record))
    (folder / "runs.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def cells_from_ratios(
    family: str, ratios: dict[tuple[int, int], list[tuple[float, float]]], paged_tok_s: float = 1000.0
) -> dict[tuple[str, int, int, str], dict[int, float]]:
    """Aggregates from per-cell (D/P, N/P) pairs per round; cell key (prompt, conc)."""
    aggregates: dict[tuple[str, int, int, str], dict[int, float]] = {}
    for (prompt, conc), rounds in ratios.items():
        for round_number, (dense_ratio, null_ratio) in enumerate(rounds, start=1):
            for arm, ratio in (("paged", 1.0), ("dense", dense_ratio), ("paged-null", null_ratio)):
                aggregates.setdefault((family, prompt, round_number, arm), {})[conc] = paged_tok_s * ratio
    return aggregates
