"""checkspec.generate in the language server, over stdio with a real LSP client: the
generation runs in a worker of the server's pool, reports work-done progress, stops when cancelled,
and dataset files offer "Generate N more like these" and "Mark reviewed"."""

from __future__ import annotations

import ast
import asyncio
import os
import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
import yaml
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.generate_helpers import knowledge_base
from tests.support.lsp_helpers import start_session
from tests.support.openai_stub import GenerationAnswers, OpenAIStub, running_stub

pytestmark = pytest.mark.asyncio(loop_scope="module")

STUB: list[tuple[OpenAIStub, GenerationAnswers]] = []


@pytest.fixture(scope="module")
def stub() -> Iterator[tuple[OpenAIStub, GenerationAnswers]]:
    with running_stub() as server:
        answers = GenerationAnswers()
        server.chat = answers
        STUB.append((server, answers))
        yield server, answers


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory, stub: Any) -> Path:
    root = tmp_path_factory.mktemp("generate-ws")
    server, _ = stub
    # Read by each generation the server starts (the server itself is already running);
    # the model is the editor's setting (initialization options), passed on to them.
    (root / "checkspec.yaml").write_text(f"api_base: {server.base_url}\ncache_dir: .cache\n")
    knowledge_base(root)
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
    await start_session(lsp_client, workspace, options={"model": "openai/stub-model"})
    yield
    await lsp_client.shutdown_session()


async def execute(client: LanguageClient, command: str, *arguments: Any, **params: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=list(arguments), **params)
    )


async def test_generate_writes_the_file_with_work_done_progress(
    client: LanguageClient, workspace: Path
) -> None:
    out = workspace / "kb.dataset.yaml"
    client.progress_reports.setdefault("gen-1", [])
    request = {"docs": [str(workspace / "kb")], "output": out.as_uri(), "count": 3}
    result = await execute(client, "checkspec.generate", request, work_done_token="gen-1")
    assert result["status"] == "written", result
    assert result["count"] == 3 and result["output"] == out.resolve().as_uri()
    assert len(yaml.safe_load(out.read_text())["scenarios"]) == 3
    begin, *middle, end = client.progress_reports["gen-1"]
    assert isinstance(begin, types.WorkDoneProgressBegin) and begin.cancellable
    assert middle and middle[-1].message == "3/3 scenarios" and middle[-1].percentage == 100
    assert isinstance(end, types.WorkDoneProgressEnd)


async def test_bad_requests_are_answered_with_the_reason(
    client: LanguageClient, workspace: Path
) -> None:
    result = await execute(
        client, "checkspec.generate", {"preset": "nobody", "output": "x.dataset.yaml"}
    )
    assert result["status"] == "error" and "unknown preset 'nobody'" in result["error"]
    result = await execute(client, "checkspec.generate", {"output": "x.dataset.yaml"})
    assert result == {
        "status": "error",
        "error": "give one of persona, preset, docs or like (docs may take a persona or preset)",
    }
    assert not (workspace / "x.dataset.yaml").exists()


async def test_topics_and_presets_for_the_pickers(client: LanguageClient, workspace: Path) -> None:
    topics = await execute(client, "checkspec.listTopics", {"docs": [str(workspace / "kb")]})
    assert sorted(t["name"] for t in topics["topics"]) == ["returns", "shipping", "warranty"]
    # A relative folder is the workspace folder's, as in checkspec.generate's request.
    assert await execute(client, "checkspec.listTopics", {"docs": ["kb"]}) == topics
    presets = await execute(client, "checkspec.listPresets")
    assert "impatient_customer" in [p["name"] for p in presets["presets"]]


async def test_cancelling_the_request_writes_nothing(
    client: LanguageClient, workspace: Path, stub: Any
) -> None:
    server, answers = stub
    answers.latency = 2.0
    out = workspace / "slow.dataset.yaml"
    params = types.ExecuteCommandParams(
        command="checkspec.generate",
        arguments=[{"preset": "impatient_customer", "output": str(out), "count": 10, "seed": 9}],
        work_done_token="gen-cancel",
    )
    client.progress_reports.setdefault("gen-cancel", [])
    sent = len(server.chat_requests)
    run = asyncio.ensure_future(
        client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND, params, msg_id="gen-c")
    )
    for _ in range(600):
        if len(server.chat_requests) > sent:
            break
        await asyncio.sleep(0.05)
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="gen-c"))
    result = await asyncio.wait_for(run, 20)
    answers.latency = 0.0
    assert result["status"] == "cancelled", result
    assert not out.exists()
    end = client.progress_reports["gen-cancel"][-1]
    assert isinstance(end, types.WorkDoneProgressEnd) and "cancelled" in (end.message or "")


async def test_dataset_code_actions(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "actions.dataset.yaml"  # drafts, generated here
    request = {"docs": [str(workspace / "kb")], "output": path.as_uri(), "count": 3}
    answer = await execute(client, "checkspec.generate", request)
    assert answer["status"] == "written", answer
    text = path.read_text()
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text))
    )
    line = next(i for i, t in enumerate(text.splitlines()) if "status: draft" in t)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=types.Range(types.Position(line, 0), types.Position(line, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    titles = [a.title for a in actions or []]
    assert "Mark reviewed (status: active)" in titles
    assert "Mark all 3 drafts reviewed" in titles
    more = next(a for a in actions if a.title == "Generate 5 more like these")
    # pygls's client reads a code action holding a command as a Command whose `command`
    # is the nested command's repr; what the server sent is inside it.
    sent = ast.literal_eval(more.command) if isinstance(more.command, str) else None
    command = sent or {"command": more.command.command, "arguments": more.command.arguments}
    assert command["command"] == "checkspec.generate"
    assert command["arguments"][0]["append"] is True
    review = next(a for a in actions if a.title.startswith("Mark reviewed"))
    (edit,) = review.edit.changes[uri]
    assert edit.new_text == "active" and edit.range.start.line == line
    result = await execute(client, "checkspec.generate", *command["arguments"])
    assert result["status"] == "written", result
    assert len(yaml.safe_load(path.read_text())["scenarios"]) == 8
    assert path.read_text().startswith(text)


async def test_document_questions_in_a_presets_voice_with_files_left_out(
    client: LanguageClient, workspace: Path
) -> None:
    """The editor's request takes what the command line does: docs with a preset (the
    questions in its voice, kept in the provenance) and exclude globs."""
    out = workspace / "voiced.dataset.yaml"
    answer = await execute(
        client,
        "checkspec.generate",
        {
            "docs": [str(workspace / "kb")],
            "preset": "impatient_customer",
            "exclude": ["warranty"],
            "types": ["simple"],
            "output": out.as_uri(),
            "count": 4,
            "seed": 2,
        },
    )
    assert answer["status"] == "written", answer
    rows = yaml.safe_load(out.read_text())["scenarios"]
    generated = [r["annotations"]["generated"] for r in rows]
    assert rows and {g["persona"] for g in generated} == {"impatient_customer"}
    assert not any("warranty" in g["source"] for g in generated)


async def test_the_editor_request_takes_what_the_command_line_does(
    client: LanguageClient, workspace: Path, stub: Any
) -> None:
    """The request is the value `checkspec generate` makes (engine/generate/request.py):
    `selfCheck: false` asks the model no self-check, and `like` takes several selectors
    (relative: the workspace folder's) narrowed by a tag, the examples the model is shown
    being those left."""
    server, answers = stub
    # A folder with a verdict cache of its own: the self-checks of the module's other
    # generations (the same questions) are not answered from the cache. Without self-check
    # first, so that no self-check is in the cache then either.
    folder = workspace / "unchecked"
    folder.mkdir(exist_ok=True)
    (folder / "checkspec.yaml").write_text(f"api_base: {server.base_url}\ncache_dir: .cache\n")
    asked = {"docs": [str(workspace / "kb")], "types": ["simple"], "count": 2, "seed": 8}
    kinds: dict[bool, list[str]] = {}
    for check in (False, True):
        out = folder / f"checked-{check}.dataset.yaml"
        before = len(answers.kinds)
        request = {**asked, "selfCheck": check, "output": out.as_uri()}
        answer = await execute(client, "checkspec.generate", request)
        assert answer["status"] == "written", answer
        kinds[check] = answers.kinds[before:]
    assert "question" in kinds[False] and "self_check" not in kinds[False]
    assert "self_check" in kinds[True]  # (its questions come from the cache)

    row = "  - name: {}\n    tags: [{}]\n    interactions:\n      - input: {{messages: [{{role: user, content: {}}}]}}\n"
    (workspace / "angry.dataset.yaml").write_text(
        "name: angry\nscenarios:\n"
        + row.format("refund", "billing", "WHERE IS MY REFUND")
        + row.format("ship", "shipping", "When will it ship")
    )
    (workspace / "polite.dataset.yaml").write_text(
        "name: polite\nscenarios:\n" + row.format("invoice", "billing", "Could I have my invoice")
    )
    out = workspace / "billing.dataset.yaml"
    sent = len(server.chat_requests)
    request = {
        "like": ["angry.dataset.yaml", "polite.dataset.yaml"],
        "tag": "billing",
        "target": "python:agent:reply",
        "output": out.as_uri(),
        "count": 2,
    }
    answer = await execute(client, "checkspec.generate", request)
    assert answer["status"] == "written", answer
    shown = "\n".join(server.prompts[sent:])
    assert "WHERE IS MY REFUND" in shown and "Could I have my invoice" in shown
    assert "When will it ship" not in shown
    written = yaml.safe_load(out.read_text())
    assert len(written["scenarios"]) == 2 and written["target"] == "python:agent:reply"
    # A narrowing that leaves nothing is said as the command line says it.
    request = {**request, "tag": "billing", "status": "draft"}
    answer = await execute(client, "checkspec.generate", request)
    assert (
        answer["status"] == "error"
        and "no scenario is left after tag, status" in (answer["error"])
        and "--" not in answer["error"]  # the editor's keys, not the command line's flags
    ), answer
    # The embedding model and the similarity threshold reach the generation: checked as
    # the command line's are, before anything is sent.
    sent = len(server.chat_requests)
    voiced = {"preset": "impatient_customer", "output": str(out), "count": 1, "force": True}
    answer = await execute(
        client, "checkspec.generate", {**voiced, "embeddingModel": "nonsense-embed-xyz"}
    )
    assert answer["status"] == "error", answer
    assert "model 'nonsense-embed-xyz'" in answer["error"] and "cannot be called" in answer["error"]
    answer = await execute(client, "checkspec.generate", {**voiced, "similarityThreshold": 1.5})
    assert answer == {**answer, "status": "error"}
    assert answer["error"] == "the similarity threshold must be in (0, 1]", answer
    assert len(server.chat_requests) == sent


async def test_the_editors_settings_reach_the_generation_as_values(
    client: LanguageClient, workspace: Path
) -> None:
    """The generation runs with the settings the server resolved for its workspace, their
    origins included, handed over as a value: a model the editor sets that cannot be
    called is said to come from the editor (the child used to get it as CHECKSPEC_MODEL,
    and said that)."""

    def editor_model(model: str) -> None:
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"checkspec": {"model": model}})
        )

    out = workspace / "never.dataset.yaml"
    editor_model("nonsense-model-xyz")
    try:
        request = {"preset": "impatient_customer", "output": str(out), "count": 1}
        result = await execute(client, "checkspec.generate", request)
    finally:
        editor_model("openai/stub-model")
    assert result["status"] == "error", result
    assert result["error"].startswith(
        "model 'nonsense-model-xyz' (from editor: checkspec.model) cannot be called"
    ), result
    assert not out.exists()


def _server_workers() -> set[int]:
    """The worker processes of this test's language server: its pool's template's children
    (or its own, started the plain way)."""
    found: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        found[int(entry.name)] = (parent, command)
    servers = {
        pid
        for pid, (parent, command) in found.items()
        if parent == os.getpid() and "checkspec.server" in command
    }
    templates = {  # the pool's template forks the workers (engine/executor/template.py)
        pid
        for pid, (parent, command) in found.items()
        if parent in servers and "checkspec.engine.executor.template" in command
    }
    return {
        pid
        for pid, (parent, command) in found.items()
        if (parent in servers and "checkspec.engine.executor.worker" in command)
        or parent in templates
    }


async def _when_asked(server: OpenAIStub, sent: int) -> None:
    for _ in range(1200):
        if len(server.chat_requests) > sent:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the generation never called the model")


async def test_a_worker_killed_mid_generation_is_an_error_and_the_server_goes_on(
    client: LanguageClient, workspace: Path, stub: Any
) -> None:
    """The generation runs in a worker process of the server's pool, not in the server
    nor a CLI child: killing that worker ends the generation as an error saying how it
    died, nothing is written, and the server still answers."""
    server, answers = stub
    answers.latency = 2.0
    out = workspace / "killed.dataset.yaml"
    sent = len(server.chat_requests)
    request = {"preset": "impatient_customer", "output": str(out), "count": 10, "seed": 5}
    run = asyncio.ensure_future(execute(client, "checkspec.generate", request))
    try:
        await _when_asked(server, sent)
        workers = _server_workers()
        assert workers, "no worker process of the server is running the generation"
        for pid in workers:  # the editor's model reached it as a value, not a variable
            assert b"stub-model" not in Path(f"/proc/{pid}/environ").read_bytes()
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        result = await asyncio.wait_for(run, 60)
    finally:
        answers.latency = 0.0
    assert result["status"] == "error", result
    assert "died (killed by signal SIGKILL)" in result["error"], result
    assert not out.exists()
    path = workspace / "after.dataset.yaml"
    text = "scenarios:\n  - name: a\n    steps:\n      - interact: {inputs: hi}\n"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(path.as_uri(), "yaml", 1, text))
    )
    hover = await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(path.as_uri()), types.Position(0, 3))
        ),
        60,
    )
    assert hover is not None and "scenario" in str(hover.contents).lower()
    # and the next generation runs on a fresh worker
    request = {"preset": "impatient_customer", "output": str(out), "count": 1}
    result = await execute(client, "checkspec.generate", request)
    assert result["status"] == "written", result


async def test_an_endpoint_that_does_not_answer_is_an_error_naming_it(
    client: LanguageClient, workspace: Path
) -> None:
    """A generation whose workspace points at an endpoint nothing listens on ends as an
    error that names the URL, with nothing written."""
    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    folder = workspace / "elsewhere"
    folder.mkdir(exist_ok=True)
    url = f"http://127.0.0.1:{port}/v1"
    (folder / "checkspec.yaml").write_text(f"api_base: {url}\ncache_dir: .cache\n")
    out = folder / "none.dataset.yaml"
    request = {"preset": "impatient_customer", "output": str(out), "count": 1}
    result = await asyncio.wait_for(execute(client, "checkspec.generate", request), 120)
    assert result["status"] == "error", result
    assert f"127.0.0.1:{port}" in result["error"], result
    assert not out.exists()


async def test_cancelling_the_progress_stops_the_generation_with_nothing_written(
    client: LanguageClient, workspace: Path, stub: Any
) -> None:
    """The notification's cancel button (`window/workDoneProgress/cancel` of its token)
    stops the worker as `$/cancelRequest` does."""
    server, answers = stub
    answers.latency = 2.0
    out = workspace / "progress-cancelled.dataset.yaml"
    client.progress_reports.setdefault("gen-progress-cancel", [])
    sent = len(server.chat_requests)
    request = {"preset": "impatient_customer", "output": str(out), "count": 10, "seed": 11}
    run = asyncio.ensure_future(
        execute(client, "checkspec.generate", request, work_done_token="gen-progress-cancel")
    )
    try:
        await _when_asked(server, sent)
        client.protocol.notify(
            types.WINDOW_WORK_DONE_PROGRESS_CANCEL,
            types.WorkDoneProgressCancelParams(token="gen-progress-cancel"),
        )
        result = await asyncio.wait_for(run, 60)
    finally:
        answers.latency = 0.0
    assert result["status"] == "cancelled", result
    assert not out.exists()
