"""Documents without their markup: Markdown, reStructuredText and HTML become headings,
paragraphs and code blocks of plain text, each with the line its text starts at.

What goes: tags, attributes, inline styles, scripts, URLs (a link keeps its text, an
image its alt text), front matter (a `---` or `+++` block opening a Markdown file,
reStructuredText's docinfo), comments, link targets. What stays: the text as a reader
sees it, headings (they give chunks their titles and boundaries) and code blocks, kept as
code (`code=True`: chunks show them fenced; topics do not take words from them).

Markdown is read with markdown-it-py (CommonMark, HTML blocks on, tables), in windows cut
at blank lines outside fenced code, so a huge document is never parsed whole; HTML (files,
or HTML blocks inside Markdown) with the standard library's html.parser; reStructuredText
with docutils, with file inclusion and raw passthrough off (a document never reads
another file). Lines are 1-based lines of the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

_URL = re.compile(r"<?\bhttps?://[^\s<>()\]]+>?")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
WINDOW_CHARS = 64 * 1024  # Markdown is parsed in windows of about this size
HARD_WINDOW_CHARS = 1 << 20  # a window without a blank line is cut here


@dataclass
class Block:
    """A heading, a paragraph or a code block, as read."""

    text: str
    line: int
    heading: int = 0  # its level, 0 for a paragraph
    hard: bool = False  # a heading that always starts a new chunk (a JSON Lines record)
    code: bool = False  # a code block: kept as code, never a source of topic words


def without_urls(text: str) -> str:
    return " ".join(_URL.sub("", text).split()) if "://" in text else text


# -- HTML --------------------------------------------------------------------------------


class HTMLText(HTMLParser):
    """Headings, paragraphs and code blocks of HTML; scripts, styles and markup left out.

    Each block's line is where its first character of text is (`line_offset` is added:
    the line before an HTML block inside a Markdown file)."""

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
            "dd",
            "dt",
            "hr",
            "header",
            "footer",
            "nav",
            "aside",
            "main",
            "figure",
            "figcaption",
            "details",
            "summary",
            "form",
        ]
    )
    _SKIP = frozenset(("script", "style", "noscript", "template", "head", "svg", "iframe"))

    def __init__(self, line_offset: int = 0) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[Block] = []
        self.line_offset = line_offset
        self._text: list[str] = []
        self._start = 0
        self._heading = 0
        self._skipping = 0
        self._pre = 0

    def flush(self) -> None:
        if self._pre:
            text = "".join(self._text).strip("\n")
            if text.strip():
                self.blocks.append(Block(text, self._start, code=True))
        else:
            text = " ".join(" ".join(self._text).split())
            if text:
                self.blocks.append(Block(text, self._start, self._heading))
        self._text = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in self._SKIP:
            self._skipping += 1
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.flush()
            self._heading = int(tag[1])
        elif tag == "pre":
            self.flush()
            self._pre += 1
        elif tag in self._BREAKS and not self._pre:
            self.flush()

    def handle_startendtag(self, tag: str, attrs: Any) -> None:
        if tag in self._BREAKS and not self._pre:
            self.flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self._skipping = max(0, self._skipping - 1)
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.flush()
            self._heading = 0
        elif tag == "pre":
            self.flush()
            self._pre = max(0, self._pre - 1)
        elif tag in self._BREAKS and not self._pre:
            self.flush()

    def handle_data(self, data: str) -> None:
        if self._skipping:
            return
        if not self._pre:
            data = without_urls(data) if "://" in data else data
        if not any(part.strip() for part in self._text) and data.strip():
            lead = len(data) - len(data.lstrip())
            self._start = self.line_offset + self.getpos()[0] + data.count("\n", 0, lead)
            if self._pre:
                data = data.lstrip("\n")
        self._text.append(data)

    def close(self) -> None:
        super().close()
        self.flush()


def html_blocks(lines: Iterable[str]) -> Iterator[Block]:
    parser = HTMLText()
    for line in lines:
        parser.feed(line)
        if parser.blocks:
            yield from parser.blocks
            parser.blocks = []
    parser.close()
    yield from parser.blocks


def html_text_blocks(text: str, line_offset: int) -> list[Block]:
    parser = HTMLText(line_offset)
    parser.feed(text)
    parser.close()
    return parser.blocks


# -- Markdown ----------------------------------------------------------------------------

_FRONT_MATTER = {"---": ("---", "..."), "+++": ("+++",)}
_FRONT_MATTER_LINES = 500  # an opening `---` not closed within this many lines is text


def _whole_lines(pieces: Iterable[str]) -> Iterator[str]:
    """Lines from pieces; a line longer than HARD_WINDOW_CHARS comes cut at that size."""
    parts: list[str] = []
    size = 0
    for piece in pieces:
        parts.append(piece)
        size += len(piece)
        if piece.endswith("\n") or size >= HARD_WINDOW_CHARS:
            line = "".join(parts)
            yield line if line.endswith("\n") else line + "\n"
            parts, size = [], 0
    if parts:
        yield "".join(parts)


def _without_front_matter(lines: Iterator[str]) -> Iterator[tuple[int, str]]:
    """(line number, line) of the document after its front matter, if it has one."""
    first = next(lines, None)
    if first is None:
        return
    closers = _FRONT_MATTER.get(first.strip())
    number = 1
    if closers is not None:
        held = [first]
        for line in lines:
            held.append(line)
            if line.strip() in closers:
                number = len(held) + 1  # skipped: the block and its closing line
                held = []
                break
            if len(held) > _FRONT_MATTER_LINES:
                break
        for line in held:  # no front matter after all: the lines are text
            yield number, line
            number += 1
    else:
        yield number, first
        number += 1
    for line in lines:
        yield number, line
        number += 1


def _windows(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(first line number, text) of windows of whole lines, cut at a blank line outside
    fenced code once past WINDOW_CHARS (or anywhere past HARD_WINDOW_CHARS)."""
    window: list[str] = []
    size = 0
    start = 1
    fence: str | None = None
    for number, line in _without_front_matter(_whole_lines(lines)):
        if not window:
            start = number
        window.append(line)
        size += len(line)
        opened = _FENCE.match(line)
        if opened:
            marker = opened.group(1)
            if fence is None:
                fence = marker[0] * 3
            elif marker.startswith(fence):
                fence = None
        if (size >= WINDOW_CHARS and fence is None and not line.strip()) or (
            size >= HARD_WINDOW_CHARS
        ):
            yield start, "".join(window)
            window, size = [], 0
    if window:
        yield start, "".join(window)


_md: Any = None


def _markdown() -> Any:
    global _md
    if _md is None:
        from markdown_it import MarkdownIt

        _md = MarkdownIt("commonmark", {"html": True}).enable("table")
    return _md


def _inline_text(token: Any) -> str:
    out: list[str] = []
    autolink = 0
    for child in token.children or ():
        kind = child.type
        if kind == "text":
            if not autolink:
                out.append(child.content)
        elif kind == "code_inline":
            out.append(child.content)
        elif kind in ("softbreak", "hardbreak"):
            out.append("\n")
        elif kind == "image":
            out.append(child.content)  # its alt text
        elif kind == "link_open":
            autolink += child.markup == "autolink"
        elif kind == "link_close":
            autolink = max(0, autolink - (child.markup == "autolink"))
        elif kind == "html_inline" and child.content.lower().startswith("<br"):
            out.append("\n")
        # html_inline (tags), and anything else without text of its own: dropped
    text = "".join(out)
    return "\n".join(" ".join(without_urls(line).split()) for line in text.split("\n")).strip()


def markdown_blocks(lines: Iterable[str]) -> Iterator[Block]:
    for start, text in _windows(lines):
        yield from _markdown_window(text, start)


def _markdown_window(text: str, start: int) -> Iterator[Block]:
    tokens = _markdown().parse(text)
    heading = 0
    lists = 0
    table: list[list[str]] | None = None
    table_line = 0
    for token in tokens:
        kind = token.type
        line = start + token.map[0] if token.map else start
        if kind == "heading_open":
            heading = int(token.tag[1])
        elif kind == "heading_close":
            heading = 0
        elif kind in ("bullet_list_open", "ordered_list_open"):
            lists += 1
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists -= 1
        elif kind == "table_open":
            table, table_line = [], line
        elif kind == "tr_open" and table is not None:
            table.append([])
        elif kind == "table_close" and table is not None:
            rows = [" | ".join(cell for cell in row) for row in table if any(row)]
            if rows:
                yield Block("\n".join(rows), table_line)
            table = None
        elif kind == "inline":
            content = _inline_text(token)
            if table is not None:
                if table:
                    table[-1].append(" ".join(content.split()))
            elif heading:
                if content:
                    yield Block(" ".join(content.split()), line, heading)
            elif content:
                yield Block(("- " + content) if lists else content, line)
        elif kind in ("fence", "code_block"):
            code = token.content.rstrip("\n")
            if code.strip():
                yield Block(code, line, code=True)
        elif kind == "html_block":
            yield from html_text_blocks(token.content, line - 1)


# -- reStructuredText --------------------------------------------------------------------

RST_MAX_CHARS = 4 << 20  # a larger reStructuredText file is read as plain text


def rst_blocks(text: str) -> list[Block]:
    """The blocks of a reStructuredText document (docutils), or [] when it cannot be
    parsed (the caller reads it as text)."""
    import io

    try:
        from docutils import nodes  # type: ignore[import-untyped,unused-ignore]
        from docutils.core import publish_doctree  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return []
    settings = {
        "report_level": 5,
        "halt_level": 5,
        "file_insertion_enabled": False,
        "raw_enabled": False,
        "_disable_config": True,
        "warning_stream": io.StringIO(),
        "input_encoding": "unicode",
    }
    try:
        tree = publish_doctree(text, settings_overrides=settings)
    except Exception:  # docutils raises many kinds on odd input
        return []
    source = text.splitlines()
    blocks: list[Block] = []
    skipped = (
        nodes.docinfo,
        nodes.comment,
        nodes.target,
        nodes.substitution_definition,
        nodes.system_message,
        nodes.raw,
    )

    def where(node: Any, first: str) -> int:
        """The line where the node's text starts: docutils' own line, checked against the
        source (it gives a title's underline, or a directive's last line)."""
        reported = node.line or 0
        if not reported:
            parent = node.parent
            while parent is not None and not getattr(parent, "line", None):
                parent = parent.parent
            reported = getattr(parent, "line", 0) or 1
        word = first.split()[0] if first.split() else ""
        if word:
            for number in range(min(reported, len(source)), max(0, reported - 8), -1):
                if word in source[number - 1]:
                    return number
        return reported

    def walk(node: Any, depth: int) -> None:
        for child in node.children:
            if isinstance(child, skipped):
                continue
            if isinstance(child, nodes.section):
                walk(child, depth + 1)
            elif isinstance(child, nodes.title):
                title = " ".join(child.astext().split())
                if title:
                    blocks.append(Block(title, where(child, title), max(1, depth)))
            elif isinstance(child, (nodes.literal_block, nodes.doctest_block)):
                code = child.astext().rstrip("\n")
                if code.strip():
                    blocks.append(Block(code, where(child, code), code=True))
            elif isinstance(child, (nodes.paragraph, nodes.line_block, nodes.rubric)):
                # Blank parts dropped: docutils joins a line block's lines with blank lines.
                parts = (
                    " ".join(without_urls(part).split()) for part in child.astext().split("\n")
                )
                content = "\n".join(part for part in parts if part)
                if content:
                    prefix = "- " if isinstance(child.parent, nodes.list_item) else ""
                    blocks.append(Block(prefix + content, where(child, content)))
            elif isinstance(child, nodes.Element):
                walk(child, depth)

    walk(tree, 1)
    return blocks
