"""What a run says it left out: one line per reason, the first names listed, the rest
counted (a suite of thousands of drafts is one line, not thousands)."""

from __future__ import annotations

from checkspec.engine.runs.outcome import LeftOut


def test_one_line_per_reason_with_the_first_names() -> None:
    left_out = LeftOut()
    assert not left_out and left_out.lines() == []
    left_out.add("draft scenario(s) not run", (f"s.suite.yaml::#{i}" for i in range(12)))
    left_out.add("scenario(s) of the other shards (--shard 1/2)", ["a::x"])
    left_out.add("nothing at all", [])  # a reason with no scenario is not said
    first, second = left_out.lines()
    assert first.startswith("left out: 12 draft scenario(s) not run: s.suite.yaml::#0, ")
    assert first.endswith("s.suite.yaml::#9 (and 2 more)")
    assert second == "left out: 1 scenario(s) of the other shards (--shard 1/2): a::x"
