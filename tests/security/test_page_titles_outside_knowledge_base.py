"""A knowledge base's links that show their target's title (page_titles.py) never read
a file outside the knowledge base: a `..` path or a symbolic link pointing out of it
shows its path, not the outside file's title."""

from __future__ import annotations

from pathlib import Path

from checkspec.engine.generate.knowledge import load_knowledge_base


def test_a_target_outside_the_knowledge_base_or_missing_shows_its_path(tmp_path: Path) -> None:
    (tmp_path / "secret.md").write_text("# Secret title\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(
        "# Home\n\nSee [](../secret.md) and {doc}`../secret` and [](missing.md) and [](link.md).\n"
    )
    (docs / "link.md").symlink_to(tmp_path / "secret.md")
    index = [c for c in load_knowledge_base([docs]).chunks if c.source.endswith("index.md")]
    text = " ".join(" ".join(c.text for c in index).split())
    assert "Secret title" not in text
    assert "See secret.md and secret and missing.md and link.md." in text


def test_a_sphinx_doc_role_reads_no_title_outside_the_knowledge_base(tmp_path: Path) -> None:
    (tmp_path / "secret.rst").write_text("Secret title\n============\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.rst").write_text("Home\n====\n\nSee :doc:`../secret` and :doc:`/../secret`.\n")
    [chunk] = load_knowledge_base([docs]).chunks
    assert "Secret title" not in chunk.text
    assert chunk.text == "See secret and secret."
