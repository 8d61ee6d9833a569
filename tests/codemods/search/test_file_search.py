"""A file search's files as rg finds them (`each`) and all of them, sorted (`result`)."""

from __future__ import annotations

import shutil

import pytest

from codemods.search import files as file_search
from codemods.search.files import start_files_with_words


def _tree(tmp_path):
    for index in range(40):
        folder = tmp_path / f"pier{index % 4}"
        folder.mkdir(exist_ok=True)
        body = "fn moor() { berth(); }\n" if index % 3 else "fn drift() {}\n"
        (folder / f"slip{index}.rs").write_text(body)
    (tmp_path / "notes.txt").write_text("berth\n")  # not a source file
    return sorted(f"pier{i % 4}/slip{i}.rs" for i in range(40) if i % 3)


@pytest.mark.skipif(shutil.which("rg") is None, reason="rg streams its files; the fallback has none early")
def test_each_gives_the_files_as_found_and_result_all_of_them_sorted(tmp_path):
    expected = _tree(tmp_path)
    with start_files_with_words(tmp_path, ["berth"]) as search:
        early = []
        for path in search.each():
            early.append(path)
            if len(early) == 5:
                break  # a caller may stop early: the rest is still in the result
        assert len(early) == 5 and set(early) <= set(expected)
        assert search.result() == expected


def test_without_rg_each_gives_nothing_and_result_walks_the_tree(tmp_path, monkeypatch):
    expected = _tree(tmp_path)
    monkeypatch.setattr(file_search.shutil, "which", lambda name: None)
    with start_files_with_words(tmp_path, ["berth"]) as search:
        assert list(search.each()) == []
        assert search.result() == expected
