"""A PDF's pages, as their text extraction gives them, made into the paragraphs a reader
sees: each at its page number (a PDF chunk's line is its page).

A text extraction (pypdf's) gives a page as its printed lines, with no blank line
between paragraphs, and with the page's running header and footer ("Summary December
1998 Page 2") among them. Read as is, a page is one paragraph whose lines are taken for
line numbers, and the header opens every page's text. So:

- the running headers and footers go: a line that, its numbers aside, is on more than
  half of the pages of a document of 3 pages or more;
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


def _key(line: str) -> str:
    return _NUMBERS.sub("#", " ".join(line.split()))


def running_lines(pages: Sequence[str]) -> set[str]:
    """The keys (numbers as #) of the lines on more than half of the pages."""
    if len(pages) < RUNNING_MIN_PAGES:
        return set()
    seen = Counter(k for page in pages for k in {_key(ln) for ln in page.splitlines()} if k)
    return {key for key, count in seen.items() if count > len(pages) / 2}


def page_blocks(pages: Sequence[str]) -> list[Block]:
    """The paragraphs of each page, at its 1-based page number."""
    running = running_lines(pages)
    blocks: list[Block] = []
    for number, page in enumerate(pages, 1):
        lines = [" ".join(ln.split()) for ln in page.splitlines()]
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
