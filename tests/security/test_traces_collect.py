"""`checkspec traces collect` against hostile clients: any process or web page on this
machine can reach a loopback port. A request from a page through DNS rebinding (a foreign
Host), bodies too large (as sent, or once gunzipped), bodies that are not OTLP, too many
spans, a client that trickles its body, and a bind to an address other machines reach:
each is refused, nothing of a refused request is kept, and normal requests are answered
meanwhile."""

from __future__ import annotations

import gzip
import http.client
import json
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from checkspec.engine.cli.traces_collect import LIMITS, Received, make_receiver
from tests.support.cli import run_main
from tests.support.processes import CLI, default_sigint

PROTOBUF = "application/x-protobuf"


def request_body(spans: int = 1, trace: str = "5b8efff798038103d269b633813fc60c") -> bytes:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest()
    scope = request.resource_spans.add().scope_spans.add()
    for n in range(spans):
        span = scope.spans.add()
        span.trace_id, span.span_id, span.name = (
            bytes.fromhex(trace),
            (n + 1).to_bytes(8, "big"),
            "s",
        )
    return request.SerializeToString()


@pytest.fixture
def receiver() -> Iterator[tuple[int, Received]]:
    received = Received(max_spans=5)
    server = make_receiver(
        "127.0.0.1",
        0,
        received,
        max_body=4096,
        max_spans_per_request=3,
        limits=replace(LIMITS, head_deadline=2.0),
        body_deadline=1.0,
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], received
    finally:
        server.shutdown()
        server.server_close()


def post(
    port: int,
    body: bytes,
    kind: str = PROTOBUF,
    headers: dict[str, str] | None = None,
    path: str = "/v1/traces",
) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", path, body, {"Content-Type": kind, **(headers or {})})
        answer = connection.getresponse()
        return answer.status, answer.read().decode("utf-8", "replace")
    finally:
        connection.close()


def test_a_normal_request_is_kept(receiver: tuple[int, Received]) -> None:
    port, received = receiver
    assert post(port, request_body(2)) == (200, "")
    assert len(received.spans) == 2
    as_json = {
        "resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "ab" * 16, "name": "s"}]}]}]
    }
    assert post(
        port,
        gzip.compress(json.dumps(as_json).encode()),
        "application/json",
        {"Content-Encoding": "gzip"},
    ) == (200, "{}")
    assert [s.trace_id for s in received.spans[2:]] == ["ab" * 16]


def test_a_foreign_host_is_refused_and_nothing_kept(receiver: tuple[int, Received]) -> None:
    port, received = receiver
    status, text = post(port, request_body(), headers={"Host": f"attacker.example:{port}"})
    assert (status, text) == (403, "unexpected Host header")
    assert received.spans == []


def test_a_body_over_the_limit_is_refused_unread(receiver: tuple[int, Received]) -> None:
    port, received = receiver
    status, text = post(port, b"\0" * 5000)
    assert status == 413 and "5,000 bytes, over the limit of 4,096" in text
    # A small gzip body that expands past the limit: stopped at the limit.
    bomb = gzip.compress(b"\0" * 3_000_000)
    assert len(bomb) < 4096
    status, text = post(port, bomb, headers={"Content-Encoding": "gzip"})
    assert status == 413 and "over the limit of 4,096" in text
    assert received.spans == []


@pytest.mark.parametrize(
    ("body", "kind", "said"),
    [
        (b"\xff\xff\xff\xff garbage", PROTOBUF, "not an OTLP ExportTraceServiceRequest"),
        (b'{"resourceSpans": [', "application/json", "not JSON"),
        (b'{"spans": []}', "application/json", "not OTLP/JSON"),
        (
            json.dumps(
                {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz"}]}]}]}
            ).encode(),
            "application/json",
            "resourceSpans[0].scopeSpans[0].spans[0].traceId",
        ),
        (b"[" * 100_000, "application/json", "not JSON"),
    ],
)
def test_a_malformed_body_is_400_and_nothing_kept(
    receiver: tuple[int, Received], body: bytes, kind: str, said: str
) -> None:
    port, received = receiver
    status, text = post(port, body[:4096], kind)
    assert status == 400 and said in text
    assert received.spans == []


def test_too_many_spans_are_refused_saying_so(receiver: tuple[int, Received]) -> None:
    port, received = receiver
    status, text = post(port, request_body(4))
    assert status == 413 and "4 spans in one request, over the limit of 3" in text
    assert received.spans == []
    assert post(port, request_body(3))[0] == 200
    status, text = post(port, request_body(3))  # 6 in all, over the 5 kept
    assert status == 507 and "holds its limit of 5 spans" in text and "Ctrl-C" in text
    assert len(received.spans) == 3


def test_other_methods_paths_and_content_types_are_refused(receiver: tuple[int, Received]) -> None:
    port, received = receiver
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/v1/traces")
    assert connection.getresponse().status == 405
    connection.close()
    assert post(port, request_body(), path="/v1/logs")[0] == 404
    assert post(port, request_body(), kind="text/plain")[0] == 415
    assert post(port, request_body(), headers={"Content-Encoding": "br"})[0] == 415
    assert received.spans == []


def test_a_client_trickling_its_body_is_cut_at_the_deadline_and_others_are_answered(
    receiver: tuple[int, Received],
) -> None:
    port, received = receiver
    body = request_body()
    slow = socket.create_connection(("127.0.0.1", port), timeout=30)
    head = (
        f"POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: {PROTOBUF}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    slow.sendall(head.encode() + body[:2])
    started = time.monotonic()
    assert post(port, request_body())[0] == 200  # answered while the slow one waits
    answer = b""
    try:
        for byte in body[2:]:  # a byte every 0.3 s: past the 1 s body deadline
            slow.sendall(bytes([byte]))
            time.sleep(0.3)
    except OSError:
        pass  # closed by the receiver
    slow.settimeout(30)
    try:
        while chunk := slow.recv(4096):
            answer += chunk
    except OSError:
        pass
    slow.close()
    assert answer.startswith(b"HTTP/1.0 408"), answer
    assert time.monotonic() - started < 20
    assert len(received.spans) == 1  # the normal request only


def test_a_head_that_never_ends_is_closed_at_its_deadline(receiver: tuple[int, Received]) -> None:
    port, _ = receiver
    client = socket.create_connection(("127.0.0.1", port), timeout=30)
    client.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    started = time.monotonic()
    answer = b""
    try:
        while chunk := client.recv(4096):
            answer += chunk
    except OSError:
        pass
    client.close()
    assert answer.startswith(b"HTTP/1.0 408")
    assert time.monotonic() - started < 20


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.1", "::"])
def test_an_address_other_machines_reach_is_refused(tmp_path: Path, host: str) -> None:
    done = run_main(
        tmp_path, "traces", "collect", "--port", "0", "--host", host, "-o", "x.dataset.jsonl"
    )
    assert done.returncode == 2
    assert f"--host {host} is not a loopback address" in done.stderr


def test_a_refused_body_leaves_nothing_to_write(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [*CLI, "traces", "collect", "--port", "0", "-o", "x.dataset.jsonl"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    port = int(line.split("127.0.0.1:", 1)[1].split("/", 1)[0])
    assert post(port, b"\x0a\xff\xff\xff\xff")[0] == 400
    assert post(port, b"{", "application/json")[0] == 400
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert "0 span(s) in 0 request(s)" in err and "nothing written" in err
    assert not (tmp_path / "x.dataset.jsonl").exists()
