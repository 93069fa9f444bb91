"""Incremental analysis on edits the random ones seldom draw (engine/spec/incremental.py):
a comment between scenarios, a scenario's dash removed so it joins the one above, a
scenario replaced by a comment, the first scenario deleted, a document marker or a
dedented key typed inside the list, a quote left open, a whole text sent again, and a
workspace change. After each, the analysis equals a fresh one of the final text."""

from __future__ import annotations

import pytest

from checkspec.engine.spec import incremental
from checkspec.engine.spec.document import Document, analyze
from checkspec.engine.spec.incremental import Editing
from checkspec.engine.spec.workspace import Workspace
from tests.support.analysis_summary import summary
from tests.support.spec_texts import WORKSPACE, suite

NAME = "s.suite.yaml"


def fresh(text: str, workspace: Workspace = WORKSPACE) -> Document:
    return analyze(text, NAME, workspace)


def editing(text: str) -> Editing:
    found = Editing(text, NAME, WORKSPACE)
    found.analysis()
    return found


def replaced(edit: Editing, old: str, new: str, nth: int = 0) -> Document:
    at = -1
    for _ in range(nth + 1):
        at = edit.text.index(old, at + 1)
    edit.replace(at, at + len(old), new)
    got = edit.analysis()
    assert summary(got) == summary(fresh(edit.text)), edit.text
    return got


def with_comments(count: int) -> str:
    return suite(count, indent="  ").replace(
        "  - name: case 3", "  # between two scenarios\n  - name: case 3"
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("# between two scenarios", "# the comment edited"),  # between items
        ("  - name: case 3", "    name: case 3"),  # the dash gone: joins the one above
        ("  - name: case 3", "  # name: case 3"),  # a comment where a scenario began
        ("  - name: case 0", "  -\n    name: case 0"),  # under a lone dash
        ("name: case 4", "name: case 4\n---\n"),  # a document marker in the list
        ("name: case 4", "name: case 4\noops: 1"),  # a key at the file's column
        ("name: case 4", 'name: "case 4'),  # a quote left open
        ("name: case 4", "name: [case 4"),  # a bracket left open
    ],
)
def test_an_unusual_edit_ends_as_a_fresh_analysis(old: str, new: str) -> None:
    edit = editing(with_comments(8))
    replaced(edit, old, new)
    replaced(edit, new, old)  # and back
    assert summary(edit.analysis()) == summary(fresh(with_comments(8)))


def test_the_first_scenarios_deleted_and_the_last() -> None:
    text = suite(6, indent="  ")
    edit = editing(text)
    first = text.index("  - name: case 0")
    second = text.index("  - name: case 2")
    edit.replace(first, second, "")
    got = edit.analysis()
    assert summary(got) == summary(fresh(edit.text))
    assert [e.name for e in got.scenarios] == ["case 2", "case 3", "case 4", "case 5"]
    last = edit.text.index("  - name: case 5")
    edit.replace(last, len(edit.text), "")
    assert [e.name for e in edit.analysis().scenarios] == ["case 2", "case 3", "case 4"]


def test_a_whole_text_sent_again_is_one_edit(monkeypatch: pytest.MonkeyPatch) -> None:
    text = suite(30, indent="  ")
    edit = editing(text)
    monkeypatch.setattr(incremental, "analyze", lambda *a, **k: pytest.fail("fresh analysis"))
    edit.set_text(text)  # unchanged: nothing to do
    changed = text.replace("name: case 12", "name: case twelve")
    edit.set_text(changed)
    got = edit.analysis()
    assert edit.analysis() is got  # asked again: the same analysis
    monkeypatch.undo()
    assert got.scenarios[12].name == "case twelve"
    assert summary(got) == summary(fresh(changed))


def test_a_workspace_change_analyses_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    text = suite(10, indent="  ")
    edit = editing(text)
    edit.set_workspace(WORKSPACE)  # the same settings: the base is kept
    assert edit.base is not None
    other = Workspace()
    edit.set_workspace(other)
    assert edit.base is None and edit.current is None
    got = edit.analysis()
    assert summary(got) == summary(fresh(text, other))
