"""Curation in the analysis layer: disabled checks shown greyed, comments in hover and the
outline, the scenarios a selection chooses, the workspace index's search."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Position, Range, Severity
from checkspec.server.analysis.curation import curation_actions, curation_edit, recording_edit
from checkspec.server.analysis.hover import hover
from checkspec.server.analysis.symbols import document_symbols
from checkspec.server.analysis.workspace_symbols import WorkspaceIndex, search

SUITE = """\
name: s
scenarios:
  - name: first
    status: draft
    comments:
      - {content: 'is *this* right?', author: Zoë, created: '2026-01-01'}
    steps:
      - interacts: [{inputs: hi, outputs: hello}]
        checks:
          - kind: string_matching
            keyword: hello
            enabled: false
  - name: second
    tags: [billing]
    steps: []
"""


def test_a_disabled_check_is_a_hint_over_the_check_and_greyed_in_the_editor() -> None:
    from checkspec.server.lsp.convert import PositionCodec, to_diagnostic

    document = analyze(SUITE, "t.suite.yaml")
    (hint,) = [p for p in document.all_problems if p.code == "disabled-check"]
    assert hint.severity is Severity.HINT
    assert hint.range.start == Position(9, 12)
    diagnostic = to_diagnostic(hint, PositionCodec(SUITE, "utf-16"))
    assert [int(tag) for tag in diagnostic.tags or []] == [1]  # DiagnosticTag.Unnecessary
    assert not document.errors


def test_hover_on_a_name_shows_the_comments_and_the_outline_counts_them() -> None:
    document = analyze(SUITE, "t.suite.yaml")
    shown = hover(document, Position(2, 6))
    assert shown is not None
    assert shown.markdown.startswith("**Comments** (1)\n\n> is \\*this\\* right?\n>\n> — Zoë")
    assert [(s.name, s.detail) for s in document_symbols(document)] == [
        ("first", "draft; 1 comment"),
        ("second", "billing"),
    ]


def test_a_selection_chooses_the_scenarios_whose_first_line_it_covers() -> None:
    path = Path("t.suite.yaml")

    def titles(start: int, end: int) -> list[str]:
        rng = Range(Position(start, 0), Position(end, 0))
        return [a.title for a in curation_actions(SUITE, path, rng, "file:///t", lambda: {"x": 2})]

    assert titles(9, 9) == []  # inside a check: the check's quick fixes, not these
    both = titles(2, 13)
    assert "Delete 2 scenarios" in both and "Mark 2 scenarios active" in both
    assert "Add tag 'x' to 2 scenarios" in both
    assert "Remove tag 'billing' from 1 scenario" in both
    one = titles(12, 12)
    assert "Delete 1 scenario" in one and "Mark 1 scenario draft" in one


def test_the_edit_of_an_operation_is_code_point_ranges() -> None:
    text = SUITE.replace("name: second", "name: 日本語 ✓")
    (change,) = curation_edit(text, Path("t.suite.yaml"), [1], "tag add", "ünï")
    (edit,) = change.edits
    assert edit.new_text == ", ünï"
    assert edit.range.start == Position(13, 18)


def test_workspace_search_matches_names_inputs_tags_and_fuzzy_names(tmp_path: Path) -> None:
    (tmp_path / "a.suite.yaml").write_text(SUITE)
    (tmp_path / "b.dataset.jsonl").write_text(
        '{"name": "où est", "interactions": [{"input": "Wo ist meine Bestellung?"}]}\n'
    )
    index = WorkspaceIndex()
    index.refresh([tmp_path], lambda p: p.read_text())
    assert [s.name for s in search(index, "billing")] == ["second"]
    assert [s.name for s in search(index, "bestellung")] == ["où est"]
    assert [s.name for s in search(index, "scnd")] == ["second"]
    assert [s.name for s in search(index, "hi")] == ["first"]  # an input
    assert index.tag_counts() == {"billing": 1}
    (tmp_path / "a.suite.yaml").unlink()
    index.refresh([tmp_path], lambda p: p.read_text())
    assert [s.name for s in search(index, "")] == ["où est"]


def _search_one_by_one(index: WorkspaceIndex, query: str, limit: int) -> list[str]:
    """What `search` answers, found scenario by scenario (how it was first written)."""
    words = query.casefold().split()
    fuzzy = re.compile(".*?".join(map(re.escape, words[0]))) if len(words) == 1 else None
    named, other = [], []
    for symbol in index.symbols():
        name = symbol.words.partition("\n")[0]
        if all(word in symbol.words for word in words):
            (named if words[0] in name else other).append(symbol.name)
        elif fuzzy is not None and fuzzy.search(name):
            other.append(symbol.name)
    return (named + other)[:limit]


_LETTERS = st.sampled_from("abcé ßK\x00-")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=st.lists(
        st.lists(
            st.tuples(st.text(_LETTERS, min_size=1, max_size=6), st.text(_LETTERS, max_size=8)),
            min_size=1,
            max_size=6,
        ),
        min_size=1,
        max_size=3,
    ),
    query=st.text(_LETTERS, max_size=5),
    limit=st.integers(1, 8),
)
def test_workspace_search_finds_what_a_scan_of_each_scenario_finds(
    files: list[list[tuple[str, str]]], query: str, limit: int
) -> None:
    texts = {
        Path(f"/w/f{n}.dataset.jsonl"): "".join(
            json.dumps({"name": f"{name}{i}", "interactions": [{"input": said}]}) + "\n"
            for i, (name, said) in enumerate(rows)
        )
        for n, rows in enumerate(files)
    }
    index = WorkspaceIndex()
    index.refresh([], texts.get, list(texts))
    if not query.split():
        return
    assert [s.name for s in search(index, query, limit)] == _search_one_by_one(index, query, limit)


def test_recording_into_a_dataset_writes_each_rows_output_and_tells_the_drift() -> None:
    rows = (
        '{"interactions": [{"input": "hi"}]}\n'
        '{"name": 5, "interactions": [{"input": "yo", "output": "old"}], "tags": ["k"]}\n'
    )
    changes, done = recording_edit(
        rows, Path("/w/r.dataset.jsonl"), [(0, "hi", ["hello"]), (1, "scenario 2", [{"a": 1}])]
    )
    assert done.recorded == 2 and done.skipped == []
    (drift,) = done.drifts
    assert drift.line == 2 and "-old" in drift.diff
    (change,) = changes
    lines = rows.splitlines(keepends=True)
    edited = [
        (e.range.start.line, e.range.start.character, e.range.end.character, e.new_text)
        for e in change.edits
    ]
    assert edited == [
        (
            0,
            len('{"interactions": [{"input": "hi"'),
            len('{"interactions": [{"input": "hi"'),
            ', "output": "hello"',
        ),
        (1, lines[1].index('"old"'), lines[1].index('"old"') + 5, '{"a": 1}'),
    ]
