"""JSON strings are read with JSON's semantics: a string without escapes is taken from the
source text directly (the fast path of large JSON Lines datasets), and agrees with json."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.source import parse_source
from tests.support.hub_rows import row
from tests.support.spec_texts import WORKSPACE


@settings(max_examples=300, deadline=None)
@given(key=st.text(max_size=20), value=st.text(max_size=40), ascii_only=st.booleans())
def test_a_json_string_reads_as_json_reads_it(key: str, value: str, ascii_only: bool) -> None:
    text = json.dumps({key: value, "n": [value, 1.5]}, ensure_ascii=ascii_only)
    source = parse_source(text, json=True)
    assert not source.problems
    assert source.root is not None
    assert source.root.value == json.loads(text)


def test_a_raw_control_character_in_a_json_string_is_still_an_error() -> None:
    source = parse_source('{"k": "a\tb"}', json=True)
    assert source.root is None
    assert any("control character" in p.message for p in source.problems)


def test_a_jsonl_row_with_a_raw_tab_in_a_string_is_reported_at_its_line() -> None:
    good = row(1)
    bad = row(2).replace("row 2", "row\t2")  # a raw tab: not JSON
    text = "\n".join([good, bad, good]) + "\n"
    document = analyze(text, "tab.dataset.jsonl", WORKSPACE)
    assert {p.range.start.line for p in document.errors} == {1}
    assert len(document.scenarios) == 2
