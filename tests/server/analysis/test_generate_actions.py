"""The editor's generation, pure parts: the code actions of dataset files. (Its requests
are checked by engine/generate/request.py: tests/engine/generate/test_request.py.)"""

from __future__ import annotations

from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Position, Range
from checkspec.server.analysis.generate_actions import generate_actions, review_actions

DRAFTS = (
    "name: d\nscenarios:\n"
    "  - status: draft\n    interactions:\n      - input: {messages: [{role: user, content: a}]}\n"
    "  - status: active\n    interactions:\n      - input: {messages: [{role: user, content: b}]}\n"
    "  - status: draft\n    interactions:\n      - input: {messages: [{role: user, content: c}]}\n"
)


def test_dataset_files_offer_more_like_these_and_review() -> None:
    document = analyze(DRAFTS, "/ws/d.dataset.yaml")
    (more,) = generate_actions(document)
    assert more.title == "Generate 5 more like these"
    assert more.arguments == {
        "like": "/ws/d.dataset.yaml",
        "output": "/ws/d.dataset.yaml",
        "append": True,
        "count": 5,
    }
    on_first = review_actions(document, Range(Position(2, 4), Position(2, 4)))
    assert [a.title for a in on_first] == [
        "Mark reviewed (status: active)",
        "Mark all 2 drafts reviewed",
    ]
    (edit,) = on_first[0].edits
    assert edit.new_text == "active" and edit.range.start == Position(2, 12)
    on_active = review_actions(document, Range(Position(5, 4), Position(5, 4)))
    assert [a.title for a in on_active] == ["Mark all 2 drafts reviewed"]
    assert generate_actions(analyze("name: s\nsteps: []\n", "/ws/s.scenario.yaml")) == []
