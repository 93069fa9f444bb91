"""Links that show their target's title (page_titles.py): MyST's `[](page.md)` and
`{doc}`page`` without text read as the linked page's title when it is a page of the
knowledge base, as its path otherwise (tests/security/test_page_titles_outside_knowledge_base.py:
never by reading a file outside it)."""

from __future__ import annotations

from pathlib import Path

from checkspec.engine.generate.knowledge import load_knowledge_base


def _text(folder: Path) -> str:
    return " ".join(" ".join(c.text for c in load_knowledge_base([folder]).chunks).split())


def test_links_without_text_show_the_linked_pages_title(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "guide" / "setup.md").write_text("# Setting up { #setup }\n\nInstall it.\n")
    (docs / "guide" / "usage.md").write_text("---\ntitle: Daily use\n---\n# Other\n\nRun.\n")
    (docs / "api.rst").write_text("API reference\n=============\n\nThe calls.\n")
    (docs / "index.md").write_text(
        "# Home\n\nStart with [](guide/setup.md), then {doc}`guide/usage`; the calls are "
        "in {doc}`/api`. Titled: {doc}`the setup <guide/setup>`.\n"
    )
    text = _text(docs)
    assert (
        "Start with Setting up, then Daily use; the calls are in API reference. "
        "Titled: the setup." in text
    )


def test_a_sphinx_doc_role_without_title_shows_the_linked_pages_title(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "guide" / "setup.rst").write_text("Setting things up\n=================\n\nGo.\n")
    (docs / "index.rst").write_text(
        "Home\n====\n\nRead :doc:`guide/setup` first, or :doc:`the guide <guide/setup>`, "
        "or :doc:`missing/page`.\n"
    )
    index = [c for c in load_knowledge_base([docs]).chunks if c.source.endswith("index.rst")]
    # (A page not in the knowledge base: its name, as before.)
    assert index[0].text == "Read Setting things up first, or the guide, or page."
