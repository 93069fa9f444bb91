"""Reading and chunking a knowledge base, topics and near-duplicates (no model)."""

from __future__ import annotations

import os
import sys
import tracemalloc
from pathlib import Path

import pytest

from checkspec.engine.generate import knowledge, topics
from checkspec.engine.generate.knowledge import KnowledgeError, load_knowledge_base
from tests.support.generate_helpers import knowledge_base


def test_markdown_is_chunked_along_headings_with_their_path(tmp_path: Path) -> None:
    text = (
        "# Guide\n\n## Install\n\n"
        + ("Run the installer. " * 30)
        + "\n\n## Use\n\n"
        + ("Open the app and sign in. " * 30)
    )
    (tmp_path / "guide.md").write_text(text)
    kb = load_knowledge_base([tmp_path / "guide.md"])
    assert [c.title for c in kb.chunks] == ["Guide > Install", "Guide > Use"]
    assert kb.chunks[0].text.startswith("Run the installer.")
    assert kb.chunks[1].line == 9
    assert [c.index for c in kb.chunks] == [0, 1]


def test_a_long_paragraph_is_cut_at_sentence_ends(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text("This is one sentence of the text. " * 200)
    kb = load_knowledge_base([tmp_path / "long.txt"])
    assert len(kb.chunks) > 3
    assert all(len(c.text) <= knowledge.CHUNK_CHARS + 40 for c in kb.chunks)
    assert all(c.text.endswith(".") for c in kb.chunks)


def test_html_keeps_text_and_headings_without_scripts_or_styles(tmp_path: Path) -> None:
    kb = load_knowledge_base([knowledge_base(tmp_path) / "warranty"])
    text = " ".join(c.text for c in kb.chunks)
    assert "two-year warranty" in text and "photo of the defect" in text
    assert "var x" not in text and "color" not in text
    assert kb.chunks[0].title.startswith("Warranty")


def test_jsonl_reads_the_text_field_and_warns_about_other_lines(tmp_path: Path) -> None:
    path = tmp_path / "faq.jsonl"
    path.write_text(
        '{"title": "Hours", "text": "We are open from nine to six."}\n'
        "not json\n"
        '{"body": "no text field"}\n'
        '{"text": "Closed on public holidays."}\n'
    )
    kb = load_knowledge_base([path])
    assert [c.text for c in kb.chunks] == [
        "We are open from nine to six.",
        "Closed on public holidays.",
    ]
    assert kb.chunks[0].title == "Hours"
    assert any("2 line(s) skipped" in w for w in kb.warnings)


def test_binary_non_utf8_and_empty_files_are_skipped_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "good.txt").write_text("Our office is in Lyon.")
    (tmp_path / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    (tmp_path / "latin1.txt").write_bytes("Caf\xe9 cr\xe8me".encode("latin-1"))
    (tmp_path / "empty.md").write_text("\n\n")
    (tmp_path / "ignored.csv").write_text("a,b")
    kb = load_knowledge_base([tmp_path])
    assert [c.text for c in kb.chunks] == ["Our office is in Lyon."]
    warnings = "\n".join(kb.warnings)
    assert "image.md: skipped, it is not text (binary content)" in warnings
    assert "latin1.txt: skipped, line 1 is not UTF-8 text" in warnings
    assert "empty.md: skipped, it holds no text" in warnings


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "ok.txt").write_text("Readable.")
    secret = tmp_path / "secret.txt"
    secret.write_text("Hidden.")
    secret.chmod(0)
    try:
        kb = load_knowledge_base([tmp_path])
    finally:
        secret.chmod(0o600)
    assert [c.text for c in kb.chunks] == ["Readable."]
    assert any("secret.txt: skipped, cannot be read" in w for w in kb.warnings)


def minimal_pdf(lines: list[str]) -> bytes:
    """A one-page PDF showing `lines` (Helvetica), written by hand."""
    content = "BT /F1 12 Tf 72 720 Td 14 TL " + " ".join(f"({line}) '" for line in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = "%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n"
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    return out.encode("latin-1")


def test_pdf_pages_are_read_with_pypdf_and_a_damaged_one_is_skipped(tmp_path: Path) -> None:
    pytest.importorskip("pypdf")
    (tmp_path / "manual.pdf").write_bytes(minimal_pdf(["Warranty claims are filed online."]))
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\n%\xe2\xe3 not really\n")
    kb = load_knowledge_base([tmp_path])
    assert [c.text for c in kb.chunks] == ["Warranty claims are filed online."]
    assert any("broken.pdf: skipped, not a readable PDF" in w for w in kb.warnings)


def test_a_pdf_without_a_reader_is_refused_with_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)  # as if it were not installed
    (tmp_path / "manual.pdf").write_bytes(minimal_pdf(["Some text."]))
    (tmp_path / "notes.txt").write_text("Some notes.")
    kb = load_knowledge_base([tmp_path])
    assert [c.text for c in kb.chunks] == ["Some notes."]
    warning = next(w for w in kb.warnings if "manual.pdf" in w)
    assert "PDF needs pypdf, which is not installed (pip install pypdf)" in warning


def test_a_missing_or_empty_knowledge_base_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeError, match="no such file or folder"):
        load_knowledge_base([tmp_path / "nope"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(KnowledgeError, match="holds no readable text"):
        load_knowledge_base([tmp_path / "empty"])
    (tmp_path / "blank.md").write_text("   \n")
    with pytest.raises(KnowledgeError, match=r"blank\.md: skipped, it holds no text"):
        load_knowledge_base([tmp_path / "blank.md"])


def test_a_50_mb_document_is_read_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.md"
    paragraph = ("Line of a very large manual about pumps and valves. " * 20 + "\n\n").encode()
    with path.open("wb") as file:
        for _ in range(50_000_000 // len(paragraph) + 1):
            file.write(paragraph)
    assert path.stat().st_size >= 50_000_000
    tracemalloc.start()
    try:
        kb = load_knowledge_base([path], max_chars=2_000_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert kb.truncated
    assert any("more than 2,000,000 characters" in w for w in kb.warnings)
    assert sum(len(c.text) for c in kb.chunks) <= 2_000_000 + knowledge.CHUNK_CHARS
    assert peak < 12_000_000  # a few times what is kept, never the 50 MB file


def test_subfolders_are_the_topics(tmp_path: Path) -> None:
    kb = load_knowledge_base([knowledge_base(tmp_path)])
    assert kb.folder_topics
    assert set(kb.topics()) == {"shipping", "returns", "warranty"}


def test_clustering_separates_distinct_vocabularies_and_is_seeded() -> None:
    pets = [f"Dogs and cats need food, water and a vet visit {i}." for i in range(12)]
    cars = [f"Engines, tyres and brakes of the car need a service {i}." for i in range(12)]
    tfidf = topics.TfIdf(pets + cars)
    labels = topics.cluster(tfidf.vectors, 2, seed=0)
    assert len(set(labels[:12])) == 1 and len(set(labels[12:])) == 1
    assert labels[0] != labels[12]
    assert topics.cluster(tfidf.vectors, 2, seed=0) == labels
    names = topics.top_terms(tfidf.vectors[:12], tfidf.terms, 2)
    assert {"dogs", "cats"} & set(" ".join(names).split())


def test_near_duplicates_are_found_above_the_threshold() -> None:
    texts = [
        "What is the refund window for unused items?",
        "What is the refund window for unused items ?",
        "Do you ship to Norway?",
    ]
    vectors = topics.TfIdf(texts, pairs=False, drop_common=False).vectors
    assert topics.near_duplicates(vectors, 0.85) == {1}
    same = topics.TfIdf(["Where is my parcel?"] * 5, pairs=False, drop_common=False)
    assert topics.near_duplicates(same.vectors, 0.85) == {1, 2, 3, 4}
    assert topics.near_duplicates(vectors, 1.01) == set()


def test_a_file_that_cannot_be_opened_is_skipped_even_as_root(tmp_path: Path) -> None:
    (tmp_path / "ok.txt").write_text("Readable.")
    (tmp_path / "gone.md").symlink_to(tmp_path / "nowhere.md")  # a dangling link
    kb = load_knowledge_base([tmp_path])
    assert [c.text for c in kb.chunks] == ["Readable."]
    assert any(
        "gone.md: skipped, cannot be read (No such file or directory)" in w for w in kb.warnings
    )
