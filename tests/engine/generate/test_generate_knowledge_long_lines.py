"""A knowledge base of one-line files costs what the same text in lines costs (issue 36):
`_pieces` slices only what it yields, never the rest of the text, and a long line is read
in bounded pieces. Shown by memory held (tracemalloc), not by time."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from checkspec.engine.generate import knowledge
from checkspec.engine.generate.knowledge import load_knowledge_base

MB = 1 << 20


def _peak(run) -> int:  # type: ignore[no-untyped-def]
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        run()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def test_cutting_a_line_with_no_sentence_end_copies_no_remainder() -> None:
    text = "x" * (4 * MB)
    pieces = 0

    def cut() -> None:
        nonlocal pieces
        for piece in knowledge._pieces(text):  # noqa: SLF001 (the function under test)
            assert len(piece) <= knowledge.CHUNK_CHARS
            pieces += 1

    # The old cut made a copy of the remaining text for each piece: 4 MB held at once,
    # and 4 MB * 2,800 pieces / 2 copied in all.
    assert _peak(cut) < MB // 4
    assert pieces == -(-4 * MB // knowledge.CHUNK_CHARS)


def test_pieces_are_the_same_text_cut_at_sentence_ends() -> None:
    text = ("A sentence here. " * 200) + "y" * 4000 + ". Then more! " + "z" * 10
    pieces = list(knowledge._pieces(text))  # noqa: SLF001
    assert "".join(pieces).replace(" ", "") == text.replace(" ", "")
    assert all(len(p) <= knowledge.CHUNK_CHARS for p in pieces)


def test_a_one_line_file_is_read_in_bounded_pieces(tmp_path: Path) -> None:
    path = tmp_path / "one.txt"
    path.write_text("word " * (2 * MB))  # 10 MB, no line break
    kept: list[int] = []

    def load() -> None:
        kb = load_knowledge_base([path], max_chars=200_000)
        kept.append(sum(len(c.text) for c in kb.chunks))

    assert _peak(load) < 6 * MB  # the old reader held the whole 10 MB line, twice
    assert 200_000 <= kept[0] < 210_000


def test_long_jsonl_records_and_deep_nesting_are_skipped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "kb.jsonl"
    long_text = "a long record. " * 100_000  # 1.5 MB: read in pieces, put back together
    path.write_text(
        json.dumps({"text": long_text})
        + "\n"
        + "[" * 100_000
        + "]" * 100_000
        + "\n"
        + json.dumps({"text": "Short one."})
        + "\n"
    )
    kb = load_knowledge_base([path])
    assert sum(len(c.text) for c in kb.chunks) > 1_400_000
    assert kb.chunks[-1].text == "Short one."
    assert any("1 line(s) skipped" in w for w in kb.warnings)
