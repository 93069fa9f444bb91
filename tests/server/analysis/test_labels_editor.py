"""Labels in the editor (issue 40 items 1, 5, 6): completion and hover offer `expect` on
judges only, the outline shows a label, hover on `expect:` shows the last calibration,
and the quick fixes write labels with the curation edit."""

from __future__ import annotations

from pathlib import Path

from checkspec.engine.calibrate.labels import labelled
from checkspec.engine.calibrate.run import Calibration, Judge, Judged
from checkspec.engine.history.store import HistoryStore
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Position, Range
from checkspec.server.analysis.calibration import (
    calibration_markdown,
    label_actions,
    label_at,
    last_calibration_of,
)
from checkspec.server.analysis.completion import complete
from checkspec.server.analysis.symbols import document_symbols
from tests.support.analysis import dedent, hover_at, pos, symbols

SUITE = dedent(
    """
    name: tone
    scenarios:
      - name: one
        steps:
          - interacts:
              - inputs: hi
                outputs: Hello you.
            checks:
              - kind: llm_judge
                prompt: polite?
                expect: pass
              - kind: toxicity
              - kind: string_matching
                keyword: Hello
    """
)


def completions(marked: str) -> list[str]:
    index = marked.index("‸")
    text = marked[:index] + marked[index + 1 :]
    at = Position(marked.count("\n", 0, index), index - (marked.rfind("\n", 0, index) + 1))
    return [c.label for c in complete(analyze(text, "t.scenario.yaml"), text, at)]


def test_completion_offers_expect_on_a_judge_only() -> None:
    steps = "name: x\nsteps:\n  - interacts: [{inputs: a, outputs: b}]\n    checks:\n"
    assert "expect" in completions(steps + "      - kind: toxicity\n        ‸\n")
    assert "expect" not in completions(steps + "      - kind: equals\n        ‸\n")
    assert {"pass", "fail"} <= set(
        completions(steps + "      - kind: toxicity\n        expect: ‸\n")
    )


def test_hover_documents_expect_and_the_outline_shows_the_label() -> None:
    assert "checkspec calibrate" in hover_at(SUITE, "expect", "t.suite.yaml")
    found = symbols(document_symbols(analyze(SUITE, "t.suite.yaml")))
    assert [s.detail for s in found if s.name == "llm_judge"] == ["labelled pass"]


def keep_calibration(root: Path, verdict: str, reason: str) -> Path:
    """A calibration of the suite's label kept in a history, the judge saying `verdict`."""
    (root / "checkspec.yaml").write_text("model: openai/judge\n")
    path = root / "t.suite.yaml"
    path.write_text(SUITE)
    document = analyze(SUITE, str(path))
    from checkspec.engine.runs.project import Project

    identity = Project.open([path]).identity
    (planned,), _ = labelled([(document, e) for e in document.scenarios], identity)
    judged = Judged(planned.label, "openai/judge", [verdict], [reason])
    judge = Judge("llm_judge", "openai/judge", planned.label.prompt, [judged])
    history = root / ".checkspec" / "history.db"
    with HistoryStore(history) as store:
        store.save_calibration(Calibration([judge], [planned.label]).to_json())
    return history


def test_hover_on_expect_shows_the_last_calibration(tmp_path: Path) -> None:
    history = keep_calibration(tmp_path, "fail", "Too *curt* <b>")
    path = tmp_path / "t.suite.yaml"
    document = analyze(SUITE, str(path))
    at = label_at(document, pos(SUITE, "expect", 1))
    assert at is not None and at.expect == "pass"
    from checkspec.engine.runs.project import Project

    identity = Project.open([path]).identity(str(path), at.entry)
    last = last_calibration_of(history, identity, at.check.step, at.check.index)
    assert last is not None
    text = calibration_markdown(*last)
    assert "agreement 0.0% on 1 label(s)" in text
    assert "the judge disagreed**: labelled pass, judge said fail" in text
    assert "Too \\*curt\\* \\<b\\>" in text  # the judge's words, inert
    assert label_at(document, pos(SUITE, "prompt", 1)) is None  # only on the label


def test_quick_fixes_label_as_the_judge_said_and_as_correct_or_incorrect(tmp_path: Path) -> None:
    history = keep_calibration(tmp_path, "fail", "curt")
    path = tmp_path / "t.suite.yaml"
    document = analyze(SUITE, str(path))
    line = SUITE.splitlines().index("          - kind: llm_judge")
    on = Range(Position(line, 14), Position(line, 14))
    found = label_actions(SUITE, path, document, on, {}, history, root=tmp_path)
    assert [a.title for a in found] == ["Label as the judge said (expect: fail)"]
    (edit,) = found[0].edits
    assert edit.new_text == "fail" and edit.range.start.line == line + 2
    # After a run in which toxicity failed: label its verdict as correct or incorrect.
    tox = line + 3
    verdicts = {(0, 0, 1): "fail"}
    found = label_actions(
        SUITE, path, document, Range(Position(tox, 9), Position(tox, 9)), verdicts
    )
    assert [a.title for a in found] == [
        "Label as correct: the judge's fail (expect: fail)",
        "Label as incorrect: the judge's fail (expect: pass)",
    ]
    (edit,) = found[0].edits
    assert edit.new_text == "            expect: fail\n" and edit.range.start.line == tox + 1
    # A deterministic check gets none, whatever its verdict.
    det = line + 4
    verdicts = {(0, 0, 2): "fail"}
    assert (
        label_actions(SUITE, path, document, Range(Position(det, 9), Position(det, 9)), verdicts)
        == []
    )


def test_no_label_is_offered_where_the_answer_is_not_recorded(tmp_path: Path) -> None:
    text = SUITE.replace("            outputs: Hello you.\n", "")
    document = analyze(text, str(tmp_path / "t.suite.yaml"))
    line = text.splitlines().index("          - kind: toxicity")
    at = Range(Position(line, 9), Position(line, 9))
    assert label_actions(text, tmp_path / "t.suite.yaml", document, at, {(0, 0, 1): "fail"}) == []


def _applied(text: str, edits: tuple) -> str:
    """The text with the edits (positions in `text`) made, last first."""
    lines = text.splitlines(keepends=True)

    def offset(p: Position) -> int:
        return sum(len(x) for x in lines[: p.line]) + p.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


def test_a_label_on_a_live_answer_records_the_run_s_answers_first(tmp_path: Path) -> None:
    """Issue 40 item 6: on a scenario that runs against its target, labelling the verdict
    writes the answer the judge saw and the label in one edit; the file then validates."""
    text = SUITE.replace("            outputs: Hello you.\n", "").replace(
        "            expect: pass\n", ""
    )
    path = tmp_path / "t.suite.yaml"
    document = analyze(text, str(path))
    line = text.splitlines().index("          - kind: toxicity")
    at = Range(Position(line, 9), Position(line, 9))
    found = label_actions(text, path, document, at, {(0, 0, 1): "fail"}, None, {0: ("Go away.",)})
    assert [a.title for a in found] == [
        "Label as correct: the judge's fail (expect: fail, recording the run's answers)",
        "Label as incorrect: the judge's fail (expect: pass, recording the run's answers)",
    ]
    after = _applied(text, found[0].edits)
    assert after == text.replace(
        "          - inputs: hi\n", "          - inputs: hi\n            outputs: Go away.\n"
    ).replace(
        "          - kind: toxicity\n", "          - kind: toxicity\n            expect: fail\n"
    )
    assert analyze(after, str(path)).every_problem() == []
    # An answer count that does not fit the file's interactions: no label is offered.
    assert label_actions(text, path, document, at, {(0, 0, 1): "fail"}, None, {0: ()}) == []


def test_the_calibration_hover_says_each_kind_of_case() -> None:
    meta = {"calibration": {"id": "c1", "started": "2026-12-05T10:00:00Z"}}
    judge = {"judge": "llm_judge @ m", "agreement": 0.5, "n": 2, "kappa": None}
    agreed = calibration_markdown(meta, judge, {"agrees": True, "verdict": "pass"})
    assert "agreement 50.0% on 2 label(s), kappa -" in agreed
    assert agreed.endswith("This case: the judge agreed (pass).")  # no reason: no quote
    unjudged = calibration_markdown(meta, {}, {"verdict": "error", "reason": "  a\n b  "})
    assert "agreement - on 0 label(s)" in unjudged
    assert "This case: not judged (error)." in unjudged and unjudged.endswith("> a b")


def test_no_history_no_last_calibration(tmp_path: Path) -> None:
    assert last_calibration_of(tmp_path / "none.db", "t::one", 0, 0) is None
    history = keep_calibration(tmp_path, "fail", "curt")
    assert last_calibration_of(history, "t.suite.yaml::another", 0, 0) is None
