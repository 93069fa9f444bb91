"""`checkspec view` against clients that hold connections (issue 48 item 8): 300
connections sending half a header, or 70 trickling a byte at a time, took every slot
(64) and a normal request was refused, even past the 30 s timeout (it was per byte).
Now a request takes a slot only once its head is whole, each connection has a deadline
for its whole head, and the waiting ones are bounded with the oldest closed."""

from __future__ import annotations

import contextlib
import http.client
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from checkspec.engine.html import viewer as viewer_module
from checkspec.engine.html.viewer import Viewer, make_server
from tests.support.viewer_process import start_view

TOKEN = "slots-token"
HALF_HEAD = b"GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Ag"


class _History:
    def runs(self, limit: int) -> list[Any]:
        return [{"id": "r0"}]

    def load(self, run_id: str) -> dict[str, Any]:
        return {}


def _serve(head_deadline: float, **limits: Any) -> Iterator[int]:
    server = make_server(
        Viewer(_History(), lambda a, b: {}),
        "127.0.0.1",
        0,
        token=TOKEN,
        limits=replace(viewer_module.LIMITS, head_deadline=head_deadline, **limits),
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def _closed_by_server(client: socket.socket) -> bool:
    """Read until the server closes (its short answer, then the end, or a reset); a
    connection still open fails on the client's timeout."""
    try:
        while client.recv(4096):
            pass
    except ConnectionResetError:
        pass
    return True


def _get(port: int, token: str, path: str = "/api/runs") -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    joined = "&" if "?" in path else "?"
    connection.request("GET", f"{path}{joined}token={token}")
    status = connection.getresponse().status
    connection.close()
    return status


@pytest.fixture
def cli_viewer(tmp_path: Path) -> Iterator[tuple[int, str]]:
    """`checkspec view` in a subprocess, as users start it: its port and token."""
    (tmp_path / "checkspec.yaml").write_text("{}\n", encoding="utf-8")
    process, _, port, token = start_view(tmp_path)
    try:
        yield port, token
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)


def test_300_half_open_connections_do_not_keep_a_normal_request_out(
    cli_viewer: tuple[int, str],
) -> None:
    port, token = cli_viewer
    with ExitStack() as held:
        for _ in range(300):
            client = held.enter_context(socket.create_connection(("127.0.0.1", port), timeout=30))
            client.sendall(HALF_HEAD)
        assert _get(port, token) == 200
        assert _get(port, token) == 200


def test_trickling_clients_hold_no_slot_and_are_closed_at_the_head_deadline() -> None:
    """70 clients (more than the 64 slots) send a byte every 50 ms: a normal request is
    answered meanwhile, and each trickler is closed at the deadline of its whole head
    (0.5 s here) although it never stops sending."""
    for port in _serve(head_deadline=0.5):
        tricklers = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(70)]
        try:
            closed: set[int] = set()
            started = time.monotonic()
            answered = False
            for step in range(200):  # 10 s at most; the deadline is 0.5 s
                for index, client in enumerate(tricklers):
                    if index in closed:
                        continue
                    try:
                        client.sendall(HALF_HEAD[step % len(HALF_HEAD) : step % len(HALF_HEAD) + 1])
                    except OSError:  # reset: the server closed it
                        closed.add(index)
                if step == 2:
                    assert _get(port, TOKEN) == 200
                    answered = True
                if len(closed) == len(tricklers):
                    break
                time.sleep(0.05)
            assert answered
            assert len(closed) == len(tricklers), f"{len(closed)} of 70 closed"
            assert time.monotonic() - started < 10
        finally:
            for client in tricklers:
                client.close()


def test_past_the_waiting_bound_the_oldest_connection_is_closed() -> None:
    for port in _serve(head_deadline=30.0, max_waiting=5):
        with ExitStack() as held:
            first = held.enter_context(socket.create_connection(("127.0.0.1", port), timeout=10))
            first.sendall(HALF_HEAD)
            for _ in range(5):
                other = held.enter_context(
                    socket.create_connection(("127.0.0.1", port), timeout=30)
                )
                other.sendall(HALF_HEAD)
            # The sixth one waiting pushed the first out, long before its 30 s.
            assert _closed_by_server(first)
            assert _get(port, TOKEN) == 200


def test_a_head_over_the_bound_is_refused_and_closed() -> None:
    for port in _serve(head_deadline=30.0):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
            with contextlib.suppress(OSError):  # closed while still sending: refused
                client.sendall(b"GET /" + b"a" * (viewer_module.LIMITS.max_head_bytes + 1024))
            assert _closed_by_server(client)
        assert _get(port, TOKEN) == 200


def test_when_every_slot_answers_a_request_more_get_503_at_once() -> None:
    """Slots bound the work, not the connections: with the one slot busy building a
    comparison, another request is told 503 without waiting."""
    building, release = threading.Event(), threading.Event()

    class History(_History):
        def load(self, run_id: str) -> dict[str, Any]:
            return {"id": run_id}

    def compare(base: dict[str, Any], head: dict[str, Any]) -> dict[str, Any]:
        building.set()
        release.wait(30)
        return {}

    one_slot = replace(viewer_module.LIMITS, max_serving=1)
    server = make_server(Viewer(History(), compare), "127.0.0.1", 0, token=TOKEN, limits=one_slot)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    slow: list[int] = []
    try:
        busy = threading.Thread(
            target=lambda: slow.append(_get(port, TOKEN, "/api/compare?base=a&head=b"))
        )
        busy.start()
        assert building.wait(30)
        assert _get(port, TOKEN) == 503
        release.set()
        busy.join(30)
        assert slow == [200]
        # The slot is back once its thread has closed the connection, which may come
        # just after the client read the answer: a bound on waiting, not a timing claim.
        for _ in range(200):
            if (status := _get(port, TOKEN)) == 200:
                break
            time.sleep(0.05)
        assert status == 200
    finally:
        release.set()
        server.shutdown()
        server.server_close()


def test_a_head_sent_a_byte_at_a_time_within_the_deadline_is_answered() -> None:
    for port in _serve(head_deadline=30.0):
        head = f"GET /api/runs?token={TOKEN} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".encode()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
            for byte in head:
                client.sendall(bytes([byte]))
                time.sleep(0.001)
            answer = client.makefile("rb").read()
        assert answer.startswith(b"HTTP/1.0 200") and answer.endswith(b'{"runs": [{"id": "r0"}]}')
