"""Runs from the editor, end to end over stdio: user code runs in worker processes.

Each fault a target or check can have (exits the process, never answers, sleeps at
import, a slow `fn` check, a backtracking regex, prints to stdout) must end as a result
of its scenario while the server keeps answering; runs report work-done progress and
stop when cancelled.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.lsp_helpers import start_session

# One server, in sequence: pytest-random-order keeps this module's order (the last test (test_zz_...) shuts the
# module's server down to read what it loaded over its whole life); the module itself is shuffled among the others.
pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.random_order(disabled=True),
]

SCENARIO_TIMEOUT = 3
# The server writes the names of its loaded modules here when it exits.
MODULES_FILE = Path(os.environ.get("PYTEST_XDIST_WORKER", "")).name + "server-modules.json"
LAUNCH = (
    "import atexit, json, os, sys\n"
    "out = os.environ['CHECKSPEC_TEST_MODULES_FILE']\n"
    "atexit.register(lambda: open(out, 'w').write(json.dumps(sorted(sys.modules))))\n"
    "import runpy\n"
    "runpy.run_module('checkspec.server', run_name='__main__')\n"
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("runs")


@pytest.fixture(scope="module")
def modules_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("modules") / "server-modules.json"
    os.environ["CHECKSPEC_TEST_MODULES_FILE"] = str(path)
    return path


SHUT_DOWN: list[bool] = []  # the last test shuts the server down itself
FINISHED: list[Any] = []  # checkspec/scenarioFinished notifications, in arrival order
SERVER = ClientServerConfig(server_command=[sys.executable, "-c", LAUNCH])


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    @lsp_client.feature("checkspec/scenarioFinished")
    def finished(params: Any) -> None:
        FINISHED.append(params)

    await start_session(lsp_client, workspace, options={"scenarioTimeout": SCENARIO_TIMEOUT})
    yield
    if not SHUT_DOWN:
        await lsp_client.shutdown_session()


@pytest.fixture(scope="module", autouse=True)
def _modules_file_set_before_the_server(modules_file: Path) -> Path:
    return modules_file


# Helpers ---------------------------------------------------------------------------------


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def open_file(client: LanguageClient, path: Path) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                uri=uri, language_id="yaml", version=1, text=path.read_text(encoding="utf-8")
            )
        )
    )
    return uri


def scenario(name: str, target: str, keyword: str = "ok", extra_check: str = "") -> str:
    return f"""
  - name: {name}
    target: {target}
    steps:
      - interacts: [{{inputs: hello}}]
        checks:
          - {{kind: string_matching, keyword: "{keyword}"}}
{extra_check}"""


def suite(*scenarios: str) -> str:
    return "name: faults\nscenarios:" + "".join(scenarios) + "\n"


async def run_file(client: LanguageClient, uri: str, **params: Any) -> dict[str, Any]:
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runFile", arguments=[uri], **params)
    )
    assert isinstance(result, dict)
    return result


async def hover_while(
    client: LanguageClient, uri: str, run: asyncio.Future[Any], line: int = 7, character: int = 22
) -> None:
    """A hover (on `string_matching`) is answered while the run is still going."""
    position = types.Position(line=line, character=character)
    found = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position)
    )
    assert found is not None and "string_matching" in str(found.contents)
    assert not run.done(), "the run should still be going"


AGENTS = """
import os, sys, time

def ok(question):
    return "ok"

def exits(question):
    os._exit(1)

def hangs(question):
    time.sleep(3600)

def chatty(question):
    print("Content-Length: 5\\r\\n\\r\\nnoise")
    print("to stderr", file=sys.stderr)
    return "ok"

def slow_check(trace):
    time.sleep(3600)
    return True
"""


# Faults ----------------------------------------------------------------------------------


async def test_a_target_that_exits_the_process_is_an_error_and_the_server_lives(
    client: LanguageClient, tmp_path: Path
) -> None:
    write(tmp_path, "agents_exit.py", AGENTS)
    path = write(
        tmp_path,
        "exit.suite.yaml",
        suite(
            scenario("dies", "python:agents_exit:exits"),
            scenario("fine", "python:agents_exit:ok"),
        ),
    )
    result = await run_file(client, open_file(client, path))
    dies, fine = result["scenarios"]
    assert (dies["status"], fine["status"]) == ("error", "pass")
    assert "worker process running this scenario died (exit code 1)" in dies["errors"][0]["message"]
    again = await run_file(client, path.as_uri())  # the pool replaced the worker
    assert [s["status"] for s in again["scenarios"]] == ["error", "pass"]


async def test_hung_target_calls_do_not_exhaust_the_workers(
    client: LanguageClient, tmp_path: Path
) -> None:
    write(tmp_path, "agents_hang.py", AGENTS)
    write(tmp_path, "checkspec.yaml", "target_timeout: 0.5\n")
    hung = [scenario(f"hung {i}", "python:agents_hang:hangs") for i in range(10)]
    path = write(
        tmp_path, "hang.suite.yaml", suite(*hung, scenario("fine", "python:agents_hang:ok"))
    )
    result = await run_file(client, open_file(client, path))
    statuses = [s["status"] for s in result["scenarios"]]
    assert statuses == ["error"] * 10 + ["pass"]
    # Each hung call is cut at the target timeout; on a loaded machine the scenario's own
    # deadline may come first. Either way it is an error that names the wait.
    messages = [s["errors"][0]["message"] for s in result["scenarios"][:10]]
    assert all(
        "did not answer within 0.5s" in m or f"did not finish within {SCENARIO_TIMEOUT} s" in m
        for m in messages
    ), messages
    assert any("did not answer within 0.5s" in m for m in messages), messages


async def test_a_module_that_sleeps_at_import_is_stopped_at_the_deadline(
    client: LanguageClient, tmp_path: Path
) -> None:
    write(tmp_path, "agents_slow_import.py", "import time\ntime.sleep(3600)\n" + AGENTS)
    path = write(
        tmp_path, "import.suite.yaml", suite(scenario("slow", "python:agents_slow_import:ok"))
    )
    uri = open_file(client, path)
    run = asyncio.ensure_future(run_file(client, uri))
    await asyncio.sleep(0.5)
    await hover_while(client, uri, run)
    (summary,) = (await run)["scenarios"]
    assert summary["status"] == "error"
    assert (
        f"did not finish within {SCENARIO_TIMEOUT} s (stopped)" in summary["errors"][0]["message"]
    )


async def test_a_slow_fn_check_is_stopped_and_the_server_answers_meanwhile(
    client: LanguageClient, tmp_path: Path
) -> None:
    write(tmp_path, "agents_fn.py", AGENTS)
    check = "          - {kind: fn, fn: 'agents_fn:slow_check'}\n"
    path = write(
        tmp_path,
        "fn.suite.yaml",
        suite(scenario("slow check", "python:agents_fn:ok", extra_check=check)),
    )
    uri = open_file(client, path)
    run = asyncio.ensure_future(run_file(client, uri))
    await asyncio.sleep(0.5)
    await hover_while(client, uri, run)
    (summary,) = (await run)["scenarios"]
    assert summary["status"] == "error"
    assert "did not finish within" in summary["errors"][0]["message"]


async def test_a_backtracking_regex_runs_in_a_worker_under_its_timeout(
    client: LanguageClient, tmp_path: Path
) -> None:
    text = """
    name: redos
    steps:
      - interacts: [{inputs: q, outputs: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"}]
        checks:
          - {kind: string_matching, keyword: a}
          - {kind: regex_matching, pattern: '^(a|aa)+$', match_timeout_seconds: 1}
    """
    path = write(tmp_path, "redos.scenario.yaml", text)
    uri = open_file(client, path)
    run = asyncio.ensure_future(run_file(client, uri))
    await asyncio.sleep(0.3)
    await hover_while(client, uri, run, line=4, character=17)
    (summary,) = (await run)["scenarios"]
    assert [c["status"] for c in summary["checks"]] == ["pass", "error"]


async def test_what_a_target_prints_is_kept_with_its_result(
    client: LanguageClient, tmp_path: Path
) -> None:
    write(tmp_path, "agents_print.py", AGENTS)
    path = write(
        tmp_path, "print.suite.yaml", suite(scenario("chatty", "python:agents_print:chatty"))
    )
    result = await run_file(client, open_file(client, path))
    (summary,) = result["scenarios"]
    assert summary["status"] == "pass"
    assert "noise" in summary["output"] and "to stderr" in summary["output"]


async def test_an_edited_agent_is_used_by_the_next_run(
    client: LanguageClient, tmp_path: Path
) -> None:
    agent = write(tmp_path, "agents_edit.py", "def answer(q):\n    return 'before'\n")
    path = write(
        tmp_path, "edit.suite.yaml", suite(scenario("edited", "python:agents_edit:answer", "after"))
    )
    uri = open_file(client, path)
    assert (await run_file(client, uri))["status"] == "fail"
    agent.write_text("def answer(q):\n    return 'after'\n", encoding="utf-8")
    assert (await run_file(client, uri))["status"] == "pass"


# Progress and cancellation ---------------------------------------------------------------


async def test_a_run_reports_work_done_progress_per_scenario(
    client: LanguageClient, tmp_path: Path
) -> None:
    write(tmp_path, "agents_progress.py", AGENTS)
    path = write(
        tmp_path,
        "progress.suite.yaml",
        suite(
            *(
                scenario(f"s{i}", "python:agents_progress:ok", "nope" if i == 1 else "ok")
                for i in range(3)
            )
        ),
    )
    client.progress_reports.setdefault("run-progress", [])
    result = await run_file(client, open_file(client, path), work_done_token="run-progress")
    assert result["status"] == "fail"
    reports = client.progress_reports["run-progress"]
    begin, *middle, end = reports
    assert isinstance(begin, types.WorkDoneProgressBegin) and begin.message == "Running 3 scenarios"
    assert begin.cancellable
    assert middle and all(isinstance(r, types.WorkDoneProgressReport) for r in middle)
    assert middle[-1].percentage == 100 and middle[-1].message == "3/3, 1 failed"
    assert isinstance(end, types.WorkDoneProgressEnd) and end.message == "3/3, 1 failed"
    # Each scenario's result was sent on its own as it finished.
    mine = sorted(f.scenario for f in FINISHED if f.uri == path.as_uri())
    assert mine == ["s0", "s1", "s2"]


def _hanging_suite(tmp_path: Path, name: str) -> str:
    write(tmp_path, f"agents_{name}.py", AGENTS)
    scenarios = [scenario("quick", f"python:agents_{name}:ok")]
    scenarios += [scenario(f"stuck {i}", f"python:agents_{name}:hangs") for i in range(6)]
    path = write(tmp_path, f"{name}.suite.yaml", suite(*scenarios))
    return path.as_uri()


async def _wait_for_first_result(client: LanguageClient, token: str) -> None:
    for _ in range(1000):
        reports = client.progress_reports.get(token, [])
        if any(isinstance(r, types.WorkDoneProgressReport) and r.percentage for r in reports):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("no scenario finished")


def _assert_cancelled(result: dict[str, Any]) -> None:
    statuses = [s["status"] for s in result["scenarios"]]
    assert statuses == ["pass"] + ["cancelled"] * 6
    assert result["cancelled"] is True


async def test_cancel_request_stops_the_run_and_answers_with_what_finished(
    client: LanguageClient, tmp_path: Path
) -> None:
    uri = _hanging_suite(tmp_path, "cancel")
    open_file(client, Path(uri.removeprefix("file://")))
    client.progress_reports.setdefault("run-cancel", [])
    params = types.ExecuteCommandParams(
        command="checkspec.runFile", arguments=[uri], work_done_token="run-cancel"
    )
    run = asyncio.ensure_future(
        client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND, params, msg_id="cancel-me"
        )
    )
    await _wait_for_first_result(client, "run-cancel")
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="cancel-me"))
    result = await asyncio.wait_for(run, 10)
    _assert_cancelled(result)
    client.diagnostics.pop(uri, None)
    await asyncio.sleep(0.5)  # nothing is published for the cancelled scenarios afterwards
    assert uri not in client.diagnostics


async def test_cancelling_the_progress_stops_the_run(
    client: LanguageClient, tmp_path: Path
) -> None:
    uri = _hanging_suite(tmp_path, "progress_cancel")
    open_file(client, Path(uri.removeprefix("file://")))
    before = set(client.progress_reports)
    run = asyncio.ensure_future(run_file(client, uri))  # the server creates the token
    for _ in range(500):
        created = set(client.progress_reports) - before
        if created:
            break
        await asyncio.sleep(0.01)
    (token,) = created
    await _wait_for_first_result(client, token)
    client.protocol.notify(
        types.WINDOW_WORK_DONE_PROGRESS_CANCEL, types.WorkDoneProgressCancelParams(token=token)
    )
    _assert_cancelled(await asyncio.wait_for(run, 10))
    end = client.progress_reports[token][-1]
    assert isinstance(end, types.WorkDoneProgressEnd) and "cancelled" in (end.message or "")


async def test_run_file_takes_a_list_of_scenario_indexes(
    client: LanguageClient, tmp_path: Path
) -> None:
    write(tmp_path, "agents_pick.py", AGENTS)
    path = write(
        tmp_path,
        "pick.suite.yaml",
        suite(*(scenario(f"p{i}", "python:agents_pick:ok") for i in range(4))),
    )
    uri = open_file(client, path)
    picked = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runFile", arguments=[uri, [1, 3]])
    )
    assert [s["scenario"] for s in picked["scenarios"]] == ["p1", "p3"]
    refused = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runFile", arguments=[uri, ["x"]])
    )
    assert "takes [uri] or [uri, [scenario indexes]]" in refused["error"]


async def test_editor_runs_are_kept_in_the_run_history(
    client: LanguageClient, tmp_path: Path
) -> None:
    import sqlite3

    write(tmp_path, "checkspec.yaml", "history_max_runs: 2\n")
    write(tmp_path, "agents_history.py", AGENTS)
    path = write(
        tmp_path,
        "history.suite.yaml",
        suite(
            scenario("kept", "python:agents_history:ok"),
            scenario("kept failing", "python:agents_history:ok", keyword="never"),
        ),
    )
    uri = open_file(client, path)
    ids = [(await run_file(client, uri))["runId"] for _ in range(3)]
    assert all(ids) and len(set(ids)) == 3
    db = sqlite3.connect(tmp_path / ".checkspec" / "history.db")
    rows = db.execute("SELECT id, source, passed, failed FROM runs ORDER BY seq").fetchall()
    assert rows == [(ids[1], "editor", 1, 1), (ids[2], "editor", 1, 1)]  # pruned to 2
    statuses = db.execute("SELECT identity, status FROM scenarios WHERE run_id = ?", (ids[2],))
    assert sorted(statuses) == [
        ("history.suite.yaml::kept", "pass"),
        ("history.suite.yaml::kept failing", "fail"),
    ]
    db.close()
    write(tmp_path, "checkspec.yaml", "history: false\n")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [types.FileEvent((tmp_path / "checkspec.yaml").as_uri(), types.FileChangeType.Changed)]
        )
    )
    await asyncio.sleep(0.5)
    assert (await run_file(client, uri))["runId"] is None


# What the server itself loads --------------------------------------------------------------


async def test_zz_the_server_process_never_imports_user_code_or_litellm(
    client: LanguageClient, tmp_path: Path, modules_file: Path
) -> None:
    write(tmp_path, "agents_last.py", AGENTS)
    text = """
    name: judged
    target: python:agents_last:ok
    steps:
      - interacts: [{inputs: hello}]
        checks:
          - {kind: string_matching, keyword: ok}
          - {kind: conformity, rule: be polite}
    """
    path = write(tmp_path, "last.scenario.yaml", text)
    result = await run_file(client, open_file(client, path))
    assert result["status"] == "error"  # no model configured, said by the judge in the worker
    await client.shutdown_session()
    SHUT_DOWN.append(True)
    for _ in range(500):
        if modules_file.exists() and modules_file.stat().st_size:
            break
        await asyncio.sleep(0.01)
    loaded = json.loads(modules_file.read_text())
    assert not [m for m in loaded if m.startswith("agents_")]
    assert not [m for m in loaded if m.split(".")[0] in ("litellm", "regorus")]
