"""Named deviations the reproduction can switch on, to test a hypothesis about a measured one."""

from __future__ import annotations

import enum


class Injection(enum.Enum):
    """One deviation from the specified kernel; its value is the CLI name.

    Each one first shows at the stage `stage` names; the stages after it inherit
    it (except where docs/kernels/README.md says otherwise).  `bit` matches the
    kInject* constants of csrc/ssm_update.h.
    """

    STATE_BF16 = "state-bf16"
    DT_BF16 = "dt-bf16"
    DT_SUM_BF16 = "dt-sum-bf16"
    DA_BF16 = "dA-bf16"
    D_BF16 = "D-bf16"

    @property
    def stage(self) -> str:
        """The first stage this deviation reaches."""
        return _STAGE_OF[self]

    @property
    def bit(self) -> int:
        """Its flag in the kernels' inject mask."""
        return _BIT_OF[self]


_STAGE_OF = {
    Injection.STATE_BF16: "state",
    Injection.DT_BF16: "dt",
    Injection.DT_SUM_BF16: "dt",
    Injection.DA_BF16: "dA",
    Injection.D_BF16: "out",
}

_BIT_OF = {
    Injection.STATE_BF16: 1,
    Injection.DT_BF16: 2,
    Injection.DT_SUM_BF16: 4,
    Injection.DA_BF16: 8,
    Injection.D_BF16: 16,
}


def inject_mask(inject: frozenset[Injection]) -> int:
    """The kernels' inject mask for a set of injections."""
    mask = 0
    for injection in inject:
        mask |= injection.bit
    return mask
