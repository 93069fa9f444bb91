"""The editor's generation, pure parts: requests to command lines, dataset code actions."""

from __future__ import annotations

from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Position, Range
from checkspec.server.analysis.generate_actions import (
    command_line,
    generate_actions,
    review_actions,
)

DRAFTS = (
    "name: d\nscenarios:\n"
    "  - status: draft\n    interactions:\n      - input: {messages: [{role: user, content: a}]}\n"
    "  - status: active\n    interactions:\n      - input: {messages: [{role: user, content: b}]}\n"
    "  - status: draft\n    interactions:\n      - input: {messages: [{role: user, content: c}]}\n"
)


def test_requests_become_command_lines() -> None:
    assert command_line(
        {"preset": "vip", "output": "file:///ws/a%20b.dataset.yaml", "count": 3}
    ) == (
        ["--preset", "vip", "--output", "/ws/a b.dataset.yaml", "--count", "3"],
        "/ws/a b.dataset.yaml",
    )
    args, _ = command_line(
        {
            "docs": "kb",
            "topics": ["x", "y"],
            "types": ["simple", "double"],
            "output": "o.dataset.yaml",
            "append": True,
            "turns": 2,
            "seed": 4,
        }
    )
    assert args == [
        "--from-docs",
        "kb",
        "--output",
        "o.dataset.yaml",
        "--turns",
        "2",
        "--seed",
        "4",
        "--topic",
        "x",
        "--topic",
        "y",
        "--types",
        "simple,double",
        "--append",
    ]
    assert command_line(["not", "an", "object"]) == (  # type: ignore[arg-type]
        "checkspec.generate takes one object: {persona|preset|docs|like, output, ...}"
    )
    one_source = "give one of persona, preset, docs or like (docs may take a persona or preset)"
    assert command_line({"preset": "a", "persona": "b", "output": "o"}) == one_source
    assert command_line({"like": "d", "preset": "a", "output": "o"}) == one_source
    assert command_line({"output": "o"}) == one_source
    # Document questions in a preset's voice, some files left out, simulated follow-ups.
    args, _ = command_line(
        {
            "docs": ["kb"],
            "preset": "impatient_customer",
            "exclude": ["kb/changelog.md"],
            "turns": 3,
            "simulate": True,
            "output": "s.suite.yaml",
        }
    )
    assert args == [
        "--preset",
        "impatient_customer",
        "--from-docs",
        "kb",
        "--exclude",
        "kb/changelog.md",
        "--output",
        "s.suite.yaml",
        "--turns",
        "3",
        "--simulate",
    ]
    assert command_line({"docs": "kb", "exclude": [3], "output": "o"}) == (
        "exclude must be a list of globs"
    )
    assert command_line({"preset": "a"}) == "output (the dataset file to write) is required"
    assert (
        command_line({"preset": "a", "output": "o", "count": "3"}) == "count must be a whole number"
    )
    assert command_line({"docs": [1], "output": "o"}) == "docs must be a list of paths"


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
