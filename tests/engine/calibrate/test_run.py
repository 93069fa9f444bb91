"""Running labels (engine/calibrate/run.py) through an executor, the judge being the local
stub: one job per label and repeat, the verdicts in repeat order, a stop honoured."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from checkspec.engine.calibrate.labels import labelled
from checkspec.engine.executor.local import InProcessExecutor
from checkspec.engine.runs.calibration import calibrate
from checkspec.engine.settings import Settings
from checkspec.engine.spec.document import analyze
from tests.support.openai_stub import running_stub

SUITE = "name: s\nscenarios:\n" + "".join(
    f"  - name: c{n}\n    steps:\n      - interacts: [{{inputs: q, outputs: 'answer {n}'}}]\n"
    f"        checks:\n          - kind: llm_judge\n            prompt: 'ok? {{{{ trace.last.outputs }}}}'\n"
    f"            expect: {'fail' if n % 2 else 'pass'}\n"
    for n in range(4)
)


@pytest.fixture
def planned() -> list[Any]:
    document = analyze(SUITE, "t.suite.yaml")
    assert not document.errors, document.errors
    found, _ = labelled([(document, e) for e in document.scenarios])
    return found


def test_repeats_ask_again_and_keep_their_order(planned: list[Any]) -> None:
    with running_stub() as stub:
        stub.chat = lambda body: stub.verdict(
            "answer 3" not in body["messages"][-1]["content"], "r"
        )
        settings = Settings(model="openai/judge", api_base=stub.base_url, api_key="k", cache=False)
        calibration = asyncio.run(
            calibrate(planned, executor=InProcessExecutor(2), settings=settings, repeat=2)
        )
    (judge,) = calibration.judges
    assert [j.verdicts for j in judge.judged] == [
        ["pass"] * 2,
        ["pass"] * 2,
        ["pass"] * 2,
        ["fail"] * 2,
    ]
    assert judge.confusion.to_json() == {"tp": 1, "fp": 0, "fn": 1, "tn": 2}
    assert len(stub.chat_requests) == 8
    assert not calibration.interrupted


def test_a_stop_ends_it_with_what_was_judged(planned: list[Any]) -> None:
    with running_stub() as stub:
        stub.chat = lambda body: stub.verdict(True, "r")
        settings = Settings(model="openai/judge", api_base=stub.base_url, api_key="k", cache=False)
        calibration = asyncio.run(
            calibrate(planned, executor=InProcessExecutor(1), settings=settings, stop=lambda: True)
        )
    assert calibration.interrupted
    judged = sum(len(j.judged) for j in calibration.judges)
    assert 1 <= judged < 4  # the labels cancelled are not counted as judged
    assert all(j.verdict == "pass" for judge in calibration.judges for j in judge.judged)
