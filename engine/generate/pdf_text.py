"""A PDF's pages, as their text extraction gives them, made into the paragraphs a reader
sees: each at its page number (a PDF chunk's line is its page).

A text extraction (pypdf's) gives a page as its printed lines, with no blank line
between paragraphs, and with the page's running header and footer ("Summary December
1998 Page 2") among them. Read as is, a page is one paragraph whose lines are taken for
line numbers, and the header opens every page's text. So:

- the running headers and footers go: a line that, its numbers aside, is on more than
  half of the pages of a document of 3 pages or more;
- footnote marks go: a number printed as a superscript comes out glued to the word
  before it ("signed into law by1"); when a line of the document starts with that
  number glued to a capital (the footnote, "1Pub. L. No. 105-304"), the mark is dropped
  from the text and the number from the footnote;
- a page's lines are joined into paragraphs: a line ends its paragraph at a blank line,
  when it ends a sentence short of the page's width (the last line of a paragraph), or
  when it is a short line without end punctuation followed by a capitalised line (a
  heading); the lines of a paragraph are joined by spaces.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from .markup import Block

_NUMBERS = re.compile(r"\d+")
_SENTENCE_END = (".", "!", "?", ":", ";")
RUNNING_MIN_PAGES = 3  # fewer pages say nothing of what repeats on each
_FOOTNOTE_START = re.compile(r"^\s*(\d{1,2})(?=[A-Z\u201c\"(])")
_FOOTNOTE_MARK = re.compile(r"(?<=[a-z.,;:)\u201d\"])(\d{1,2})(?=\s|$)")


def _key(line: str) -> str:
    return _NUMBERS.sub("#", " ".join(line.split()))


def running_lines(pages: Sequence[str]) -> set[str]:
    """The keys (numbers as #) of the lines on more than half of the pages."""
    if len(pages) < RUNNING_MIN_PAGES:
        return set()
    seen = Counter(k for page in pages for k in {_key(ln) for ln in page.splitlines()} if k)
    return {key for key, count in seen.items() if count > len(pages) / 2}


def footnote_numbers(pages: Sequence[str]) -> set[str]:
    """The numbers a line starts with, glued to a capital: its footnotes' numbers."""
    return {
        found.group(1)
        for page in pages
        for line in page.splitlines()
        if (found := _FOOTNOTE_START.match(line))
    }


def page_blocks(pages: Sequence[str]) -> list[Block]:
    """The paragraphs of each page, at its 1-based page number."""
    running = running_lines(pages)
    notes = footnote_numbers(pages)

    def unmarked(line: str) -> str:
        line = _FOOTNOTE_START.sub(lambda m: "" if m.group(1) in notes else m.group(0), line)
        return _FOOTNOTE_MARK.sub(lambda m: "" if m.group(1) in notes else m.group(0), line)

    blocks: list[Block] = []
    for number, page in enumerate(pages, 1):
        lines = [" ".join(ln.split()) for ln in page.splitlines()]
        lines = [unmarked(ln) if notes and ln else ln for ln in lines]
        kept = [ln for ln in lines if not ln or _key(ln) not in running]
        width = max((len(ln) for ln in kept), default=0)
        paragraph: list[str] = []
        for index, line in enumerate(kept):
            if line:
                paragraph.append(line)
            following = next((ln for ln in kept[index + 1 :] if ln), "")
            if paragraph and (not line or _ends(line, width, following)):
                blocks.append(Block(" ".join(paragraph), number))
                paragraph = []
        if paragraph:
            blocks.append(Block(" ".join(paragraph), number))
    return blocks


def _ends(line: str, width: int, following: str) -> bool:
    short = len(line) < 0.85 * width
    if line.endswith(_SENTENCE_END):
        return short
    heading = len(line) < 0.5 * width and not line.endswith((",", "-"))
    return heading and following[:1].isupper()
