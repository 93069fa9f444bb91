"""Random edits over the example files, as typing produces them, through every feature.

A seeded generator (the same run every time, so a failure reproduces): after each edit the
text is analysed and completed, hovered, outlined and fixed at random places; nothing may
raise, every range must lie inside the text, and each round must answer within a bound.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from checkspec.engine.spec.document import Document, analyze
from checkspec.engine.spec.lines import LineIndex
from checkspec.engine.spec.workspace import workspace_from_text
from checkspec.server.analysis.completion import complete
from checkspec.server.analysis.hover import hover
from tests.support.analysis import ranges_of
from tests.support.paths import REPO
from tests.support.spec_texts import edit_sequence

EXAMPLES = REPO / "examples"
FILES = sorted(
    p for p in EXAMPLES.iterdir() if p.suffix in (".yaml", ".json", ".jsonl") and p.is_file()
)
WORKSPACE = workspace_from_text(
    (EXAMPLES / "checkspec.yaml").read_text(encoding="utf-8"), EXAMPLES / "checkspec.yaml"
)
EDITS = 150
ROUND_BOUND = 5.0  # seconds; a round takes milliseconds


@pytest.mark.parametrize("example", FILES, ids=lambda p: p.name)
def test_random_edits_never_raise_and_keep_ranges_inside(example: Path) -> None:
    r = random.Random(f"fuzz:{example.name}")
    earlier: Document | None = None
    for text in edit_sequence(r, example.read_text(encoding="utf-8"), EDITS):
        started = time.perf_counter()
        document = analyze(text, str(example), WORKSPACE)
        index = LineIndex(text)
        ranges = ranges_of(document)
        for _ in range(3):
            at = index.position(r.randint(0, len(text)))
            found = complete(
                document, text, at, WORKSPACE, trigger=r.choice([None, " "]), earlier=earlier
            )
            ranges += [item.replace for item in found]
            info = hover(document, at, WORKSPACE)
            if info is not None:
                ranges.append(info.range)
        assert time.perf_counter() - started < ROUND_BOUND
        for rng in ranges:
            assert index.contains(rng), (rng, index.end, text)
        if document.source.root is not None:
            earlier = document


def test_the_fuzzer_reaches_broken_and_fixed_texts() -> None:
    """The edits are not all harmless: some texts break the YAML, some stay valid."""
    r = random.Random("coverage")
    original = (EXAMPLES / "refund.scenario.yaml").read_text(encoding="utf-8")
    codes: set[str] = set()
    for text in edit_sequence(r, original, EDITS):
        codes.update(p.code for p in analyze(text, "refund.scenario.yaml").all_problems)
    assert "syntax" in codes and len(codes) > 3
