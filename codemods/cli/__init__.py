"""The `codemod` command (`main`); its usage errors and exit codes follow the house style
(`interchange.cli_style`)."""

import gc

# A run is short and keeps most of what it allocates (sources, trees, the plan) to its end: the
# cyclic collector, run every 700 allocations by default, spent about 35 ms of a dry run on the
# real tree it was tested on scanning objects that all survive; every 50,000 it runs rarely (peak memory is
# the same).
gc.set_threshold(50_000, 20, 20)
