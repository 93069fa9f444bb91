"""JSON Lines datasets at Hub scale (issue 41): the node and depth limits are each row's,
a row over them is reported at its line while the others are analysed, the dataset size
limit is its own setting, and edits by row end as a fresh analysis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checkspec.engine.spec import incremental, source
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.incremental import Editing
from checkspec.engine.spec.lines import LineIndex
from tests.support.analysis_summary import summary
from tests.support.hub_rows import row
from tests.support.project_files import load_file
from tests.support.spec_texts import WORKSPACE
from tests.support.unmeasured import measured_first

NAME = "big.dataset.jsonl"


BAD_CHECK = row(0).replace("string_matching", "no_such_check")


@pytest.mark.unmeasured  # volume: the 2,000-row tests measure the same lines
def test_a_32k_row_dataset_reports_its_one_bad_row_at_its_line() -> None:
    lines = [row(n) for n in range(32_000)]
    lines[23_456] = BAD_CHECK.replace("row 0", "the bad one")
    document = analyze("\n".join(lines) + "\n", NAME, WORKSPACE)
    assert document.layout is not None  # read row by row: an edit re-reads one row
    assert len(document.scenarios) == 32_000
    errors = document.errors
    assert errors and {p.range.start.line for p in errors} == {23_456}
    assert any("no_such_check" in p.message for p in errors)


def test_a_row_over_the_per_row_limits_is_reported_and_the_rest_analysed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(source, "MAX_NODES", 300)  # a row holds ~30 nodes
    deep = "[" * 250 + "]" * 250  # over the depth limit of one row (200), under 300 nodes
    big = json.dumps({"tags": [str(n) for n in range(400)], "interactions": []})
    lines = [row(n) for n in range(50)]
    lines[10] = big
    lines[30] = deep
    document = analyze("\n".join(lines) + "\n", NAME, WORKSPACE)
    by_line = {p.range.start.line: p for p in document.all_problems}
    assert sorted(by_line) == [10, 30]
    assert "row holds more than 300 JSON nodes" in by_line[10].message
    assert "nested" in by_line[30].message or "deep" in by_line[30].message
    assert len(document.scenarios) == 48  # every other row is analysed
    assert [e.name for e in document.scenarios[:11]][-1] == "row 11"


def test_the_dataset_size_limit_is_its_own_setting(tmp_path: Path) -> None:
    (tmp_path / "checkspec.yaml").write_text("max_file_size: 2000\nmax_dataset_file_size: 9000\n")
    dataset = tmp_path / NAME
    dataset.write_text("".join(row(n) + "\n" for n in range(20)))  # ~6 KB
    assert load_file(dataset).errors == []
    dataset.write_text("".join(row(n) + "\n" for n in range(40)))  # ~12 KB
    (problem,) = load_file(dataset).errors
    assert problem.code == "too-large" and "max_dataset_file_size" in problem.message
    suite = tmp_path / "s.suite.yaml"
    suite.write_text("name: s\nscenarios: []\n" + "#" * 3000 + "\n")
    (problem,) = load_file(suite).errors
    assert problem.code == "too-large" and "max_file_size" in problem.message


BASE = "".join(row(n) + "\n" for n in range(40))
EDITS = st.lists(
    st.tuples(
        st.integers(0, 45),  # line
        st.sampled_from(("insert", "delete", "replace")),
        st.sampled_from((row(7), BAD_CHECK, "{not json", "", '{"tags": [' + "1," * 80 + "1]}")),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=EDITS)
@measured_first(5)  # each example re-reads its rows after every edit: the body is the cost
def test_row_edits_end_as_a_fresh_analysis(edits: list[tuple[int, str, str]]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(source, "MAX_NODES", 60)  # the last sample is over one row's limit
        editing = Editing(BASE, NAME, WORKSPACE)
        assert editing.analysis().layout is not None
        fresh_calls = 0
        real = incremental.analyze

        def counted(*args: object, **kwargs: object) -> object:
            nonlocal fresh_calls
            fresh_calls += 1
            return real(*args, **kwargs)  # type: ignore[arg-type]

        patch.setattr(incremental, "analyze", counted)
        for line, action, text in edits:
            index = LineIndex(editing.text)
            line = min(line, len(index) - 1)
            start = index.offset(index.position(0)._replace(line=line))
            end = editing.text.find("\n", start)
            end = len(editing.text) if end < 0 else end + 1
            if action == "insert":
                editing.replace(start, start, text + "\n")
            elif action == "delete":
                editing.replace(start, end, "")
            else:
                editing.replace(start, max(start, end - 1), text)
            got = editing.analysis()
            assert summary(got) == summary(real(editing.text, NAME, WORKSPACE))
        assert fresh_calls == 0  # every edit was re-read by row
