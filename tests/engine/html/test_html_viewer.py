"""`checkspec view` over a real socket on 127.0.0.1, in a subprocess: it prints its URL,
lists the recorded runs, serves a run's page and the compare of two, refuses a foreign
Host header, and SIGINT stops it with exit 0. And `checkspec report` (in-process) writes a
run's page."""

from __future__ import annotations

import http.client
import json
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import run_main
from tests.support.processes import default_sigint
from tests.support.recorded_runs import NEW_KEYWORD, NEWLY_FAILING
from tests.support.viewer_process import start_view

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]


@pytest.fixture
def viewer(two_runs: Path) -> Iterator[tuple[subprocess.Popen[str], str, int, str]]:
    process, host, port, token = start_view(two_runs)
    try:
        yield process, host, port, token
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


def _get(
    host: str, port: int, path: str, token: str, host_header: str | None = None
) -> tuple[int, str]:
    connection = http.client.HTTPConnection(host, port, timeout=60)
    headers = {"Host": host_header} if host_header else {}
    headers["Cookie"] = f"checkspec-view-{port}={token}"
    connection.request("GET", path, headers=headers)
    answer = connection.getresponse()
    body = answer.read().decode("utf-8")
    connection.close()
    return answer.status, body


def test_viewer_lists_runs_and_compares_them(
    viewer: tuple[subprocess.Popen[str], str, int, str],
) -> None:
    process, host, port, token = viewer
    status, page = _get(host, port, "/", token)
    assert status == 200 and "checkspec runs" in page and "function chart" in page
    assert not re.search(r"https?://", page)
    status, body = _get(host, port, "/api/runs", token)
    assert status == 200
    runs = json.loads(body)["runs"]
    assert len(runs) == 2
    head, base = runs[0]["id"], runs[1]["id"]  # newest first
    status, body = _get(host, port, f"/api/runs/{base}", token)
    assert status == 200 and len(json.loads(body)["scenarios"]) == 9
    status, page = _get(host, port, f"/runs/{head}", token)
    assert status == 200 and 'id="checkspec-data"' in page
    status, body = _get(host, port, f"/api/compare?base={base}&head={head}", token)
    assert status == 200
    comparison = json.loads(body)
    assert NEWLY_FAILING in json.dumps(comparison)
    status, page = _get(host, port, f"/compare?base={base}&head={head}", token)
    assert status == 200 and '"page":"compare"' in page
    assert _get(host, port, "/api/runs/no-such-run", token)[0] == 404
    assert _get(host, port, "/nothing-here", token)[0] == 404
    # A page of another site reaching 127.0.0.1 through its own name (DNS rebinding).
    assert _get(host, port, "/api/runs", token, host_header="evil.example")[0] == 403
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 0


def test_report_writes_the_last_run(two_runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "last.html"
    done = run_main(two_runs, "report", "last", "-o", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    assert '"page":"report"' in page and NEW_KEYWORD in page


def test_report_of_an_unknown_run_is_bad_input(two_runs: Path) -> None:
    done = run_main(two_runs, "report", "no-such-run")
    assert done.returncode == 2 and "no-such-run" in done.stderr


def test_a_non_loopback_host_is_warned_about(two_runs: Path) -> None:
    process = subprocess.Popen(
        [*CLI, "view", "--port", "0", "--host", "0.0.0.0"],
        preexec_fn=default_sigint,
        cwd=two_runs,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        assert "http://0.0.0.0:" in process.stdout.readline()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
        assert "warning: listening on 0.0.0.0" in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()


def test_an_empty_history_lists_no_runs_and_makes_no_database(tmp_path: Path) -> None:
    (tmp_path / "checkspec.yaml").write_text("{}\n", encoding="utf-8")
    process, host, port, token = start_view(tmp_path)
    try:
        status, body = _get(host, port, "/api/runs?limit=x", token)
        assert status == 200 and json.loads(body) == {"runs": []}
        assert not (tmp_path / ".checkspec" / "history.db").exists()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()


def test_ctrl_c_stops_at_once_with_a_client_connected(
    viewer: tuple[subprocess.Popen[str], str, int, str],
) -> None:
    """An idle client's connection waits for its head (10 s at most); Ctrl-C does not
    wait for it."""
    process, host, port, token = viewer
    import socket

    idle = socket.create_connection((host, port), timeout=10)
    try:
        status, _ = _get(host, port, "/api/runs", token)  # served: the idle one is accepted too
        assert status == 200
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
    finally:
        idle.close()
