"""`checkspec traces collect`: an OTLP/HTTP receiver on loopback whose spans become a
dataset of draft scenarios when it stops (Ctrl-C or SIGTERM: the dataset is written and
the command exits 0).

`POST /v1/traces` with an `ExportTraceServiceRequest` in protobuf
(`application/x-protobuf`, opentelemetry-proto's classes) or OTLP/JSON
(`application/json`), gzip-compressed or not, as the OTLP/HTTP exporters send it; the
answer is an empty `ExportTraceServiceResponse` in the request's encoding. Only spans
acknowledged (200) are written, and every one acknowledged is: a request that arrives
as the receiver stops is answered 503 (the exporter retries it elsewhere or drops it).

Bounds (a client on this machine may be anything, the page of a site included):
- the connection (engine/html/viewer_server.py, as `checkspec view`): a head must arrive
  whole within LIMITS.head_deadline; at most LIMITS.max_serving requests are answered at
  once;
- the Host header must name the loopback address listened on (a page cannot reach the
  receiver through DNS rebinding): 403 otherwise; it listens on loopback only;
- a body must arrive within BODY_DEADLINE_S in all (408), hold at most `max_body` bytes
  once decompressed (413, read no further) and `max_spans_per_request` spans (413);
- at most `max_spans` are kept: past that, requests are refused with 507 and a message
  saying to stop the receiver;
- a body that is not what its content type says is answered 400 and nothing of it kept.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import socket
import sys
import threading
import time
import zlib
from collections.abc import Callable
from http import HTTPStatus
from types import FrameType
from typing import Any
from urllib.parse import urlsplit

from ..html.viewer import allowed_hosts, is_loopback
from ..html.viewer_server import HeadFirstHandler, HeadFirstServer, Limits

EXIT_OK, EXIT_INVALID = 0, 2
PATH = "/v1/traces"
LIMITS = Limits(
    backlog=64, head_deadline=10.0, max_head_bytes=16 * 1024, max_waiting=64, max_serving=16
)
BODY_DEADLINE_S = 30.0
DRAIN_S = 1.0  # what a refused client still sends is read (and dropped) this long at most
PROTOBUF, JSON = "application/x-protobuf", "application/json"


class Received:
    """The spans acknowledged so far (handlers add from their threads)."""

    def __init__(self, max_spans: int) -> None:
        self.max_spans = max_spans
        self.spans: list[Any] = []
        self.requests = 0
        self.closed = False
        self._lock = threading.Lock()

    def add(self, spans: list[Any]) -> HTTPStatus | None:
        """None once kept; else the status refusing them."""
        with self._lock:
            if self.closed:
                return HTTPStatus.SERVICE_UNAVAILABLE
            if len(self.spans) + len(spans) > self.max_spans:
                return HTTPStatus.INSUFFICIENT_STORAGE
            self.spans.extend(spans)
            self.requests += 1
            return None

    def close(self) -> list[Any]:
        with self._lock:
            self.closed = True
            return list(self.spans)


class Refused(Exception):
    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def make_receiver(
    host: str,
    port: int,
    received: Received,
    *,
    max_body: int,
    max_spans_per_request: int,
    limits: Limits = LIMITS,
    body_deadline: float = BODY_DEADLINE_S,
) -> HeadFirstServer:
    allowed = allowed_hosts(host) or set()

    class Handler(HeadFirstHandler):
        server_version = "checkspec-traces"
        timeout = body_deadline

        def do_POST(self) -> None:
            started = time.monotonic()
            try:
                kind = self._checked_head()
                body = self._body(started + body_deadline)
                spans = _decoded(kind, body, max_spans_per_request)
            except Refused as refused:
                self._refuse(refused)
                return
            status = received.add(spans)
            if status is HTTPStatus.INSUFFICIENT_STORAGE:
                self._refuse(
                    Refused(
                        status,
                        f"the receiver holds its limit of {received.max_spans:,} spans "
                        "(--max-spans): stop it (Ctrl-C) to write them, then start it again",
                    )
                )
            elif status is not None:
                self._refuse(Refused(status, "the receiver is stopping"))
            else:
                self._send(HTTPStatus.OK, kind, b"" if kind == PROTOBUF else b"{}")

        def _checked_head(self) -> str:
            name = (self.headers.get("Host") or "").rsplit(":", 1)[0]
            if name not in allowed:
                raise Refused(HTTPStatus.FORBIDDEN, "unexpected Host header")
            if urlsplit(self.path).path != PATH:
                raise Refused(HTTPStatus.NOT_FOUND, f"OTLP/HTTP traces are received at {PATH}")
            kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if kind not in (PROTOBUF, JSON):
                raise Refused(
                    HTTPStatus.UNSUPPORTED_MEDIA_TYPE, f"Content-Type must be {PROTOBUF} or {JSON}"
                )
            encoding = (self.headers.get("Content-Encoding") or "identity").strip().lower()
            if encoding not in ("identity", "gzip"):
                raise Refused(
                    HTTPStatus.UNSUPPORTED_MEDIA_TYPE, f"Content-Encoding {encoding} (gzip or none)"
                )
            return kind

        def _body(self, deadline: float) -> bytes:
            length_text = self.headers.get("Content-Length")
            if length_text is None or self.headers.get("Transfer-Encoding"):
                raise Refused(HTTPStatus.LENGTH_REQUIRED, "a body with its Content-Length")
            try:
                length = int(length_text)
            except ValueError:
                raise Refused(HTTPStatus.BAD_REQUEST, "Content-Length is not a number") from None
            if length < 0:
                raise Refused(HTTPStatus.BAD_REQUEST, "Content-Length is negative")
            if length > max_body:
                raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, _too_large(length, max_body))
            body = bytearray(self.rfile.read(length))  # what came with the head
            while len(body) < length:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Refused(HTTPStatus.REQUEST_TIMEOUT, "the body took too long")
                self.connection.settimeout(left)
                try:
                    chunk = self.connection.recv(min(1 << 20, length - len(body)))
                except TimeoutError:
                    raise Refused(HTTPStatus.REQUEST_TIMEOUT, "the body took too long") from None
                if not chunk:
                    raise Refused(HTTPStatus.BAD_REQUEST, "the body ended before Content-Length")
                body += chunk
            if (self.headers.get("Content-Encoding") or "").strip().lower() == "gzip":
                return _gunzipped(bytes(body), max_body)
            return bytes(body)

        def _refuse(self, refused: Refused) -> None:
            self.close_connection = True
            self._send(refused.status, "text/plain", refused.message.encode("utf-8"))
            _drain(self.connection)

        def _send(self, status: HTTPStatus, kind: str, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._refuse(Refused(HTTPStatus.METHOD_NOT_ALLOWED, f"POST OTLP/HTTP spans to {PATH}"))

        do_PUT = do_DELETE = do_PATCH = do_HEAD = do_GET

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return HeadFirstServer.on(host, port, Handler, limits)


def _too_large(size: int, limit: int) -> str:
    return f"a body of {size:,} bytes, over the limit of {limit:,} (--max-body-bytes)"


def _gunzipped(data: bytes, limit: int) -> bytes:
    """The body decompressed, stopping past `limit` bytes (a small body may expand a
    thousandfold)."""
    inflater = zlib.decompressobj(wbits=31)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise Refused(HTTPStatus.BAD_REQUEST, f"not gzip: {exc}") from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, _too_large(limit + 1, limit))
    return out


def _decoded(kind: str, body: bytes, max_spans: int) -> list[Any]:
    from ..capture.otlp import OtlpError, is_otlp, spans_of_json, spans_of_protobuf

    try:
        if kind == PROTOBUF:
            spans = spans_of_protobuf(body)
        else:
            try:
                value = json.loads(body)
            except (ValueError, RecursionError) as exc:
                raise Refused(HTTPStatus.BAD_REQUEST, f"not JSON: {exc}") from None
            if not is_otlp(value) and value != {}:
                raise Refused(HTTPStatus.BAD_REQUEST, "not OTLP/JSON: an object with resourceSpans")
            spans = list(spans_of_json(value))
    except OtlpError as exc:
        raise Refused(HTTPStatus.BAD_REQUEST, str(exc)) from None
    except RecursionError:
        raise Refused(HTTPStatus.BAD_REQUEST, "nested too deeply to be read") from None
    if len(spans) > max_spans:
        raise Refused(
            HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
            f"{len(spans):,} spans in one request, over the limit of {max_spans:,} "
            "(--max-spans-per-request): send smaller batches",
        )
    return spans


def _drain(connection: socket.socket) -> None:
    """Read what the client still sends for a little while: closed with unread bytes, the
    socket would send a reset that can overtake the answer."""
    try:
        connection.shutdown(socket.SHUT_WR)
    except OSError:
        return
    deadline = time.monotonic() + DRAIN_S
    try:
        while (left := deadline - time.monotonic()) > 0:
            connection.settimeout(left)
            if not connection.recv(65536):
                return
    except OSError:
        return


def collect(args: argparse.Namespace, write_drafts: Callable[..., int]) -> int:
    """Receive until stopped, then `write_drafts(spans, output, force, require=False)`."""
    if not is_loopback(args.host):
        print(
            f"error: --host {args.host} is not a loopback address: the receiver listens on "
            "this machine only (an agent elsewhere exports to a file: `traces import`)",
            file=sys.stderr,
        )
        return EXIT_INVALID
    for name in ("max_body_bytes", "max_spans", "max_spans_per_request"):
        if getattr(args, name) < 1:
            print(f"error: --{name.replace('_', '-')} must be at least 1", file=sys.stderr)
            return EXIT_INVALID
    try:
        import opentelemetry.proto.collector.trace.v1.trace_service_pb2  # noqa: F401
    except ImportError:
        print(
            "error: traces collect reads OTLP protobuf with opentelemetry-proto, which is not "
            "installed: pip install 'checkspec[otel]'",
            file=sys.stderr,
        )
        return EXIT_INVALID
    received = Received(args.max_spans)
    try:
        server = make_receiver(
            args.host,
            args.port,
            received,
            max_body=args.max_body_bytes,
            max_spans_per_request=args.max_spans_per_request,
        )
    except OSError as exc:
        print(
            f"error: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return EXIT_INVALID
    shown = f"[{args.host.strip('[]')}]" if ":" in args.host else args.host
    url = f"http://{shown}:{server.server_address[1]}{PATH}"
    previous = _on_stop()
    try:
        print(
            f"checkspec traces collect: receiving OTLP/HTTP at {url} (protobuf or JSON); "
            f"Ctrl-C writes {args.output}",
            flush=True,
        )
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        for sig, handler in previous:
            signal.signal(sig, handler)
        spans = received.close()
        _stop(server)
    print(
        f"checkspec traces collect: stopped; {len(spans):,} span(s) in {received.requests} "
        "request(s)",
        file=sys.stderr,
    )
    return write_drafts(spans, args.output, args.force, require=False)


def _stop(server: HeadFirstServer) -> None:
    with contextlib.suppress(OSError):
        server.server_close()


def _on_stop() -> list[tuple[int, Any]]:
    """SIGTERM stops the receiver as Ctrl-C does (the dataset is written); Ctrl-C does so
    even where the shell started the command with SIGINT ignored (`cmd &` in a script)."""

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    return [(sig, signal.signal(sig, stop)) for sig in (signal.SIGINT, signal.SIGTERM)]
