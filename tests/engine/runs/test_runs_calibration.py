"""Calibration through the run session (engine/runs/calibration.py): one session a judge
model, each label's repeats read unfolded, and no executor driven anywhere else."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
from typing import Any

from checkspec.engine.calibrate.labels import labelled
from checkspec.engine.executor.local import InProcessExecutor
from checkspec.engine.runs.calibration import CalibrationRun
from checkspec.engine.runs.session import RunSession
from checkspec.engine.settings import Settings
from checkspec.engine.spec.document import analyze
from tests.support.openai_stub import running_stub

ROOT = Path(__file__).resolve().parents[3]
SUITE = """name: s
scenarios:
  - name: twice
    status: draft
    steps:
      - interacts: [{inputs: q, outputs: 'answer'}]
        checks:
          - kind: llm_judge
            prompt: 'first? {{ trace.last.outputs }}'
            expect: pass
          - kind: llm_judge
            prompt: 'second? {{ trace.last.outputs }}'
            expect: fail
"""


def test_each_model_is_a_session_and_each_label_a_todo_entry() -> None:
    """Two labels of one (draft) scenario are two entries; two models two sessions; the
    repeats of each label are its verdicts in order, the model asked named."""
    document = analyze(SUITE, "t.suite.yaml")
    planned, _ = labelled([(document, e) for e in document.scenarios])
    with running_stub() as stub:
        stub.chat = lambda body: stub.verdict(True, "r")
        settings = Settings(model="openai/a", api_base=stub.base_url, api_key="k", cache=False)
        calibrating = CalibrationRun(
            planned, settings=settings, repeat=2, models=[None, "openai/b"], disabled=3
        )
        sessions: list[RunSession] = []

        async def drive(session: RunSession) -> None:
            sessions.append(session)
            session.executor = InProcessExecutor(2)
            await session.run()

        calibration = asyncio.run(calibrating.run(drive))
        asked = sorted(body["model"] for body in stub.chat_requests)
    assert [len(s.todo) for s in sessions] == [2, 2]  # the draft's labels: a label is a label
    assert [s.settings.model for s in sessions] == ["openai/a", "openai/b"]
    assert asked == ["a"] * 4 + ["b"] * 4  # 2 labels x 2 repeats x 2 models
    assert [j.model for j in calibration.judges] == ["openai/a"] * 2 + ["openai/b"] * 2
    assert all(j.judged[0].verdicts == ["pass", "pass"] for j in calibration.judges)
    assert calibration.disabled == 3 and calibration.repeat == 2
    assert not calibration.interrupted and calibration.duration_s > 0


def test_a_cancelled_session_ends_the_calibration() -> None:
    document = analyze(SUITE, "t.suite.yaml")
    planned, _ = labelled([(document, e) for e in document.scenarios])
    settings = Settings(model="openai/a", api_base="http://127.0.0.1:9", api_key="k")
    calibrating = CalibrationRun(planned, settings=settings, models=[None, "openai/b"])
    driven: list[Any] = []

    async def drive(session: RunSession) -> None:
        driven.append(session)
        calibrating.cancel()  # before anything ran: nothing judged

    calibration = asyncio.run(calibrating.run(drive))
    assert len(driven) == 1 and calibration.interrupted
    assert calibration.judges == []


def test_only_the_run_session_drives_an_executor() -> None:
    """Every run goes through engine/runs/session.py: no other module of the engine or
    the server calls an executor's `stream` (calibrate/run.py used to, with the session's
    key arithmetic copied)."""
    found = []
    for folder in ("engine", "server"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith("engine/executor/") or relative == "engine/runs/session.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "stream"
                ):
                    found.append(f"{relative}:{node.lineno}")
    assert found == []
