"""Rewording prose in comments, addressed by structure.

A rule names the comment block it rewords by where it sits (attached to,
inside or right above an item; or anywhere in the file) and the text it
replaces by what the prose says, not by its bytes: either the sentence that
names a symbol (and as many sentences after it as the rule says), or a phrase
of prose. A comment block is a run of line comments (`//`, `///`, `//!`) or one
block comment (`/* ... */`, `/** ... */`, `/*! ... */`, its lines bare or each
led by a ` * `). Comment markers, indentation and line breaks do not matter; the
rewritten paragraph is filled again to the block's width, from the first line
that changed. A rule that finds nothing is reported, never raised.
"""

from __future__ import annotations

import functools

from collections.abc import Callable
from dataclasses import dataclass, replace

import tree_sitter

from codemods.core.registry import LANGUAGES, Language
from codemods.parse import once_per_tree, query
from codemods.languages.scope import item_scopes
from codemods.edit.item_spans import starts_own_line


def _comment_query(language: str) -> str:
    """The query for a language's comments, line and block (the registry's `comment_kinds`)."""
    kinds = " ".join(f"({kind})" for kind in sorted(LANGUAGES[language].comment_kinds))
    return f"[{kinds}] @comment"


def _markers() -> tuple[str, ...]:
    """Every registered line-comment marker, longest first."""
    return _markers_of(tuple(LANGUAGES.values()))


@functools.cache
def _markers_of(languages: tuple[Language, ...]) -> tuple[str, ...]:
    found = {m for language in languages for m in language.line_comment_markers}
    return tuple(sorted(found, key=lambda m: (-len(m), m)))


def _block_delimiters(language: str) -> tuple[tuple[str, str], ...]:
    """The (opener, closer) pairs of `language`'s block comments, longest opener first."""
    return tuple(sorted(LANGUAGES[language].block_comment_markers, key=lambda pair: (-len(pair[0]), pair)))


_ABBREVIATIONS = {"e.g.", "i.e.", "etc.", "vs.", "cf.", "approx."}
_MIN_WIDTH = 80
_MAX_WIDTH = 100
_PARAGRAPH_STARTS = ("- ", "* ", "+ ", "#", "```", "|")


@dataclass(frozen=True)
class _Line:
    start: int  # offset of the line's first byte
    end: int  # offset of the line's end (its newline, or a block comment's closer, excluded)
    lead: str  # indentation, marker and the space after it
    content: str  # the prose on the line
    # The lead of the lines a rewrite adds after this one (None: `lead`): the ` * ` of a block
    # comment's opening line.
    follow: str | None = None


@dataclass(frozen=True)
class CommentBlock:
    """Consecutive line comments with the same marker and indentation, one per line; one block
    comment (its lines, the closer's own line left out); or a paragraph of a prose file
    (`prose_blocks`). `width`, when given, is what its paragraphs are filled to (see `_width`);
    `closed_at`, for a block comment, is the offset after its closer."""

    lines: tuple[_Line, ...]
    width: int | None = None
    closed_at: int | None = None

    @property
    def start(self) -> int:
        return self.lines[0].start

    @property
    def end(self) -> int:
        return self.lines[-1].end if self.closed_at is None else self.closed_at

    @property
    def prose(self) -> str:
        return " ".join(" ".join(line.content.split()) for line in self.lines if line.content.strip())


def _marker(text: str) -> str | None:
    markers = _markers()
    shortest = markers[-1] if markers else None
    if shortest is not None and text.startswith(shortest * 2):
        return shortest  # a ruler or commented-out comment (////) is a plain comment
    return next((m for m in markers if text.startswith(m)), None)


def _sorted_comments(language: str) -> Callable[[bytes, tree_sitter.Tree], list[tree_sitter.Node]]:
    def comments(source: bytes, tree: tree_sitter.Tree) -> list[tree_sitter.Node]:
        return _comment_nodes(language, tree, 0, len(source))

    return once_per_tree(comments)


def _comment_nodes(language: str, tree: tree_sitter.Tree, start: int, end: int) -> list[tree_sitter.Node]:
    """The comment nodes that overlap [start, end), in order."""
    cursor = tree_sitter.QueryCursor(query(language, _comment_query(language)))
    cursor.set_byte_range(start, end)
    return sorted(cursor.captures(tree.root_node).get("comment", []), key=lambda n: n.start_byte)


# The comment nodes of a whole tree, in order: rules that are not scoped to an item read
# the whole file's comments, and share them.
_COMMENTS = functools.cache(_sorted_comments)


def comment_blocks(
    source: bytes, tree: tree_sitter.Tree, language: str, start: int = 0, end: int | None = None
) -> list[CommentBlock]:
    """The comment blocks that lie within [start, end) of a file: runs of line comments, and
    block comments, each one block.

    A rule scoped to an item reads the comments of that item's bytes alone."""
    end = len(source) if end is None else end
    nodes = (
        _COMMENTS(language)(source, tree)
        if (start, end) == (0, len(source))
        else _comment_nodes(language, tree, start, end)
    )
    blocks: list[list[_Line] | CommentBlock] = []
    previous: tuple[int, str, str] | None = None
    delimiters = _block_delimiters(language)
    for node in nodes:
        if not (start <= node.start_byte and node.end_byte <= end) or not starts_own_line(source, node):
            previous = None
            continue
        text = source[node.start_byte : node.end_byte].decode("utf-8", "replace").rstrip("\r\n")
        pair = next(((opener, closer) for opener, closer in delimiters if text.startswith(opener)), None)
        if pair is not None:
            previous = None
            block = _block_comment(source, node, *pair)
            if block is not None:
                blocks.append(block)
            continue
        marker = _marker(text)
        if marker is None:
            previous = None
            continue
        line_start = source.rfind(b"\n", 0, node.start_byte) + 1
        indent = source[line_start : node.start_byte].decode("utf-8", "replace")
        body = text[len(marker) :]
        space = " " if body.startswith(" ") else ""
        line = _Line(
            line_start, node.start_byte + len(text.encode("utf-8")), indent + marker + space, body[len(space) :]
        )
        row = node.start_point.row
        last = blocks[-1] if blocks else None
        if previous is not None and previous == (row - 1, marker, indent) and isinstance(last, list):
            last.append(line)
        else:
            blocks.append([line])
        previous = (row, marker, indent)
    return [b if isinstance(b, CommentBlock) else CommentBlock(tuple(b)) for b in blocks]


def _block_comment(source: bytes, node: tree_sitter.Node, opener: str, closer: str) -> CommentBlock | None:
    """One block comment as a block: its first line led by the indentation and `opener`, each
    other line by its indentation and, where every such line has one, the decoration `*`; the
    closer, and a last line that holds nothing else, are left out of the lines. None for a
    comment that is not closed."""
    text = source[node.start_byte : node.end_byte]
    body_end = node.end_byte - len(closer.encode())
    if not text.endswith(closer.encode()) or body_end < node.start_byte + len(opener.encode()):
        return None
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    raw: list[tuple[int, bytes]] = []
    offset = line_start
    for segment in source[line_start:body_end].split(b"\n"):
        raw.append((offset, segment))
        offset += len(segment) + 1
    if len(raw) > 1 and not raw[-1][1].strip():
        raw.pop()  # the closer's own line
    rest = [segment.lstrip() for _, segment in raw[1:]]
    decorated = bool(rest) and all(s.startswith(b"*") and not s.startswith(b"*/") for s in rest if s.strip())
    lines: list[_Line] = []
    for index, (at, segment) in enumerate(raw):
        if index == 0:
            head = node.start_byte - at + len(opener.encode())
        else:
            head = len(segment) - len(segment.lstrip())
            if decorated and segment[head : head + 1] == b"*":
                head += 1
        if segment[head : head + 1] == b" ":
            head += 1
        body = segment[head:].rstrip()
        lines.append(
            _Line(at, at + head + len(body), segment[:head].decode("utf-8", "replace"), body.decode("utf-8", "replace"))
        )
    indent = source[line_start : node.start_byte].decode("utf-8", "replace")
    follow = next((line.lead for line in lines[1:] if line.content.strip()), f"{indent} * ")
    lines[0] = replace(lines[0], follow=follow)
    return CommentBlock(tuple(lines), closed_at=node.end_byte)


# The files whose whole text is prose (Markdown, reStructuredText, plain text; a file without a
# suffix, such as README or NEWS): a rewording rule reads their paragraphs.
PROSE_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".text", "")
# A line that opens or closes a fenced code block of Markdown.
_FENCES = ("```", "~~~")
# Wide enough that a paragraph written on one line stays on one line.
_UNWRAPPED = 1 << 20


def is_prose(path: str) -> bool:
    """Whether `path` is a prose file (see `PROSE_SUFFIXES`)."""
    name = path.rsplit("/", 1)[-1]
    suffix = name[name.rfind(".") :].lower() if "." in name.lstrip(".") else ""
    return suffix in PROSE_SUFFIXES


def prose_blocks(source: bytes) -> list[CommentBlock]:
    """The paragraphs of a prose file as blocks a rule rewords like comments: runs of non-blank
    lines outside fenced code blocks. A block whose lines are each a paragraph of their own
    (one line per paragraph, or list items) is filled as unwrapped lines."""
    blocks: list[list[_Line]] = []
    fenced = False
    previous_blank = True
    offset = 0
    for raw in source.split(b"\n"):
        start, offset = offset, offset + len(raw) + 1
        text = raw.decode("utf-8", "replace").rstrip("\r")
        if text.lstrip().startswith(_FENCES):
            fenced = not fenced
            previous_blank = True
            continue
        if fenced or not text.strip():
            previous_blank = True
            continue
        line = _Line(start, start + len(text.encode("utf-8")), "", text)
        if previous_blank:
            blocks.append([line])
        else:
            blocks[-1].append(line)
        previous_blank = False
    found = []
    for lines in blocks:
        block = CommentBlock(tuple(lines))
        paragraphs = {w.paragraph for w in _words(block)}
        found.append(CommentBlock(block.lines, _UNWRAPPED if len(paragraphs) == len(lines) else None))
    return found


@dataclass(frozen=True)
class _Word:
    text: str
    line: int  # index into the block's lines
    paragraph: int


def _paragraph_starts(content: str) -> bool:
    stripped = content.lstrip()
    return stripped.startswith(_PARAGRAPH_STARTS) or (stripped[:1].isdigit() and ". " in stripped[:4])


def _words(block: CommentBlock) -> list[_Word]:
    """The words of a block; a blank line, a list item, a heading or a ruler (`// ----`) starts
    a new paragraph, and a ruler is a paragraph of its own."""
    words: list[_Word] = []
    paragraph = 0
    ruler = False
    for index, line in enumerate(block.lines):
        if not line.content.strip():
            paragraph += 1
            continue
        starts_ruler = not any(c.isalnum() for c in line.content)
        if index and words and (_paragraph_starts(line.content) or starts_ruler or ruler):
            paragraph += 1
        ruler = starts_ruler
        words += [_Word(w, index, paragraph) for w in line.content.split()]
    return words


def _ends_sentence(word: str, in_code: bool) -> bool:
    if in_code or word.lower() in _ABBREVIATIONS:
        return False
    return word.rstrip(")*_\"'").endswith((".", "!", "?"))


def sentences(words: list[_Word]) -> list[tuple[int, int]]:
    """[first, last] word indices of each sentence (a sentence never crosses a paragraph)."""
    found = []
    first = 0
    in_code = False
    for index, word in enumerate(words):
        in_code ^= word.text.count("`") % 2 == 1
        last_of_paragraph = index + 1 == len(words) or words[index + 1].paragraph != word.paragraph
        if _ends_sentence(word.text, in_code) or last_of_paragraph:
            found.append((first, index))
            first = index + 1
            in_code = False if last_of_paragraph else in_code
    return found


def _normalised(text: str) -> list[str]:
    """The words of prose given with or without comment markers."""
    words = []
    for line in text.splitlines():
        stripped = line.strip()
        marker = _marker(stripped)
        if marker is not None:
            stripped = stripped[len(marker) :]
        words += stripped.split()
    return words


def _width(block: CommentBlock) -> int:
    """The width the block's paragraphs are filled to: rustfmt's comment width (80), unless most
    wrapped lines of the block are longer (then their longest, at most 100); unwrapped where no
    paragraph of the block is wrapped and some of its lines are longer than 80."""
    if block.width is not None:
        return block.width
    words = _words(block)
    paragraph_of = {w.line: w.paragraph for w in words}
    wrapped = sorted(
        len((line.lead + line.content).rstrip())
        for index, line in enumerate(block.lines)
        if index in paragraph_of and paragraph_of.get(index + 1) == paragraph_of[index]
    )
    if not wrapped and any(len((line.lead + line.content).rstrip()) > _MIN_WIDTH for line in block.lines):
        return _UNWRAPPED  # no paragraph wrapped, and lines longer than the width: one line each
    if not wrapped or wrapped[len(wrapped) // 2] <= _MIN_WIDTH:
        return _MIN_WIDTH
    return min(wrapped[-1], _MAX_WIDTH)


def _opens_block(word: str) -> bool:
    """Whether a line starting with `word` would read as a list item, heading or quote in Markdown."""
    return (
        word in ("-", "+", "*", ">", "<")
        or word.startswith("#")
        or (len(word) > 1 and word[:-1].isdigit() and word[-1] in ".)")
    )


def _fill(words: list[str], lead: str, width: int, follow: str | None = None) -> list[str]:
    """`words` as lines of at most `width`, the first led by `lead`, the others by `follow`
    (default: `lead`)."""
    later = lead if follow is None else follow
    lines: list[str] = []
    current = ""
    for word in words:
        now = later if lines else lead
        if current and len(now) + len(current) + 1 + len(word) > width:
            carried = ""
            if _opens_block(word) and " " in current:
                current, carried = current.rsplit(" ", 1)
            lines.append(now + current)
            current = f"{carried} {word}" if carried else word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append((later if lines else lead) + current)
    return lines


@dataclass(frozen=True)
class ProseEdit:
    """Bytes [start, end) of a comment block and their reworded text."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class _Replacement:
    """The text put in place of a run of words, with what stays of the first word before it
    (`head`) and of the last after it (`tail`)."""

    text: str
    head: str = ""
    tail: str = ""


def _rewrite(block: CommentBlock, words: list[_Word], first: int, last: int, replacement: _Replacement) -> ProseEdit:
    """Replace words [first, last] by `replacement` (keeping its `head` of the first word and
    `tail` of the last), and fill the paragraph again from the first line that changes."""
    paragraph = words[last].paragraph
    start_line = words[first].line
    end_line = max(w.line for w in words if w.paragraph == paragraph)
    region = [i for i, w in enumerate(words) if start_line <= w.line <= end_line]
    before = [words[i].text for i in region if i < first]
    after = [words[i].text for i in region if i > last]
    new_words = before + _normalised(f"{replacement.head}{replacement.text}{replacement.tail}") + after
    line = block.lines[start_line]
    blank_before = start_line >= 2 and not block.lines[start_line - 1].content.strip()
    if (
        not new_words
        and block.closed_at is None
        and blank_before
        and all(not w.line < start_line or w.paragraph != paragraph for w in words)
    ):
        # A paragraph (a run of line comments) reworded to nothing goes, with the blank comment
        # line that set it apart from the one before: no empty comment line is left.
        return ProseEdit(block.lines[start_line - 2].end, block.lines[end_line].end, "")
    indent = line.content[: len(line.content) - len(line.content.lstrip())]
    lines = _fill(new_words, line.lead + indent, _width(block), None if line.follow is None else line.follow + indent)
    if not lines:
        lines = [line.lead.rstrip()]
    return ProseEdit(line.start, block.lines[end_line].end, "\n".join(lines))


def reword_sentences(
    block: CommentBlock, symbols: tuple[str, ...], replacement: str, count: int = 1
) -> ProseEdit | None:
    """Replace the first sentence of `block` that names every one of `symbols`, and `count - 1`
    sentences after it."""
    words = _words(block)
    spans = sentences(words)
    for index, (first, last) in enumerate(spans):
        said = " ".join(words[i].text for i in range(first, last + 1))
        if all(symbol in said for symbol in symbols):
            chosen = spans[index : index + count]
            if len(chosen) < count or words[chosen[-1][1]].paragraph != words[first].paragraph:
                return None
            return _rewrite(block, words, first, chosen[-1][1], _Replacement(replacement))
    return None


def reword_phrase(block: CommentBlock, find: str, replacement: str) -> ProseEdit | None:
    """Replace the first occurrence of the prose `find` (markers and line breaks ignored)."""
    words = _words(block)
    wanted = _normalised(find)
    if not wanted:
        return None
    texts = [w.text for w in words]
    for first in range(len(texts) - len(wanted) + 1):
        last = first + len(wanted) - 1
        window = texts[first : last + 1]
        if len(wanted) == 1:
            at = window[0].find(wanted[0])
            if at < 0:
                continue
            head, tail = window[0][:at], window[0][at + len(wanted[0]) :]
        else:
            middle_equal = window[1:-1] == wanted[1:-1]
            if not (middle_equal and window[0].endswith(wanted[0]) and window[-1].startswith(wanted[-1])):
                continue
            head, tail = window[0][: len(window[0]) - len(wanted[0])], window[-1][len(wanted[-1]) :]
        if any(words[i].paragraph != words[first].paragraph for i in range(first, last + 1)):
            continue
        return _rewrite(block, words, first, last, _Replacement(replacement, head, tail))
    return None


def rule_blocks(language: str, source: bytes, tree: tree_sitter.Tree, item: str | None) -> list[CommentBlock] | None:
    """The comment blocks a rule scoped to `item` (None: the whole file) may reword; None when
    the item is not in the file."""
    if item is None:
        return comment_blocks(source, tree, language)
    scopes = item_scopes(language, source, tree, item)
    if not scopes:
        return None
    return [b for s in scopes for b in comment_blocks(source, tree, language, s.comments_start, s.end)]


def already_reworded(blocks: list[CommentBlock], replacement: str) -> bool:
    """Whether one of the blocks already says `replacement` (a rule applied by an earlier run)."""
    wanted = " ".join(_normalised(replacement))
    return bool(wanted) and any(wanted in block.prose for block in blocks)


def reworded_in_file(language: str, source: bytes, tree: tree_sitter.Tree, replacement: str) -> bool:
    """Whether a comment block anywhere in the file already says `replacement`.

    Each word of it is then in the file's bytes (a block's prose is its comments' words,
    decoded), so a file that lacks one is answered without reading its comments.
    """
    words = _normalised(replacement)
    if "\ufffd" not in replacement and not all(word.encode("utf-8") in source for word in words):
        return False
    return already_reworded(comment_blocks(source, tree, language), replacement)
