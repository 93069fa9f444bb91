"""Hover on a 32,000-row JSON Lines dataset asks only the row under the cursor (issue 41:
`label_at` looked at every row's range, 70 ms a hover): the labelled check found at each
place is the one a look at every row finds."""

from __future__ import annotations

import json

import pytest

from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Position
from checkspec.engine.spec.workspace import Workspace
from checkspec.server.analysis import calibration
from checkspec.server.analysis.calibration import label_at
from tests.support.hub_rows import row

ROWS = 300


def _text() -> str:
    lines = []
    for n in range(ROWS):
        value = json.loads(row(n))
        if n % 7 == 3:
            check = {"identifier": "conformity", "params": {"rule": "Be kind."}, "expect": "pass"}
            value["interactions"][0]["checks"].append(check)
        lines.append(json.dumps(value) + "\n")
        if n % 50 == 10:
            lines.append("\n")  # blank lines between rows move the rows below
    return "".join(lines)


def test_labels_found_by_bisection_are_those_of_every_row(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _text()
    document = analyze(text, "/w/d.dataset.jsonl", Workspace())
    places = [
        Position(number, column)
        for number, line in enumerate(text.split("\n"))
        for column in (line.find('"expect"') + 2, line.find('"pass"') + 1, 0)
        if column >= 0 and '"expect"' in line
    ]
    places += [Position(ROWS + 50, 0), Position(0, 3)]
    near = [label_at(document, place) for place in places]
    monkeypatch.setattr(calibration, "scenarios_near", lambda doc, _line: doc.scenarios)
    assert near == [label_at(document, place) for place in places]
    found = [label for label in near if label is not None]
    assert len(found) == 3 * len(range(3, ROWS, 7))  # anywhere on its line
    assert {label.expect for label in found} == {"pass"}
