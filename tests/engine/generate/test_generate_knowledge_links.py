"""A knowledge base follows no link out of itself and reads only regular files (issue 36)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from checkspec.engine.generate.knowledge import load_knowledge_base

pytestmark = pytest.mark.skipif(os.name == "nt", reason="symlinks and FIFOs")


def test_a_file_link_out_of_the_folder_is_skipped_and_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "credentials"
    secret.write_text("aws_secret_access_key = SECRET-KEY-1234\n")
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "guide.md").write_text("# Guide\n\nOpen the app and sign in.\n")
    (kb / "faq.md").symlink_to(secret)
    loaded = load_knowledge_base([kb])
    assert all("SECRET" not in chunk.text for chunk in loaded.chunks)
    assert any("faq.md: skipped, a link out of the knowledge base" in w for w in loaded.warnings)


def test_a_link_inside_the_folder_is_read_and_a_dangling_one_skipped(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    (kb / "docs").mkdir(parents=True)
    (kb / "docs" / "real.md").write_text("Returns are free for thirty days.\n")
    (kb / "alias.md").symlink_to(kb / "docs" / "real.md")
    (kb / "gone.md").symlink_to(tmp_path / "nowhere.md")
    loaded = load_knowledge_base([kb])
    assert sum("thirty days" in c.text for c in loaded.chunks) == 2
    assert any(
        "gone.md: skipped, cannot be read (No such file or directory)" in w for w in loaded.warnings
    )


def test_a_fifo_in_the_folder_is_skipped_not_waited_on(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "guide.md").write_text("Open the app and sign in.\n")
    os.mkfifo(kb / "pipe.md")
    loaded = load_knowledge_base([kb])
    assert any("pipe.md: skipped, not a regular file" in w for w in loaded.warnings)


def test_a_file_named_on_the_command_line_is_read_through_its_link(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("Shipping takes three days.\n")
    (tmp_path / "named.txt").symlink_to(real)
    loaded = load_knowledge_base([tmp_path / "named.txt"])
    assert "three days" in loaded.chunks[0].text
