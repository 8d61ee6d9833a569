"""The `codemod` command (`main`); its usage errors and exit codes follow the house style
(`style`: one line, exit 2), which the house's other console scripts share."""
