"""The transcript hover says when a scenario's verdict differs from the one recorded before."""

from __future__ import annotations

from checkspec.server.analysis.transcript import transcript_markdown


def test_the_hover_names_a_changed_previous_verdict() -> None:
    summary = {"status": "fail", "previous": {"status": "pass", "run": "r`1", "started": "t"}}
    head = transcript_markdown(summary).splitlines()[0]
    assert "previously ✓ pass (run `r1`)" in head


def test_the_same_verdict_or_none_is_not_mentioned() -> None:
    assert "previously" not in transcript_markdown({"status": "fail"})
    same = {"status": "fail", "previous": {"status": "fail", "run": "r1"}}
    assert "previously" not in transcript_markdown(same)
