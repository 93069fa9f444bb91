"""Several runs at once in the server, over stdio with a real client.

Targets here wait for a flag file the test creates, so the order of events is fixed
without timing: a run that would have to wait for another one (as it did before runs
went side by side) never gets its result, and the test fails on its time limit.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.lsp_helpers import start_session

pytestmark = pytest.mark.asyncio(loop_scope="module")

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"])
LIMIT = 60  # seconds a test waits for an answer
RUNS: list[int] = []  # checkspec/runs notifications: how many runs were going


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("concurrent")


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    @lsp_client.feature("checkspec/runs")
    def runs(params: Any) -> None:
        RUNS.append(params.running)

    await start_session(lsp_client, workspace, options={"jobs": 2, "scenarioTimeout": LIMIT})
    yield
    await lsp_client.shutdown_session()


def _waiting_file(folder: Path, name: str, count: int = 1) -> tuple[str, Path]:
    """A suite whose scenarios answer once `<name>.flag` exists; its uri and the flag."""
    flag = folder / f"{name}.flag"
    (folder / f"agent_{name}.py").write_text(
        "import pathlib, time\n"
        f"FLAG = pathlib.Path({str(flag)!r})\n"
        "def answer(question):\n"
        "    while not FLAG.exists():\n"
        "        time.sleep(0.02)\n"
        "    return 'ok'\n"
        "def quick(question):\n"
        "    return 'ok'\n",
        encoding="utf-8",
    )
    scenarios = "".join(
        f"  - name: s{i}\n"
        "    steps:\n"
        "      - interacts: [{inputs: hello}]\n"
        "        checks:\n"
        '          - {kind: string_matching, keyword: "ok"}\n'
        for i in range(count)
    )
    path = folder / f"{name}.suite.yaml"
    path.write_text(
        f"name: {name}\ntarget: python:agent_{name}:answer\nscenarios:\n{scenarios}",
        encoding="utf-8",
    )
    return path.as_uri(), flag


def _quick_file(folder: Path, name: str) -> str:
    uri, _ = _waiting_file(folder, name)
    path = folder / f"{name}.suite.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace(f"agent_{name}:answer", f"agent_{name}:quick"),
        encoding="utf-8",
    )
    return uri


def _run(
    client: LanguageClient, uri: str, indexes: list[int] | None = None, msg_id: str | None = None
) -> asyncio.Future[Any]:
    arguments: list[Any] = [uri] if indexes is None else [uri, indexes]
    params = types.ExecuteCommandParams(command="checkspec.runFile", arguments=arguments)
    return asyncio.ensure_future(
        client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND, params, msg_id=msg_id)
    )


def _statuses(result: Any) -> list[str]:
    return [s["status"] for s in result["scenarios"]]


async def test_two_runs_at_once_both_finish_the_fast_one_first(
    client: LanguageClient, workspace: Path
) -> None:
    slow_uri, flag = _waiting_file(workspace, "slow")
    fast_uri = _quick_file(workspace, "fast")
    slow = _run(client, slow_uri)
    await asyncio.sleep(0.2)  # the slow one is first (the test does not rely on it)
    fast = await asyncio.wait_for(_run(client, fast_uri), LIMIT)
    assert _statuses(fast) == ["pass"]
    assert not slow.done(), "the slow run waits for its flag"
    assert 2 in RUNS, "two runs were going at once"
    flag.touch()
    assert _statuses(await asyncio.wait_for(slow, LIMIT)) == ["pass"]
    assert RUNS[-1] == 0


async def test_running_the_same_scenario_again_cancels_the_first(
    client: LanguageClient, workspace: Path
) -> None:
    uri, flag = _waiting_file(workspace, "again", count=2)
    first = _run(client, uri, [1])
    await asyncio.sleep(0.5)
    second = _run(client, uri, [1])
    answer = await asyncio.wait_for(first, LIMIT)
    assert answer["cancelled"] is True and _statuses(answer) == ["cancelled"]
    assert not second.done()
    flag.touch()
    answer = await asyncio.wait_for(second, LIMIT)
    assert answer["cancelled"] is False and _statuses(answer) == ["pass"]


async def test_other_scenarios_of_the_same_file_run_side_by_side(
    client: LanguageClient, workspace: Path
) -> None:
    uri, flag = _waiting_file(workspace, "side", count=2)
    first = _run(client, uri, [0])
    second = _run(client, uri, [1])
    await asyncio.sleep(0.5)
    assert not first.done() and not second.done(), "neither replaced the other"
    flag.touch()
    results = await asyncio.wait_for(asyncio.gather(first, second), LIMIT)
    assert [_statuses(r) for r in results] == [["pass"], ["pass"]]


async def test_cancelling_one_run_leaves_the_other(client: LanguageClient, workspace: Path) -> None:
    kept_uri, kept_flag = _waiting_file(workspace, "kept")
    gone_uri, _ = _waiting_file(workspace, "gone")
    kept = _run(client, kept_uri)
    gone = _run(client, gone_uri, msg_id="cancel-gone")
    await asyncio.sleep(0.5)
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="cancel-gone"))
    answer = await asyncio.wait_for(gone, LIMIT)
    assert answer["cancelled"] is True and _statuses(answer) == ["cancelled"]
    assert not kept.done()
    kept_flag.touch()
    answer = await asyncio.wait_for(kept, LIMIT)
    assert answer["cancelled"] is False and _statuses(answer) == ["pass"]


async def test_a_cancel_sent_right_after_the_run_is_not_lost(
    client: LanguageClient, workspace: Path
) -> None:
    """The cancel follows the request at once: the run is registered before it awaits
    anything (a history read, the pool), so the cancel finds it."""
    uri, _ = _waiting_file(workspace, "at_once")
    run = _run(client, uri, msg_id="cancel-at-once")
    await asyncio.sleep(0)  # the request goes out (the cancel must not pass it)
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="cancel-at-once"))
    answer = await asyncio.wait_for(run, LIMIT)
    assert answer["cancelled"] is True and _statuses(answer) == ["cancelled"]


async def test_the_same_run_sent_twice_at_once_keeps_the_second(
    client: LanguageClient, workspace: Path
) -> None:
    uri, flag = _waiting_file(workspace, "twice")
    first, second = _run(client, uri, [0]), _run(client, uri, [0])
    answer = await asyncio.wait_for(first, LIMIT)
    assert answer["cancelled"] is True, "the first is replaced, whatever it awaited"
    flag.touch()
    assert _statuses(await asyncio.wait_for(second, LIMIT)) == ["pass"]


async def test_more_runs_than_workers_queue_and_all_land(
    client: LanguageClient, workspace: Path
) -> None:
    """Four runs on two workers, one of them crashing its worker: every result lands."""
    waiting = [_waiting_file(workspace, f"many{i}") for i in range(3)]
    crash_uri = _quick_file(workspace, "crash")
    crash_agent = workspace / "agent_crash.py"
    crash_agent.write_text("import os\ndef quick(question):\n    os._exit(3)\n", encoding="utf-8")
    runs = [_run(client, uri) for uri, _ in waiting] + [_run(client, crash_uri)]
    await asyncio.sleep(0.5)
    for _, flag in waiting:
        flag.touch()
    results = await asyncio.wait_for(asyncio.gather(*runs), LIMIT)
    assert [_statuses(r) for r in results] == [["pass"], ["pass"], ["pass"], ["error"]]
