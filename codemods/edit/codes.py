"""The catalogue of finding codes: every `Finding.code` the package and its bundled recipes give.

A script acts on a plan by code (`finding.code == Code.DANGLING_REFERENCE`), so each code is one
member here, with what it means and how to get past it (`CATALOGUE`), and nothing else in the
package spells a code as a string literal (tests/codemods/edit/test_finding_codes.py checks both, and
that docs/findings.md lists every code). `Code` is a `str` enum: a finding's code compares equal
to its slug and prints as it, in text, JSON and SARIF alike. A user's own recipe step may give
codes of its own; those are plain strings outside this catalogue.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType


# The exit codes of the CLI's table (docs: `codemod --help`), which a plan's and a run's JSON
# documents carry: 0 success or clean, 1 findings (a blocked plan, a failed write), 2 a usage error.
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


class Code(StrEnum):
    """A finding code: a stable slug, the same in every output format."""

    # The tree, the recipe or its options are wrong: the plan could not start (CLI exit 2).
    USAGE_ERROR = "usage-error"
    STEP_FAILED = "step-failed"
    # Targets of `[[delete]]` and what deleting them would leave behind.
    NO_SUCH_ITEM = "no-such-item"
    NOT_FOUND = "not-found"
    SHAPE_MISMATCH = "shape-mismatch"
    AMBIGUOUS = "ambiguous"
    AMBIGUOUS_TARGET = "ambiguous-target"
    REQUIRED_METHOD = "required-method"
    NON_EXHAUSTIVE_MATCH = "non-exhaustive-match"
    CANNOT_DELETE = "cannot-delete"
    DANGLING_REFERENCE = "dangling-reference"
    IMPORT_STILL_USED = "import-still-used"
    UNREWORDED_MENTION = "unreworded-mention"
    # Rules of `[[rewrite]]`, `[[reword]]` and `[[insert]]`.
    BAD_PATTERN = "bad-pattern"
    REWRITE_NOT_FOUND = "rewrite-not-found"
    REWORDING_NOT_FOUND = "rewording-not-found"
    REWORD_CLASH = "reword-clash"
    INSERT_NOT_FOUND = "insert-not-found"
    INSERT_PRESENT = "insert-present"
    # The files a plan reads and the per-file gate.
    MISSING_FILE = "missing-file"
    UNREADABLE_FILE = "unreadable-file"
    BINARY_FILE = "binary-file"
    PROTECTED_PATH = "protected-path"
    SYMLINK_OUTSIDE_ROOT = "symlink-outside-root"
    PARSE_ERROR = "parse-error"
    UNPARSEABLE_TARGET = "unparseable-target"
    PARSE_REGRESSION = "parse-regression"
    OVERLAPPING_EDITS = "overlapping-edits"
    UNFORMATTED = "unformatted"
    SEARCHED_WITHOUT_RG = "searched-without-rg"
    # A subset of a plan (`plan_subset`, `--skip`, `--interactive`).
    NEEDS_SKIPPED_CHANGE = "needs-skipped-change"
    # The write (`write_plan`, `apply_recipe`): refused, nothing written.
    STALE_PLAN = "stale-plan"
    ALIASED_PATH = "aliased-path"
    NOT_A_FILE = "not-a-file"
    READ_ONLY_FILE = "read-only-file"
    READ_ONLY_FOLDER = "read-only-folder"
    JOURNAL_PRESENT = "journal-present"
    RECOVERY_REFUSED = "recovery-refused"
    # The project's own check of the planned tree (`apply --verify`, `verify_plan`).
    BUILD_ERROR = "build-error"
    # Given by the steps of the bundled recipes.
    LAYOUT = "layout"
    REFERENCE_RUN_SHAPE = "reference-run-shape"
    HELPER_BRIDGE = "helper-bridge"
    FORMATTED_WITHOUT_RUSTFMT = "formatted-without-rustfmt"
    NOTHING_SURVIVES = "nothing-survives"
    ORPHANED_TEST = "orphaned-test"
    NOT_ADDED = "not-added"
    SIGNATURE_MISMATCH = "signature-mismatch"
    NOT_IN_TREE = "not-in-tree"
    NOTHING_TO_UPDATE = "nothing-to-update"
    MISSING_RESULTS_DOCUMENT = "missing-results-document"
    UNKNOWN_FAMILY = "unknown-family"
    NO_DATA = "no-data"
    STALE_TEST = "stale-test"


@dataclass(frozen=True)
class CodeInfo:
    """What a code means and how to get past it (`override`: the `codemod apply` flag, and the
    `plan_recipe` keyword, that lets a blocking finding of it through; None: fix the cause)."""

    meaning: str
    remedy: str
    override: str | None = None


CATALOGUE: MappingProxyType[Code, CodeInfo] = MappingProxyType(
    {
        Code.USAGE_ERROR: CodeInfo(
            "the root does not hold what the recipe works on, the recipe data is invalid, an option is unknown "
            "or malformed, or a step rejected its input (`RecipeInputError`); the plan has no changes",
            "fix the root, the recipe or the option the message names",
        ),
        Code.STEP_FAILED: CodeInfo(
            "a recipe's own step raised an exception (other than `RecipeInputError`); the message names "
            "the step and the exception, and the plan has no changes",
            "fix the step: call it on `Workspace(root=ROOT)` to see the traceback",
        ),
        Code.NO_SUCH_ITEM: CodeInfo(
            "a `[[delete]]` target has no item of that name and kind in its file; the finding's line and "
            'column are those of the closest-named item of the file (the first "did you mean"), or 1:1 '
            "when it has none; in a C++ file that does not "
            "parse, the message names the line where it stops",
            "correct the target's name or kind; give the recipe a `dead_symbol_pattern` so that an item "
            "already removed is a note",
        ),
        Code.NOT_FOUND: CodeInfo(
            "a target already absent (the dead-symbol pattern shows no mention left), a note",
            "nothing to do: a re-run of a finished recipe",
        ),
        Code.SHAPE_MISMATCH: CodeInfo(
            "the name is there as another kind of item, or the code around it has a shape the step does "
            "not handle; nothing of it is edited",
            "correct the target's kind, or edit that code by hand",
        ),
        Code.AMBIGUOUS: CodeInfo(
            "a Rust target names several items (modules, impl blocks, `use` entries, macro invocations, "
            "match arms); the message lists the name that selects each (`NAME#N` where they share one)",
            "use one of the listed names",
        ),
        Code.AMBIGUOUS_TARGET: CodeInfo(
            "a C++ target names several overloads or preprocessor branches; the message lists each "
            "signature or condition",
            "add the signature (`copy(const char*, size_t)` or `copy(*)`) or `branch`",
        ),
        Code.REQUIRED_METHOD: CodeInfo(
            "a method of a trait impl the plan keeps is deleted while the trait (resolved wherever the "
            "tree defines it) declares it without a default, or, for a trait outside the tree, the "
            "impl would be left empty",
            "delete the trait's declaration (kind `trait_method`) or the whole impl (kind `impl`) instead",
        ),
        Code.NON_EXHAUSTIVE_MATCH: CodeInfo(
            "a `match_arm` target without a guard has no catch-all arm after it: the match might no "
            "longer cover every value",
            "delete the variant it matches (kind `variant`), which takes its arms, or add a catch-all arm first",
        ),
        Code.CANNOT_DELETE: CodeInfo(
            "the language's deleter (libcst for Python) failed on the file", "report it, with the file"
        ),
        Code.DANGLING_REFERENCE: CodeInfo(
            "code outside the deleted items still refers to one of them (`certainty`: definite or possible)",
            "delete or rewrite the use, or let it through",
            "--allow-dangling (allow_dangling=True)",
        ),
        Code.IMPORT_STILL_USED: CodeInfo(
            "an import the plan removes is still used by the file (said at each use left)",
            "delete or rewrite those uses too",
        ),
        Code.UNREWORDED_MENTION: CodeInfo(
            "a comment or string in the check scope still names a removed symbol",
            "add a `[[reword]]` rule, or let it through",
            "--allow-unreworded (allow_unreworded=True)",
        ),
        Code.BAD_PATTERN: CodeInfo(
            "a `[[rewrite]]` rule's pattern or replacement is not valid for the file's language", "correct the rule"
        ),
        Code.REWRITE_NOT_FOUND: CodeInfo(
            "a `[[rewrite]]` rule matches nothing",
            "correct the rule, mark it `optional`, or let it through",
            "--allow-unmatched (allow_unmatched=True)",
        ),
        Code.REWORDING_NOT_FOUND: CodeInfo(
            "a `[[reword]]` rule matches no prose, or its file is neither parsed nor prose (Markdown, text) "
            "(a note when it is `optional`)",
            "correct the rule, mark it `optional`, or let it through",
            "--allow-unmatched (allow_unmatched=True)",
        ),
        Code.REWORD_CLASH: CodeInfo(
            "two rewording rules of the same recipe reword the same text", "keep one of the two rules"
        ),
        Code.INSERT_NOT_FOUND: CodeInfo(
            "an `[[insert]]` rule finds no place (a note when it is `optional`)", "correct its `item` or `pattern`"
        ),
        Code.INSERT_PRESENT: CodeInfo(
            "an `[[insert]]` rule's text is there already, a note", "nothing to do: a re-run of a finished recipe"
        ),
        Code.MISSING_FILE: CodeInfo(
            "a file the recipe names is not in the tree (a note for `[[delete]]` targets)",
            "check the root and the recipe's paths",
        ),
        Code.UNREADABLE_FILE: CodeInfo(
            "a file the plan needs cannot be read, or one to write cannot be read back",
            "fix its permissions or encoding",
        ),
        Code.BINARY_FILE: CodeInfo("a file to edit holds a NUL byte; it is not edited", "leave it out of the recipe"),
        Code.PROTECTED_PATH: CodeInfo(
            "an edit falls in the recipe's `protected` paths", "change the rule, or the recipe's `protected`"
        ),
        Code.SYMLINK_OUTSIDE_ROOT: CodeInfo(
            "a file to edit resolves outside the root (a symlink or `..`)", "edit the file where it lives"
        ),
        Code.PARSE_ERROR: CodeInfo(
            "a file to edit does not parse (Python: libcst), so nothing in it is deleted", "fix the syntax first"
        ),
        Code.UNPARSEABLE_TARGET: CodeInfo(
            "an edit falls in a part of the file tree-sitter cannot parse (in C++ and in an edition 2015 Rust "
            "crate, an error wholly inside a closed deleted item goes with it instead)",
            "fix the syntax there first",
        ),
        Code.PARSE_REGRESSION: CodeInfo(
            "the edited file would parse with more errors than before; it is not written",
            "correct the rule that makes the edit",
        ),
        Code.OVERLAPPING_EDITS: CodeInfo(
            "two edits of the plan overlap (two that only delete do not: their union goes); the message "
            "names both rules",
            "make the rules touch different code",
        ),
        Code.UNFORMATTED: CodeInfo(
            "the file's formatter (rustfmt, clang-format) is not installed or failed: the file is written "
            "unformatted, a note",
            "install the formatter",
        ),
        Code.SEARCHED_WITHOUT_RG: CodeInfo(
            "ripgrep is not installed: the tree was walked in Python instead (slower), a note", "install ripgrep"
        ),
        Code.NEEDS_SKIPPED_CHANGE: CodeInfo(
            "an accepted change uses a name that a skipped change would have added; always blocks",
            "accept the change that adds it, or skip the one that uses it",
        ),
        Code.STALE_PLAN: CodeInfo(
            "a file changed since the plan read it, or an interrupted write was recovered", "plan again"
        ),
        Code.ALIASED_PATH: CodeInfo("two planned paths are the same file (through a symlink)", "name the file once"),
        Code.NOT_A_FILE: CodeInfo("a planned path is not a regular file", "check the path"),
        Code.READ_ONLY_FILE: CodeInfo("a file to write is read-only", "make it writable"),
        Code.READ_ONLY_FOLDER: CodeInfo("the folder of a file to write is read-only", "make it writable"),
        Code.JOURNAL_PRESENT: CodeInfo(
            "an interrupted write left its journal; `write_plan` does not recover it",
            "run `codemod apply` (or `apply_recipe`), which recovers it first",
        ),
        Code.RECOVERY_REFUSED: CodeInfo(
            "an interrupted write's journal cannot be recovered safely",
            "restore the files the message names from version control",
        ),
        Code.BUILD_ERROR: CodeInfo(
            "the project's own check (`--verify`: cargo, the C++ compiler, Python) reports an error on the planned "
            "tree that it does not report on the tree as it is; at the compiler's place, linked to the target "
            "whose deletion removed the name the message quotes",
            "delete or rewrite the use the compiler names, or keep the item; always blocks",
        ),
        Code.LAYOUT: CodeInfo(
            "which layout of the tree a recipe recognised, and so which of its rules apply, a note", "nothing to do"
        ),
        Code.REFERENCE_RUN_SHAPE: CodeInfo(
            "a test's reference computation has another structure than the step rewrites; the message "
            "names the part that differs",
            "rewrite that test by hand",
        ),
        Code.HELPER_BRIDGE: CodeInfo(
            "a generated helper calls a bridge function the tree's bridge does not declare (or deletes)",
            "keep the bridge entry, or drop the helper's use of it",
        ),
        Code.FORMATTED_WITHOUT_RUSTFMT: CodeInfo(
            "rewritten code could not be run through rustfmt, a note", "install rustfmt"
        ),
        Code.NOTHING_SURVIVES: CodeInfo("a test to trim would keep no statement", "delete the test instead"),
        Code.ORPHANED_TEST: CodeInfo(
            "a test that exercises only removed items was deleted too, a note", "nothing to do"
        ),
        Code.NOT_ADDED: CodeInfo(
            "code a recipe would generate is not added (the message says why)", "add it by hand if wanted"
        ),
        Code.SIGNATURE_MISMATCH: CodeInfo(
            "a function has another signature than the generated code calls", "update the recipe for the tree"
        ),
        Code.NOT_IN_TREE: CodeInfo(
            "a file or test the recipe would update is not in this tree, a note", "nothing to do"
        ),
        Code.NOTHING_TO_UPDATE: CodeInfo(
            "the code a recipe would update is already in its final state, a note", "nothing to do"
        ),
        Code.MISSING_RESULTS_DOCUMENT: CodeInfo(
            "a decision cites a results document that is not in the tree", "add the document to the tree"
        ),
        Code.UNKNOWN_FAMILY: CodeInfo(
            "a decision names a family the tree has no site for", "correct the decision file"
        ),
        Code.NO_DATA: CodeInfo(
            "a decision has no complete measurement for a family; the family is left as it is", "measure it again"
        ),
        Code.STALE_TEST: CodeInfo(
            "a test generated for an earlier decision asserts what this decision undoes", "remove the test"
        ),
    }
)
