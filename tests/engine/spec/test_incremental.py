"""Incremental analysis equals a fresh analysis of the final text, whatever the edits.

The property: after any sequence of edits applied through `Editing` (what the language
server holds per document), its analysis equals `analyze` of the final text: the tree
(kinds, values, ranges), every problem, the scenario entries with their checks and ranges,
and the outline. Edits are drawn from what breaks YAML most: line breaks, dashes,
indentation, quotes, brackets, comments, anchors, document markers, block scalars.
Other tests show the re-reading is really incremental (a fresh analysis is never made
for an edit inside a scenario) and that the line index is edited right.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checkspec.engine.spec import incremental
from checkspec.engine.spec.document import Document, analyze
from checkspec.engine.spec.incremental import Editing, Window
from checkspec.engine.spec.lines import LineIndex, split_lines
from tests.support.analysis_summary import summary
from tests.support.spec_texts import EXAMPLES, WORKSPACE, suite
from tests.support.unmeasured import measured_first, measured_while


def dataset(count: int) -> str:
    rows = "".join(
        f"  - name: row {i}\n"
        f"    interactions:\n"
        f"      - input: Question {i}?\n"
        f"        output: {{response: {{content: answer {i}}}}}\n"
        f"        checks:\n"
        f"          - identifier: string_matching\n"
        f"            params: {{keyword: answer}}\n"
        f"          - identifier: {'hub_metadta' if i % 3 == 0 else 'hub_metadata'}\n"
        for i in range(count)
    )
    return f"name: faq\ninput_schema: {{type: string}}\nscenarios:\n{rows}"


BASES = {
    "suite.suite.yaml": suite(8),
    "indented.suite.yaml": suite(8, indent="  "),
    "tail.suite.yaml": suite(6, indent="  ", tail=True),
    "support.suite.yaml": (EXAMPLES / "support.suite.yaml").read_text(encoding="utf-8"),
    "faq.dataset.yaml": (EXAMPLES / "faq.dataset.yaml").read_text(encoding="utf-8"),
    "rows.dataset.yaml": dataset(10),
    "crlf.suite.yaml": suite(4).replace("\n", "\r\n"),
    "rows.dataset.jsonl": (EXAMPLES / "faq.dataset.jsonl").read_text(encoding="utf-8") * 4,
}

SNIPPETS = (
    "\n", "\n", "\r\n", "\r", "- ", "  ", "    ", "\t", ":", ": ", "#", " #", "'", '"', "{",
    "}", "[", "]", ",", "|\n", ">-\n", "? ", "- name: new\n", "  - name: new\n    steps: []\n",
    "kind: equals", "equalz", "x", "é", "\u2028", "name: late\n",
)  # fmt: skip
# Rarer: they mean something else alone than inside a file, or make entries share nodes.
RARE = ("&a ", "*a", "<<: ", "!!str ", "---\n", "...\n", "\ufeff", "%YAML 1.1\n", "scenarios: []\n")


def apply(editing: Editing, r: random.Random) -> None:
    """One random edit: insert a snippet, delete or replace a span or lines, paste, undo."""
    text = editing.text
    start = r.randint(0, len(text))
    roll = r.random()
    if roll < 0.15 and editing.base is not None and editing.window is not None:
        window = editing.window  # undo back to the last analysis that read (as editors do)
        before = editing.base.source.text[window.start : window.old_end]
        editing.replace(window.start, window.new_end, before)
        return
    roll = r.random()
    if roll < 0.15 and text:  # delete whole lines
        lines = LineIndex(text)
        first = lines.position(start).line
        last = min(len(lines) - 1, first + r.randint(0, 3))
        begin = lines.offset(lines.position(start)._replace(character=0))
        end = lines.offset(lines.position(start)._replace(line=last + 1, character=0))
        if last + 1 >= len(lines):
            end = len(text)
        editing.replace(begin, max(begin, end), "")
        return
    if roll < 0.25 and text:  # copy a run of lines elsewhere (a pasted scenario)
        lines = split_lines(text)
        first = r.randrange(len(lines))
        chunk = "\n".join(lines[first : first + r.randint(1, 20)]) + "\n"
        at = LineIndex(text).offset(LineIndex(text).position(start)._replace(character=0))
        editing.replace(at, at, chunk)
        return
    end = min(len(text), start + (r.randint(0, 12) if r.random() < 0.5 else 0))
    roll = r.random()
    snippet = r.choice(RARE) if roll < 0.03 else r.choice(SNIPPETS) if roll < 0.8 else ""
    editing.replace(start, end, snippet)


def check_edits(name: str, seed: int, steps: int) -> int:
    """Random edits to one base text; after each, incremental == fresh. How many re-reads."""
    r = random.Random(f"{name}:{seed}")
    editing = Editing(BASES[name], name, WORKSPACE)
    editing.analysis()
    for _ in range(steps):
        for _ in range(r.choice((1, 1, 1, 2, 4))):  # sometimes several edits per analysis
            apply(editing, r)
        got = editing.analysis()
        fresh = analyze(editing.text, name, WORKSPACE)
        assert summary(got) == summary(fresh), editing.text
    return steps


@pytest.mark.parametrize("name", sorted(BASES))
def test_incremental_analysis_equals_a_fresh_one_after_random_edits(name: str) -> None:
    for seed in range(12):
        with measured_while(seed < 2):  # the same lines again, 2-3x slower traced
            check_edits(name, seed, 25)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(BASES)),
    seed=st.integers(min_value=0, max_value=2**32),
    steps=st.integers(min_value=1, max_value=30),
)
@measured_first(15)  # each example analyses up to 30 edits: the body is the cost
def test_property_any_edits_end_as_a_fresh_analysis(name: str, seed: int, steps: int) -> None:
    check_edits(name, seed, steps)


def test_an_edit_inside_a_scenario_never_analyses_the_whole_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = suite(50)
    editing = Editing(text, "s.suite.yaml", WORKSPACE)
    editing.analysis()

    def refuse(*args: Any, **kwargs: Any) -> Document:
        raise AssertionError("a fresh analysis was made")

    monkeypatch.setattr(incremental, "analyze", refuse)
    at = text.index("kind: string_matching", text.index("case 20")) + len("kind: ")
    for word in ("strng_matching", "string_matching"):  # break a kind, restore it
        editing.replace(at, at + len(editing.text[at:].split("\n")[0]), word)
        found = editing.analysis()
        codes = [p.code for p in found.scenarios[20].problems]
        assert ("unknown-kind" in codes) is (word == "strng_matching")
    line_before = found.scenarios[21].range.start.line
    line_end = editing.text.index("\n", at)
    editing.replace(line_end, line_end, "\n          case_sensitive: false")  # a new line
    editing.replace(at - 10, at - 10, "\n")  # a line break that breaks the YAML
    broken = editing.analysis()
    assert broken.source.root is None and [p.code for p in broken.all_problems] == ["syntax"]
    editing.replace(at - 10, at - 9, "")  # and repairs it
    repaired = editing.analysis()
    assert repaired.layout is not None
    assert repaired.scenarios[21].range.start.line == line_before + 1
    monkeypatch.undo()
    assert summary(repaired) == summary(analyze(editing.text, "s.suite.yaml", WORKSPACE))


def test_an_edit_of_a_jsonl_row_reads_only_that_line(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (EXAMPLES / "faq.dataset.jsonl").read_text(encoding="utf-8") * 20
    editing = Editing(text, "rows.dataset.jsonl", WORKSPACE)
    before = editing.analysis()
    assert before.layout is not None
    last_line = before.scenarios[-1].range.start.line
    monkeypatch.setattr(incremental, "analyze", lambda *a, **k: pytest.fail("fresh analysis"))
    editing.replace(0, 0, "{not json\n")  # a bad row above all the others
    broken = editing.analysis()
    assert [p.code for p in broken.all_problems] == ["syntax"]
    assert broken.scenarios[-1].range.start.line == last_line + 1
    editing.replace(0, len("{not json\n"), "\n")  # now a blank line: the rows stay moved
    repaired = editing.analysis()
    assert repaired.all_problems == [] and len(repaired.scenarios) == len(before.scenarios)
    monkeypatch.undo()
    assert summary(repaired) == summary(analyze(editing.text, "rows.dataset.jsonl", WORKSPACE))


def test_windows_compose_like_the_edits() -> None:
    r = random.Random(7)
    for _ in range(500):
        base = "".join(r.choice("ab\n") for _ in range(r.randint(0, 30)))
        text, window = base, None
        for _ in range(r.randint(1, 5)):
            start = r.randint(0, len(text))
            end = r.randint(start, len(text))
            new = "x" * r.randint(0, 4)
            text = text[:start] + new + text[end:]
            window = (
                Window.of(start, end, len(new))
                if window is None
                else window.then(start, end, len(new))
            )
        assert window is not None
        assert base[: window.start] == text[: window.start]
        assert base[window.old_end :] == text[window.new_end :]


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet="ab\r\n", max_size=60),
    edits=st.lists(
        st.tuples(st.integers(0, 60), st.integers(0, 8), st.text(alphabet="ab\r\n", max_size=8)),
        max_size=6,
    ),
)
def test_an_edited_line_index_equals_a_fresh_one(
    text: str, edits: list[tuple[int, int, str]]
) -> None:
    index = LineIndex(text)
    for start, length, new in edits:
        start = min(start, len(text))
        end = min(len(text), start + length)
        text = text[:start] + new + text[end:]
        index = index.edited(text, start, end, start + len(new))
        fresh = LineIndex(text)
        assert len(index) == len(fresh)
        assert [index.line(n) for n in range(len(fresh) + 1)] == [
            fresh.line(n) for n in range(len(fresh) + 1)
        ]
        assert [index.position(o) for o in range(len(text) + 1)] == [
            fresh.position(o) for o in range(len(text) + 1)
        ]
