"""The mined corpus mode of bench/replay.py: `python bench/replay.py --corpus bench/corpus`.

For each commit of bench/corpus/*.toml (repo, sha, language; bench/corpus/README.md):

  1. the parent and the child are materialised once, from the bare mirror
     (/work/.mirror/OWNER+NAME/repo), into a scratch folder (`git archive`);
  2. the recipe is inferred, `codemods.infer_recipe(parent, child)`;
  3. it is applied to a copy of the parent with `codemod apply --json`, first as a timed dry
     run, then for real, and the result compared with the child (the same changed files,
     each token-equal: replay.py's comparison);
  4. ABLATION, where the recipe edits code outside the deleted items (`[[rewrite]]`,
     `[[insert]]`): those tables dropped, the plan must block with a finding at each use of a
     removed name that the commit took out on a line the ablated plan leaves alone (recall).

Each commit runs in its own process (`--one`) under a timeout, at most `--jobs` (2) at once.
One outcome per commit:

  token-equal      the same files, each token-equal to the child, no traceback
  wrong refusal    the plan blocks on a complete recipe, with a finding that is no documented limit
  right refusal    the plan blocks only with findings of a documented limit (LIMIT_CODES, named),
                   or on what the commit itself keeps: with the check overridden (--allow-dangling,
                   --allow-unreworded) the plan writes the child, token for token
  inference gap    the inferred recipe says it cannot express part of the commit, or names
                   something the plan cannot find (a recipe fault), or has no rule at all
  wrong result     the plan writes, from a complete recipe, a tree that is not the child
  crash            a traceback, exit 3, or the per-commit timeout
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MIRRORS = Path(os.environ.get("CODEMOD_MIRRORS", "/work/.mirror"))

OUTCOMES = ("token-equal", "wrong refusal", "right refusal", "inference gap", "wrong result", "crash")
# Blocking finding codes that are documented limits (docs/findings.md): the engine says why it
# does not go on, and the reason is a property of the code, not a mistake of the check.
LIMIT_CODES = {
    "parse-error",
    "unparseable-target",
    "parse-regression",
    "shape-mismatch",
    "cannot-delete",
    "binary-file",
    "required-method",
    "non-exhaustive-match",
}
# Blocking codes that say the recipe itself is wrong: the inference is at fault.
RECIPE_CODES = {
    "no-such-item",
    "ambiguous",
    "ambiguous-target",
    "bad-pattern",
    "rewrite-not-found",
    "rewording-not-found",
    "insert-not-found",
    "reword-clash",
    "overlapping-edits",
    "usage-error",
    "missing-file",
}
SMALL_TREE_LINES = 100_000


@dataclass
class CommitResult:
    repo: str
    sha: str
    language: str
    outcome: str = "crash"
    reason: str = ""
    source_lines: int = 0
    files: int = 0
    dry_run_s: float | None = None
    infer_s: float | None = None
    recipe_lines: int = 0
    deletes: int = 0
    rewrites: int = 0
    unexpressed: list[str] = field(default_factory=list)
    blocking: list[str] = field(default_factory=list)  # "code path:line message"
    exit_codes: list[int] = field(default_factory=list)  # dry run, real run
    traceback: bool = False
    wrote: bool = False
    crash: str = ""  # why the run could not finish
    # Blocking findings of the plan, and of the probe (the recipe plus the deletions infer says a
    # plan refuses), each with `kept`: the commit leaves that line as it is, so the child still
    # has the "use" the finding names and compiles: the finding is a false positive.
    findings: list[dict] = field(default_factory=list)
    probe_findings: list[dict] = field(default_factory=list)
    # Where the plan blocks on a kept line: whether, with the checks overridden, it writes the
    # child (the commit itself leaves the reference the plan names: the refusal is right).
    child_keeps_it: bool = False
    differing: list[str] = field(default_factory=list)
    missing_files: list[str] = field(default_factory=list)
    extra_files: list[str] = field(default_factory=list)
    ablation: str = "n/a"  # n/a | measured | not separable | error
    ablation_expected: list[str] = field(default_factory=list)  # "path:line name"
    ablation_found: int = 0
    ablation_missed: list[str] = field(default_factory=list)  # expected uses no blocking finding names
    recipe: str = ""

    @property
    def short(self) -> str:
        return f"{self.repo}@{self.sha[:10]}"


def load_corpus(folder: Path) -> list[dict[str, str]]:
    entries = []
    for path in sorted(folder.glob("*.toml")):
        entries += tomllib.loads(path.read_text(encoding="utf-8")).get("commit", [])
    return entries


def is_mined(folder: Path) -> bool:
    return any("[[commit]]" in p.read_text(encoding="utf-8", errors="replace") for p in folder.glob("*.toml"))


def mirror_of(repo: str) -> Path:
    return MIRRORS / repo.replace("/", "+", 1) / "repo"


def materialise(mirror: Path, rev: str, into: Path) -> None:
    """The tree of `rev` under `into`, as a checkout writes it (no `export-subst` or `export-ignore`
    as `git archive` would apply), or blob by blob where the snapshot lacks some."""
    into.mkdir(parents=True)
    env = dict(os.environ, GIT_INDEX_FILE=str(into.parent / f".index-{into.name}"))
    base = ["git", f"--git-dir={mirror}", f"--work-tree={into}"]
    read = subprocess.run([*base, "read-tree", rev], capture_output=True, env=env)
    done = (
        subprocess.run([*base, "checkout-index", "-a", "-f"], capture_output=True, env=env)
        if read.returncode == 0
        else read
    )
    Path(env["GIT_INDEX_FILE"]).unlink(missing_ok=True)
    if done.returncode == 0:
        return
    listing = subprocess.run(
        ["git", "-C", str(mirror), "ls-tree", "-r", "-z", rev], capture_output=True, check=True
    ).stdout.split(b"\0")
    for entry in listing:
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, oid = meta.split()
        if kind != b"blob" or mode == b"120000":
            continue
        content = subprocess.run(["git", "-C", str(mirror), "cat-file", "blob", oid.decode()], capture_output=True)
        if content.returncode == 0:
            target = into / path.decode("utf-8", "replace")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content.stdout)


def _codemod(args: list[str], timeout: float) -> tuple[int, dict | None, str, float]:
    python = REPO / ".venv" / "bin" / "python"
    python_exe = str(python) if python.exists() else sys.executable
    command = [
        python_exe,
        "-c",
        "import sys; from codemods.cli.main import main; sys.argv[0] = 'codemod'; main()",
        *args,
    ]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout)
    elapsed = time.perf_counter() - start
    try:
        document = json.loads(done.stdout)
    except json.JSONDecodeError:
        document = None
    return done.returncode, document, done.stderr, elapsed


def _blocking(document: dict | None) -> list[dict]:
    if not document:
        return []
    return [f for f in document.get("findings", []) if f.get("severity") == "error"]


def _ablated(toml_text: str) -> str | None:
    """The recipe without its `[[rewrite]]` and `[[insert]]` tables, or None where the text cannot
    be split into tables safely (checked by parsing both)."""
    blocks: list[list[str]] = [[]]
    for line in toml_text.splitlines(keepends=True):
        if re.match(r"^\s*\[", line) and not re.match(r"^\s*\[\s*[\"']", line):
            blocks.append([])
        blocks[-1].append(line)
    kept = [b for b in blocks if not (b and re.match(r"^\s*\[\[\s*(rewrite|insert)\s*\]\]", b[0]))]
    text = "".join("".join(b) for b in kept)
    try:
        old, new = tomllib.loads(toml_text), tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    if new.get("rewrite") or new.get("insert") or len(new.get("delete", [])) != len(old.get("delete", [])):
        return None
    if len(new.get("reword", [])) != len(old.get("reword", [])):
        return None
    return text


def _removed_lines(mirror: Path, sha: str, path: str) -> set[int]:
    """Parent line numbers (1-based) the commit removes or changes in `path`."""
    diff = subprocess.run(
        ["git", "-C", str(mirror), "diff", "-U0", "--no-renames", f"{sha}^", sha, "--", path],
        capture_output=True,
        text=True,
        errors="replace",
    ).stdout
    lines: set[int] = set()
    for match in re.finditer(r"^@@ -(\d+)(?:,(\d+))? \+", diff, re.MULTILINE):
        start, count = int(match.group(1)), int(match.group(2) or 1)
        lines.update(range(start, start + count))
    return lines


def _plan_lines(document: dict | None) -> dict[str, set[int]]:
    """Parent line numbers each planned change removes or edits, by path (from its diff)."""
    out: dict[str, set[int]] = {}
    for change in (document or {}).get("changes", []):
        lines = out.setdefault(change["path"], set())
        at = None
        for line in change.get("diff", "").splitlines():
            hunk = re.match(r"^@@ -(\d+)", line)
            if hunk:
                at = int(hunk.group(1))
                continue
            if at is None or line.startswith(("---", "+++")):
                continue
            if line.startswith("-"):
                lines.add(at)
                at += 1
            elif line.startswith("+"):
                continue
            else:
                at += 1
    return out


def _uses(source: bytes, language: str, names: set[str], lines: set[int]) -> list[tuple[int, str]]:
    """(line, name) of each code identifier spelling one of `names` on one of `lines`."""
    from codemods.core.registry import lex_spans
    from codemods.words import whole_word_hits

    hits = whole_word_hits(source, names)
    if not hits:
        return []
    try:
        spans = lex_spans(source, language)
    except Exception:
        spans = None
    found = []
    locals_ = None
    for start, end, name in hits:
        if spans is not None and spans.kind_at(start, end) is not None:
            continue
        line = source.count(b"\n", 0, start) + 1
        if line in lines:
            if locals_ is None:
                locals_ = _local_spellings(source, language)
            if start in locals_:
                continue  # a parameter or local of that name, or a use of one: not the deleted item
            found.append((line, name))
    return sorted(set(found))


# Where a function binds a name of its own: a parameter, or a local a declaration or `let` (or, in
# Python, an assignment) introduces. The node types of each grammar, and the field holding the
# bound name or pattern.
_BINDERS = {
    "rust": {"parameter": "pattern", "let_declaration": "pattern", "closure_parameters": None},
    "cpp": {"parameter_declaration": "declarator", "init_declarator": "declarator", "declaration": "declarator"},
    "python": {"parameters": None, "default_parameter": "name", "typed_parameter": None, "assignment": "left"},
}
# Definitions and the field holding the name they define.
_DEFINES = {
    "function_definition": "name",  # Python
    "class_definition": "name",
    "function_item": "name",  # Rust
    "function_signature_item": "name",
    "function_declarator": "declarator",  # C++
}
_FUNCTIONS = {
    "rust": ("function_item", "closure_expression"),
    "cpp": ("function_definition", "lambda_expression"),
    "python": ("function_definition", "lambda"),
}


def _local_spellings(source: bytes, language: str) -> set[int]:
    """The starts of identifiers that are, inside a function, a parameter or local binding of a
    name, or a later use of a name so bound in that function: the ablation does not expect a
    finding there (the name is the function's own, whatever the deleted item is called)."""
    from codemods.parse import parse

    binders, functions = _BINDERS.get(language), _FUNCTIONS.get(language)
    if binders is None or functions is None:
        return set()
    try:
        tree = parse(source, language)
    except Exception:
        return set()
    found: set[int] = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        named = node.child_by_field_name(_DEFINES.get(node.type, "")) if node.type in _DEFINES else None
        if named is not None and named.type in ("identifier", "field_identifier", "type_identifier"):
            found.add(named.start_byte)  # a definition of that name, not a use of one
        if node.type not in functions:
            continue
        bound: dict[str, int] = {}  # name -> start of its first binding in this function
        inner = [node]
        while inner:
            current = inner.pop()
            inner.extend(current.named_children)
            if current.type not in binders:
                continue
            field = binders[current.type]
            place = current.child_by_field_name(field) if field else current
            if place is None or (language == "cpp" and current.type == "declaration" and _outside_body(current)):
                continue
            for identifier in _identifiers(place, language):
                text = identifier.text.decode("utf-8", "replace") if identifier.text else ""
                bound[text] = min(bound.get(text, identifier.start_byte), identifier.start_byte)
        if not bound:
            continue
        inner = [node]
        while inner:
            current = inner.pop()
            inner.extend(current.named_children)
            if current.type == "identifier" and current.text:
                text = current.text.decode("utf-8", "replace")
                if text in bound and current.start_byte >= bound[text] and not _member_name(current):
                    found.add(current.start_byte)
    return found


def _outside_body(declaration) -> bool:
    parent = declaration.parent
    return parent is None or parent.type in ("translation_unit", "field_declaration_list", "namespace_definition")


def _identifiers(place, language: str) -> list:
    """The identifiers a binding's pattern or declarator names (not its type, default, value or
    array size; not the parts of a Python attribute or subscript target, which bind nothing)."""
    out, stack = [], [place]
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            out.append(node)
            continue
        if language == "python" and node.type in ("attribute", "subscript"):
            continue
        skipped = {
            c.id
            for name in ("type", "value", "default", "body", "arguments", "right", "size")
            for c in [node.child_by_field_name(name)]
            if c is not None
        }
        stack.extend(c for c in node.named_children if c.id not in skipped)
    return out


def _member_name(identifier) -> bool:
    """`x.name` / `x->name` names a member, not a local (Rust and C++ give it its own node type)."""
    parent = identifier.parent
    if parent is None:
        return False
    if parent.type == "shorthand_field_initializer":
        return True  # `S { name }` initialises the field `name` too
    if parent.type in ("scoped_identifier", "qualified_identifier"):
        return parent.child_by_field_name("name") == identifier  # a path's last part
    if parent.type == "keyword_argument":
        return parent.child_by_field_name("name") == identifier
    return parent.type == "attribute" and parent.child_by_field_name("attribute") == identifier


def _source_lines(files: dict[str, bytes]) -> int:
    from codemods.core.registry import language_of

    return sum(content.count(b"\n") for path, content in files.items() if language_of(path) is not None)


def run_one(repo: str, sha: str, language: str, scratch: Path, step_timeout: float) -> CommitResult:
    from replay import changed, file_difference, files_of, tokens  # bench/replay.py, the comparison

    result = CommitResult(repo, sha, language)
    mirror = mirror_of(repo)
    if not mirror.is_dir():
        result.crash = f"no mirror at {mirror} (fetch github:{repo})"
        return result
    before, after = scratch / "before", scratch / "after"
    materialise(mirror, f"{sha}^", before)
    materialise(mirror, sha, after)
    parent, child = files_of(before), files_of(after)
    expected = changed(parent, child)
    result.files = len(expected)
    result.source_lines = _source_lines(parent)

    start = time.perf_counter()
    try:
        from codemods import infer_recipe

        inferred = infer_recipe(before, after)
    except Exception as error:  # a crash of the inference
        import traceback

        result.crash = f"infer_recipe raised {type(error).__name__}: {str(error)[:200]}"
        result.recipe = traceback.format_exc()[-2000:]
        return result
    result.infer_s = round(time.perf_counter() - start, 2)
    toml_text = inferred.toml
    result.recipe = toml_text
    result.recipe_lines = len(toml_text.splitlines())
    result.unexpressed = list(inferred.unexpressed)
    try:
        data = tomllib.loads(toml_text)
    except tomllib.TOMLDecodeError as error:
        result.crash = f"the inferred recipe is not TOML: {error}"
        return result
    result.deletes = len(data.get("delete", []))
    result.rewrites = len(data.get("rewrite", [])) + len(data.get("insert", []))
    recipe = scratch / "recipe.toml"
    recipe.write_text(toml_text, encoding="utf-8")
    work = scratch / "work"
    shutil.copytree(before, work, symlinks=True)

    dry_code, dry_doc, dry_err, dry_s = _codemod(
        ["apply", "--dry-run", "--json", "--no-color", "--recipe", str(recipe), str(work)], step_timeout
    )
    result.dry_run_s = round(dry_s, 3)
    if dry_code == 0:
        real_code, real_doc, real_err, _ = _codemod(
            ["apply", "--json", "--no-color", "--recipe", str(recipe), str(work)], step_timeout
        )
    else:  # a plan that blocks (or fails) writes nothing: the real run would say the same
        real_code, real_doc, real_err = dry_code, dry_doc, ""
    traceback_seen = any("Traceback (most recent call last)" in text for text in (dry_err, real_err))
    blocking = _blocking(real_doc if real_doc is not None else dry_doc)

    got_files = files_of(work)
    got = changed(parent, got_files)
    # A file the commit changes only in layout (the parent's tokens) needs no edit of the recipe's.
    result.missing_files = sorted(
        rel
        for rel in expected - got
        if rel not in parent
        or rel not in child
        or tokens(parent[rel].decode("utf-8", "replace")) != tokens(child[rel].decode("utf-8", "replace"))
    )
    result.extra_files = sorted(got - expected)
    for rel in sorted(expected | got):
        difference = file_difference(rel, child.get(rel), got_files.get(rel))
        if difference is not None:
            result.differing.append(difference)

    result.exit_codes, result.traceback, result.wrote = [dry_code, real_code], traceback_seen, bool(got)
    result.blocking = [f"{f['code']} {f['path']}:{f['line']} {str(f.get('message', ''))[:160]}" for f in blocking]
    removed: dict[str, set[int]] = {}

    def facts(found: list[dict]) -> list[dict]:
        out = []
        for f in found:
            path, line = f.get("path", ""), int(f.get("line") or 0)
            if path not in removed:
                removed[path] = _removed_lines(mirror, sha, path) if path in child else set()
            kept = path in child and path in parent and line > 0 and line not in removed[path]
            out.append(
                {
                    "code": f.get("code"),
                    "path": path,
                    "line": line,
                    "kept": kept,
                    "message": str(f.get("message", ""))[:200],
                }
            )
        return out

    result.findings = facts(blocking)
    if dry_code == 1 and any(f["code"] in CHECK_CODES and f["kept"] for f in result.findings):
        # Does the commit itself keep what the plan objects to? The plan with the checks
        # overridden, written on a copy, compared with the child.
        allowed = scratch / "allowed"
        shutil.copytree(before, allowed, symlinks=True)
        _codemod(
            [
                "apply",
                "--json",
                "--no-color",
                "--allow-dangling",
                "--allow-unreworded",
                "--recipe",
                str(recipe),
                str(allowed),
            ],
            step_timeout,
        )
        allowed_files = files_of(allowed)
        result.child_keeps_it = all(
            file_difference(rel, child.get(rel), allowed_files.get(rel)) is None
            for rel in expected | changed(parent, allowed_files)
        )
        shutil.rmtree(allowed, ignore_errors=True)
    refused = [m for m in map(_REFUSED.match, result.unexpressed) if m]
    if refused and not result.crash:
        from codemods.core.registry import language_of

        tables = "".join(
            f"\n[[delete]]\npath = {json.dumps(m['path'])}\nlanguage = {json.dumps(language_of(m['path']) or '')}\n"
            f"kind = {json.dumps(m['kind'])}\nname = {json.dumps(m['name'])}\n"
            for m in refused
        )
        probe = scratch / "probe.toml"
        probe.write_text(toml_text + tables, encoding="utf-8")
        probe_root = scratch / "probe"
        shutil.copytree(before, probe_root, symlinks=True)
        _, probe_doc, _, _ = _codemod(
            ["apply", "--dry-run", "--json", "--no-color", "--recipe", str(probe), str(probe_root)], step_timeout
        )
        shutil.rmtree(probe_root, ignore_errors=True)
        result.probe_findings = facts(_blocking(probe_doc))
    if traceback_seen or 3 in (dry_code, real_code) or dry_doc is None or real_doc is None:
        tail = (real_err or dry_err).strip().splitlines()
        result.crash = f"apply exited {dry_code}/{real_code}: {(tail[-1] if tail else '')[:200]}"
    classify(result)

    # Ablation: the code edits outside the deleted items dropped; each use they took out must block.
    # Measured where the whole recipe plans without blocking: the dropped edits are the hunks of
    # that plan's `-` lines the ablated plan leaves alone; a use is a code identifier spelling a
    # removed name on such a line, in a hunk whose `+` lines spell the name fewer times.
    if result.rewrites and result.outcome != "crash" and dry_code == 0:
        ablated = _ablated(toml_text)
        if ablated is None:
            result.ablation = "not separable"
        else:
            recipe.write_text(ablated, encoding="utf-8")
            fresh = scratch / "ablated"
            shutil.copytree(before, fresh, symlinks=True)
            code, doc, _, _ = _codemod(
                ["apply", "--dry-run", "--json", "--no-color", "--recipe", str(recipe), str(fresh)], step_timeout
            )
            if doc is None or code == 3:
                result.ablation = "error"
            else:
                names = set(doc.get("removed_names", [])) | {
                    str(d.get("name", "")).split("::")[-1].split("(")[0] for d in data.get("delete", [])
                }
                names = {n for n in names if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n)}
                imported = _private_import_names(data.get("delete", []), parent)
                modules = _deleted_python_modules(data.get("delete", []))
                kept_by_ablated = _plan_lines(doc)
                findings = {(f["path"], f["line"]) for f in _blocking(doc)}
                from codemods.core.registry import language_of

                for rel, hunks in sorted(_plan_hunks(dry_doc).items()):
                    lang = language_of(rel)
                    if lang is None or rel not in parent:
                        continue
                    for minus, plus in hunks:
                        plus_text = "\n".join(plus).encode()
                        # lines the ablated plan edits too are a deletion or what it derives
                        dropped = set(minus) - kept_by_ablated.get(rel, set())
                        # A private `use` the recipe deletes binds its name in its own file only.
                        here = {n for n in names if n not in imported or rel in imported[n]}
                        for line, name in _uses(parent[rel], lang, here, dropped):
                            text = parent[rel].split(b"\n")[line - 1].decode("utf-8", "replace")
                            if (
                                lang == "python"
                                and name in modules
                                and not _names_module(text, *modules[name])
                                and not any(
                                    _names_module(other, *modules[name])
                                    for other in parent[rel].decode("utf-8", "replace").split("\n")
                                )
                            ):
                                continue  # another module of that name (`pkg.compat`, not `pkg.sub.compat`)
                            if len(re.findall(rf"\b{re.escape(name)}\b", plus_text.decode())) < sum(
                                1
                                for ln in minus
                                if re.search(
                                    rf"\b{re.escape(name)}\b",
                                    parent[rel].split(b"\n")[ln - 1].decode("utf-8", "replace"),
                                )
                            ):
                                result.ablation_expected.append(f"{rel}:{line} {name}")
                                result.ablation_found += (rel, line) in findings
                                if (rel, line) not in findings:
                                    result.ablation_missed.append(f"{rel}:{line} {name}")
                result.ablation = "measured" if result.ablation_expected else "n/a"
    return result


def _deleted_python_modules(deletes: list[dict]) -> dict[str, tuple[str, str]]:
    """The Python modules the recipe deletes whole (kind `file`), by name: (their package's
    name, their name), where no other target has that name."""
    others = {str(d.get("name", "")).split(".")[-1] for d in deletes if d.get("kind") != "file"}
    found = {}
    for delete in deletes:
        path = str(delete.get("path", ""))
        if delete.get("kind") == "file" and path.endswith(".py") and "/" in path:
            folders, stem = path[:-3].rsplit("/", 1)
            if stem != "__init__" and stem not in others:
                found[stem] = (folders.rsplit("/", 1)[-1], stem)
    return found


def _names_module(line: str, package: str, name: str) -> bool:
    """Whether `line` names the module `name` of the package `package`: `package.name`, `from
    ...package import name`, or a relative import of it (`from . import name`, `from .name`)."""
    p, n = re.escape(package), re.escape(name)
    return bool(
        re.search(rf"\b{p}\s*\.\s*{n}\b", line)
        or re.search(rf"\bfrom\s+[\w.]*\b{p}\s+import\b[^#]*\b{n}\b", line)
        or re.search(rf"\bfrom\s+\.+\s*import\b[^#]*\b{n}\b", line)
        or re.search(rf"\bfrom\s+\.{n}\b", line)
    )


def _private_import_names(deletes: list[dict], parent: dict[str, bytes]) -> dict[str, set[str]]:
    """The names only private `use` entries of the recipe bind (no other target of the name, no
    `pub use` of it in the parent), each with the files whose entry goes: elsewhere the name is
    another item's, and a use of it there none of the deleted entry."""
    imports: dict[str, set[str]] = {}
    others: set[str] = set()
    for delete in deletes:
        name = str(delete.get("name", "")).split("::")[-1].split("(")[0].strip()
        if delete.get("kind") != "use":
            others.add(name)
            continue
        text = parent.get(str(delete.get("path", "")), b"").decode("utf-8", "replace")
        if re.search(rf"\bpub(\([^)]*\))?\s+use\b[^;]*\b{re.escape(name)}\b", text):
            others.add(name)
        imports.setdefault(name, set()).add(str(delete.get("path", "")))
    return {n: paths for n, paths in imports.items() if n not in others}


def _plan_hunks(document: dict | None) -> dict[str, list[tuple[list[int], list[str]]]]:
    """Each planned change's hunks, by path: the parent line numbers of its `-` lines, and its
    `+` lines' text."""
    out: dict[str, list[tuple[list[int], list[str]]]] = {}
    for change in (document or {}).get("changes", []):
        hunks = out.setdefault(change["path"], [])
        at = None
        for line in change.get("diff", "").splitlines():
            head = re.match(r"^@@ -(\d+)", line)
            if head:
                at = int(head.group(1))
                hunks.append(([], []))
                continue
            if at is None or line.startswith(("---", "+++")):
                continue
            if line.startswith("-"):
                hunks[-1][0].append(at)
                at += 1
            elif line.startswith("+"):
                hunks[-1][1].append(line[1:])
            else:
                at += 1
    return out


_REFUSED = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+): the (?P<kind>\S+) (?P<name>.+?) is gone, but a plan refuses "
    r"to delete it: (?P<why>.*)$"
)
# Codes of a check that a real commit can contradict (its child keeps the line the finding names).
CHECK_CODES = {"dangling-reference", "import-still-used", "unreworded-mention", "needs-skipped-change"}


def _note_path(note: str) -> str:
    return note.split(":", 1)[0]


def classify(result: CommitResult) -> None:
    """Set `outcome` and `reason` from the facts the run recorded (a pure function of them, so a
    results folder can be tabled again)."""
    from codemods.core.registry import language_of

    if result.crash or result.infer_s is None:
        result.outcome, result.reason = "crash", result.crash or result.reason
        return
    noted = {_note_path(n) for n in result.unexpressed}
    relevant = [n for n in result.unexpressed if language_of(_note_path(n)) is not None]
    no_rule = not result.deletes and not result.rewrites
    if not result.missing_files and not result.extra_files and not result.differing:
        result.outcome, result.reason = "token-equal", f"{result.files} files"
        return
    false_positive = [f for f in (*result.findings, *result.probe_findings) if f["code"] in CHECK_CODES and f["kept"]]
    if false_positive and result.child_keeps_it:
        f = false_positive[0]
        result.outcome = "right refusal"
        result.reason = (
            f"the commit itself keeps it: {f['code']} at {f['path']}:{f['line']} (with the check "
            f"overridden the plan writes the child): {f['message'][:120]}"
        )
        return
    if false_positive:
        f = false_positive[0]
        result.outcome = "wrong refusal"
        result.reason = f"{f['code']} at {f['path']}:{f['line']}, a line the commit keeps: {f['message'][:150]}"
        return
    # A deletion infer left out because a plan refuses it: a documented limit there is a right
    # refusal (the other findings of the probe are on lines the commit edits, else they were
    # counted as false positives above).
    limits = [f for f in result.probe_findings if f["code"] in LIMIT_CODES]
    if limits:
        f = limits[0]
        result.outcome = "right refusal"
        result.reason = f"{'/'.join(sorted({g['code'] for g in limits}))}: {f['path']}:{f['line']} {f['message'][:150]}"
        return
    if result.exit_codes[-1:] == [1] and not result.wrote:
        codes = {b.split(" ", 1)[0] for b in result.blocking}
        first = result.blocking[0] if result.blocking else "blocks without a blocking finding"
        recipe_fault = [b for b in result.blocking if b.split(" ", 1)[0] in RECIPE_CODES]
        if relevant:
            result.outcome, result.reason = "inference gap", f"{relevant[0][:160]} (plan blocks: {first[:120]})"
        elif no_rule:
            result.outcome, result.reason = "inference gap", "the recipe has no rule"
        elif codes and codes <= LIMIT_CODES:
            result.outcome, result.reason = "right refusal", f"{'/'.join(sorted(codes))}: {first[:200]}"
        elif recipe_fault:
            result.outcome, result.reason = "inference gap", f"the recipe fails: {recipe_fault[0][:200]}"
        else:
            result.outcome, result.reason = "inference gap", f"the recipe leaves a use the commit edits: {first[:200]}"
        return
    differing = {d.split(":", 1)[0] for d in result.differing} | set(result.missing_files) | set(result.extra_files)
    unexplained = sorted(differing - noted)
    first = next(
        (d for d in result.differing if d.split(":", 1)[0] in unexplained),
        (result.differing or [f"files: missing {result.missing_files} extra {result.extra_files}"])[0],
    )
    if not unexplained and result.unexpressed:
        note = next((n for n in relevant if _note_path(n) in differing), result.unexpressed[0])
        result.outcome, result.reason = "inference gap", f"{note[:200]} (result differs there)"
    elif no_rule:
        result.outcome, result.reason = "inference gap", "the recipe has no rule"
    else:
        result.outcome, result.reason = "wrong result", first[:300]


def _one_main(repo: str, sha: str, language: str, out: Path, step_timeout: float) -> int:
    sys.path.insert(0, str(HERE))
    with tempfile.TemporaryDirectory(prefix=f"mined-{sha[:8]}-") as tmp:
        try:
            result = run_one(repo, sha, language, Path(tmp), step_timeout)
        except subprocess.TimeoutExpired as error:
            result = CommitResult(repo, sha, language, crash=f"timeout: {' '.join(map(str, error.cmd[-4:]))[:120]}")
        except Exception as error:
            import traceback

            result = CommitResult(
                repo,
                sha,
                language,
                crash=f"harness: {type(error).__name__}: {str(error)[:200]}",
                recipe=traceback.format_exc()[-2000:],
            )
    out.write_text(json.dumps(asdict(result), indent=1), encoding="utf-8")
    return 0


def _run_subprocess(entry: dict[str, str], results: Path, timeout: float, reuse: bool = False) -> CommitResult:
    out = results / f"{entry['repo'].replace('/', '+')}-{entry['sha'][:12]}.json"
    if reuse and out.is_file():
        return _load(out)
    python = REPO / ".venv" / "bin" / "python"
    command = [
        str(python) if python.exists() else sys.executable,
        str(HERE / "replay.py"),
        "--one",
        entry["repo"],
        entry["sha"],
        entry["language"],
        str(out),
        "--step-timeout",
        str(timeout / 3),
    ]
    try:
        subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        result = CommitResult(
            entry["repo"],
            entry["sha"],
            entry["language"],
            crash=f"timeout after {timeout:.0f} s",
            outcome="crash",
            reason=f"timeout after {timeout:.0f} s",
        )
        out.write_text(json.dumps(asdict(result), indent=1), encoding="utf-8")
        return result
    if not out.is_file():
        return CommitResult(
            entry["repo"],
            entry["sha"],
            entry["language"],
            crash="the worker wrote no result",
            outcome="crash",
            reason="the worker wrote no result",
        )
    return _load(out)


def retime(
    corpus: Path, results: Path, only: list[str], per_project: int | None, timeout: float, runs: int = 3
) -> None:
    """Time again the dry run of each recipe `results` holds, for the trees under SMALL_TREE_LINES,
    one commit at a time (the median of `runs`), so that the median the table prints is not the
    load of a run that inferred two commits at once beside other work; `dry_run_s` is replaced."""
    entries = load_corpus(corpus)
    if per_project:
        entries = sample(entries, per_project)
    if only:
        entries = [e for e in entries if any(e["sha"].startswith(w) or e["repo"] == w for w in only)]
    for entry in entries:
        out = results / f"{entry['repo'].replace('/', '+')}-{entry['sha'][:12]}.json"
        if not out.is_file():
            continue
        data = json.loads(out.read_text(encoding="utf-8"))
        if not data.get("recipe") or data.get("crash") or not 0 < data.get("source_lines", 0) < SMALL_TREE_LINES:
            continue
        mirror = MIRRORS / entry["repo"].replace("/", "+") / "repo"
        with tempfile.TemporaryDirectory(prefix="mined-retime-") as tmp:
            before = Path(tmp) / "before"
            materialise(mirror, entry["sha"] + "^", before)
            recipe = Path(tmp) / "recipe.toml"
            recipe.write_text(data["recipe"], encoding="utf-8")
            times = [
                _codemod(["apply", "--dry-run", "--json", "--no-color", "--recipe", str(recipe), str(before)], timeout)[
                    3
                ]
                for _ in range(runs)
            ]
        data["dry_run_s"] = round(statistics.median(times), 3)
        out.write_text(json.dumps(data, indent=1), encoding="utf-8")
        print(f"{entry['repo']}@{entry['sha'][:10]} {data['dry_run_s']:.2f}s", flush=True)


def _load(path: Path) -> CommitResult:
    result = CommitResult(**json.loads(path.read_text(encoding="utf-8")))
    classify(result)
    return result


def table(results: list[CommitResult]) -> str:
    total = len(results)
    lines = [f"{'outcome':<16} {'count':>5} {'share':>6}  example"]
    for outcome in OUTCOMES:
        chosen = [r for r in results if r.outcome == outcome]
        example = f"{chosen[0].short}: {chosen[0].reason[:150]}" if chosen else ""
        share = f"{100 * len(chosen) / total:5.1f}%" if total else "   -  "
        lines.append(f"{outcome:<16} {len(chosen):>5} {share}  {example}")
    lines.append(f"{'total':<16} {total:>5}")
    measured = [r for r in results if r.ablation == "measured"]
    expected = sum(len(r.ablation_expected) for r in measured)
    found = sum(r.ablation_found for r in measured)
    recall = f"{100 * found / expected:.1f}%" if expected else "n/a"
    other = {k: sum(r.ablation == k for r in results) for k in ("not separable", "error")}
    lines.append(
        f"ablation recall: {found}/{expected} uses ({recall}) over {len(measured)} commits"
        f" ({other['not separable']} not separable, {other['error']} failed)"
    )
    small = [r.dry_run_s for r in results if r.dry_run_s is not None and r.source_lines < SMALL_TREE_LINES]
    large = [r.dry_run_s for r in results if r.dry_run_s is not None and r.source_lines >= SMALL_TREE_LINES]
    lines.append(
        f"median dry run: {statistics.median(small):.2f} s over {len(small)} trees under 100k lines"
        if small
        else "median dry run: n/a"
    )
    if large:
        lines.append(f"                {statistics.median(large):.2f} s over {len(large)} larger trees")
    by_language: dict[str, list[CommitResult]] = {}
    for r in results:
        by_language.setdefault(r.language, []).append(r)
    lines.append(
        "by language: "
        + ", ".join(
            f"{k} {sum(r.outcome == 'token-equal' for r in v)}/{len(v)}" for k, v in sorted(by_language.items())
        )
    )
    return "\n".join(lines)


def sample(entries: list[dict[str, str]], per_project: int) -> list[dict[str, str]]:
    """The first `per_project` commits of each project, in the lists' order (by sha): a fixed sample."""
    seen: dict[str, int] = {}
    chosen = []
    for entry in entries:
        seen[entry["repo"]] = seen.get(entry["repo"], 0) + 1
        if seen[entry["repo"]] <= per_project:
            chosen.append(entry)
    return chosen


def interleaved(entries: list[dict[str, str]]) -> list[dict[str, str]]:
    """Round robin over the projects (each one's first commit, then each one's second, ...), so
    that a run cut short still covers every project and language."""
    rank: dict[str, int] = {}
    keyed = []
    for at, entry in enumerate(entries):
        rank[entry["repo"]] = rank.get(entry["repo"], -1) + 1
        keyed.append((rank[entry["repo"]], at, entry))
    return [entry for _, _, entry in sorted(keyed, key=lambda k: (k[0], k[1]))]


def main_corpus(
    corpus: Path,
    jobs: int,
    timeout: float,
    only: list[str],
    results_dir: Path | None,
    as_json: bool,
    reuse: bool = False,
    per_project: int | None = None,
    write: Path | None = None,
    command: str = "",
) -> int:
    entries = load_corpus(corpus)
    if per_project:
        entries = sample(entries, per_project)
    entries = interleaved(entries)
    if only:
        entries = [e for e in entries if any(e["sha"].startswith(w) or e["repo"] == w for w in only)]
    folder = results_dir or Path(tempfile.mkdtemp(prefix="mined-results-"))
    folder.mkdir(parents=True, exist_ok=True)
    results: list[CommitResult] = []
    with ThreadPoolExecutor(max_workers=max(1, min(jobs, 2))) as pool:
        for result in pool.map(lambda e: _run_subprocess(e, folder, timeout, reuse), entries):
            results.append(result)
            if not as_json:
                print(
                    f"{result.short:<40} {result.language:<6} {result.outcome:<14} "
                    f"{'' if result.dry_run_s is None else f'{result.dry_run_s:.2f}s'} {result.reason[:160]}",
                    flush=True,
                )
    if as_json:
        print(json.dumps({"commits": [asdict(r) for r in results]}, indent=1))
    else:
        print()
        print(table(results))
        print(f"(per-commit results: {folder})")
    if write is not None:
        head = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        write.write_text(markdown(results, head, command), encoding="utf-8")
    return 0 if all(r.outcome == "token-equal" for r in results) else 1


def failure_class(result: CommitResult) -> str:
    """A short name for why a commit is not token-equal, names and places left out, to count by."""
    reason = result.reason
    if result.outcome == "crash":
        return "timeout" if "timeout" in reason else re.sub(r"[:(].*", "", reason)[:60] or "crash"
    if result.outcome == "wrong refusal":
        return reason.split(" at ", 1)[0] + " on a line the commit keeps"
    if result.outcome == "right refusal":
        return reason.split(":", 1)[0]
    if result.outcome == "wrong result":
        return "written tree differs from the child"
    note = re.sub(r"^[^\s:]+:\d+: ", "", reason)
    for known in (
        "a plan refuses to delete it",
        "not a source file of a supported language",
        "code changed where no pattern finds it alone",
        "the recipe does not reproduce this file",
        "Python code changed beyond deleted items",
        "a file the change deletes",
        "a file the change adds",
        "the recipe has no rule",
        "the recipe leaves a use the commit edits",
    ):
        if known in note:
            return known
    if note.startswith("the recipe fails: "):
        return "the recipe fails: " + note.split(": ", 1)[1].split(" ", 1)[0]
    return re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"", "…", note.split(" (", 1)[0])[:70]


def markdown(results: list[CommitResult], measured_at: str, command: str) -> str:
    """docs/replay-results.md: the table, the commit it was measured at, per class a count and an example."""
    lines = [
        "# Replay of the mined corpus: the latest table",
        "",
        f"Measured at commit `{measured_at}` of this project with `{command}` "
        "(bench/corpus/README.md: the corpus and its rule; bench/_mined.py: what each outcome means).",
        "",
        "```",
        table(results),
        "```",
        "",
        "## By class (count, one example: commit and one line)",
        "",
    ]
    for outcome in OUTCOMES[1:]:
        chosen = [r for r in results if r.outcome == outcome]
        if not chosen:
            continue
        lines.append(f"### {outcome}: {len(chosen)}")
        lines.append("")
        classes: dict[str, list[CommitResult]] = {}
        for r in chosen:
            classes.setdefault(failure_class(r), []).append(r)
        lines += ["| class | count | example | one line |", "|---|---|---|---|"]
        for name, members in sorted(classes.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            example = members[0]
            text = example.reason.replace("|", "\\|").replace("\n", " ")[:220]
            lines.append(f"| {name} | {len(members)} | `{example.repo}@{example.sha[:12]}` | {text} |")
        lines.append("")
    equal = [r for r in results if r.outcome == "token-equal"]
    if equal:
        lines += ["## Token-equal commits", "", ", ".join(f"`{r.repo}@{r.sha[:12]}`" for r in equal), ""]
    return "\n".join(lines)
