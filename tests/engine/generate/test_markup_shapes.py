"""Documents without their markup (engine/generate/markup.py), on the shapes the other
tests leave out: Markdown tables, lists, images, inline code, `<br>`, a fence holding
another fence's marker, HTML blocks with self-closing breaks and preformatted text;
front matter that is not closed; windows cut in a text without blank lines; and
reStructuredText rubrics, line blocks, lists, doctests, literal blocks and definitions.
Each block keeps the 1-based line its text starts at."""

from __future__ import annotations

import pytest

from checkspec.engine.generate import markup
from checkspec.engine.generate.markup import Block, markdown_blocks, rst_blocks

MARKDOWN = """\
# Title

| Size | Price |
|------|-------|
| S    | 4.90  |
| L    | `12`  |

- first *item*
- second ![a parcel](http://x/p.png)

1. one<br>two
2. see <https://example.com> and [the docs](https://d.example)

~~~
``` not a close
code
~~~

<div>a<br/>b<pre>kept
  as is</pre><img src=x /></div>
"""


def lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def test_markdown_tables_lists_images_code_and_html_blocks() -> None:
    assert list(markdown_blocks(lines(MARKDOWN))) == [
        Block("Title", 1, 1),
        Block("Size | Price\nS | 4.90\nL | 12", 3),
        Block("- first item", 8),
        Block("- second a parcel", 9),  # an image keeps its alt text
        Block("- one\ntwo", 11),  # <br> breaks the line
        Block("- see and the docs", 12),  # URLs go, a link keeps its text
        Block("``` not a close\ncode", 15, code=True),  # its text, after the fence
        Block("a", 19),
        Block("b", 19),
        Block("kept\n  as is", 19, code=True),
    ]


def test_an_empty_document_has_no_blocks() -> None:
    assert list(markdown_blocks([])) == []


def test_front_matter_closed_goes_and_unclosed_is_text() -> None:
    closed = ["---\n", "title: x\n", "...\n", "Body text.\n"]
    assert list(markdown_blocks(closed)) == [Block("Body text.", 4)]
    # An opening `---` not closed within 500 lines is no front matter: its lines are text.
    unclosed = ["+++\n", *(f"line {n}\n" for n in range(600))]
    (block,) = list(markdown_blocks(unclosed))
    assert block.line == 1 and block.text.startswith("+++\nline 0\nline 1\n")
    assert block.text.endswith("line 599")


def test_a_text_without_blank_lines_is_cut_into_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(markup, "HARD_WINDOW_CHARS", 40)
    text = [f"sentence number {n} of a long paragraph\n" for n in range(6)]
    found = list(markdown_blocks(text))
    # Two lines pass 40 characters: a window of two, then the next, each at its line.
    assert [b.line for b in found] == [1, 3, 5]
    assert [b.text for b in found] == [
        text[n].strip() + "\n" + text[n + 1].strip() for n in (0, 2, 4)
    ]


RST = """\
Guide
=====

.. rubric:: A rubric

| a line
| another

* item one
* item two

>>> 1 + 1
2

::

    literal code

Term
   definition here
"""


def test_restructuredtext_rubrics_line_blocks_lists_and_code() -> None:
    found = rst_blocks(RST)
    assert [(b.text.split("\n")[0], b.line, b.heading, b.code) for b in found] == [
        ("Guide", 1, 1, False),
        ("A rubric", 4, 0, False),
        ("a line", 6, 0, False),
        ("- item one", 9, 0, False),
        ("- item two", 10, 0, False),
        (">>> 1 + 1", 12, 0, True),
        ("literal code", 17, 0, True),
        ("Term", 19, 0, False),  # a definition list's term is text a reader sees
        ("definition here", 20, 0, False),
    ]
    assert found[2].text == "a line\nanother"  # one line a line, no blank between
