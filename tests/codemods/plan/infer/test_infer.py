"""`infer_recipe` and `codemod infer`: a recipe read off two trees, one rule kind per test, each
checked twice: the recipe is the short one a person would write, and planned on the first tree
it gives the second, token for token."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

from click.testing import CliRunner

from codemods import InferredRecipe, infer_recipe, load_recipe, plan_recipe
from codemods.cli.main import main
from codemods.plan.infer.tokens import same_tokens


def _write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def _inferred(tmp_path: Path, before: dict[str, str], after: dict[str, str]) -> InferredRecipe:
    """The recipe inferred from the two trees; it must reproduce `after` when planned on `before`."""
    old, new = _write(tmp_path / "before", before), _write(tmp_path / "after", {p: t for p, t in after.items() if t})
    inferred = infer_recipe(old, new)
    recipe_file = tmp_path / "inferred.toml"
    recipe_file.write_text(inferred.toml, encoding="utf-8")
    plan = plan_recipe(old, load_recipe(str(recipe_file)))
    assert plan.blocking == [], [f.render() for f in plan.blocking]
    result = {path: (old / path).read_bytes() for path in before}
    for change in plan.changes:
        result[change.path] = None if change.deleted else change.after
    for path, text in after.items():
        got = result.get(path)
        if not text:
            assert got is None, f"{path} should be deleted"
            continue
        assert got is not None and same_tokens(got, (new / path).read_bytes()), (path, got)
    return inferred


def _recipe(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_a_removed_rust_function_is_one_delete_and_its_import_is_not_repeated(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "src/lib.rs": """
            mod quill;
            pub fn scribe() {}
        """,
            "src/quill.rs": """
            use std::collections::BTreeMap;

            pub fn nib() -> u8 { 1 }

            pub fn blot(pages: &BTreeMap<u8, u8>) -> usize {
                pages.len()
            }
        """,
        },
        {
            "src/lib.rs": """
            mod quill;
            pub fn scribe() {}
        """,
            "src/quill.rs": """
            pub fn nib() -> u8 { 1 }
        """,
        },
    )
    assert inferred.toml == _recipe("""
        id = "inferred"

        [[delete]]
        path = "src/quill.rs"
        language = "rust"
        kind = "fn"
        name = "crate::blot"
    """)
    assert inferred.unexpressed == ()


def test_a_variant_goes_with_its_match_arm_and_a_field_by_its_struct(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "src/ink.rs": """
        pub enum Hue {
            Sepia,
            Indigo,
        }

        pub struct Well {
            pub depth: u32,
            pub spare: u32,
        }

        pub fn label(h: Hue) -> u8 {
            match h {
                Hue::Sepia => 1,
                Hue::Indigo => 2,
            }
        }
    """
        },
        {
            "src/ink.rs": """
        pub enum Hue {
            Sepia,
        }

        pub struct Well {
            pub depth: u32,
        }

        pub fn label(h: Hue) -> u8 {
            match h {
                Hue::Sepia => 1,
            }
        }
    """
        },
    )
    assert [line for line in inferred.toml.splitlines() if line.startswith(("kind", "name"))] == [
        'kind = "variant"',
        'name = "crate::Hue::Indigo"',
        'kind = "field"',
        'name = "crate::Well::spare"',
    ]


def test_a_trait_method_is_deleted_once_for_its_trait_and_impls(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "src/gild.rs": """
        pub trait Gild {
            fn shine(&self) -> u8;
            fn dull(&self) -> u8;
        }

        impl Gild for u8 {
            fn shine(&self) -> u8 { 1 }
            fn dull(&self) -> u8 { 0 }
        }
    """
        },
        {
            "src/gild.rs": """
        pub trait Gild {
            fn shine(&self) -> u8;
        }

        impl Gild for u8 {
            fn shine(&self) -> u8 { 1 }
        }
    """
        },
    )
    assert 'kind = "trait_method"\nname = "crate::Gild::dull"' in inferred.toml
    assert inferred.toml.count("[[delete]]") == 1


def test_a_module_goes_with_its_file(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "src/lib.rs": "mod parchment;\nmod vellum;\n",
            "src/parchment.rs": "pub fn roll() {}\n",
            "src/vellum.rs": "pub fn fold() {}\n",
        },
        {"src/lib.rs": "mod parchment;\n", "src/parchment.rs": "pub fn roll() {}\n", "src/vellum.rs": ""},
    )
    assert 'kind = "mod"\nname = "crate::vellum"' in inferred.toml
    assert inferred.toml.count("[[delete]]") == 1


def test_a_cpp_overload_is_named_by_its_signature(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "src/press.h": """
        namespace type {
        int ink(int dots);
        int ink(const char* glyph);
        }  // namespace type
    """
        },
        {
            "src/press.h": """
        namespace type {
        int ink(int dots);
        }  // namespace type
    """
        },
    )
    assert 'kind = "declaration"\nname = "type::ink(const char*)"' in inferred.toml


def test_a_python_method_is_deleted_by_its_dotted_name(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "tools/press.py": """
        class Platen:
            def lower(self):
                return 1

            def raise_(self):
                return 2
    """
        },
        {
            "tools/press.py": """
        class Platen:
            def lower(self):
                return 1
    """
        },
    )
    assert 'language = "python"\nkind = "function"\nname = "Platen.raise_"' in inferred.toml


def test_call_sites_moved_to_a_method_become_one_general_rewrite_over_their_folder(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "src/app/one.rs": """
            pub fn a(v: Option<u8>) -> u8 {
                widen(v.map(|x| x + 1))
            }
        """,
            "src/app/two.rs": """
            pub fn b(w: Option<u8>) -> u8 {
                widen(w.or(Some(3)))
            }
        """,
        },
        {
            "src/app/one.rs": """
            pub fn a(v: Option<u8>) -> u8 {
                v.map(|x| x + 1).widen()
            }
        """,
            "src/app/two.rs": """
            pub fn b(w: Option<u8>) -> u8 {
                w.or(Some(3)).widen()
            }
        """,
        },
    )
    assert inferred.toml == _recipe("""
        id = "inferred"

        [[rewrite]]
        path = "src/app"
        language = "rust"
        pattern = "widen($X)"
        replace = "$X.widen()"
    """)


def test_a_rewrite_stays_literal_where_the_general_pattern_matches_code_the_change_kept(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "src/nib.rs": """
        pub fn a(v: u8) -> u8 {
            sharpen(v + 1, 2)
        }

        pub fn b(v: u8) -> u8 {
            sharpen(v + 7, 2)
        }
    """
        },
        {
            "src/nib.rs": """
        pub fn a(v: u8) -> u8 {
            sharpen(v + 1, 3)
        }

        pub fn b(v: u8) -> u8 {
            sharpen(v + 7, 2)
        }
    """
        },
    )
    assert 'pattern = "sharpen(v + 1, 2)"\nreplace = "sharpen(v + 1, 3)"' in inferred.toml


def test_a_removed_comment_block_is_a_rewording(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "src/scroll.cc": """
        int unroll(int n) { return n; }

        // int reroll(int n) {
        //   return -n;
        // }

        int seal(int n) { return n + 1; }
    """
        },
        {
            "src/scroll.cc": """
        int unroll(int n) { return n; }

        int seal(int n) { return n + 1; }
    """
        },
    )
    assert inferred.toml == _recipe("""
        id = "inferred"

        [[reword]]
        path = "src/scroll.cc"
        find = "int reroll(int n) {"
        replace = ""
        block = true
    """)


def test_an_added_attribute_is_an_insertion_before_its_item(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "src/seal.rs": """
        pub fn wax() -> u8 {
            3
        }
    """
        },
        {
            "src/seal.rs": """
        #[must_use]
        pub fn wax() -> u8 {
            3
        }
    """
        },
    )
    assert inferred.toml == _recipe("""
        id = "inferred"

        [[insert]]
        path = "src/seal.rs"
        item = "crate::wax"
        text = "#[must_use]"
    """)


def test_what_no_rule_can_say_is_a_comment_naming_file_and_line(tmp_path: Path) -> None:
    old = _write(tmp_path / "before", {"src/lib.rs": "pub fn stamp() {}\n"})
    new = _write(tmp_path / "after", {"src/lib.rs": "pub fn stamp() {}\n", "src/added.rs": "pub fn fresh() {}\n"})
    (old / "stamp.bin").write_bytes(b"\xff\xfe\x01")
    (new / "stamp.bin").write_bytes(b"\xff\xfe\x02")
    inferred = infer_recipe(old, new)
    assert inferred.unexpressed == (
        "src/added.rs:1: a file the change adds; no rule creates a file",
        "stamp.bin:1: a file of no supported language whose change no literal rewrite says (not UTF-8 text, or a "
        "changed line that does not stand once); edit by hand",
    )
    assert "# - src/added.rs:1: a file the change adds; no rule creates a file" in inferred.toml
    load_recipe_ok = tmp_path / "r.toml"
    load_recipe_ok.write_text(inferred.toml, encoding="utf-8")
    assert load_recipe(str(load_recipe_ok)).id == "inferred"


def test_codemod_infer_prints_the_recipe_of_two_trees_and_of_a_commit(tmp_path: Path) -> None:
    repo = _write(tmp_path / "repo", {"src/lib.rs": "pub fn keep() {}\n\npub fn drop_me() {}\n"})
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    (repo / "src/lib.rs").write_text("pub fn keep() {}\n", encoding="utf-8")
    subprocess.run([*git, "commit", "-qam", "two"], check=True)
    runner = CliRunner()
    done = runner.invoke(main, ["infer", "--commit", "HEAD", "--id", "drop", str(repo)])
    assert done.exit_code == 0, done.output
    assert done.output.startswith('id = "drop"\n') and 'name = "crate::drop_me"' in done.output
    as_json = runner.invoke(main, ["infer", "--json", "--commit", "HEAD", str(repo)])
    assert as_json.exit_code == 0 and json.loads(as_json.output)["unexpressed"] == []
    usage = runner.invoke(main, ["infer", str(repo)])
    assert usage.exit_code == 2
    bad = runner.invoke(main, ["infer", "--commit", "no-such-rev", str(repo)])
    assert bad.exit_code == 2 and "no-such-rev" in bad.output


def test_macro_calls_attributes_and_guarded_arms_are_deleted_by_their_text(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "src/desk.rs": """
        #![allow(unused)]

        enroll!(Blotter, Stylus);
        enroll!(Rule, Stylus);

        pub fn weigh(n: u8) -> u8 {
            match n {
                0 => 1,
                k if k > 9 => 2,
                _ => 3,
            }
        }
    """
        },
        {
            "src/desk.rs": """
        enroll!(Rule, Stylus);

        pub fn weigh(n: u8) -> u8 {
            match n {
                0 => 1,
                _ => 3,
            }
        }
    """
        },
    )
    assert [line for line in inferred.toml.splitlines() if line.startswith(("kind", "name"))] == [
        'kind = "attribute"',
        'name = "#![allow(unused)]"',
        'kind = "macro_call"',
        'name = "enroll!(Blotter, Stylus)"',
        'kind = "match_arm"',
        'name = "crate::weigh => k if k > 9"',
    ]


def test_an_item_the_plan_refuses_to_delete_is_named_never_rewritten_as_text(tmp_path: Path) -> None:
    old = _write(
        tmp_path / "before",
        {
            "src/lib.rs": """
        pub trait Fold {
            fn crease(&self) -> u8;
            fn press(&self) -> u8;
        }

        impl Fold for u16 {
            fn crease(&self) -> u8 { 1 }
            fn press(&self) -> u8 { 2 }
        }
    """
        },
    )
    new = _write(
        tmp_path / "after",
        {
            "src/lib.rs": """
        pub trait Fold {
            fn crease(&self) -> u8;
            fn press(&self) -> u8;
        }

        impl Fold for u16 {
            fn crease(&self) -> u8 { 1 }
        }
    """
        },
    )
    inferred = infer_recipe(old, new)
    assert "[[rewrite]]" not in inferred.toml and "[[delete]]" not in inferred.toml
    assert len(inferred.unexpressed) == 1
    assert inferred.unexpressed[0].startswith(
        "src/lib.rs:8: the fn crate::<u16 as Fold>::press is gone, but a plan refuses to delete it: "
    )


def test_a_prose_paragraph_changed_or_removed_is_a_rewording_and_an_added_one_is_text(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "docs/inks.md": """
        # Inks

        Sepia dries slowly and
        smudges on vellum.

        Indigo is kept for
        the margins.

        Umber is cheap.
    """
        },
        {
            "docs/inks.md": """
        # Inks

        Sepia dries slowly.

        Umber is cheap.
    """
        },
    )
    assert inferred.toml == _recipe("""
        id = "inferred"

        [[reword]]
        path = "docs/inks.md"
        find = "Sepia dries slowly and smudges on vellum."
        replace = "Sepia dries slowly."

        [[reword]]
        path = "docs/inks.md"
        find = "Indigo is kept for the margins."
        replace = ""
    """)
    # Paragraphs added: no rewording says them; the file's lines do (a text rewrite).
    added = infer_recipe(tmp_path / "after", tmp_path / "before")
    assert added.unexpressed == () and 'language = "text"' in added.toml and "[[reword]]" not in added.toml


def test_a_cpp_item_of_one_preprocessor_branch_names_its_branch_and_a_member_its_class(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "src/lamp.h": """
        namespace lamp {
        #ifdef USE_OIL
        int wick(int n) { return n; }
        int flame() { return 1; }
        #else
        int wick(int n) { return n + 1; }
        #endif
        struct Shade {
          int tint;
          int gloss;
        };
        }  // namespace lamp
    """
        },
        {
            "src/lamp.h": """
        namespace lamp {
        #ifdef USE_OIL
        int flame() { return 1; }
        #else
        int wick(int n) { return n + 1; }
        #endif
        struct Shade {
          int tint;
        };
        }  // namespace lamp
    """
        },
    )
    assert inferred.toml == _recipe("""
        id = "inferred"

        [[delete]]
        path = "src/lamp.h"
        language = "cpp"
        kind = "function"
        name = "lamp::wick"
        branch = "defined(USE_OIL)"

        [[delete]]
        path = "src/lamp.h"
        language = "cpp"
        kind = "field"
        name = "lamp::Shade::gloss"
    """)


def test_a_line_dropped_from_a_comment_rewords_its_block_to_what_stays(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "src/blotter.rs": """
        /// Soaks up the ink.
        /// Kept for the old presses.
        pub fn soak() {}
    """
        },
        {
            "src/blotter.rs": """
        /// Soaks up the ink.
        pub fn soak() {}
    """
        },
    )
    assert inferred.toml == _recipe("""
        id = "inferred"

        [[reword]]
        path = "src/blotter.rs"
        find = "Soaks up the ink. Kept for the old presses."
        replace = "Soaks up the ink."
    """)


def test_a_file_the_change_keeps_but_the_engine_edits_is_named(tmp_path: Path) -> None:
    # The change drops an alias but keeps a re-export of it (a tree that no longer builds): the
    # engine drops the re-export by itself, so the recipe cannot give the second tree, and says so.
    shared = {
        "Cargo.toml": """
            [package]
            name = "ceramics"
            version = "0.1.0"
            edition = "2021"
        """,
        "src/lib.rs": """
            pub mod crafts {
                pub mod kiln;
            }
            pub mod pottery {
                pub use crate::crafts::kiln::{fire, Glaze, OldGlaze};
            }
        """,
        "src/crafts/kiln/mod.rs": """
            mod oven;
            pub use self::oven::*;
        """,
    }
    before = _write(
        tmp_path / "before",
        {
            **shared,
            "src/crafts/kiln/oven.rs": """
        pub struct Glaze;

        pub type OldGlaze = Glaze;

        pub fn fire() -> Glaze { Glaze }
    """,
        },
    )
    after = _write(
        tmp_path / "after",
        {
            **shared,
            "src/crafts/kiln/oven.rs": """
        pub struct Glaze;

        pub fn fire() -> Glaze { Glaze }
    """,
        },
    )
    inferred = infer_recipe(before, after)
    assert [n.split(": ", 1)[0] for n in inferred.unexpressed] == ["src/lib.rs:5"], inferred.unexpressed
    assert "the change leaves this file as it is" in inferred.unexpressed[0]
    assert "# - src/lib.rs:5:" in inferred.toml


def test_a_comment_dropped_next_to_a_deleted_method_does_not_clash_with_it(tmp_path: Path) -> None:
    # The method's deletion and the block rewording that drops the note after it both take the
    # blank line between them: two deletions that overlap remove their union, without a conflict.
    inferred = _inferred(
        tmp_path,
        {
            "Cargo.toml": """
            [package]
            name = "gravel"
            version = "0.1.0"
            edition = "2021"
        """,
            "src/lib.rs": """
            pub struct Sieve {
                mesh: Vec<u8>,
            }

            impl Sieve {
                fn lets_through(&self, grain: u8) -> bool {
                    self.mesh.iter().any(|m| *m > grain)
                }

                /// Whether a pebble gets through.
                pub fn lets_pebble_through(&self, pebble: u16) -> bool {
                    self.mesh.iter().any(|m| u16::from(*m) > pebble)
                }

                // XXX: `lets_pebble_through` is public while `lets_through`
                // is not, which reads oddly
            }
        """,
        },
        {
            "Cargo.toml": """
            [package]
            name = "gravel"
            version = "0.1.0"
            edition = "2021"
        """,
            "src/lib.rs": """
            pub struct Sieve {
                mesh: Vec<u8>,
            }

            impl Sieve {
                fn lets_through(&self, grain: u8) -> bool {
                    self.mesh.iter().any(|m| *m > grain)
                }
            }
        """,
        },
    )
    assert inferred.unexpressed == ()
    assert "block = true" in inferred.toml and 'kind = "fn"' in inferred.toml


def test_a_call_replaced_by_a_match_keeps_the_blank_after_the_keyword(tmp_path: Path) -> None:
    # The change replaces the call's head with `match` and its closing parenthesis with the arms:
    # the argument between is kept, and the blank after `match` is the new text's.
    cargo = """
        [package]
        name = "tribunal"
        version = "0.1.0"
        edition = "2021"
    """
    inferred = _inferred(
        tmp_path,
        {
            "Cargo.toml": cargo,
            "src/lib.rs": """
        pub enum Ruling { Uphold, Quash }

        impl Ruling {
            pub fn of_flag(flag: bool) -> Self {
                match flag {
                    true => Ruling::Uphold,
                    false => Ruling::Quash,
                }
            }
        }

        pub fn decide(docket: &[u8]) -> Ruling {
            Ruling::of_flag(docket.is_empty())
        }
    """,
        },
        {
            "Cargo.toml": cargo,
            "src/lib.rs": """
        pub enum Ruling { Uphold, Quash }

        impl Ruling {
        }

        pub fn decide(docket: &[u8]) -> Ruling {
            match docket.is_empty() {
                true => Ruling::Uphold,
                false => Ruling::Quash,
            }
        }
    """,
        },
    )
    assert inferred.unexpressed == ()
    assert 'replace = "match $X {' in inferred.toml, inferred.toml


def test_a_repeated_comment_is_reworded_with_its_block_or_in_its_item(tmp_path: Path) -> None:
    # The same remark stands in four places. Two lose it (a `//` line under a `///` doc line is a
    # block of its own), one rewords it, one keeps it: each rule is scoped to the method around
    # it (its comments right above included), where the remark is alone.
    cargo = """
        [package]
        name = "spools"
        version = "0.1.0"
        edition = "2021"
    """
    before = """
        pub struct Spool(u32);

        impl Spool {
            /// Winds the thread once.
            // FIXME: should this be public?
            pub(crate) fn wind(&mut self) {
                self.0 += 1;
            }

            /// Cuts the thread.
            // FIXME: should this be public?
            pub(crate) fn snip(&mut self) {
                self.0 = 0;
            }

            pub fn unwind(&mut self) {
                // FIXME: should this be public?
                self.0 -= 1;
            }

            pub fn rewind(&mut self) {
                // FIXME: should this be public?
                self.0 = 1;
            }
        }
    """
    after = """
        pub struct Spool(u32);

        impl Spool {
            /// Winds the thread once.
            pub(crate) fn wind(&mut self) {
                self.0 += 1;
            }

            /// Cuts the thread.
            pub(crate) fn snip(&mut self) {
                self.0 = 0;
            }

            pub fn unwind(&mut self) {
                // FIXME: should this panic at zero?
                self.0 -= 1;
            }

            pub fn rewind(&mut self) {
                // FIXME: should this be public?
                self.0 = 1;
            }
        }
    """
    inferred = _inferred(
        tmp_path, {"Cargo.toml": cargo, "src/lib.rs": before}, {"Cargo.toml": cargo, "src/lib.rs": after}
    )
    assert inferred.unexpressed == ()
    assert inferred.toml.count('item = "crate::Spool::') == 3, inferred.toml
    assert 'item = "crate::Spool::unwind"' in inferred.toml, inferred.toml


def test_a_doc_paragraph_dropped_with_its_blank_line_goes_whole(tmp_path: Path) -> None:
    # The field's doc keeps its first paragraph and loses the second, with the blank doc line
    # before it: no empty `///` line is left behind.
    inferred = _inferred(
        tmp_path,
        {
            "src/lib.rs": """
        pub struct Loom {
            /// Whether the shuttle runs by itself,
            /// across the whole width.
            ///
            /// Note that this wants a tight warp.
            pub unattended: bool,
        }
    """
        },
        {
            "src/lib.rs": """
        pub struct Loom {
            /// Whether the shuttle runs by itself,
            /// across the whole width.
            pub unattended: bool,
        }
    """
        },
    )
    assert inferred.unexpressed == ()
    assert 'find = "Note that this wants a tight warp."\nreplace = ""' in inferred.toml, inferred.toml


def test_items_an_unparseable_cpp_file_reads_in_the_wrong_scope_are_not_gone(tmp_path: Path) -> None:
    # A function whose head differs between `#ifdef` branches leaves the class body inside a parse
    # error: the old file's members are read as namespace code, the new file's as members.
    legacy = """
        /// Old name.
    #ifdef KILN_LEGACY
        int temperature(int scale) {
    #else
        int temperature(int scale) const {
    #endif
            return heat_ * scale;
        }
    """
    oven = """
    namespace kiln {
    class Oven {
      public:
        Oven(int heat, int size) : heat_(heat), size_(size) {}
        int heat() const { return heat_; }
    LEGACY
        int size() const { return size_; }
      private:
        int heat_;
        int size_;
    };
    }
    """
    before = {"oven.h": oven.replace("LEGACY", textwrap.dedent(legacy).strip("\n"))}
    after = {"oven.h": oven.replace("LEGACY\n", "")}
    old, new = _write(tmp_path / "before", before), _write(tmp_path / "after", after)
    toml = infer_recipe(old, new).toml
    assert "temperature" in toml
    for kept in ("Oven::heat", "Oven::Oven", "class Oven", "the class Oven", '"Oven"'):
        assert kept not in toml, toml


def test_members_an_unparseable_cpp_file_reads_as_other_items_are_not_gone_where_the_change_leaves_their_lines(
    tmp_path: Path,
) -> None:
    # An export macro in the class head and an annotation macro before the method the change
    # deletes: the old file reads the fields after it as namespace variables, the new one as
    # fields. No line of theirs changed: the change deletes the method alone.
    method = """
      // Lights it the old way, for ovens built before the chimney.
      KILN_OBSOLETE("Lighting by hand is no longer needed.")
      void IgniteByHand() {
        lit_by_hand_ = true;
      }

    """
    fields = """
      bool lit_by_hand_ = false;
      mutable bool warmed_up_ = false;
      std::map<std::string, int> logs_by_name_;
    };
    """
    head = "class KILN_API Oven {\n"
    before = {"oven.h": head + textwrap.dedent(method).lstrip("\n") + textwrap.dedent(fields).lstrip("\n")}
    after = {"oven.h": head + textwrap.dedent(fields).lstrip("\n")}
    old, new = _write(tmp_path / "before", before), _write(tmp_path / "after", after)
    inferred = infer_recipe(old, new)
    assert 'name = "IgniteByHand"' in inferred.toml, inferred.toml
    for kept in ("lit_by_hand_", "warmed_up_", "logs_by_name_"):
        assert f'name = "{kept}"' not in inferred.toml, inferred.toml
        assert not [note for note in inferred.unexpressed if f"variable {kept} is gone" in note], inferred.unexpressed


def test_entries_the_change_takes_out_of_a_declaration_the_recipe_reshapes_are_deleted_with_it(tmp_path: Path) -> None:
    # `Weave` is a trait import the engine keeps by itself (its methods may be in use); once the
    # recipe reshapes that declaration, the engine's import stage leaves it alone, so `Loom` and
    # `Shuttle`, unused since `warp` went, are asked for in the same edit.
    inferred = _inferred(
        tmp_path,
        {
            "src/lib.rs": """
            use textile::{Loom, Shuttle, Spool, Weave};

            pub fn spool() -> Spool { Spool::default() }

            pub fn warp(l: Loom, s: Shuttle) -> u8 { l.weave(s) }
        """
        },
        {
            "src/lib.rs": """
            use textile::Spool;

            pub fn spool() -> Spool { Spool::default() }
        """
        },
    )
    assert 'name = "textile::Loom"' in inferred.toml and 'name = "textile::Weave"' in inferred.toml
    assert inferred.unexpressed == ()


def test_a_removed_python_module_constant_is_a_variable_delete(tmp_path: Path) -> None:
    inferred = _inferred(
        tmp_path,
        {
            "kiln/settings.py": """
            import os

            # Degrees, for stoneware.
            FIRING_TEMP = 1280
            GLAZE_COATS: int = 2


            def coats() -> int:
                return GLAZE_COATS
        """
        },
        {
            "kiln/settings.py": """
            import os

            GLAZE_COATS: int = 2


            def coats() -> int:
                return GLAZE_COATS
        """
        },
    )
    assert (
        _recipe("""
        [[delete]]
        path = "kiln/settings.py"
        language = "python"
        kind = "variable"
        name = "FIRING_TEMP"
    """)
        in inferred.toml
    )
    assert "[[rewrite]]" not in inferred.toml and inferred.unexpressed == ()


def test_a_cpp_name_declared_twice_under_one_condition_is_never_a_delete(tmp_path: Path) -> None:
    # tree-sitter reads each annotated line as a declaration of `RETIRED`: no item a name tells apart.
    header = """
        #define RETIRED(decl, why) decl
        RETIRED(int spin_slow(int turns), "use spin");
        RETIRED(int wind_slow(int turns), "use wind");
        int spin(int turns);
    """
    inferred = _inferred(
        tmp_path,
        {"reel.h": header},
        {
            "reel.h": header.replace('        RETIRED(int spin_slow(int turns), "use spin");\n', "").replace(
                '        RETIRED(int wind_slow(int turns), "use wind");\n', ""
            )
        },
    )
    assert 'name = "RETIRED"' not in inferred.toml


def test_a_cpp_class_declared_ahead_and_defined_is_one_item_not_gone(tmp_path: Path) -> None:
    header = """
        namespace loom {
        class Shuttle;
        int passes(const Shuttle& s);
        class Shuttle {
          public:
            int width() const { return 3; }
        };
        int stale(int x);
        }
    """
    inferred = _inferred(
        tmp_path, {"shuttle.h": header}, {"shuttle.h": header.replace("        int stale(int x);\n", "")}
    )
    assert 'name = "loom::stale"' in inferred.toml and "Shuttle" not in inferred.toml


def test_an_attribute_the_change_writes_a_second_time_is_not_gone(tmp_path: Path) -> None:
    """The change swaps one attribute for the text of another the file has: that text is still
    there (twice), so it is not gone; the swap is a deletion and an insertion before the item,
    which the other place writing the same text does not make "there already"."""
    before = {
        "src/pier.rs": """
        pub fn moor() -> u8 {
            #[cfg(unix)]
            let knots = 2;
            knots
        }

        #[allow(dead_code)]
        fn tide() -> u8 {
            4
        }
    """
    }
    after = {"src/pier.rs": before["src/pier.rs"].replace("#[allow(dead_code)]", "#[cfg(unix)]")}
    inferred = _inferred(tmp_path, before, after)
    assert [line for line in inferred.toml.splitlines() if line.startswith(("kind", "name", "item", "text"))] == [
        'kind = "attribute"',
        'name = "#[allow(dead_code)]"',
        'item = "crate::tide"',
        'text = "#[cfg(unix)]"',
    ]


def test_a_block_around_a_deleted_item_is_rewritten_as_the_deletion_leaves_it(tmp_path: Path) -> None:
    """The change removes a whole `#if` block whose forward declaration is an item: the item is
    a `[[delete]]`, and the block's lines left once it goes a rewrite (a rule applies to the file
    as the deletions leave it where the file as read has no place for it); the plan reproduces
    the change."""
    before = {
        "src/kiosk.h": """
        #pragma once

        #if defined(KIOSK_TOUCH)
        #define KIOSK_HAS_PANEL
        class TouchPanel;
        #endif

        class Kiosk {
         public:
          int open() const { return 1; }
        };
    """
    }
    after = {
        "src/kiosk.h": """
        #pragma once

        class Kiosk {
         public:
          int open() const { return 1; }
        };
    """
    }
    inferred = _inferred(tmp_path, before, after)
    assert 'name = "TouchPanel"' in inferred.toml
    assert "class TouchPanel;" not in inferred.toml.split("[[rewrite]]", 1)[1]


def test_a_use_entry_inside_a_literal_rewrite_is_no_deletion_of_its_own() -> None:
    """Where a file's change is said as literal text, a `use` entry the text's lines hold goes
    with that rewrite; deleting it as well would edit the same text twice (overlapping edits)."""
    from codemods.plan.infer import _Delete, _without_uses_under
    from codemods.plan.infer.inventory import Entry
    from codemods.plan.infer.residue import RewriteRule

    source = b"use crate::parts::{\n    Axle, Bolt, Cog,\n};\nuse crate::tools::Awl;\n"
    inside = _Delete("src/shop.rs", "rust", Entry("use", "crate::parts::Bolt", 30, 34))
    outside = _Delete("src/shop.rs", "rust", Entry("use", "crate::tools::Awl", 56, 59))
    item = _Delete("src/shop.rs", "rust", Entry("fn", "crate::fasten", 24, 28))
    rule = RewriteRule(
        "src/shop.rs", "text", "use crate::parts::{\n    Axle, Bolt, Cog,\n};\n", "use crate::parts::Axle;\n"
    )
    kept = _without_uses_under([inside, outside, item], [rule], {"src/shop.rs": source})
    assert kept == [outside, item]


def test_a_change_that_keeps_the_imports_it_leaves_unused_says_unused_imports_keep(tmp_path: Path) -> None:
    """The change deletes the one function using `HashSet` and keeps its import (a later change's
    cleanup): the recipe that removes it would not give the second tree, the one that keeps it does."""
    inferred = _inferred(
        tmp_path,
        {
            "src/lib.rs": """
            mod ledger;
            pub fn open() {}
        """,
            "src/ledger.rs": """
            use std::collections::{BTreeMap, HashSet};

            pub fn tally(rows: &BTreeMap<u8, u8>) -> usize {
                rows.len()
            }

            pub fn distinct(rows: &[u8]) -> usize {
                rows.iter().collect::<HashSet<_>>().len()
            }
        """,
        },
        {
            "src/lib.rs": """
            mod ledger;
            pub fn open() {}
        """,
            "src/ledger.rs": """
            use std::collections::{BTreeMap, HashSet};

            pub fn tally(rows: &BTreeMap<u8, u8>) -> usize {
                rows.len()
            }
        """,
        },
    )
    assert inferred.toml == _recipe("""
        id = "inferred"
        unused_imports = "keep"

        [[delete]]
        path = "src/ledger.rs"
        language = "rust"
        kind = "fn"
        name = "crate::distinct"
    """)
    assert inferred.unexpressed == ()


def test_a_use_declaration_the_change_reshapes_and_the_import_stage_edits_is_rewritten_from_the_original(
    tmp_path: Path,
) -> None:
    """The change deletes `bake` (the one use of `fire`) and folds `use crate::glaze::cool;` into
    the group; the import stage takes `fire` out of that group first, so no rule written from the
    plan's result finds its place: the lines are rewritten as text from the file as read."""
    before = {
        "src/lib.rs": """
            mod glaze;
            mod kiln;
        """,
        "src/glaze.rs": """
            pub fn tint() -> u8 { 1 }
            pub fn fire() -> u8 { 2 }
            pub fn cool() -> u8 { 3 }
        """,
        "src/kiln.rs": """
            use crate::glaze::{fire, tint};
            use crate::glaze::cool;

            pub fn bake() -> u8 {
                fire()
            }

            pub fn finish() -> u8 {
                tint() + cool()
            }
        """,
    }
    after = {
        **before,
        "src/kiln.rs": """
            use crate::glaze::{cool, tint};

            pub fn finish() -> u8 {
                tint() + cool()
            }
        """,
    }
    inferred = _inferred(tmp_path, before, after)
    assert inferred.unexpressed == ()
    assert 'name = "crate::bake"' in inferred.toml
    assert 'language = "text"\npattern = "use crate::glaze::{fire, tint};\\nuse crate::glaze::cool;\\n' in inferred.toml
