"""A JSON Lines row analysed without a problem lets its nodes go (json_rows.fold) and reads
them again on first need: everything asked of the analysis is as if they had been kept."""

from __future__ import annotations

import json
from typing import Any

import pytest

from checkspec.engine.spec import document as document_module
from checkspec.engine.spec import json_rows, source
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.incremental import Editing
from tests.support.analysis_summary import shape
from tests.support.hub_rows import row

HUB_ROW = row(1)


def hub_row(n: int, **extra: Any) -> str:
    row = json.loads(HUB_ROW)
    row["name"] = f"row {n}"
    row.update(extra)
    return json.dumps(row)


ROWS = [
    hub_row(0),
    hub_row(1, tags=["a", "b"]),
    '{"interactions": [{"input": {"messages": [{"role": "robot", "content": 1}]}}]}',
    hub_row(3),
    "not json",
    hub_row(
        5,
        description="two checks",
        interactions=[
            {
                "input": {"messages": [{"role": "user", "content": "hi"}]},
                "output": {"response": {"role": "assistant", "content": "hello"}},
                "checks": [
                    {"identifier": "string_matching", "params": {"keyword": "he"}},
                    {"identifier": "string_matching", "params": {"keyword": "lo"}, "name": "n"},
                ],
            }
        ],
    ),
]
TEXT = "\n".join(ROWS) + "\n"


def everything(doc: Any) -> Any:
    """What front ends ask of an analysis: problems, entries, heads, check places."""
    problems = sorted((p.range, p.code, p.message) for p in doc.every_problem())
    entries = [
        (
            e.index,
            e.name,
            e.tags,
            e.range,
            e.head,
            shape(e.node),
            [(c.step, c.index, c.kind, c.head, shape(c.node)) for c in e.checks],
        )
        for e in doc.scenarios
    ]
    return problems, entries


@pytest.fixture
def unfolded(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The analysis of TEXT with every node kept."""
    with monkeypatch.context() as patch:
        patch.setattr(document_module, "fold", lambda root: None)
        patch.setattr(document_module, "fold_inside", lambda root, node, path: node)
        return everything(analyze(TEXT, "d.dataset.jsonl"))


def test_rows_without_problems_are_folded_and_read_back_the_same(unfolded: Any) -> None:
    doc = analyze(TEXT, "d.dataset.jsonl")
    folded = [e for e in doc.scenarios if type(e.node) is not json_rows.Node]
    assert [e.name for e in folded] == ["row 0", "row 1", "row 3", "row 5"]
    assert everything(doc) == unfolded  # reads every folded node back
    assert all(type(e.node) is json_rows.Node for e in doc.scenarios)  # a Node once read


def test_a_folded_check_is_read_back_alone(unfolded: Any) -> None:
    doc = analyze(TEXT, "d.dataset.jsonl")
    check = doc.scenarios[-1].checks[1]
    assert check.node.value == {
        "identifier": "string_matching",
        "params": {"keyword": "lo"},
        "name": "n",
    }
    assert check.head == unfolded[1][-1][-1][1][3]


def test_a_folded_row_moves_with_the_edits_above_it(unfolded: Any) -> None:
    editing = Editing(TEXT, "d.dataset.jsonl")
    editing.analysis()
    editing.replace(0, 0, "\n\n")
    moved = everything(editing.analysis())
    assert moved == everything(analyze("\n\n" + TEXT, "d.dataset.jsonl"))
    assert moved[1][0][3].start.line == 2


def test_the_runnable_scenario_is_rebuilt_from_a_folded_row() -> None:
    kept = analyze(TEXT, "d.dataset.jsonl").scenarios[-1].scenario
    entry = analyze(TEXT, "d.dataset.jsonl", keep=False).scenarios[-1]
    assert type(entry.node) is not json_rows.Node  # folded
    assert entry.scenario is not None and kept is not None
    assert entry.scenario.model_dump() == kept.model_dump()


def test_a_folded_row_is_read_again_under_the_limits_it_was_read_under() -> None:
    assert json_rows.FOLD_DEPTH == source.MAX_ROW_DEPTH
    assert json_rows.FOLD_NODES == source.MAX_NODES
