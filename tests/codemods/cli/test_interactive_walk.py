"""The review walk of `codemod apply --interactive` (cli/interactive.py's `Walk`) answered by a
script of keys instead of a terminal: what it accepts is what was shown and accepted, its counts
add up to the plan's, and `q` checks what is left before it asks."""

from __future__ import annotations

import re

import pytest

from codemods import load_recipe, plan_recipe
from codemods.cli.interactive import Walk
from codemods.plan.subset import changes_of
from fixture_crate import copy_fixture


@pytest.fixture(scope="module")
def plan(tmp_path_factory):
    tree = copy_fixture(tmp_path_factory.mktemp("walk") / "mlxcel-mini")
    return plan_recipe(tree, load_recipe("paged-compat-removal"))


class Keys:
    """The keys a reviewer types, in order; running out of them is a walk that asks too often."""

    def __init__(self, *keys: str) -> None:
        self.keys = list(keys)

    def __call__(self) -> str:
        assert self.keys, "the walk asked for more keys than the reviewer typed"
        return self.keys.pop(0)


def test_keeping_a_change_after_skipping_its_chain_accepts_only_what_was_shown(plan, capsys) -> None:
    ids = [c.id for c in changes_of(plan)]
    # n on the first change, s(kip) the accepted changes that need it, then k(eep) it after all.
    walk = Walk(plan, colour=False, getkey=Keys("n", "s", "k", "k", "k", "k", "q", "n"))
    assert walk.run() is None
    out = capsys.readouterr().out
    assert walk.accepted == {ids[0]}
    assert walk.skipped == set()
    # The changes the chain had skipped are shown again, undecided: the second one is asked about.
    assert f"[2/{len(ids)}] {ids[1]}" in out
    assert re.search(rf"Writ\w+ the 1 accepted change\(s\) and skip\w* the other {len(ids) - 1}\b", out)


def test_quit_checks_what_is_left_and_offers_to_go_back(plan, capsys) -> None:
    ids = [c.id for c in changes_of(plan)]
    walk = Walk(plan, colour=False, getkey=Keys("y", "q", "b", "a"))
    assert walk.run() == set()
    out = capsys.readouterr().out
    refused = out[out.index("Writing the 1 accepted change(s) and skipping the other") :]
    assert "would be refused" in refused.splitlines()[0]
    assert "[b]ack to this change" in refused
    assert out.count(f"[2/{len(ids)}] {ids[1]}") == 2  # asked again after going back
    assert walk.accepted == set(ids)


def test_every_change_is_accepted_or_skipped_and_the_counts_add_up(plan, capsys) -> None:
    ids = [c.id for c in changes_of(plan)]
    walk = Walk(plan, colour=False, getkey=Keys(*["n", "c"] * 2, *["y"] * len(ids)))
    skipped = walk.run()
    assert skipped == set(ids[:2])
    assert walk.accepted | walk.skipped == set(ids) and not walk.accepted & walk.skipped
