"""A calibration's text and Markdown when labels could not be judged, when verdicts flip
between repeats, and when it was interrupted: each is said, with where the label is.
The judge is the local stub (in-process executor)."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from checkspec.engine.calibrate.labels import labelled
from checkspec.engine.calibrate.render import render
from checkspec.engine.calibrate.run import Calibration
from checkspec.engine.executor.local import InProcessExecutor
from checkspec.engine.runs.calibration import calibrate
from checkspec.engine.settings import Settings
from checkspec.engine.spec.document import analyze
from tests.support.openai_stub import running_stub

# answer 0: pass, labelled pass; answer 1: the provider refuses (400); answer 2: the verdict
# flips between runs; answer 3: fail, labelled pass (a disagreement).
SUITE = "name: s\nscenarios:\n" + "".join(
    f"  - name: c{n}\n    steps:\n      - interacts: [{{inputs: q, outputs: 'answer {n}'}}]\n"
    f"        checks:\n          - kind: llm_judge\n            prompt: 'ok? {{{{ trace.last.outputs }}}}'\n"
    f"            expect: {'fail' if n == 2 else 'pass'}\n"
    for n in range(4)
)


def run_calibration(**options: Any) -> Calibration:
    document = analyze(SUITE, "t.suite.yaml")
    planned, _ = labelled([(document, e) for e in document.scenarios])
    flips = itertools.cycle([True, False])
    with running_stub() as stub:

        def chat(body: dict[str, Any]) -> Any:
            prompt = body["messages"][-1]["content"]
            if "answer 1" in prompt:
                return 400
            if "answer 2" in prompt:
                return stub.verdict(next(flips), "it depends")
            return stub.verdict("answer 3" not in prompt, "because\nof reasons")

        stub.chat = chat
        settings = Settings(model="openai/judge", api_base=stub.base_url, api_key="k", cache=False)
        return asyncio.run(
            calibrate(planned, executor=InProcessExecutor(1), settings=settings, **options)
        )


@pytest.fixture(scope="module")
def repeated() -> Calibration:
    return run_calibration(repeat=2)


def test_text_says_what_was_not_judged_and_which_verdicts_flip(repeated: Calibration) -> None:
    shown = render(repeated, "text")
    assert ", 2 runs each, 1 judge(s)" in shown.splitlines()[0]
    header = next(line for line in shown.splitlines() if line.startswith("judge "))
    assert header.split() == [
        "judge",
        "n",
        "agreement",
        "kappa",
        "precision(fail)",
        "recall(fail)",
        "consistent(2)",
        "errors",
        "cost",
    ]
    assert "  not judged (1):" in shown
    # c1's check, where it is written, and why the provider refused
    assert "    t.suite.yaml:14  error: The call to openai/judge failed (not retried)" in shown
    assert "  verdicts that flip over 2 runs:\n    t.suite.yaml:21  pass fail\n" in shown
    assert "  disagreements (2):" in shown
    assert "    t.suite.yaml:28  labelled pass, judge said fail: because of reasons" in shown
    assert "interrupted" not in shown


def test_markdown_has_the_consistency_column_and_each_disagreement(repeated: Calibration) -> None:
    shown = render(repeated, "markdown")
    assert (
        "| judge | n | agreement | kappa | precision(fail) | recall(fail) | consistent(2) |"
        in shown
    )
    assert "| t.suite.yaml:21 | fail | pass | it depends |" in shown
    assert "| t.suite.yaml:28 | pass | fail | because of reasons |" in shown


def test_an_interrupted_calibration_says_it_covers_the_labels_judged_so_far() -> None:
    stopped = run_calibration(stop=lambda: True)
    assert stopped.interrupted
    shown = render(stopped, "text")
    assert shown.rstrip().endswith("interrupted: the calibration is of the labels judged so far")
