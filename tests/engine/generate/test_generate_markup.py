"""Documents become text without markup before chunking (issue 38 item 1): Markdown,
reStructuredText and HTML lose tags, attributes, styles, URLs and front matter, keep link
text and code (fenced), and each chunk's line is the line its text starts at."""

from __future__ import annotations

from pathlib import Path

from checkspec.engine.generate.knowledge import excluded, load_knowledge_base, prose
from tests.support.real_docs import CODE_WORDS, MARKUP_WORDS, real_docs


def _line_of(path: Path, number: int) -> str:
    return path.read_text(encoding="utf-8").splitlines()[number - 1]


def test_markdown_keeps_link_text_and_code_and_drops_urls_tags_styles_front_matter(
    tmp_path: Path,
) -> None:
    page = tmp_path / "sponsorship.md"
    page.write_text(
        "---\ntitle: Sponsorship\n---\n# Sponsorship\n\n"
        '<div style="display: flex; margin: 1rem 0;">\n'
        '<a href="https://github.com/sponsors/encode" target="_blank" rel="noopener">\n'
        '<img src="logo.png" style="width: 10rem">\n</a>\n</div>\n\n'
        "Sponsors fund the maintainers. Read [the sponsor FAQ](https://example.com/faq) "
        'or <span style="color: red">the terms</span> at <https://example.com/terms>.\n\n'
        "```python\nsponsor = Sponsor(tier='gold')\n```\n",
        encoding="utf-8",
    )
    [chunk] = load_knowledge_base([page]).chunks
    assert chunk.text == (
        "Sponsors fund the maintainers. Read the sponsor FAQ or the terms at .\n\n"
        "```\nsponsor = Sponsor(tier='gold')\n```"
    )
    assert "title:" not in chunk.text and chunk.title == "Sponsorship"
    # The chunk's text starts at line 12 (not at the HTML block before it).
    assert chunk.line == 12
    assert _line_of(page, chunk.line).startswith("Sponsors fund the maintainers.")
    assert "Sponsor(tier" not in prose(chunk.text)  # code is no source of topic words


def test_every_chunk_of_real_looking_docs_is_clean_and_starts_at_its_line(
    tmp_path: Path,
) -> None:
    docs = real_docs(tmp_path)
    kb = load_knowledge_base([docs])
    assert {Path(c.source).suffix for c in kb.chunks} == {".md", ".rst", ".html"}
    for chunk in kb.chunks:
        words = chunk.text.lower()
        assert not any(w in words.split() or f"{w}=" in words for w in MARKUP_WORDS), chunk
        assert "<" not in chunk.text and "://" not in chunk.text, chunk
        first = chunk.text.split("\n", 1)[0].removeprefix("- ")
        source_line = _line_of(Path(chunk.source), chunk.line)
        assert first.split()[0] in source_line, (chunk.source, chunk.line, first)
    # Code blocks stay, as code, in every format.
    text = "\n".join(c.text for c in kb.chunks)
    for word in CODE_WORDS:
        assert f"```\n{word}" in text or f"def {word}" in text
    # Link text stays.
    assert "the users guide" in text and "the routes reference" in text
    assert "the websocket API" in text


def test_restructured_text_reads_no_other_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET VALUE\n", encoding="utf-8")
    page = tmp_path / "page.rst"
    page.write_text(
        "Title\n=====\n\nIntro text here.\n\n.. include:: secret.txt\n\n"
        ".. raw:: html\n\n   <b>raw html</b>\n\nClosing words.\n",
        encoding="utf-8",
    )
    text = " ".join(c.text for c in load_knowledge_base([page]).chunks)
    assert "Intro text here." in text and "Closing words." in text
    assert "SECRET" not in text and "raw html" not in text


def test_release_notes_are_marked_by_name_or_by_version_headings(tmp_path: Path) -> None:
    docs = real_docs(tmp_path)
    kb = load_knowledge_base([docs])
    marked = {Path(c.source).name for c in kb.chunks if c.release_notes}
    assert marked == {"release-notes.md"}
    history = tmp_path / "project.md"
    history.write_text(
        "# Project\n\n"
        + "".join(
            f"## v1.{n}.0\n\n{'Fixed several things in this version. ' * 8}\n\n" for n in range(5)
        ),
        encoding="utf-8",
    )
    assert all(c.release_notes for c in load_knowledge_base([history]).chunks)


def test_exclude_globs_leave_files_and_folders_out(tmp_path: Path) -> None:
    docs = real_docs(tmp_path)
    (docs / "drafts").mkdir()
    (docs / "drafts" / "wip.md").write_text("# Draft\n\nNot ready yet.\n", encoding="utf-8")
    kb = load_knowledge_base([docs], exclude=["release-notes.md", "drafts/*"])
    names = {Path(c.source).name for c in kb.chunks}
    assert names == {"authentication.md", "routing.rst", "websockets.html"}
    assert excluded("a/b/internal/x.md", ["**/internal/**"])
    assert excluded("CHANGELOG.md", ["changelog.md"]) is False  # globs match case
    assert not excluded("guide.md", ["drafts/*"])
