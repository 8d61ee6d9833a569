"""The `codemod` command (`main`); its usage errors and exit codes follow the house style
(`interchange.cli_style`)."""
