"""mlxcel's recipes, the engine's first user (mlxcel #2230): `paged_compat_removal.toml` (a),
`paged_flag.toml` (b), `perturb.toml` (the one-off mutation check), and the code their `build`s
add (`oracle`, `trimming`, `templates/`; paged-flag's `flag_sites` and `flag_tests`)."""
