"""engine/spec/cancel.py: an analysis stops at its next row or scenario once its flag is
set (the language server's worker thread, issue 48 item 3), and a cancelled re-read
leaves the previous analysis usable for the next one."""

from __future__ import annotations

import copy
import json
import threading

import pytest

from checkspec.engine.spec.cancel import Cancelled, cancellable, checkpoint
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.incremental import Editing
from tests.support.analysis_summary import summary

PATH = "/work/rows.dataset.jsonl"


def rows(count: int, identifier: str = "string_matching") -> str:
    row = {
        "name": "r",
        "interactions": [
            {"input": "q", "output": "a", "checks": [{"identifier": identifier, "params": {}}]}
        ],
    }
    return "".join(json.dumps({**row, "name": f"r{n}"}) + "\n" for n in range(count))


def test_checkpoint_does_nothing_outside_cancellable() -> None:
    checkpoint()
    flag = threading.Event()
    flag.set()
    with pytest.raises(Cancelled), cancellable(flag):
        checkpoint()
    checkpoint()  # the flag belongs to the block, not to the thread for good


def test_a_set_flag_stops_a_dataset_and_a_suite_analysis() -> None:
    flag = threading.Event()
    flag.set()
    suite = "name: s\nscenarios:\n" + "".join(f"  - name: s{n}\n    steps: []\n" for n in range(5))
    for text, path in ((rows(50), PATH), (suite, "/work/s.suite.yaml")):
        with pytest.raises(Cancelled), cancellable(flag):
            analyze(text, path)
        assert summary(analyze(text, path))  # unflagged: analysed as ever


def test_a_cancelled_re_read_leaves_the_previous_analysis_usable() -> None:
    editing = Editing(rows(40), PATH)
    editing.analysis()
    start = editing.text.index("string_matching")
    editing.replace(start, start + len("string"), "strin")
    flag = threading.Event()
    flag.set()
    attempt = copy.copy(editing)  # as the server's worker thread does
    with pytest.raises(Cancelled), cancellable(flag):
        attempt.analysis()
    assert attempt.current is None and attempt.base is editing.base
    found = editing.analysis()  # re-read from the same base
    assert summary(found) == summary(analyze(editing.text, PATH))
    assert any("strin_matching" in p.message for p in found.all_problems)
