"""bench/_mined.py's outcome of a commit: a plan that blocks on a line the commit keeps is a wrong
refusal, unless the commit itself keeps what the plan names (overridden, the plan writes the child)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))

import _mined


def _blocked(child_keeps_it: bool) -> _mined.CommitResult:
    result = _mined.CommitResult(
        "owner/loom",
        "0" * 40,
        "cpp",
        infer_s=0.1,
        deletes=1,
        exit_codes=[1, 1],
        differing=["src/heddle.h:3: a token differs"],
        child_keeps_it=child_keeps_it,
    )
    result.findings = [
        {
            "code": "dangling-reference",
            "path": "src/reed.h",
            "line": 4,
            "kept": True,
            "message": "heddle.h: code still refers to an item the recipe deletes",
        }
    ]
    return result


def test_a_refusal_on_a_kept_line_is_wrong_unless_the_commit_keeps_the_reference_too() -> None:
    wrong = _blocked(child_keeps_it=False)
    _mined.classify(wrong)
    assert wrong.outcome == "wrong refusal"
    right = _blocked(child_keeps_it=True)
    _mined.classify(right)
    assert right.outcome == "right refusal" and right.reason.startswith("the commit itself keeps it")


def test_the_ablation_expects_no_finding_at_a_functions_own_binding_of_the_name() -> None:
    """A parameter, a local, a definition of that name and the local's later uses are not uses of
    the deleted item; a member access and a shorthand field initialiser are."""
    rust = (
        b"pub fn make(kiln_id: u32) -> Shed {\n    let extra = kiln_id + 1;\n    Shed { kiln_id, extra }\n}\n"
        b"pub fn read(s: &Shed) -> u32 {\n    s.kiln_id\n}\n"
    )
    assert _mined._uses(rust, "rust", {"kiln_id"}, set(range(1, 8))) == [(3, "kiln_id"), (6, "kiln_id")]
    cpp = b"int fire(Kiln& k) {\n  int glaze = 2;\n  return glaze + k.glaze;\n}\nint glaze() { return 1; }\n"
    assert _mined._uses(cpp, "cpp", {"glaze"}, set(range(1, 6))) == [(3, "glaze")]
    python = b"def cure(pot):\n    glaze = pot.glaze\n    return glaze\n\n\ndef glaze():\n    return 0\n"
    assert _mined._uses(python, "python", {"glaze"}, set(range(1, 8))) == [(2, "glaze")]


def test_the_ablation_reads_a_deleted_module_or_private_import_by_where_it_binds() -> None:
    # A deleted Python module's name counts where a line names it under its package.
    modules = _mined._deleted_python_modules([{"kind": "file", "path": "src/kiln/glaze/firing.py"}])
    assert modules == {"firing": ("glaze", "firing")}
    assert _mined._names_module("from kiln.glaze.firing import cone", *modules["firing"])
    assert _mined._names_module("from kiln.glaze import firing", *modules["firing"])
    assert not _mined._names_module("from kiln.firing import cone", *modules["firing"])
    # A private `use` the recipe deletes binds its name in its own file only; a `pub use` anywhere.
    deletes = [{"kind": "use", "path": "src/a.rs", "name": "std::rc::Rc"}]
    assert _mined._private_import_names(deletes, {"src/a.rs": b"use std::rc::Rc;\n"}) == {"Rc": {"src/a.rs"}}
    assert _mined._private_import_names(deletes, {"src/a.rs": b"pub use std::rc::Rc;\n"}) == {}
