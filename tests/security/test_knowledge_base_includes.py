"""A knowledge base's reStructuredText never pulls in a file from outside it (issue 49):
`literalinclude` of a parent path, an absolute path or a link out of the folder, and
`include` of anything, read nothing, and the run says so in one warning."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from checkspec.engine.generate.knowledge import load_knowledge_base


@pytest.mark.parametrize(
    "target",
    ["../secret.txt", "/../secret.txt", "{secret}", "link.txt", "../docs/../secret.txt"],
)
def test_literalinclude_reads_nothing_outside_the_knowledge_base(
    tmp_path: Path, target: str
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET VALUE\n", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    os.symlink(secret, docs / "link.txt")
    (docs / "page.rst").write_text(
        f"Page\n====\n\nIntro text.\n\n.. literalinclude:: {target.format(secret=secret)}\n\n"
        ".. include:: ../secret.txt\n\nClosing words.\n",
        encoding="utf-8",
    )
    kb = load_knowledge_base([docs])
    text = " ".join(c.text for c in kb.chunks)
    assert "Intro text." in text and "Closing words." in text
    assert "SECRET" not in text
    assert any("2 include(s) not read" in w for w in kb.warnings), kb.warnings


def test_a_huge_file_inside_is_not_read_whole(tmp_path: Path) -> None:
    (tmp_path / "big.txt.inc").write_text("x" * (600 * 1024), encoding="utf-8")
    (tmp_path / "page.rst").write_text(
        "Page\n====\n\nText.\n\n.. literalinclude:: big.txt.inc\n", encoding="utf-8"
    )
    kb = load_knowledge_base([tmp_path])
    assert "xxxx" not in " ".join(c.text for c in kb.chunks)
    assert any("1 include(s) not read" in w for w in kb.warnings)
