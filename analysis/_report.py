"""The results document, its plot and its data folder.

For ``--out docs/benchmark_results/NAME.md`` under repository root ROOT:

    docs/benchmark_results/NAME.md               the document
    docs/benchmark_results/NAME.png              paired deltas against the null band per cell
    docs/benchmark_results/data/NAME/            raw data: runs.jsonl, host.json, stdout/,
                                                 stderr/, server-logs/, driver.sh, decision.json
    DIR/decision.json                            decide --json content plus results_document

``results_document`` is the document's path relative to ROOT, as the flag recipe
cites it in doc comments.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from datetime import date
from io import BytesIO
from pathlib import Path

import analysis._store as _store
from analysis._collect import RunFolderDecision, decision_to_json, summarise_levels
from analysis._decision import RULE_TEXT
from analysis._run_folder import DECISION_FILE, HOST_FILE, OUTPUT_FOLDERS, RUNS_FILE
from interchange.decision import CellDecision, FamilyDecision


@dataclass(frozen=True)
class WrittenReport:
    """Where the report put things."""

    document: Path
    plot: Path
    data_dir: Path
    decision_file: Path
    results_document: str


def write_report(run_dir: Path, decision: RunFolderDecision, out: Path, repo_root: Path) -> WrittenReport:
    """Write the document, plot, data folder and both copies of decision.json."""
    results_document = out.resolve().relative_to(repo_root.resolve()).as_posix()
    data_dir = out.parent / "data" / out.stem
    plot = out.with_suffix(".png")
    host = _store.read_json_object(run_dir / HOST_FILE) or {}
    document_json = decision_to_json(decision, results_document)
    _copy_raw_data(run_dir, data_dir)
    _store.write_file(data_dir / "driver.sh", render_driver_script(host).encode())
    encoded = (json.dumps(document_json, indent=2) + "\n").encode()
    _store.write_file(data_dir / DECISION_FILE, encoded)
    _store.write_file(plot, render_plot(decision))
    markdown = render_document(decision, host, out.stem, plot.name, f"data/{out.stem}/")
    _store.write_file(out, markdown.encode())
    _store.write_file(run_dir / DECISION_FILE, encoded)
    return WrittenReport(out, plot, data_dir, run_dir / DECISION_FILE, results_document)


def _copy_raw_data(run_dir: Path, data_dir: Path) -> None:
    for name in (RUNS_FILE, HOST_FILE):
        if (run_dir / name).is_file():
            _store.copy_file(run_dir / name, data_dir / name)
    for folder in OUTPUT_FOLDERS:
        for source in sorted((run_dir / folder).glob("*")):
            if source.is_file():
                _store.copy_file(source, data_dir / folder / source.name)


def render_driver_script(host: dict) -> str:
    """A shell script that repeats the measurement: every recorded invocation, in order.

    host.json may come from elsewhere: a command line that is not a list of
    strings is kept as a comment, never run.
    """
    lines = [
        "#!/bin/sh",
        "# Driver of this measurement, as recorded in host.json. Run from the target",
        f"# repository ({_plain(host.get('repo'))}) at commit {_plain(host.get('commit'))}.",
        f"# serve template: {_plain(host.get('serve_template'))}",
        f"# bench template: {_plain(host.get('bench_template'))}",
        "set -e",
    ]
    invocations = host.get("invocations")
    if not isinstance(invocations, list) or not invocations:
        invocations = [{"command_line": host.get("command_line")}]
    for index, invocation in enumerate(invocations):
        if index:
            lines.append("# resumed with:")
        command = invocation.get("command_line") if isinstance(invocation, dict) else invocation
        if isinstance(command, list) and command and all(isinstance(part, str) for part in command):
            lines.append(shlex.join(command))
        else:
            lines.append(f"# not a command line: {_plain(command)}")
    return "\n".join(lines) + "\n"


def _plain(value: object) -> str:
    """Any JSON value from host.json as one line of text."""
    if value is None:
        return "not recorded"
    if isinstance(value, str):
        return " ".join(value.split())
    return json.dumps(value, sort_keys=True)


def _pin_text(pin: object) -> str:
    if isinstance(pin, dict) and isinstance(pin.get("pin"), str):
        source = f" from {_plain(pin.get('source'))}" if pin.get("source") is not None else ""
        return f"`{_plain(pin['pin'])}`{source}"
    if pin in (None, "", {}, []):
        return "not recorded in the tree"
    return f"`{_plain(pin)}`"


def render_document(decision: RunFolderDecision, host: dict, title_stem: str, plot_name: str, data_link: str) -> str:
    """The markdown results document."""
    lines = [
        f"# Paged vs dense decode storage ({title_stem})",
        "",
        f"Written by `paged-bench report` on {date.today().isoformat()} from `{decision.run_dir}`.",
        "",
        "## Setup",
        "",
        f"- Host: {_plain(host.get('hostname'))}; CPU: {_plain(host.get('cpu'))}; GPU: {_join(host.get('gpu'))}",
        f"- Target commit: `{_plain(host.get('commit'))}`"
        + (" (working tree dirty)" if host.get("dirty") is True else ""),
        f"- MLX pin: {_pin_text(host.get('mlx_pin'))}",
        f"- Serve command: `{_plain(host.get('serve_template'))}`",
        f"- Bench command: `{_plain(host.get('bench_template'))}`",
        f"- Tool: mlxcel-codemods {_plain(host.get('tool_version'))}; rounds: {decision.rounds_planned}",
        f"- Raw output, server logs, host record, driver script and decision.json: [{data_link}]({data_link})",
        "",
        "Each round ran three arms on fresh servers, `paged`, `dense` and `paged-null` "
        "(paged again), in rotating order. Metric: aggregate tok/s from the bench summary.",
        "",
        f"Rule: {RULE_TEXT}.",
        "",
        "## Decision",
        "",
        "| family | model | supports_paged_decode_backend | reason |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {f.name} | `{f.model}` | `{str(f.supports_paged_decode_backend).lower()}` | {f.reason} |"
        for f in decision.families
    ]
    for family in decision.families:
        lines += _family_section(family)
    lines += _paths_section(decision)
    lines += ["", "## Problems", ""]
    lines += [f"- {p.describe()}" for p in decision.problems] or ["None."]
    lines += ["", "## Plot", "", f"![paired deltas against the null band]({plot_name})", ""]
    return "\n".join(lines)


def _family_section(family: FamilyDecision) -> list[str]:
    lines = ["", f"## {family.name} (`{family.model}`)", ""]
    lines += [f"- Flag: `{str(family.supports_paged_decode_backend).lower()}`: {family.reason}."]
    lines += [f"- Note: {note}." for note in family.notes]
    for prompt in sorted({c.prompt_tokens for c in family.cells}):
        lines += [
            "",
            f"### {prompt}-token prompts",
            "",
            "| conc | rounds | paged tok/s | dense tok/s | median paired delta | null spread "
            "| verdict | 95% CI of mean delta | rounds favouring dense | rounds to resolve | notes |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        lines += [_cell_row(c) for c in family.cells if c.prompt_tokens == prompt]
    return lines


def _cell_row(cell: CellDecision) -> str:
    ci = f"{_pct(cell.ci95[0])} .. {_pct(cell.ci95[1])}" if cell.ci95 else "n/a"
    notes = "; ".join(cell.notes) + ("; **inconclusive**" if cell.inconclusive else "")
    return (
        f"| {cell.concurrency} | {len(cell.rounds)} | {_number(cell.median_paged_tok_s)} "
        f"| {_number(cell.median_dense_tok_s)} | {_pct(cell.median_paired_delta)} "
        f"| {_pct(cell.null_spread, signed=False)} | {cell.verdict} | {ci} | "
        f"{cell.rounds_favouring_dense}/{len(cell.rounds)} | {cell.rounds_to_resolve or 'n/a'} "
        f"| {notes.lstrip('; ') or '-'} |"
    )


def _paths_section(decision: RunFolderDecision) -> list[str]:
    """What the bench's --metrics lines say each arm's decode actually ran, median over rounds."""
    summaries = summarise_levels(decision.observations)
    lines = ["", "## Decode paths and batch counters", ""]
    if all(s.paged_launches is None and s.decode_steps is None for s in summaries):
        return lines + [
            "The bench ran without `--metrics` (or against a server without `/metrics`): "
            "which decode path ran is not recorded."
        ]
    lines += [
        "Medians over the accepted runs of each arm, from the bench's `decode paths:`, "
        "`batch counters:` and `batch steps:` lines. Paged-kernel launches count every "
        "`paged_decode_launches_total` path; a dense arm that launched any is left out as a backend "
        "mismatch. A paged arm may launch none (model-owned KV is not read from the pool).",
        "",
        "| family | prompt | arm | conc | runs | paged-kernel launches | decode path | decode steps "
        "| occupancy | decode step ms | request errors |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {s.family} | {s.prompt_tokens} | {s.arm} | {s.concurrency} | {s.runs} | {_count(s.paged_launches)} "
        f"| {s.decode_path} | {_count(s.decode_steps)} | {_number(s.occupancy, 2)} | {_number(s.decode_step_ms, 2)} "
        f"| {s.request_errors} |"
        for s in summaries
    ]
    return lines


def _count(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0f}"


class MissingPlotter(Exception):
    """matplotlib (the `analysis` extra) is not installed."""


def render_plot(decision: RunFolderDecision) -> bytes:
    """PNG: per (family, prompt length) panel, per-round paired deltas and the null band."""
    panels = [
        (family, prompt) for family in decision.families for prompt in sorted({c.prompt_tokens for c in family.cells})
    ]
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingPlotter("the plot needs matplotlib: pip install 'mlxcel-codemods[analysis]'") from None
    figure = Figure(figsize=(4.2 * max(1, len(panels)), 3.6), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, max(1, len(panels)), squeeze=False)[0]
    for axis, (family, prompt) in zip(axes, panels):
        cells = [c for c in family.cells if c.prompt_tokens == prompt]
        for x, cell in enumerate(cells):
            if cell.null_spread is not None:
                spread = 100 * cell.null_spread
                axis.bar(x, 2 * spread, bottom=-spread, width=0.6, color="0.85", edgecolor="0.6")
            deltas = [100 * d for d in cell.paired_deltas]
            axis.scatter([x] * len(deltas), deltas, s=14, color="tab:blue", zorder=3)
            if cell.median_paired_delta is not None:
                axis.plot([x - 0.3, x + 0.3], [100 * cell.median_paired_delta] * 2, color="tab:red", zorder=4)
        axis.axhline(0, color="black", linewidth=0.8)
        axis.set_xticks(range(len(cells)), [f"c{c.concurrency}" for c in cells])
        axis.set_title(f"{family.name}, {prompt}-token prompts", fontsize=9)
        axis.set_ylabel("dense / paged - 1 (%)")
    for axis in axes[len(panels) :]:
        axis.set_visible(False)
    figure.suptitle("Paired deltas (dots), median (red), null band ±max|z| (grey)", fontsize=9)
    buffer = BytesIO()
    figure.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
    return buffer.getvalue()


def _pct(value: float | None, signed: bool = True) -> str:
    if value is None:
        return "n/a"
    return f"{100 * value:+.2f}%" if signed else f"{100 * value:.2f}%"


def _number(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _join(values: object) -> str:
    if isinstance(values, list) and values:
        return ", ".join(_plain(v) for v in values)
    return _plain(values) if values else "not visible"
