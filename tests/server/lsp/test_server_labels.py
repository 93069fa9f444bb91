"""Labels over stdio (issue 40 item 5): hover on a check's `expect:` shows its last
calibration from the workspace's history, and a quick fix labels it as the judge said."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from checkspec.engine.calibrate.labels import labelled
from checkspec.engine.calibrate.run import Calibration, Judge, Judged
from checkspec.engine.history.store import HistoryStore
from checkspec.engine.runs.project import Project
from checkspec.engine.spec.document import analyze
from tests.support.lsp_helpers import apply_edits, open_file, position_of, start_session

pytestmark = pytest.mark.asyncio(loop_scope="module")

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"])

SPEC = """name: judged
steps:
  - interacts: [{inputs: hi, outputs: Hello you.}]
    checks:
      - kind: llm_judge
        prompt: polite?
        expect: pass
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A calibration in which the judge said fail on the label `pass`, kept in history."""
    folder = tmp_path_factory.mktemp("labels")
    (folder / "checkspec.yaml").write_text("model: openai/judge\n", encoding="utf-8")
    path = folder / "tone.scenario.yaml"
    path.write_text(SPEC, encoding="utf-8")
    document = analyze(SPEC, str(path))
    identity = Project.open([path]).identity
    (planned,), _ = labelled([(document, e) for e in document.scenarios], identity)
    judged = Judged(planned.label, "openai/judge", ["fail"], ["It is curt."])
    judge = Judge("llm_judge", "openai/judge", planned.label.prompt, [judged])
    with HistoryStore(folder / ".checkspec" / "history.db") as store:
        store.save_calibration(Calibration([judge], [planned.label]).to_json())
    return folder


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    await start_session(lsp_client, workspace)
    yield
    await lsp_client.shutdown_session()


async def test_hover_on_expect_shows_the_last_calibration(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "tone.scenario.yaml", SPEC)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position_of(SPEC, "expect", 2),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert "Last calibration" in text and "agreement 0.0% on 1 label(s)" in text
    assert "labelled pass, judge said fail" in text and "It is curt." in text


async def test_a_quick_fix_labels_it_as_the_judge_said(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "tone.scenario.yaml", SPEC)
    at = position_of(SPEC, "kind: llm_judge", 2)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=at, end=at),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    found = [
        a for a in actions or [] if isinstance(a, types.CodeAction) and "judge said" in a.title
    ]
    assert [a.title for a in found] == ["Label as the judge said (expect: fail)"]
    assert found[0].kind == types.CodeActionKind.QuickFix
    edit = found[0].edit
    assert edit is not None and edit.changes is not None
    assert apply_edits(SPEC, edit.changes[uri]) == SPEC.replace("expect: pass", "expect: fail")
