"""Searching the tree: ripgrep or a walk for files and words (`files`), mentions of a dead-symbol
pattern classified as code, comment or string (`mentions`), and `codemod check` (`check`)."""
