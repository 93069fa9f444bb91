"""The VS Code extension's recorded server answers are what the live server answers.

vscode-extension/test/fixtures is parsed by the extension's unit tests; when the run
summary or the outline changes, `make fixtures` records them again
(tools/extension_fixtures.py drives `python -m checkspec.server` over stdio).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.paths import REPO, load_script

# tools/extension_fixtures.py starts the language server over stdio.
pytestmark = pytest.mark.subprocess


def _load_tool() -> ModuleType:
    return load_script(REPO / "tools" / "extension_fixtures.py", "extension_fixtures")


TOOL = _load_tool()


@pytest.fixture(scope="module")
def answers() -> dict[str, Any]:
    return asyncio.run(TOOL.capture())


def test_recorded_answers_match_the_live_server(answers: dict[str, Any]) -> None:
    assert TOOL.drifted(answers) == [], "the server answers differently now: run `make fixtures`"
    assert sorted(answers) == sorted(p.name for p in TOOL.FIXTURES.glob("*.json"))


def test_a_changed_answer_is_reported_as_drift(
    answers: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "fixtures"
    shutil.copytree(TOOL.FIXTURES, copy)
    monkeypatch.setattr(TOOL, "FIXTURES", copy)
    failed = json.loads((copy / "runScenario.fail.json").read_text(encoding="utf-8"))
    failed["checks"][1]["line"] = 31  # the extension would mark the wrong line
    (copy / "runScenario.fail.json").write_text(TOOL.render(failed), encoding="utf-8")
    (copy / "symbols.suite.json").unlink()
    assert TOOL.drifted(answers) == ["runScenario.fail.json", "symbols.suite.json"]


def test_answers_are_stable_across_machines_and_runs(answers: dict[str, Any]) -> None:
    report = answers["runFile.suite.json"]
    assert report["uri"] == "file:///workspace/examples/support.suite.yaml"
    assert {s["duration_ms"] for s in report["scenarios"]} == {0}
    assert answers["runScenario.errorNoModel.json"]["checks"][0]["message"].startswith(
        "No LLM model configured"
    )
