"""A knowledge base: documents read from files, cut into chunks, each with its topic.

Files: Markdown (`.md`, `.markdown`, `.mdx`), reStructuredText (`.rst`, `.rest`), text
(`.txt`), HTML (`.html`, `.htm`: the page's main content), all read as text without
their markup (markup.py, sphinx_rst.py), Jupyter notebooks (`.ipynb`: markdown and code
cells, outputs out; up to NOTEBOOK_MAX_CHARS), JSON Lines (`.jsonl`: the `text` field of
each line, with an optional `title`), and PDF when pypdf is installed. Files are read as streams,
line by line or block by block, so a huge document never sits in memory whole; the text
kept is bounded (`MAX_KNOWLEDGE_CHARS`): past it the rest is left out with a warning.

Chunks follow the text's own structure: a heading starts a new chunk (and its heading
path is the chunk's title), paragraphs are put together up to `CHUNK_CHARS`, and a
paragraph longer than that is cut at sentence ends.

Links: a file or folder named on the command line is read wherever it points, but inside
a folder no link is followed out of that folder (a `faq.md -> ~/.aws/credentials` is
skipped with a warning, never read nor sent to a model), and only regular files are read
(a FIFO or a device would block or never end). Each file is opened without following a
link swapped in after the check (`O_NOFOLLOW` where the system has it).

Topics: the first-level subfolders of a folder given are a hint (each chunk's `topic`
is its folder, "" for a file beside the subfolders or in a folder without any);
pipeline.find_topics makes the topics: folders, clusters of the rest (topics.py), a
changelog or release notes (`is_release_notes`) one topic of their own at most, and no
topic larger than a third of a real documentation set.
`exclude` globs leave files and folders out (`excluded`).
"""

from __future__ import annotations

import codecs
import fnmatch
import itertools
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from .markup import (
    RST_MAX_CHARS,
    Block,
    Notes,
    html_blocks,
    markdown_blocks,
    notebook_blocks,
    rst_blocks,
)
from .page_titles import PageTitles
from .pdf_text import page_blocks

if TYPE_CHECKING:
    from .topics import TfIdf

SUFFIXES = (
    ".md",
    ".markdown",
    ".mdx",
    ".rst",
    ".rest",
    ".txt",
    ".text",
    ".html",
    ".htm",
    ".jsonl",
    ".pdf",
    ".ipynb",
)
CHUNK_CHARS = 1500  # a chunk grows to about this many characters
MIN_CHUNK_CHARS = 200  # smaller pieces join the next one under the same heading
MAX_KNOWLEDGE_CHARS = 10_000_000  # text kept from a knowledge base (10 M characters)
_SNIFF = 8192
_LINE_BYTES = 1 << 20  # a longer line is read in pieces of this many bytes
_BLOCK_CHARS = 1 << 20  # a paragraph longer than this is cut into blocks
_RECORD_CHARS = 16 << 20  # a JSON Lines record longer than this is skipped
# A code block of a chunk: fenced with more backticks than any line of its code opens with.
_CODE_FENCE = re.compile(r"^(`{3,})\n.*?^\1$", re.MULTILINE | re.DOTALL)
_BACKTICKS = re.compile(r"^[ \t]*(`{3,})", re.MULTILINE)
# Release notes: by the file's name, or by headings that are mostly version numbers.
_RELEASE_NAMES = re.compile(
    r"^(changelog|changes|history|news|releases?|release[-_ ]?notes|whats[-_ ]?new)$",
    re.IGNORECASE,
)
_VERSION = re.compile(r"^(v(ersion)?\s*)?\d+\.\d+(\.\d+)*\b", re.IGNORECASE)
RELEASE_NOTES_TOPIC = "release notes"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


class KnowledgeError(ValueError):
    """The knowledge base cannot be used (nothing readable in it, a missing path)."""


@dataclass(frozen=True)
class Chunk:
    """A piece of a document: its text, where it comes from, and its topic."""

    text: str
    source: str  # the file, as given (relative paths stay relative)
    index: int  # the chunk's number in its file, from 0
    title: str = ""  # the heading path, "Shipping > International"
    line: int = 1  # the 1-based line (or JSON Lines record) its text starts at
    topic: str = ""  # the topic's name
    topic_id: str = ""  # the topic's stable id
    release_notes: bool = False  # from a changelog or release notes (one topic at most)
    folder: str = ""  # the subfolder of the knowledge base it is in (a hint for topics)

    @property
    def where(self) -> str:
        return f"{self.source}#{self.index}"


def prose(text: str) -> str:
    """The chunk's text without its code blocks (what topics take their words from)."""
    return _CODE_FENCE.sub(" ", text) if "```" in text else text


@dataclass(frozen=True)
class Topic:
    """A topic of the knowledge base: a stable id (from what it covers), a name, its most
    telling words, its files and how many chunks it holds."""

    id: str
    name: str
    words: tuple[str, ...]
    files: tuple[str, ...]
    chunks: int
    fixed: bool = False  # named by its folder or as release notes, not by the model

    def record(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "words": list(self.words),
            "files": list(self.files),
            "chunks": self.chunks,
        }


@dataclass
class KnowledgeBase:
    chunks: list[Chunk] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files: int = 0
    truncated: bool = False
    # Topics given by folders (None: to be found by clustering).
    folder_topics: bool = False
    topic_list: list[Topic] = field(default_factory=list)  # set by pipeline.find_topics
    # The chunks' lexical vectors (topics.TfIdf), made once by find_topics for the plans.
    lexical: TfIdf | None = field(default=None, repr=False)
    # Markup read but not understood (unknown directives, includes not followed).
    notes: Notes = field(default_factory=Notes, repr=False)

    def topics(self) -> dict[str, int]:
        """Each topic with its chunk count, largest first (then by name)."""
        counts: dict[str, int] = {}
        for chunk in self.chunks:
            counts[chunk.topic] = counts.get(chunk.topic, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


# -- files ---------------------------------------------------------------------------------


def excluded(relative: str, globs: Sequence[str]) -> bool:
    """Whether a path (relative to the folder given, `/`-separated) matches an exclude glob:
    the whole path or its name (`*` crosses folders; `CHANGELOG.md`, `drafts/*`,
    `**/internal/**`)."""
    name = relative.rsplit("/", 1)[-1]
    for glob in globs:
        glob = glob.strip().removeprefix("./")
        if not glob:
            continue
        plain = glob.replace("**/", "").replace("/**", "/*")
        if any(
            fnmatch.fnmatchcase(candidate, pattern)
            for candidate in (relative, name)
            for pattern in (glob, plain)
        ):
            return True
    return False


def _files(
    paths: Iterable[str | Path], warnings: list[str], exclude: Sequence[str] = ()
) -> Iterator[tuple[Path, str | None, Path]]:
    """Each file to read with its folder topic (None when its folder has no subfolders)
    and the folder it was found in (what the file may include from)."""
    for given in paths:
        path = Path(given)
        if not path.exists():
            raise KnowledgeError(f"{given}: no such file or folder")
        if path.is_file():
            if not excluded(path.as_posix(), exclude):
                yield path, None, path.parent
            continue
        try:
            subfolders = sorted(
                p
                for p in path.iterdir()
                if p.is_dir()
                and not p.name.startswith(".")
                and not excluded(p.name, exclude)
                and not excluded(p.name + "/", exclude)
            )
        except OSError as exc:
            raise KnowledgeError(f"{given}: cannot be read ({exc.strerror or exc})") from None
        found = False
        inside = path.resolve()
        for root, dirs, names in os.walk(
            path,
            onerror=lambda exc: warnings.append(
                f"{exc.filename}: skipped, cannot be read ({exc.strerror or exc})"
            ),
        ):
            here = Path(root).relative_to(path).as_posix().removeprefix(".").lstrip("/")
            inner = here + "/" if here else ""
            dirs[:] = sorted(
                d
                for d in dirs
                if not d.startswith(".")
                and not excluded(inner + d, exclude)
                and not excluded(inner + d + "/", exclude)
            )
            for name in sorted(names):
                file = Path(root) / name
                if name.startswith(".") or file.suffix.lower() not in SUFFIXES:
                    continue
                if excluded(inner + name, exclude):
                    continue
                found = True
                why = _outside(file, inside)
                if why:
                    warnings.append(f"{file}: skipped, {why}")
                    continue
                topic = None
                if subfolders:
                    relative = file.relative_to(path).parts
                    # Files beside the subfolders have no folder topic: they are
                    # clustered by what they say, as a flat folder's are.
                    topic = relative[0] if len(relative) > 1 else ""
                yield file, topic, path
        if not found:
            warnings.append(f"{given}: no {', '.join(SUFFIXES)} file in this folder")


def load_knowledge_base(
    paths: Iterable[str | Path],
    *,
    max_chars: int = MAX_KNOWLEDGE_CHARS,
    exclude: Sequence[str] = (),
) -> KnowledgeBase:
    """Read and chunk every file of `paths` (files or folders) but those matching an
    `exclude` glob. Unreadable, binary and empty files are skipped with a warning; raises
    KnowledgeError when nothing is left."""
    kb = KnowledgeBase()
    budget = max_chars
    topics_seen: set[str | None] = set()
    for file, topic, root in _files(paths, kb.warnings, exclude):
        if budget <= 0:
            kb.truncated = True
            break
        chunks: list[Chunk] = []
        left = budget
        try:
            for number, chunk in enumerate(
                _chunks(_read(file, kb.warnings, root, kb.notes), str(file))
            ):
                if left <= 0:
                    kb.truncated = True
                    break
                left -= len(chunk.text)
                chunks.append(
                    Chunk(
                        chunk.text,
                        chunk.source,
                        number,
                        chunk.title,
                        chunk.line,
                        topic or "",
                        folder=topic or "",
                    )
                )
        except _Skip as skip:
            kb.warnings.append(f"{file}: skipped, {skip}")
            continue
        kb.files += 1
        budget = left
        if not chunks:
            kb.warnings.append(f"{file}: skipped, it holds no text")
            continue
        topics_seen.add(topic)
        if is_release_notes(file, chunks):
            chunks = [replace(c, release_notes=True) for c in chunks]
        kb.chunks.extend(chunks)
    if kb.truncated:
        kb.warnings.append(
            f"the knowledge base holds more than {max_chars:,} characters of text: "
            "the rest was left out"
        )
    unread = kb.notes.summary()
    if unread:
        kb.warnings.append(unread)
    if not kb.chunks:
        detail = f" ({'; '.join(kb.warnings[:3])})" if kb.warnings else ""
        raise KnowledgeError(f"the knowledge base holds no readable text{detail}")
    kb.folder_topics = None not in topics_seen
    return kb


def is_release_notes(file: Path, chunks: Sequence[Chunk]) -> bool:
    """A changelog or release notes: by its name (CHANGELOG.md, release-notes.md,
    HISTORY.rst, NEWS...) or by its sections, most of them titled by a version number."""
    stem = file.name.split(".")[0]
    if _RELEASE_NAMES.match(stem) or re.search(r"change-?log|release[-_ ]?notes", stem, re.I):
        return True
    titled = [c.title.rsplit(" > ", 1)[-1] for c in chunks if c.title]
    versions = sum(1 for t in titled if _VERSION.match(t.strip()))
    return versions >= 3 and versions * 2 >= len(chunks)


def _outside(file: Path, inside: Path) -> str | None:
    """Why `file`, found in the folder `inside`, is not read (None: it may be)."""
    try:
        target = file.resolve(strict=True)
    except (OSError, RuntimeError):
        return "cannot be read (No such file or directory)"
    if file.is_symlink() and not target.is_relative_to(inside):
        return "a link out of the knowledge base (links are followed only inside it)"
    if not target.is_file():
        return "not a regular file"
    return None


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _open(path: Path, *, follow: bool) -> BinaryIO:
    """The file opened for reading; `follow=False` refuses a link put there since."""
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | (0 if follow else _NOFOLLOW)
    fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _Skip("not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


class _Skip(Exception):
    """This file is skipped (the message says why)."""


def _read(
    path: Path, warnings: list[str], root: Path | None = None, notes: Notes | None = None
) -> Iterator[Block]:
    suffix = path.suffix.lower()
    try:
        handle = _open(path, follow=path.is_symlink())
    except OSError as exc:
        raise _Skip(f"cannot be read ({exc.strerror or exc})") from None
    if suffix == ".pdf":
        with handle:
            yield from _pdf_blocks(handle)
        return
    with handle:
        head = handle.read(_SNIFF)
        if b"\0" in head:
            raise _Skip("it is not text (binary content)")
        handle.seek(0)
        lines = _text_lines(handle, path)
        if suffix == ".ipynb":
            yield from _notebook(lines)
            return
        if suffix in (".html", ".htm"):
            yield from html_blocks(lines)
        elif suffix == ".jsonl":
            yield from _jsonl_blocks(lines, path, warnings)
        elif suffix in (".md", ".markdown", ".mdx"):
            yield from markdown_blocks(lines, PageTitles(path, root or path.parent))
        elif suffix in (".rst", ".rest"):
            yield from _rst_or_text(lines, path, root, notes)
        else:
            yield from _text_blocks(lines)


def _text_lines(handle: BinaryIO, path: Path) -> Iterator[str]:
    """The file's lines, decoded; a line longer than _LINE_BYTES comes in pieces of at
    most that (only the last ends with its line break), so what sits in memory is bounded
    whatever the file's shape, and reading stops as soon as the budget is spent."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    number = 1
    first = True
    while True:
        raw = handle.readline(_LINE_BYTES)
        if not raw:
            break
        if first:
            raw = raw.removeprefix(codecs.BOM_UTF8)
            first = False
        try:
            text = decoder.decode(raw)
        except UnicodeDecodeError:
            raise _Skip(f"line {number} is not UTF-8 text") from None
        if raw.endswith(b"\n"):
            number += 1
        if text:
            yield text
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise _Skip(f"line {number} is not UTF-8 text") from None


def _text_blocks(lines: Iterable[str]) -> Iterator[Block]:
    """Paragraphs of plain text (blank lines between them)."""
    paragraph: list[str] = []
    start = 1
    number = 1
    size = 0
    whole = True  # the piece starts a line (a long line comes in pieces)
    for line in lines:
        starts, whole = whole, line.endswith("\n")
        if starts and not line.strip():
            if paragraph:
                yield Block("\n".join(paragraph), start)
                paragraph, size = [], 0
            number += whole
            continue
        if not paragraph:
            start = number
        if starts or not paragraph:
            paragraph.append(line.rstrip("\r\n"))
        else:  # the rest of a long line
            paragraph[-1] += line.rstrip("\r\n")
        size += len(line)
        number += whole
        if size > _BLOCK_CHARS:  # a paragraph without end: cut, as a chunk would be
            yield Block("\n".join(paragraph), start)
            paragraph, size = [], 0
    if paragraph:
        yield Block("\n".join(paragraph), start)


def _rst_or_text(
    lines: Iterable[str], path: Path, root: Path | None, notes: Notes | None
) -> Iterator[Block]:
    """reStructuredText through docutils (a file of up to RST_MAX_CHARS), else as text."""
    held: list[str] = []
    size = 0
    pieces = iter(lines)
    for piece in pieces:
        held.append(piece)
        size += len(piece)
        if size > RST_MAX_CHARS:
            yield from _text_blocks(itertools.chain(held, pieces))
            return
    blocks = rst_blocks("".join(held), path, root, notes)
    yield from blocks if blocks else _text_blocks(held)


NOTEBOOK_MAX_CHARS = 32 << 20  # a larger notebook (outputs, images) is skipped


def _notebook(lines: Iterable[str]) -> Iterator[Block]:
    held: list[str] = []
    size = 0
    for piece in lines:
        size += len(piece)
        if size > NOTEBOOK_MAX_CHARS:
            raise _Skip(f"a notebook of more than {NOTEBOOK_MAX_CHARS >> 20} MB")
        held.append(piece)
    blocks = notebook_blocks("".join(held))
    if blocks is None:
        raise _Skip("not a readable notebook (not JSON with cells)")
    yield from blocks


def _jsonl_blocks(lines: Iterable[str], path: Path, warnings: list[str]) -> Iterator[Block]:
    bad = 0
    for number, line in enumerate(_whole_lines(lines), 1):
        if line is None:  # longer than a record may be
            bad += 1
            continue
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nested past Python's stack
            record = None
        text = record.get("text") if isinstance(record, dict) else None
        if not isinstance(text, str):
            bad += 1
            continue
        title = record.get("title") if isinstance(record, dict) else None
        # Each record is a section of its own: its title (or its line) heads it.
        name = title if isinstance(title, str) and title else f"record {number}"
        yield Block(name, number, 1, hard=True)
        for paragraph in re.split(r"\n\s*\n", text):
            if paragraph.strip():
                yield Block(paragraph.strip(), number)
    if bad:
        warnings.append(f"{path}: {bad} line(s) skipped (not a JSON object with a 'text' string)")


def _whole_lines(pieces: Iterable[str]) -> Iterator[str | None]:
    """Lines put back together from their pieces; None for one over _RECORD_CHARS."""
    parts: list[str] = []
    size = 0
    for piece in pieces:
        if size <= _RECORD_CHARS:
            parts.append(piece)
        size += len(piece)
        if piece.endswith("\n"):
            yield "".join(parts) if size <= _RECORD_CHARS else None
            parts, size = [], 0
    if parts:
        yield "".join(parts) if size <= _RECORD_CHARS else None


def _pdf_blocks(path: BinaryIO) -> Iterator[Block]:
    try:
        from pypdf import PdfReader  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise _Skip("PDF needs pypdf, which is not installed (pip install pypdf)") from None
    try:
        pages = [_page_text(page) for page in PdfReader(path).pages]
    except Exception as exc:  # pypdf raises many kinds on a damaged file
        raise _Skip(f"not a readable PDF ({exc})") from None
    yield from page_blocks(pages)


def _page_text(page: Any) -> str:
    """The page's text as laid out (words spaced as printed, blank lines between
    paragraphs); its plain extraction when the layout one fails on the page. The plain
    one splits words where a PDF spaces letters out ("th e", "WIP O")."""
    try:
        return page.extract_text(extraction_mode="layout") or ""
    except Exception:  # pypdf's layout mode fails on some pages that plain mode reads
        return page.extract_text() or ""


def _chunks(blocks: Iterable[Block], source: str) -> Iterator[Chunk]:
    """Paragraphs put together under their heading path, about CHUNK_CHARS each; a chunk's
    line is the line its first paragraph starts at; code blocks are kept fenced."""
    path: list[str] = []
    parts: list[str] = []
    size = 0
    start = 1

    title = ""

    def done() -> Chunk:
        return Chunk("\n\n".join(parts), source, 0, title, start)

    for block in blocks:
        if block.heading:
            if parts and (size >= MIN_CHUNK_CHARS or block.hard):
                yield done()
                parts, size = [], 0
            elif parts:  # a short section runs on into this one: its heading stays as text
                heading = " ".join(block.text.split())
                parts.append(heading)
                size += len(heading) + 2
            del path[block.heading - 1 :]
            path.extend([""] * (block.heading - 1 - len(path)))
            path.append(" ".join(block.text.split()))
            continue
        pieces = _code_pieces(block.text) if block.code else _pieces(block.text)
        cursor = lines_before = 0  # where in the block the last piece was found
        for number, piece in enumerate(pieces):
            if parts and size + len(piece) > CHUNK_CHARS:
                yield done()
                parts, size = [], 0
            if not parts:
                start = block.line
                if number and "\n" in block.text:  # a later piece: the line it starts at
                    key = piece.lstrip("`").removeprefix("\n").split("\n", 1)[0][:40]
                    at = block.text.find(key, cursor) if key else -1
                    if at >= 0:
                        lines_before += block.text.count("\n", cursor, at)
                        cursor = at
                    start = block.line + lines_before
                title = " > ".join(p for p in path if p)
            parts.append(piece)
            size += len(piece) + 2
    if parts:
        yield done()


def _code_pieces(code: str) -> Iterator[str]:
    """A code block fenced, cut at line ends into pieces of about CHUNK_CHARS. The fence is
    longer than any run of backticks opening a line of the code (Markdown showing
    Markdown), so the chunk's code block ends where the code does."""
    runs = [len(run) for run in _BACKTICKS.findall(code)] if "```" in code else []
    fence = "`" * max(3, max(runs, default=0) + 1) if runs else "```"

    def fenced(text: str) -> str:
        return f"{fence}\n{text}\n{fence}"

    lines: list[str] = []
    size = 0
    for line in code.split("\n"):
        while len(line) > CHUNK_CHARS:  # a line longer than a chunk: cut
            if lines:
                yield fenced("\n".join(lines))
                lines, size = [], 0
            yield fenced(line[:CHUNK_CHARS])
            line = line[CHUNK_CHARS:]
        if lines and size + len(line) > CHUNK_CHARS:
            yield fenced("\n".join(lines))
            lines, size = [], 0
        lines.append(line)
        size += len(line) + 1
    if lines:
        yield fenced("\n".join(lines))


def _pieces(text: str) -> Iterator[str]:
    """The paragraph, or its sentences grouped up to CHUNK_CHARS when it is longer.

    Linear in the text: it walks the sentence ends by position and slices only what it
    yields (a sentence with no end in sight is cut every CHUNK_CHARS characters), never
    copying the rest of the text, so a 50 MB line costs what 50 MB of lines cost."""
    text = text.strip()
    if len(text) <= CHUNK_CHARS:
        yield text
        return
    group: list[str] = []
    size = 0
    start = 0
    ends = _SENTENCE_END.finditer(text)
    while start < len(text):
        end = next(ends, None)
        stop, after = (end.start(), end.end()) if end else (len(text), len(text))
        while stop - start > CHUNK_CHARS:  # no sentence end: cut it
            if group:
                yield " ".join(group)
                group, size = [], 0
            yield text[start : start + CHUNK_CHARS]
            start += CHUNK_CHARS
        sentence = text[start:stop]
        start = after
        if group and size + len(sentence) > CHUNK_CHARS:
            yield " ".join(group)
            group, size = [], 0
        group.append(sentence)
        size += len(sentence) + 1
    if group:
        yield " ".join(group)
