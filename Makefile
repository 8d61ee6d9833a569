# The two entry points of the README. Both install what they need first.
.PHONY: demo test bootstrap

bootstrap:
	@bash scripts/bootstrap.sh

demo: bootstrap
	.venv/bin/codemod apply --dry-run fixtures/mlxcel-mini

test: bootstrap
	.venv/bin/python -m pytest -q
