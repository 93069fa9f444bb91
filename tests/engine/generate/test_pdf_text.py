"""A PDF's extracted pages made into paragraphs at their page (pdf_text.py): running
headers and footers out from 3 pages on, lines joined into paragraphs."""

from __future__ import annotations

from checkspec.engine.generate.pdf_text import page_blocks, running_lines

BODY = (
    "The first paragraph of the page runs over two printed lines of the full\n"
    "width and ends here.\n"
    "Short heading\n"
    "The second paragraph starts on its own line, under the heading, and it too\n"
    "runs on a second line."
)


def _page(number: int) -> str:
    return f"Guide to the service, edition 2\nText of page {number}.\nSummary, page {number}"


def test_a_line_on_more_than_half_of_three_pages_is_a_running_header() -> None:
    pages = [_page(1), _page(2), "Summary, page 3\nOnly this."]
    # Numbers aside: "Text of page 1." and "Text of page 2." are one line on 2 of 3 pages.
    assert running_lines(pages) == {
        "Summary, page #",
        "Guide to the service, edition #",
        "Text of page #.",
    }
    pages = [_page(1), BODY, "Summary, page 3\nOnly this."]
    assert running_lines(pages) == {"Summary, page #"}
    texts = [b.text for b in page_blocks(pages)]
    assert not any("Summary, page" in t for t in texts)
    assert "Guide to the service, edition 2 Text of page 1." in texts


def test_two_pages_have_no_running_header_and_half_is_not_more_than_half() -> None:
    assert running_lines([_page(1), _page(2)]) == set()
    # On 2 of 4 pages: not more than half.
    assert running_lines([_page(1), _page(2), "Other text.", "More text."]) == set()


def test_lines_are_joined_into_paragraphs_at_their_page() -> None:
    blocks = page_blocks(["Preface.", BODY, "Last words."])
    assert [(b.text, b.line) for b in blocks] == [
        ("Preface.", 1),
        (
            "The first paragraph of the page runs over two printed lines of the full "
            "width and ends here.",
            2,
        ),
        ("Short heading", 2),
        (
            "The second paragraph starts on its own line, under the heading, and it too "
            "runs on a second line.",
            2,
        ),
        ("Last words.", 3),
    ]


def test_a_blank_line_ends_a_paragraph_and_a_full_width_sentence_end_does_not() -> None:
    text = (
        "A line that ends a sentence at the full width of the page runs on.\n"
        "Into this one\n\nA new paragraph after a blank line."
    )
    assert [b.text for b in page_blocks([text])] == [
        "A line that ends a sentence at the full width of the page runs on. Into this one",
        "A new paragraph after a blank line.",
    ]


def test_footnote_marks_glued_to_a_word_go_when_the_footnote_is_there() -> None:
    pages = [
        "The act was signed into law by1\nthe president, see also note 2 and mp3 files.\n\n"
        "1Pub. L. No. 105-304, 112 Stat. 2860.",
        "A text with no footnotes, version 3 of mp3.",
    ]
    assert [b.text for b in page_blocks(pages)] == [
        "The act was signed into law by the president, see also note 2 and mp3 files.",
        "Pub. L. No. 105-304, 112 Stat. 2860.",
        "A text with no footnotes, version 3 of mp3.",
    ]
