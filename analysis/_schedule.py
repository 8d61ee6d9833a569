"""The measurement schedule: which server runs, in which order.

For each family, prompt length and round, three arms each run on a fresh
server: ``paged``, ``dense`` and ``paged-null`` (paged again, the null arm whose
difference from ``paged`` measures run-to-run noise). Rounds and positions are
numbered from 1; round r starts at arm ``(r - 1) mod 3`` of that list and
continues in list order, so across every three rounds each arm takes each
position once.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis._run_folder import ARMS, RunKey

BACKEND_OF_ARM = {"paged": "paged", "dense": "dense", "paged-null": "paged"}

DEFAULT_SERVE_TEMPLATE = (
    "mlxcel serve -m {model} --port {port} --metrics --parallel 8 --decode-storage-backend {backend}"
)
DEFAULT_BENCH_TEMPLATE = (
    "python3 scripts/bench_serving_concurrency.py --port {port} --concurrency 1,4,8 "
    "--prompt-tokens {prompt_tokens} --max-tokens 128 --metrics"
)


@dataclass(frozen=True)
class Family:
    """A model family under test: the canonical key (gemma3, llama4) and its model."""

    name: str
    model: str


@dataclass(frozen=True)
class PlannedRun:
    """One server start and bench run of the schedule."""

    family: str
    model: str
    prompt_tokens: int
    round: int
    position: int
    arm: str

    @property
    def backend(self) -> str:
        return BACKEND_OF_ARM[self.arm]

    @property
    def key(self) -> RunKey:
        """What identifies this run in runs.jsonl."""
        return RunKey(self.family, self.prompt_tokens, self.round, self.arm)

    @property
    def run_id(self) -> str:
        """A file-name-safe identity, unique within one schedule."""
        return self.key.run_id

    def fields(self) -> dict:
        """The run's identity as recorded in runs.jsonl and shown by `plan`."""
        return {
            "family": self.family,
            "model": self.model,
            "prompt_tokens": self.prompt_tokens,
            "round": self.round,
            "position": self.position,
            "arm": self.arm,
        }


def arm_order(round_number: int) -> tuple[str, ...]:
    """The arms of one round (numbered from 1) in the order they run."""
    start = (round_number - 1) % len(ARMS)
    return ARMS[start:] + ARMS[:start]


def build_schedule(families: tuple[Family, ...], prompt_tokens: tuple[int, ...], rounds: int) -> tuple[PlannedRun, ...]:
    """Every run, family by family, prompt length by prompt length, round by round."""
    return tuple(
        PlannedRun(family.name, family.model, tokens, round_number, position, arm)
        for family in families
        for tokens in prompt_tokens
        for round_number in range(1, rounds + 1)
        for position, arm in enumerate(arm_order(round_number), start=1)
    )


def render_command(template: str, **values: object) -> str:
    """Fill a command template; a placeholder it does not know is an error (KeyError)."""
    return template.format(**values)
