"""Writing: the journaled all-or-nothing write of a plan (`atomic`, `journal`) and a whole run
as `codemod apply` does it: lock, recovery, plan, write (`run`)."""
