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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .shown_text import VERSION_WORDS, Notes, cross_reference_text

if TYPE_CHECKING:
    from .page_titles import PageTitles

_URL = re.compile(r"<?\bhttps?://[^\s<>()\]]+>?")
_CODE_TITLE = re.compile(r"\btitle=\"([^\"]*)\"")  # ``` py title="bubble_sort.py"
_INLINE_HIGHLIGHT = re.compile(r"^#!\w[\w+-]*\s+")  # pymdownx.inlinehilite: `#!python x`
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


@dataclass
class _Open:
    """An element being read through (its tag, and how deep the same tag nests in it)."""

    tag: str
    depth: int = 1


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
    # A site's chrome, not its page: navigation, sidebars, search, banners. A header or
    # footer is chrome outside an article or main (inside one it holds the page's title).
    _CHROME = frozenset(("nav", "aside"))
    _CHROME_ROLES = frozenset(("navigation", "banner", "contentinfo", "complementary", "search"))
    _PAGE = frozenset(("main", "article"))

    def __init__(self, line_offset: int = 0) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[Block] = []
        self.line_offset = line_offset
        self._text: list[str] = []
        self._start = 0
        self._heading = 0
        self._skipping = 0
        self._chrome: _Open | None = None  # the chrome element being skipped
        self._page = 0  # depth inside <main>/<article> (or role=main)
        self._main: _Open | None = None  # the <main> being read
        self.in_main: list[bool] = []  # each block: inside the page's <main>
        self._pre = 0

    def flush(self) -> None:
        if self._pre:
            text = "".join(self._text).strip("\n")
            if text.strip():
                self.blocks.append(Block(text, self._start, code=True))
                self.in_main.append(self._main is not None)
        else:
            text = " ".join(" ".join(self._text).split())
            if text:
                self.blocks.append(Block(text, self._start, self._heading))
                self.in_main.append(self._main is not None)
        self._text = []

    def _chrome_starts(self, tag: str, attrs: Any) -> bool:
        """Whether this element opens (or, inside chrome, nests in) the site's chrome."""
        if self._chrome is not None:
            self._chrome.depth += tag == self._chrome.tag
            return True
        role = next((str(v).lower() for k, v in attrs if k == "role" and v), "")
        classes = next((str(v).split() for k, v in attrs if k == "class" and v), [])
        outside = not self._page and tag in ("header", "footer")
        # A heading's permalink (Sphinx's and MkDocs' `¶`) shows only under the pointer.
        permalink = tag == "a" and "headerlink" in classes
        if tag in self._CHROME or role in self._CHROME_ROLES or outside or permalink:
            if not permalink:  # a permalink sits inside its heading's text
                self.flush()
            self._chrome = _Open(tag)
            return True
        return False

    def _chrome_ends(self, tag: str) -> bool:
        if self._chrome is None:
            return False
        if tag == self._chrome.tag:
            self._chrome.depth -= 1
            if not self._chrome.depth:
                self._chrome = None
        return True

    def _page_tags(self, tag: str, attrs: Any, opening: bool) -> None:
        role = next((str(v).lower() for k, v in attrs if k == "role" and v), "")
        if tag in self._PAGE or role == "main":
            self._page += 1 if opening else -1
            self._page = max(0, self._page)
        if opening and (tag == "main" or role == "main") and self._main is None:
            self.flush()
            self._main = _Open(tag)
        elif self._main is not None and tag == self._main.tag:
            self._main.depth += 1 if opening else -1
            if not self._main.depth:
                self.flush()
                self._main = None

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if self._chrome_starts(tag, attrs):
            return
        self._page_tags(tag, attrs, True)
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
        if self._chrome_ends(tag):
            return
        self._page_tags(tag, (), False)
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
        if self._skipping or self._chrome is not None:
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


HTML_HELD_CHARS = 1 << 20  # text held before a <main> shows up; past it, read as is


def html_blocks(lines: Iterable[str]) -> Iterator[Block]:
    """The blocks of an HTML page, as they are parsed: its main content (the `<main>`
    element when it has one: what comes before it is held, up to HTML_HELD_CHARS, and
    dropped when it opens), without the site's navigation, sidebars, banners, footers."""
    parser = HTMLText()
    held: list[Block] = []
    held_chars = 0
    seen_main = streaming = False

    def taken() -> Iterator[Block]:
        nonlocal held, held_chars, seen_main, streaming
        for block, inside in zip(parser.blocks, parser.in_main, strict=True):
            if inside:
                seen_main, held = True, []
                yield block
            elif seen_main:
                continue  # after the page's main: the site's chrome
            elif streaming:
                yield block
            else:
                held.append(block)
                held_chars += len(block.text)
                if held_chars > HTML_HELD_CHARS:  # no <main> in sight: read as it comes
                    streaming = True
                    yield from held
                    held = []
        parser.blocks, parser.in_main = [], []

    for line in lines:
        parser.feed(line)
        if parser.blocks:
            yield from taken()
    parser.close()
    yield from taken()
    yield from held


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


# MkDocs Material (pymdownx) and Docusaurus (MDX) block markers, read line by line before
# markdown-it sees the text: each marker line gives its title (what the page shows) and
# the 4-space body of an admonition, a details block or a content tab is dedented, so it
# is read as text and not as an indented code block. One line in, one line out: the
# lines keep their numbers.
# `!!! note "Title"`, `???+ tip`, `=== "Tab"`: an admonition or details block needs its
# kind, a tab its quoted title (a bare `===` is a setext heading's underline).
_INDENTED_BLOCK = re.compile(
    r"^(?:(!!!|\?\?\?\+?)[ \t]*([\w-]+(?:[ \t]+[\w-]+)*)[ \t]*(?:\"(.*)\")?"
    r"|(===\+?)[ \t]*\"(.*)\")[ \t]*$"
)
_FENCED_BLOCK = re.compile(
    r"^(:{3,}|/{3,})[ \t]*(\{[\w:.+-]+\}|[\w-]+)?(?:\[(.*)\])?[ \t]*(?:\|[ \t]*)?(.*)$"
)
_MDX_LINE = re.compile(
    r"^(import[ \t]+(?:.+[ \t]from[ \t]+)?['\"].*|export[ \t]+(?:default|const|function|let)\b.*"
    r"|--8<--.*|\{\*[ \t].*\*\}[ \t]*|\{/\*.*\*/\}[ \t]*|\[TOC\][ \t]*"
    r"|\([\w:./-]+\)=[ \t]*)$"  # MyST targets, (label)=
)
_ATTRIBUTES = re.compile(  # { .class #id }, { style="color: red" }, {: width=300 }
    # (a key=value list opens with a space or colon, or quotes its value: `{a=1}` is code)
    r"[ \t]*\{(?::?[ \t]*[#.][^{}\n]*|(?::[ \t]*|[ \t]+)[\w-]+=[^{}\n]*"
    r"|[\w-]+=(?:\"[^\"\n]*\"|'[^'\n]*')[^{}\n]*)\}"
)
# Footnotes (Python-Markdown's, GitHub's): a reference `[^1]` is shown as a superscript
# number (left out here), a definition `[^1]: text` (its body indented below) as a note
# at the page's end (its text here, where it is written).
_FOOTNOTE_REFERENCE = re.compile(r"\[\^[^\]\s]+\]")
_FOOTNOTE_DEFINITION = re.compile(r"^[ \t]*\[\^[^\]\s]+\]:")
_ICON = re.compile(r":(?:material|octicons|fontawesome|simple|twemoji)-[\w-]+:")
_ANNOTATION = re.compile(r"[ \t]*(?:#|//|--|;|/\*|<!--)[ \t]*\(\d+\)!?[ \t]*(?:\*/|-->)?[ \t]*$")


def _lead(line: str) -> int:
    width = 0
    for char in line:
        if char == " ":
            width += 1
        elif char == "\t":
            width += 4 - width % 4
        else:
            break
    return width


def _dedented(line: str, columns: int) -> str:
    """The line without `columns` columns of leading indentation (tabs count 4)."""
    width = 0
    for position, char in enumerate(line):
        if width >= columns or char not in " \t":
            return " " * (width - columns) + line[position:] if width > columns else line[position:]
        width += 1 if char == " " else 4 - width % 4
    return ""


def _block_markup(numbered: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """The lines as a reader sees them: admonitions, details and tabs (`!!!`, `???`,
    `===`, `:::`, `///`) as their titles and dedented bodies, MDX imports and exports,
    snippet and code includes out, attribute lists and icons out, code annotations
    (`# (1)!`) out of code lines."""
    depth = 0  # open indented blocks (admonitions, details, tabs): 4 columns each
    markers: list[int] = []  # the indent of each open block's marker line
    fence: str | None = None
    options = False  # after a MyST colon fence's opening line: its option lines
    for number, line in numbered:
        end = "\n" if line.endswith("\n") else ""
        body = line.rstrip("\r\n")
        if body.strip():
            while markers and _lead(body) < markers[-1] + 4:
                markers.pop()
                depth -= 1
        if depth:
            body = _dedented(body, 4 * depth)
        opened = _FENCE.match(body)
        if fence is not None:
            if opened and opened.group(1).startswith(fence) and not body.strip(" `~"):
                fence = None
            elif "(" in body:
                body = _ANNOTATION.sub("", body)
            yield number, body + end
            continue
        if opened:
            fence = opened.group(1)
            yield number, body + end
            continue
        stripped = body.strip()
        note = _FOOTNOTE_DEFINITION.match(body) if stripped[:2] == "[^" else None
        if note:  # `[^1]: text` and its lines indented by 4: the note's text, as shown
            markers.append(_lead(body) // 4 * 4)  # (`  [^1]:`: its body is at 4, not 6)
            depth += 1
            yield number, " " * _lead(body) + _inline_markup(body[note.end() :].strip()) + end
            continue
        marker = _INDENTED_BLOCK.match(stripped) if stripped[:1] in "!?=" else None
        if marker:
            if marker.group(4):  # a content tab: its title
                shown = _inline_markup(marker.group(5))
            else:
                kind, title = marker.group(2).split(" ")[0], marker.group(3)
                shown = _inline_markup(title if title is not None else _kind_name(kind))
            markers.append(_lead(body))
            depth += 1
            yield number, " " * _lead(body) + shown + end
            continue
        block = _FENCED_BLOCK.match(stripped) if stripped[:3] in (":::", "///") else None
        if block:
            kind, bracket, rest = block.group(2) or "", block.group(3), block.group(4)
            myst = kind.startswith("{")  # MyST's colon fence, :::{note}
            kind = kind.strip("{}").rsplit(":", 1)[-1]
            if kind in VERSION_WORDS:
                version, _, more = rest.partition(" ")
                rest = f"{VERSION_WORDS[kind]} {version}" + (f": {more}" if more else ".")
            shown = _inline_markup(bracket or rest or _kind_name(kind))
            options = myst  # its `:class: x` lines come next
            yield number, shown + end
            continue
        if options and _MYST_OPTION.match(body):
            yield number, end
            continue
        options = False
        if _MDX_LINE.match(stripped) or (number > 1 and stripped.startswith("+++")):
            yield number, end  # (+++ past the first line: a MyST notebook's cell break)
            continue
        yield number, _inline_markup(body) + end


def _kind_name(kind: str) -> str:
    """How a theme titles an admonition given only its kind: `see-also` -> "See also"."""
    return kind.replace("-", " ").replace("_", " ").capitalize()


def _inline_markup(text: str) -> str:
    """The text without attribute lists (`{ .class }`, `{#id}`), icon shortcodes and
    footnote references (`[^1]`)."""
    if "[^" in text:
        text = _FOOTNOTE_REFERENCE.sub("", text)
    if "{" in text:
        text = _ATTRIBUTES.sub("", text)
    if ":" in text:
        text = _ICON.sub("", text)
    return text


def _windows(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(first line number, text) of windows of whole lines, cut at a blank line outside
    fenced code once past WINDOW_CHARS (or anywhere past HARD_WINDOW_CHARS)."""
    window: list[str] = []
    size = 0
    start = 1
    fence: str | None = None
    for number, line in _block_markup(_without_front_matter(_whole_lines(lines))):
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


_MYST_ROLE = re.compile(r"\{([\w:.+-]+)\}$")
_MYST_DIRECTIVE = re.compile(r"^\{([\w:.+-]+)\}[ \t]*(.*)$")
_MYST_OPTION = re.compile(r"^[ \t]*:[\w-]+:.*$")
_MYST_CODE = frozenset(("code-block", "code", "sourcecode", "code-cell", "ipython", "doctest"))
_MYST_SHOWS_NOTHING = frozenset(
    ("toctree", "index", "include", "literalinclude", "contents", "highlight", "raw", "eval-rst")
)
_ADMONITIONS = frozenset(
    {"note", "warning", "tip", "hint", "important", "attention", "caution", "danger"}
    | {"error", "seealso", "todo"}
)


def _inline_text(token: Any, titles: PageTitles | None = None) -> str:
    """An inline token's text as shown; `titles` gives a linked page's title (a link
    without text, a `{doc}` role without one show it, as Sphinx does)."""
    out: list[str] = []
    autolink = 0
    opened, href = 0, ""  # where the open link's text starts, and where it points
    for child in token.children or ():
        kind = child.type
        if kind == "text":
            if not autolink:
                out.append(_URL.sub("", child.content) if "://" in child.content else child.content)
        elif kind == "code_inline":
            role = _MYST_ROLE.search(out[-1]) if out else None
            if role:  # MyST's {role}`text`: the role's text, as Sphinx shows it
                out[-1] = out[-1][: role.start()]
                name = role.group(1).rsplit(":", 1)[-1]
                if name == "doc" and "<" not in child.content:  # the page's title, else its path
                    title = titles.title(child.content) if titles else None
                    out.append(title or _link_target_text(child.content))
                else:
                    out.append(cross_reference_text(child.content, name))
            else:  # as shown: a code span keeps its URLs; `#!python x` is x, highlighted
                out.append(_INLINE_HIGHLIGHT.sub("", child.content))
        elif kind in ("softbreak", "hardbreak"):
            out.append("\n")
        elif kind == "image":
            out.append(child.content)  # its alt text
        elif kind == "link_open":
            autolink += child.markup == "autolink"
            opened, href = len(out), str(child.attrGet("href") or "")
        elif kind == "link_close":
            autolink = max(0, autolink - (child.markup == "autolink"))
            if not "".join(out[opened:]).strip():  # `[](page.md)`: MyST shows its target
                title = titles.title(href) if titles else None
                out.append(title or _link_target_text(href))
        elif kind == "html_inline" and child.content.lower().startswith("<br"):
            out.append("\n")
        # html_inline (tags), and anything else without text of its own: dropped
    text = "".join(out)
    return "\n".join(" ".join(line.split()) for line in text.split("\n")).strip()


def _link_target_text(href: str) -> str:
    """The text a link without any shows when its target is not a page of the knowledge
    base: its path (`../guide/setup.md` -> `guide/setup.md`), as Sphinx shows a target it
    cannot resolve. Nothing for a URL (URLs go) or an anchor of the page."""
    if "://" in href or href.startswith(("mailto:", "#")):
        return ""
    path = href.split("#", 1)[0]
    while path.startswith(("../", "./")):
        path = path.split("/", 1)[1]
    return path


def _myst_directive(token: Any, line: int, titles: PageTitles | None) -> Iterator[Block]:
    """A MyST directive (```{note} Title): its title and content read as Markdown, code
    for a code directive, nothing for one a page does not show (`toctree`...)."""
    found = _MYST_DIRECTIVE.match(token.info.strip())
    if not found:
        return
    name, argument = found.group(1).rsplit(":", 1)[-1], found.group(2).strip()
    if name in _MYST_SHOWS_NOTHING:
        return
    lines = token.content.split("\n")
    skipped = 0  # option lines (`:caption: x`) or a `---` block of options at the top
    if lines and lines[0].strip() == "---":
        closing = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        skipped = closing + 1 if closing is not None else 0
    while skipped < len(lines) and _MYST_OPTION.match(lines[skipped]):
        skipped += 1
    content = "\n".join(lines[skipped:])
    first = line + 1 + skipped
    if name in _MYST_CODE:
        code = content.strip("\n")
        if code.strip():
            yield Block(code, first + _blank_lines_before(content), code=True)
        return
    if name in VERSION_WORDS:
        version, _, rest = argument.partition(" ")
        title = f"{VERSION_WORDS[name]} {version}" + (f": {rest}" if rest else ".")
    else:
        title = argument or (_kind_name(name) if name in _ADMONITIONS else "")
    if title:
        yield Block(_inline_markup(title), line)
    if content.strip():
        # The content is Markdown of its own, with MkDocs/MyST block markers of its own.
        numbered = enumerate(content.splitlines(keepends=True), first)
        inner = "".join(text for _, text in _block_markup(numbered))
        yield from _markdown_window(inner, first, titles)


def _blank_lines_before(code: str) -> int:
    return len(code) - len(code.lstrip("\n"))


def markdown_blocks(lines: Iterable[str], titles: PageTitles | None = None) -> Iterator[Block]:
    """The blocks of a Markdown document; `titles` (page_titles.py) names the pages of
    the knowledge base its links point at."""
    for start, text in _windows(lines):
        yield from _markdown_window(text, start, titles)


def _markdown_window(text: str, start: int, titles: PageTitles | None = None) -> Iterator[Block]:
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
            content = _inline_text(token, titles)
            if table is not None:
                if table:
                    table[-1].append(" ".join(content.split()))
            elif heading:
                if content:
                    yield Block(" ".join(content.split()), line, heading)
            elif content:
                yield Block(("- " + content) if lists else content, line)
        elif kind == "fence" and token.info.startswith("{"):
            yield from _myst_directive(token, line, titles)
        elif kind in ("fence", "code_block"):
            code = token.content.rstrip("\n")
            title = _CODE_TITLE.search(token.info) if kind == "fence" else None
            if title and title.group(1).strip():  # shown above the code (MkDocs Material)
                yield Block(title.group(1).strip(), line)
            if code.strip():
                # A fenced block's text starts on the line after its fence.
                first = line + (kind == "fence") + _blank_lines_before(code)
                yield Block(code.strip("\n"), first, code=True)
        elif kind == "html_block":
            yield from html_text_blocks(token.content, line - 1)


# -- Jupyter notebooks -------------------------------------------------------------------

_SOURCE_KEY = re.compile(r'^\s*"(source|input)"\s*:\s*(\[?)')


def notebook_blocks(text: str) -> list[Block] | None:
    """A notebook's markdown cells (as Markdown) and code cells (as code), outputs left
    out; each block at the line of the .ipynb file its text is on (Jupyter writes one
    source line a line). None when the text is not a notebook."""
    import json

    try:
        notebook = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(notebook, dict):
        return None
    cells = notebook.get("cells")
    if cells is None:  # nbformat 3: cells in worksheets
        cells = [c for w in notebook.get("worksheets") or () for c in (w.get("cells") or ())]
    if not isinstance(cells, list):
        return None
    lines = text.splitlines()
    cursor = 0
    blocks: list[Block] = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        source = cell.get("source", cell.get("input", ""))
        source = "".join(source) if isinstance(source, list) else str(source or "")
        first = cursor + 1
        for number in range(cursor, len(lines)):
            found = _SOURCE_KEY.match(lines[number])
            if found:
                first = number + 1 + (1 if found.group(2) else 0)
                cursor = number + 1
                break
        if not source.strip():
            continue
        if kind == "markdown":
            for block in markdown_blocks(source.splitlines(keepends=True)):
                blocks.append(
                    Block(block.text, first + block.line - 1, block.heading, code=block.code)
                )
        elif kind == "code":
            blocks.append(Block(source.strip("\n"), first, code=True))
    return blocks


# -- reStructuredText --------------------------------------------------------------------

RST_MAX_CHARS = 4 << 20  # a larger reStructuredText file is read as plain text


def rst_blocks(
    text: str, path: Path | None = None, root: Path | None = None, notes: Notes | None = None
) -> list[Block]:
    """The blocks of a reStructuredText document as Sphinx would show it (sphinx_rst.py),
    or [] when it cannot be parsed (the caller reads it as text). `path` and `root` (the
    knowledge base's folder) say which files a `literalinclude` may read; `notes` gathers
    what was not understood, for one warning of the whole run."""
    import io

    try:
        from docutils import nodes  # type: ignore[import-untyped,unused-ignore]
        from docutils.core import publish_doctree  # type: ignore[import-untyped,unused-ignore]
        from docutils.parsers.rst import Parser  # type: ignore[import-untyped,unused-ignore]

        from .sphinx_rst import sphinx_inliner, sphinx_reading
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
        with sphinx_reading(text, path, root, notes if notes is not None else Notes()):
            tree = publish_doctree(
                text, parser=Parser(inliner=sphinx_inliner()), settings_overrides=settings
            )
    except Exception:  # docutils raises many kinds on odd input
        return []
    # A substitution nobody defined (Sphinx's |version|, or one of conf.py): its name.
    for problem in list(tree.findall(nodes.problematic)):
        raw = problem.astext()
        shown = raw.strip("|") if raw.startswith("|") and raw.endswith("|") else raw
        problem.parent.replace(problem, nodes.Text(shown))
    return _RstWalk(text.splitlines(), nodes).blocks_of(tree)


class _RstWalk:
    """A docutils tree as blocks, in document order, each at the line its text starts."""

    def __init__(self, source: list[str], nodes: Any) -> None:
        self.source = source
        self.nodes = nodes
        self.blocks: list[Block] = []
        self.cursor = 1  # blocks come in order: none starts before the last one found
        self.skipped = (
            nodes.docinfo,
            nodes.comment,
            nodes.target,
            nodes.substitution_definition,
            nodes.system_message,
            nodes.raw,
            nodes.pending,
        )

    def blocks_of(self, tree: Any) -> list[Block]:
        self.walk(tree, 1)
        return self.blocks

    def where(self, node: Any, first: str, code: bool = False) -> int:
        """The line where the node's text starts: docutils' own line when it has one
        (checked against the source: it may give a title's underline or a paragraph's
        last line), else the first line after the previous block that holds its first
        words (code: its first line)."""
        lines = self.source
        stripped = first.split("\n", 1)[0].strip()
        key = stripped if code else (stripped.split()[0] if stripped.split() else "")
        reported = node.line or 0
        if reported and node.get("checkspec-exact-line"):
            return self._found(reported)
        if reported and key:
            for number in range(min(reported, len(lines)), max(self.cursor - 1, reported - 8), -1):
                if key in lines[number - 1]:
                    return self._found(number)
        if key:
            for number in range(self.cursor, min(len(lines), self.cursor + 400) + 1):
                if key in lines[number - 1]:
                    return self._found(number)
        return self._found(reported or self.cursor)

    def _found(self, number: int) -> int:
        self.cursor = max(self.cursor, number)
        return number

    def add(self, text: str, node: Any, heading: int = 0, *, listed: bool = False) -> None:
        parts = (" ".join(without_urls(part).split()) for part in text.split("\n"))
        content = "\n".join(part for part in parts if part)
        if content:
            prefix = "- " if listed else ""
            line = self.where(node, content)
            self.blocks.append(Block(prefix + content, line, heading))

    def walk(self, node: Any, depth: int) -> None:
        nodes = self.nodes
        for child in node.children:
            if isinstance(child, self.skipped):
                continue
            if isinstance(child, nodes.section):
                self.walk(child, depth + 1)
            elif isinstance(child, nodes.title) and isinstance(
                node, (nodes.section, nodes.document)
            ):
                title = " ".join(child.astext().split())
                if title:
                    self.blocks.append(Block(title, self.where(child, title), max(1, depth)))
            elif isinstance(child, (nodes.literal_block, nodes.doctest_block)):
                code = child.astext().rstrip("\n")
                if code.strip():
                    self.blocks.append(Block(code, self.where(child, code, True), code=True))
            elif isinstance(child, nodes.field):
                # `:param url: the URL` reads as "param url: the URL".
                name = " ".join(child[0].astext().split())
                body = " ".join(child[1].astext().split()) if len(child) > 1 else ""
                self.add(f"{name}: {body}" if body else name, child)
            elif isinstance(child, nodes.line_block):
                self.add(child.astext(), child, listed=isinstance(node, nodes.list_item))
            elif isinstance(child, nodes.TextElement):
                # Paragraphs, terms, captions, rubrics, titles of admonitions...
                self.add(child.astext(), child, listed=isinstance(node, nodes.list_item))
            elif isinstance(child, nodes.Element):
                self.walk(child, depth)
