"""The "Calibrate" code lens over stdio (issue 40 item 5): on a file with labelled checks,
`checkspec.calibrateFile` judges them on the recorded answers in the worker processes
(the local stub is the judge), never calling the target, and keeps the calibration, which
hover on `expect:` then shows."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.lsp_helpers import apply_edits, open_file, position_of, start_session
from tests.support.openai_stub import OpenAIStub, running_stub

pytestmark = pytest.mark.asyncio(loop_scope="module")

SPEC = """name: tone
target: python:agent:answer
steps:
  - interacts: [{inputs: hi, outputs: Go away.}]
    checks:
      - kind: llm_judge
        prompt: "Polite? {{ trace.last.outputs }}"
        expect: pass
      - kind: string_matching
        keyword: Go
"""
AGENT = "from pathlib import Path\n\ndef answer(text):\n    Path(__file__).with_name('CALLED').write_text(text)\n    return text\n"


@pytest.fixture(scope="module")
def stub() -> Iterator[OpenAIStub]:
    with running_stub() as server:
        server.chat = lambda body: server.verdict(False, "It is rude.")
        yield server


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory, stub: OpenAIStub) -> Path:
    root = tmp_path_factory.mktemp("calibrate-ws")
    (root / "checkspec.yaml").write_text(f"model: openai/judge\napi_base: {stub.base_url}\n")
    (root / "agent.py").write_text(AGENT)
    (root / "tone.scenario.yaml").write_text(SPEC)
    return root


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "checkspec.server"],
    server_env={
        **{k: v for k, v in os.environ.items() if not k.startswith("CHECKSPEC_")},
        "CHECKSPEC_API_KEY": "sk-test",
    },
)


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    await start_session(lsp_client, workspace)
    yield
    await lsp_client.shutdown_session()


async def test_the_lens_calibrates_the_file_and_hover_then_shows_it(
    client: LanguageClient, workspace: Path, stub: OpenAIStub
) -> None:
    uri = open_file(client, workspace / "tone.scenario.yaml", SPEC)
    asked = len(stub.chat_requests)  # other tests of the module may have asked before
    shown = len(client.messages)  # and calibrated before (their messages are theirs)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    (lens,) = [x for x in lenses or [] if x.command and "Calibrate" in x.command.title]
    assert lens.command is not None
    assert lens.command.title == "⚖ Calibrate (1 labelled)"
    answer: Any = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
    )
    assert answer["labels"] == 1 and not answer["cancelled"], answer
    (judge,) = answer["judges"]
    assert judge["confusion"] == {"tp": 0, "fp": 1, "fn": 0, "tn": 0}
    assert judge["agreement"] == 0.0 and judge["model"] == "openai/judge"
    assert "labelled pass, judge said fail: It is rude." in answer["text"]
    said = [m.message for m in client.messages[shown:] if m.message.startswith("Calibration")]
    assert said == [
        "Calibration: llm_judge @ openai/judge [inline:"
        + judge["prompt"].split(":")[1]
        + "]: agreement 0.0% (n 1), kappa 0.000, 1 disagreement(s)"
    ]
    assert len(stub.chat_requests) == asked + 1
    assert not (workspace / "CALLED").exists()  # the target was never called
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position_of(SPEC, "expect", 2),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "the judge disagreed" in hover.contents.value


async def test_a_file_without_labels_says_so(client: LanguageClient, workspace: Path) -> None:
    text = SPEC.replace("        expect: pass\n", "")
    uri = open_file(client, workspace / "plain.scenario.yaml", text)
    answer: Any = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.calibrateFile", arguments=[uri])
    )
    assert "no labelled check" in answer["error"]


LIVE = """name: live
target: python:live_agent:answer
steps:
  - interacts: [{inputs: hi}]
    checks:
      - kind: llm_judge
        prompt: "Polite? {{ trace.last.outputs }}"
"""


async def test_labelling_a_live_run_records_the_answer_it_judged(
    client: LanguageClient, workspace: Path
) -> None:
    """Issue 40 item 6: after a run against the target, "Label as incorrect" on the
    judge's verdict writes the answer the judge saw and the label, in one edit."""
    (workspace / "live_agent.py").write_text("def answer(text):\n    return 'Leave now.'\n")
    uri = open_file(client, workspace / "live.scenario.yaml", LIVE)
    ran: Any = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runFile", arguments=[uri])
    )
    assert [s["status"] for s in ran["scenarios"]] == ["fail"], ran
    line = LIVE.splitlines().index("      - kind: llm_judge")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(line, 10), types.Position(line, 10)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    by_title = {a.title: a for a in actions or [] if isinstance(a, types.CodeAction)}
    title = "Label as incorrect: the judge's fail (expect: pass, recording the run's answers)"
    assert title in by_title, list(by_title)
    edit = by_title[title].edit
    assert edit is not None and edit.changes is not None
    after = apply_edits(LIVE, edit.changes[uri])
    assert "outputs: Leave now." in after and "expect: pass" in after, after


# A labelled judge, and a labelled check left out as disabled: both front ends say so.
TWO = SPEC.replace("Polite?", "Courteous?").replace(
    "      - kind: string_matching\n        keyword: Go\n",
    "      - kind: llm_judge\n        prompt: 'Kind? {{ trace.last.outputs }}'\n"
    "        expect: fail\n        enabled: false\n",
)


def _kept_calibrations(root: Path) -> list[dict[str, Any]]:
    from checkspec.engine.history.store import HistoryStore, history_path

    store = HistoryStore(history_path(root))
    try:
        return [store.load_calibration(c["id"]) for c in store.calibrations()]
    finally:
        store.close()


def _same_parts(data: Any) -> Any:
    """A calibration without what differs between two of the same labels: its id and
    time, and the file as each front end names it (the editor's path is absolute; the
    label's `id` names it alike)."""
    if isinstance(data, list):
        return [_same_parts(item) for item in data]
    if not isinstance(data, dict):
        return data
    volatile = ("id", "started", "duration_s") if "duration_s" in data else ("file",)
    return {k: _same_parts(v) for k, v in data.items() if k not in volatile}


async def test_the_editor_and_the_cli_make_the_same_calibration(
    client: LanguageClient, workspace: Path, stub: OpenAIStub
) -> None:
    """One driver (engine/runs/calibration.py): the editor's calibration of a file is the
    one `checkspec calibrate` makes of it, its disabled label and its timing included (the
    editor's used to rebuild it by hand: no disabled count, no duration)."""
    import subprocess

    (workspace / "two.scenario.yaml").write_text(TWO)
    uri = open_file(client, workspace / "two.scenario.yaml", TWO)
    before = len(_kept_calibrations(workspace))
    stub_asked = len(stub.chat_requests)
    answer: Any = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.calibrateFile", arguments=[uri])
    )
    assert answer["labels"] == 1 and not answer["cancelled"], answer
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("CHECKSPEC_", "OPENAI_"))}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "checkspec.engine.cli.main",
            "calibrate",
            "two.scenario.yaml",
            "--no-cache",
        ],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=300,
        env={**clean, "CHECKSPEC_API_KEY": "sk-test"},
    )
    assert done.returncode == 0, done.stderr  # every label judged (no bar set)
    kept = _kept_calibrations(workspace)  # newest first
    assert len(kept) == before + 2
    cli, editor = kept[:2]
    assert editor["calibration"]["disabled"] == 1
    assert editor["calibration"]["duration_s"] > 0
    assert len(stub.chat_requests) == stub_asked + 2  # the judge asked once by each
    assert _same_parts(editor) == _same_parts(cli)
