"""Real documentation read as a reader sees it (issue 49): sets copied from public
repositories (tests/data/real_docs/SOURCES: two Sphinx, two MkDocs Material, one
Docusaurus, one MyST book with Jupyter notebooks, one HTML site built by Sphinx, a PDF,
Jupyter's own example notebooks) leave no markup in chunk text outside code blocks, keep the text of the
directives Sphinx renders, and each chunk points at the line its text starts at.
The measure is bench/docs_reading.py's, the one bench/README.md reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkspec.engine.generate.knowledge import load_knowledge_base, prose
from tests.support.paths import REPO, load_script

CORPUS = REPO / "tests" / "data" / "real_docs"
SETS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
reading = load_script(REPO / "bench" / "docs_reading.py", "bench_docs_reading")


def _text(folder: str) -> str:
    return "\n\n".join(c.text for c in load_knowledge_base([CORPUS / folder]).chunks)


def test_the_corpus_has_every_style() -> None:
    assert SETS == [
        "docusaurus-redux",
        "html-sphinx-flask",
        "mkdocs-fastapi",
        "mkdocs-material",
        "myst-jupyter-book",
        "notebook-jupyter",
        "pdf-dmca",
        "sphinx-flask",
        "sphinx-requests",
    ]


@pytest.mark.parametrize("folder", SETS)
def test_no_markup_is_left_outside_code_and_chunks_start_at_their_line(folder: str) -> None:
    measured = reading.measure(CORPUS / folder)
    assert measured["residue"] == 0, folder
    assert measured["provenance"] >= 0.99, folder
    assert measured["warnings"] == [], folder


def test_the_residue_measure_sees_markup_a_plain_reader_leaves() -> None:
    # The measure itself: the same files read as plain text are full of residue.
    from checkspec.engine.generate.knowledge import Chunk

    raw = (CORPUS / "sphinx-flask" / "config.rst").read_text(encoding="utf-8")
    assert reading.residue(Chunk(raw, "config.rst", 0))
    raw = (CORPUS / "mkdocs-material" / "reference" / "content-tabs.md").read_text("utf-8")
    assert reading.residue(Chunk(raw, "content-tabs.md", 0))


def test_sphinx_config_entries_keep_their_name_body_and_default() -> None:
    text = _text("sphinx-flask")
    # `.. py:data:: SECRET_KEY_FALLBACKS` and its body, `versionadded` notes, `tabs`.
    assert "SECRET_KEY_FALLBACKS" in text
    assert "A list of old secret keys that can still be used for unsigning." in " ".join(
        text.split()
    )
    assert "Default: None" in text
    assert "Added in version 3.1." in text
    assert "Changed in version 2.3:" in text
    # installation.rst's install steps are in `.. tabs::` / `.. group-tab::` blocks.
    assert "macOS/Linux" in text and "Windows" in text
    assert "python3 -m venv .venv" in text and "py -3 -m venv .venv" in text
    # Roles give their text: `:class:`~flask.Flask`` reads "Flask", not the role.
    assert ":class:" not in text and ":data:" not in text and ":doc:" not in text


def test_autodoc_and_notes_of_requests_are_kept() -> None:
    text = " ".join(_text("sphinx-requests").split())
    assert "requests.Session" in text  # `.. autoclass:: requests.Session`
    assert "request" in text.split() and "post" in text.split()  # `.. autofunction:: post`
    # `.. note::`, `.. warning::` (its text on the directive's line), `.. admonition:: Note`
    assert "An important note about using Response.iter_content versus Response.raw." in text
    assert "It is strongly recommended that you open files in binary mode." in text
    assert "timeout is not a time limit on the entire response download;" in text


def test_mkdocs_tabs_and_admonitions_are_text_and_their_code_is_code() -> None:
    kb = load_knowledge_base([CORPUS / "mkdocs-material"])
    prose_text = "\n".join(prose(c.text) for c in kb.chunks)
    # `!!! note "Phasellus posuere in sem ut cursus"`: its title and body are prose.
    assert "Phasellus posuere in sem ut cursus" in prose_text
    # `=== "C"` ... a content tab's title is text, its fenced code stays code.
    code_text = "\n".join(c.text for c in kb.chunks)
    assert "#include <stdio.h>" in code_text and "#include <stdio.h>" not in prose_text


def test_docusaurus_admonitions_keep_title_and_text() -> None:
    text = _text("docusaurus-redux")
    assert "What You'll Learn" in text  # `:::tip What You'll Learn`
    assert "How to set up and use Redux Toolkit with the Next.js framework" in text


def _source_line(chunk_source: str, line: int) -> str:
    return Path(chunk_source).read_text(encoding="utf-8").splitlines()[line - 1]


def test_a_chunk_that_starts_with_code_points_at_the_code() -> None:
    # (Not the HTML set: its code lines are cut by highlighting tags in the source.)
    for folder in (s for s in SETS if not s.startswith("html-")):
        for chunk in load_knowledge_base([CORPUS / folder]).chunks:
            if not chunk.text.startswith("```"):
                continue
            first = chunk.text.lstrip("`").removeprefix("\n").split("\n", 1)[0].strip()
            if not first:
                continue
            window = [
                _source_line(chunk.source, n)
                for n in range(chunk.line, chunk.line + 4)
                if n <= len(Path(chunk.source).read_text(encoding="utf-8").splitlines())
            ]
            # (A notebook's lines are JSON strings: compared up to a first escaped character.)
            key = first.split("\\")[0].split('"')[0][:30]
            assert any(key in line for line in window), (chunk.source, chunk.line, first)


def test_myst_directives_and_notebooks_of_a_jupyter_book_are_text() -> None:
    text = " ".join(_text("myst-jupyter-book").split())
    assert "You can create content with Jupyter notebooks." in text  # a notebook's cell
    assert "np.random.seed(19680801)" in text  # a code cell, as code
    assert "(file-types:notebooks)=" not in text  # a MyST target
    # ````{example} holding ```{dropdown} Here's my dropdown: its title and content.
    assert "Here's my dropdown And here's my dropdown content" in text
    assert "Upgrading from sphinx-panels" in text  # :::{admonition} Upgrading from ...


def test_a_heading_inside_a_chunk_stays_as_text() -> None:
    # faq.rst's "Python 3 Support?" is short: its chunk runs on into "Python 2 Support?",
    # whose heading a reader sees, so the chunk says it.
    chunks = load_knowledge_base([CORPUS / "sphinx-requests" / "community"]).chunks
    merged = next(c for c in chunks if "Python 3 Support?" in c.title)
    assert "Python 2 Support?" in merged.text.split("\n\n")


def test_an_html_site_gives_its_pages_without_the_theme_around_them() -> None:
    text = " ".join(_text("html-sphinx-flask").split())
    assert "We recommend using the latest version of Python." in text
    assert "$ python3 -m venv .venv" in text  # a tab's code
    assert "SECRET_KEY_FALLBACKS" in text  # a py:data entry, as Sphinx rendered it
    # alabaster's sidebar, search box and footer, and the headings' permalinks: out.
    for chrome in ("Quick search", "Related Topics", "Powered by", "Page source", "¶"):
        assert chrome not in text, chrome


def test_a_pdf_is_read_as_paragraphs_of_its_pages_without_running_headers() -> None:
    chunks = load_knowledge_base([CORPUS / "pdf-dmca"]).chunks
    text = " ".join(" ".join(c.text for c in chunks).split())
    # Each page's footer ("Copyright Office Summary December 1998 Page 2") is out ...
    assert "December 1998 Page" not in text
    # ... words are whole as printed (the plain extraction reads "b y1", "th e", "WIP O"),
    assert "was signed into law by President Clinton" in text
    assert "The WIPO Copyright Treaty (WCT) and the WIPO Performances" in text
    # ... and a chunk's line is the page it starts on (a page's lines were taken for line
    # numbers: 22, 24... in a document of 18 pages).
    pages = reading.pdf_pages(CORPUS / "pdf-dmca" / "dmca.pdf")
    assert len(pages) == 18
    assert all(1 <= c.line <= 18 for c in chunks)
    assert all(reading.provenance_right(c, pages, pdf=True) for c in chunks)


def test_notebooks_give_markdown_and_code_cells_without_outputs() -> None:
    chunks = load_knowledge_base([CORPUS / "notebook-jupyter"]).chunks
    text = "\n".join(c.text for c in chunks)
    # A markdown cell as its text, a code cell's source as code, its output left out.
    assert "The Markdown parser included in the Jupyter Notebook is MathJax-aware." in text
    assert "```\nimport io, os, sys, types" in text
    assert 'print("hi, stdout")' in text
    assert "hi, stderr\n" not in text  # the stream output of that cell


def test_the_recall_bench_says_why_a_set_has_no_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A renderer that cannot be had is named, and the set's recall is "not measured";
    # neither case installs anything.
    with pytest.raises(reading.ToolMissing, match="no reference renderer for odd-set"):
        reading.reference(tmp_path / "odd-set")
    monkeypatch.setenv("PATH", str(tmp_path))  # no node, no npm
    with pytest.raises(reading.ToolMissing, match="node and npm are not on PATH"):
        reading.reference(CORPUS / "docusaurus-redux")
