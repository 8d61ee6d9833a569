"""Exit statuses shared by the kernels console scripts (ssm-diff and its --tree and --engine mlx branches)."""

EXIT_OK = 0
"""Every stage within budget; generations agree."""
EXIT_DIFFERS = 1
"""A stage over budget; generations diverge."""
