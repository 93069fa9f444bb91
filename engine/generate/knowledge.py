"""A knowledge base: documents read from files, cut into chunks, each with its topic.

Files: Markdown (`.md`, `.markdown`), text (`.txt`), HTML (`.html`, `.htm`, read with the
standard library's html.parser), JSON Lines (`.jsonl`: the `text` field of each line,
with an optional `title`), and PDF when pypdf is installed. Files are read as streams,
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

Topics: the first-level subfolders of a folder given are its topics (files directly in
it are "general"); without subfolders, topics are found by clustering (topics.py).
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import BinaryIO

SUFFIXES = (".md", ".markdown", ".txt", ".text", ".html", ".htm", ".jsonl", ".pdf")
CHUNK_CHARS = 1500  # a chunk grows to about this many characters
MIN_CHUNK_CHARS = 200  # smaller pieces join the next one under the same heading
MAX_KNOWLEDGE_CHARS = 10_000_000  # text kept from a knowledge base (10 M characters)
_SNIFF = 8192
_LINE_BYTES = 1 << 20  # a longer line is read in pieces of this many bytes
_BLOCK_CHARS = 1 << 20  # a paragraph longer than this is cut into blocks
_RECORD_CHARS = 16 << 20  # a JSON Lines record longer than this is skipped
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
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
    line: int = 1  # the 1-based line (or JSON Lines record) it starts at
    topic: str = ""

    @property
    def where(self) -> str:
        return f"{self.source}#{self.index}"


@dataclass
class KnowledgeBase:
    chunks: list[Chunk] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files: int = 0
    truncated: bool = False
    # Topics given by folders (None: to be found by clustering).
    folder_topics: bool = False

    def topics(self) -> dict[str, int]:
        """Each topic with its chunk count, largest first (then by name)."""
        counts: dict[str, int] = {}
        for chunk in self.chunks:
            counts[chunk.topic] = counts.get(chunk.topic, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


# -- files ---------------------------------------------------------------------------------


def _files(paths: Iterable[str | Path], warnings: list[str]) -> Iterator[tuple[Path, str | None]]:
    """Each file to read with its folder topic (None when its folder has no subfolders)."""
    for given in paths:
        path = Path(given)
        if not path.exists():
            raise KnowledgeError(f"{given}: no such file or folder")
        if path.is_file():
            yield path, None
            continue
        try:
            subfolders = sorted(
                p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")
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
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                file = Path(root) / name
                if name.startswith(".") or file.suffix.lower() not in SUFFIXES:
                    continue
                found = True
                why = _outside(file, inside)
                if why:
                    warnings.append(f"{file}: skipped, {why}")
                    continue
                topic = None
                if subfolders:
                    relative = file.relative_to(path).parts
                    topic = relative[0] if len(relative) > 1 else "general"
                yield file, topic
        if not found:
            warnings.append(f"{given}: no {', '.join(SUFFIXES)} file in this folder")


def load_knowledge_base(
    paths: Iterable[str | Path], *, max_chars: int = MAX_KNOWLEDGE_CHARS
) -> KnowledgeBase:
    """Read and chunk every file of `paths` (files or folders). Unreadable, binary and empty
    files are skipped with a warning; raises KnowledgeError when nothing is left."""
    kb = KnowledgeBase()
    budget = max_chars
    topics_seen: set[str | None] = set()
    for file, topic in _files(paths, kb.warnings):
        if budget <= 0:
            kb.truncated = True
            break
        chunks: list[Chunk] = []
        left = budget
        try:
            for number, chunk in enumerate(_chunks(_read(file, kb.warnings), str(file))):
                if left <= 0:
                    kb.truncated = True
                    break
                left -= len(chunk.text)
                chunks.append(
                    Chunk(chunk.text, chunk.source, number, chunk.title, chunk.line, topic or "")
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
        kb.chunks.extend(chunks)
    if kb.truncated:
        kb.warnings.append(
            f"the knowledge base holds more than {max_chars:,} characters of text: "
            "the rest was left out"
        )
    if not kb.chunks:
        detail = f" ({'; '.join(kb.warnings[:3])})" if kb.warnings else ""
        raise KnowledgeError(f"the knowledge base holds no readable text{detail}")
    kb.folder_topics = None not in topics_seen
    return kb


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


@dataclass
class _Block:
    """A heading or a paragraph as read."""

    text: str
    line: int
    heading: int = 0  # its level, 0 for a paragraph
    hard: bool = False  # a heading that always starts a new chunk (a JSON Lines record)


def _read(path: Path, warnings: list[str]) -> Iterator[_Block]:
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
        if suffix in (".html", ".htm"):
            yield from _html_blocks(lines)
        elif suffix == ".jsonl":
            yield from _jsonl_blocks(lines, path, warnings)
        else:
            yield from _text_blocks(lines, markdown=suffix in (".md", ".markdown"))


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


def _text_blocks(lines: Iterable[str], *, markdown: bool) -> Iterator[_Block]:
    paragraph: list[str] = []
    start = 1
    fence = False
    number = 1
    size = 0
    whole = True  # the piece starts a line (a long line comes in pieces)
    for line in lines:
        starts, whole = whole, line.endswith("\n")
        if starts:
            stripped = line.strip()
            if markdown and stripped.startswith(("```", "~~~")):
                fence = not fence
            heading = None if (fence or not markdown) else _HEADING.match(stripped)
            if heading or (not stripped and not fence):
                if paragraph:
                    yield _Block("\n".join(paragraph), start)
                    paragraph, size = [], 0
                if heading:
                    yield _Block(heading.group(2), number, len(heading.group(1)))
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
            yield _Block("\n".join(paragraph), start)
            paragraph, size = [], 0
    if paragraph:
        yield _Block("\n".join(paragraph), start)


class _HTMLText(HTMLParser):
    """Headings and paragraphs of an HTML document; scripts, styles and markup left out."""

    _BREAKS = frozenset(
        [
            "p",
            "div",
            "li",
            "ul",
            "ol",
            "br",
            "tr",
            "table",
            "section",
            "article",
            "blockquote",
            "pre",
            "dd",
            "dt",
            "hr",
        ]
    )
    _SKIP = frozenset(("script", "style", "noscript", "template", "head"))

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[_Block] = []
        self._text: list[str] = []
        self._heading = 0
        self._skipping = 0

    def _flush(self) -> None:
        text = " ".join(" ".join(self._text).split())
        if text:
            self.blocks.append(_Block(text, self.getpos()[0], self._heading))
        self._text = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in self._SKIP:
            self._skipping += 1
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self._flush()
            self._heading = int(tag[1])
        elif tag in self._BREAKS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self._skipping = max(0, self._skipping - 1)
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self._flush()
            self._heading = 0
        elif tag in self._BREAKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self._text.append(data)


def _html_blocks(lines: Iterable[str]) -> Iterator[_Block]:
    parser = _HTMLText()
    for line in lines:
        parser.feed(line)
        if parser.blocks:
            yield from parser.blocks
            parser.blocks = []
    parser.close()
    parser._flush()  # noqa: SLF001 (its own class, in this module)
    yield from parser.blocks


def _jsonl_blocks(lines: Iterable[str], path: Path, warnings: list[str]) -> Iterator[_Block]:
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
        yield _Block(name, number, 1, hard=True)
        for paragraph in re.split(r"\n\s*\n", text):
            if paragraph.strip():
                yield _Block(paragraph.strip(), number)
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


def _pdf_blocks(path: BinaryIO) -> Iterator[_Block]:
    try:
        from pypdf import PdfReader  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise _Skip("PDF needs pypdf, which is not installed (pip install pypdf)") from None
    try:
        reader = PdfReader(path)
        for page_number, page in enumerate(reader.pages, 1):
            for paragraph in re.split(r"\n\s*\n", page.extract_text() or ""):
                if paragraph.strip():
                    yield _Block(paragraph.strip(), page_number)
    except Exception as exc:  # pypdf raises many kinds on a damaged file
        raise _Skip(f"not a readable PDF ({exc})") from None


def _chunks(blocks: Iterable[_Block], source: str) -> Iterator[Chunk]:
    """Paragraphs put together under their heading path, about CHUNK_CHARS each."""
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
            del path[block.heading - 1 :]
            path.extend([""] * (block.heading - 1 - len(path)))
            path.append(" ".join(block.text.split()))
            continue
        for piece in _pieces(block.text):
            if parts and size + len(piece) > CHUNK_CHARS:
                yield done()
                parts, size = [], 0
            if not parts:
                start = block.line
                title = " > ".join(p for p in path if p)
            parts.append(piece)
            size += len(piece) + 2
    if parts:
        yield done()


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
