"""Reporting: one module per output format (`text`, `json`, `sarif`, `github`), each a Reporter
(see `base`) that renders an apply run or a check; `diff` renders unified diffs."""
