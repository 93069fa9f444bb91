"""`checkspec view` against a hostile client (issue 36): any spelling of loopback keeps
the Host check on (DNS rebinding refused), `?limit=` of 5,000 digits is a 400 and not a
500, an idle connection is closed by the server, the listen backlog is not 5, and a
non-loopback address is warned about with the Host check it loses."""

from __future__ import annotations

import http.client
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from checkspec.engine.html import viewer as viewer_module
from checkspec.engine.html.viewer import Viewer, is_loopback, make_server

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]


class _History:
    def runs(self, limit: int) -> list[Any]:
        return [{"id": f"r{n}"} for n in range(min(limit, 3))]

    def load(self, run_id: str) -> dict[str, Any]:
        return {}


TOKEN = "test-token"


def _serve(host: str, head_deadline: float = 10.0) -> Iterator[tuple[str, int]]:
    server = make_server(
        Viewer(_History(), lambda a, b: {}),
        host,
        0,
        token=TOKEN,
        limits=replace(viewer_module.LIMITS, head_deadline=head_deadline),
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[0], server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(params=["127.1", "0x7f.1", "2130706433"])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, int, str]]:
    for address, port in _serve(request.param):
        yield address, port, request.param


def _get(address: str, port: int, path: str, host: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection(address, port, timeout=60)
    cookie = f"checkspec-view-{port}={TOKEN}"
    connection.request("GET", path, headers={"Host": host, "Cookie": cookie})
    answer = connection.getresponse()
    body = answer.read().decode("utf-8")
    connection.close()
    return answer.status, body


def test_every_spelling_of_loopback_is_loopback() -> None:
    assert all(is_loopback(h) for h in ("127.1", "0x7f.1", "2130706433", "0177.0.0.1", "[::1]"))
    assert not any(is_loopback(h) for h in ("10.1", "0.0.0.0", "evil.example", "128.1"))


def test_a_loopback_spelling_keeps_the_host_check(served: tuple[str, int, str]) -> None:
    address, port, given = served
    assert address == "127.0.0.1"
    assert _get(address, port, "/api/runs", "evil.example")[0] == 403
    assert _get(address, port, "/api/runs", f"evil.example:{port}")[0] == 403
    assert _get(address, port, "/api/runs", f"{given}:{port}")[0] == 200
    assert _get(address, port, "/api/runs", f"127.0.0.1:{port}")[0] == 200


def test_a_huge_or_odd_limit_is_a_bad_request_not_a_server_error() -> None:
    for address, port in _serve("127.0.0.1"):
        host = f"127.0.0.1:{port}"
        status, body = _get(address, port, "/api/runs?limit=" + "9" * 5000, host)
        assert status == 400 and "at most 10000" in body
        assert _get(address, port, "/api/runs?limit=10001", host)[0] == 400
        assert _get(address, port, "/api/runs?limit=%C2%B9", host)[0] == 200  # "¹": default
        many = "&".join(f"f{n}=1" for n in range(100))
        assert _get(address, port, "/api/runs?" + many, host)[0] == 400
        assert _get(address, port, "/api/runs?limit=2", host) == (
            200,
            '{"runs": [{"id": "r0"}, {"id": "r1"}]}',
        )


def test_an_idle_connection_is_closed_by_the_server() -> None:
    for address, port in _serve("127.0.0.1", head_deadline=0.2):
        with socket.create_connection((address, port), timeout=60) as idle:
            # closed by the server, not by our 60 s
            assert idle.makefile("rb").read().startswith(b"HTTP/1.0 408")


@pytest.mark.server  # binds a socket on 127.0.0.1
def test_the_listen_backlog_and_connections_are_bounded() -> None:
    server = make_server(Viewer(_History(), lambda a, b: {}), "127.0.0.1", 0, token=TOKEN)
    try:
        assert server.request_queue_size == viewer_module.LIMITS.backlog >= 64
    finally:
        server.server_close()


def test_a_non_loopback_host_is_warned_about_with_the_host_check_off(tmp_path: Path) -> None:
    (tmp_path / "checkspec.yaml").write_text("{}\n")
    process = subprocess.Popen(
        [*CLI, "view", "--port", "0", "--host", "0.0.0.0"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        assert "http://0.0.0.0:" in process.stdout.readline()
        process.terminate()
        process.wait(timeout=30)
        assert "the Host check that stops DNS rebinding is off" in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()


def test_ctrl_c_while_a_request_thread_starts_stops_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SIGINT reaching the serving thread inside Thread.start(), once the request's thread
    runs (it has answered: a loaded machine), is a KeyboardInterrupt out of
    process_request: the slot is given back once, never a ValueError the server survives."""
    server = make_server(Viewer(_History(), lambda a, b: {}), "127.0.0.1", 0, token=TOKEN)
    real_start = threading.Thread.start

    def start_then_interrupted(self: threading.Thread) -> None:
        real_start(self)
        self.join(timeout=30)  # the request answered, as before the Ctrl-C in the bug
        raise KeyboardInterrupt

    ours, theirs = socket.socketpair()
    try:
        theirs.sendall(
            b"GET /api/runs?token=" + TOKEN.encode() + b" HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
        )
        monkeypatch.setattr(threading.Thread, "start", start_then_interrupted)
        with pytest.raises(KeyboardInterrupt):
            server.process_request(ours, ("127.0.0.1", 1))
        monkeypatch.undo()
        assert theirs.recv(4096).startswith(b"HTTP/1.0 200")
    finally:
        theirs.close()
        server.server_close()
