"""Go-to-definition of `python:` targets and `fn` references: the source is read, never
imported (server/analysis/python_source.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkspec.server.analysis import python_source
from checkspec.server.analysis.python_source import find_definition, module_file, split_reference

AGENT = """\
import os
from json import loads as parse
LIMIT = 3
name: str = "x"
answer = None


def helper():
    pass


@decorator
async def answer(question):  # the last binding wins, as Python keeps it
    return question


class Agent:
    reply_answer = 1

    def answer(self, question):
        return question
"""


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("python:agent:answer", ("agent", "answer")),
        ("pkg.mod:Agent.answer", ("pkg.mod", "Agent.answer")),
        ("python:agent", None),
        ("agent:", None),
        (":answer", None),
        ("a:b:c", None),
        ("python:1agent:answer", None),
        ("python:agent:an-swer", None),
    ],
)
def test_split_reference(value: str, expected: tuple[str, str] | None) -> None:
    assert split_reference(value) == expected


def test_module_file_finds_a_module_or_a_package_in_the_first_folder(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    (second / "pkg").mkdir(parents=True)
    first.mkdir()
    (second / "pkg" / "__init__.py").write_text("")
    (second / "agent.py").write_text("")
    (first / "agent.py").write_text("")
    assert module_file("agent", [first, second], use_sys_path=False) == first / "agent.py"
    assert module_file("pkg", [first, second], use_sys_path=False) == second / "pkg" / "__init__.py"
    assert module_file("missing", [first, second], use_sys_path=False) is None
    assert module_file("json", [], use_sys_path=True) is not None  # the standard library's


def where(tmp_path: Path, reference: str) -> tuple[int, int, int] | None:
    found = find_definition(reference, [tmp_path])
    if found is None:
        return None
    start, end = found.range.start, found.range.end
    return start.line, start.character, end.character


def test_definitions_of_each_binding(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    lines = AGENT.splitlines()
    at = lines.index("async def answer(question):  # the last binding wins, as Python keeps it")
    assert where(tmp_path, "python:agent:answer") == (at, 10, 16)
    method = lines.index("    def answer(self, question):")
    assert where(tmp_path, "agent:Agent.answer") == (method, 8, 14)  # not reply_answer
    assert where(tmp_path, "agent:LIMIT") == (2, 0, 5)
    assert where(tmp_path, "agent:name") == (3, 0, 4)
    assert where(tmp_path, "agent:parse") == (1, 26, 31)
    assert where(tmp_path, "agent:os") == (0, 7, 9)
    # A name the module does not bind: its top; a class without the attribute: the class.
    assert where(tmp_path, "agent:nowhere") == (0, 0, 0)
    assert where(tmp_path, "agent:Agent.missing") == (lines.index("class Agent:"), 6, 11)
    assert where(tmp_path, "missing:answer") is None
    assert where(tmp_path, "not a reference") is None


def test_unreadable_or_huge_sources_link_to_their_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken.py").write_text("def answer(:\n")
    assert where(tmp_path, "broken:answer") == (0, 0, 0)
    (tmp_path / "big.py").write_text("def answer():\n    pass\n")
    monkeypatch.setattr(python_source, "_MAX_SOURCE_BYTES", 10)
    assert where(tmp_path, "big:answer") == (0, 0, 0)


def test_a_name_not_on_its_statement_s_first_line_gives_that_whole_line(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text("from x import (\n    answers,\n    answer,\n)\n")
    assert where(tmp_path, "agent:answer") == (0, 0, 15)
    # Within a longer word the name is not found; as a word of its own it is.
    (tmp_path / "other.py").write_text("from x import answers, answer_, answer\n")
    assert where(tmp_path, "other:answer") == (0, 32, 38)
