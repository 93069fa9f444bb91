"""`checkspec view`: a local web app over the run history (standard library only).

Pages: `/` the runs (pass-rate trend, pick two to compare), `/runs/ID` a run's report page,
`/compare?base=A&head=B` a comparison page; the runs page reads `/api/runs`, and
`/api/runs/ID` and `/api/compare?base=&head=` give the same data as JSON. It listens on
loopback unless told otherwise, and then answers only requests whose Host is that address
(a page on another site cannot reach it through DNS rebinding). Any spelling of a loopback
address counts (`127.1`, `0x7f.1`, `2130706433`, as inet_aton reads them). On another
address the Host check is off, and `checkspec view` says so.

Bounds: a request's query holds at most MAX_FIELDS fields, `?limit=` at most MAX_RUNS
(more: 400, as is a malformed request); an idle or slow connection is closed after
READ_TIMEOUT_S seconds without a byte; at most MAX_CONNECTIONS are served at once (more
are closed at once), and BACKLOG wait to be accepted. GET only (others: 501); a GET
changes nothing.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import sys
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from ..history.store import HistoryError
from ..llm.snapshot import redactor
from .page import page, render_compare, render_report


class History(Protocol):
    """What the viewer asks of the run history (engine/history/store.py's HistoryStore)."""

    def runs(self, limit: int) -> list[Any]: ...
    def load(self, run_id: str) -> dict[str, Any]: ...


MAX_RUNS = 10_000
MAX_FIELDS = 20
READ_TIMEOUT_S = 30.0
MAX_CONNECTIONS = 64
BACKLOG = 128


class NotFound(Exception):
    """A run or page that does not exist (answered 404)."""


class BadRequest(Exception):
    """A request asking for what is not served (answered 400)."""


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address `host` names, in any spelling the system's resolver accepts for one
    (`127.1`, `0x7f.1`: inet_aton's forms); None for a name."""
    host = host.strip("[]")
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except (OSError, ValueError):
        return None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    address = _address(host)
    return address is not None and address.is_loopback


def allowed_hosts(host: str) -> set[str] | None:
    """The Host header names answered when listening on `host`; None: no check (not
    loopback)."""
    if not is_loopback(host):
        return None
    names = {host, "localhost", "127.0.0.1", "[::1]"}
    address = _address(host)
    if address is not None:
        names.add(f"[{address}]" if address.version == 6 else str(address))
    return names


def run_summary(run: Any) -> dict[str, Any]:
    """A run as the runs list shows it (a dict, or an object with `to_json`/`as_dict`)."""
    for name in ("to_json", "as_dict", "model_dump"):
        if hasattr(run, name):
            run = getattr(run, name)()
            break
    if isinstance(run, str):
        run = json.loads(run)
    return dict(run)


class Viewer:
    """The routes over one history; `compare(base, head)` makes a comparison's JSON."""

    def __init__(
        self,
        history: History,
        compare: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]],
        label: str = "",
    ) -> None:
        self.history = history
        self.compare = compare
        self.label = label
        self._lock = threading.Lock()  # one SQLite connection, requests on several threads

    def _load(self, run_id: str) -> dict[str, Any]:
        try:
            with self._lock:
                return self.history.load(run_id)
        except HistoryError as exc:
            raise NotFound(str(exc)) from exc

    def _runs(self, limit: int) -> list[Any]:
        path = getattr(self.history, "path", None)
        if isinstance(path, Path) and not path.exists():
            return []  # no run recorded yet: nothing to list, and no database made for it
        with self._lock:
            return self.history.runs(limit)

    def answer(self, target: str) -> tuple[str, str]:
        """The content type and body for a GET of `target`; NotFound when none."""
        parts = urlsplit(target)
        try:
            query = parse_qs(parts.query, max_num_fields=MAX_FIELDS)
        except ValueError:
            raise BadRequest(f"more than {MAX_FIELDS} query fields") from None
        path = parts.path

        def arg(name: str) -> str:
            values = query.get(name)
            if not values:
                raise NotFound(f"missing ?{name}=")
            return values[0]

        if path in ("/", "/index.html"):
            data = {"history": self.label}
            return "text/html", page("runs", data, "checkspec runs", ("viewer.js", "report.js"))
        if path == "/api/runs":
            given = query.get("limit", ["200"])[0]
            limit = 200
            if given.isascii() and given.isdigit():  # not `¹`, which isdigit too
                if len(given) > len(str(MAX_RUNS)) or int(given) > MAX_RUNS:
                    raise BadRequest(f"limit: at most {MAX_RUNS}")
                limit = max(1, int(given))
            runs = [run_summary(r) for r in self._runs(limit)]
            return "application/json", json.dumps({"runs": runs})
        if path.startswith("/api/runs/"):
            return "application/json", json.dumps(self._load(unquote(path[10:])))
        if path.startswith("/runs/"):
            run_id = unquote(path[6:])
            return "text/html", render_report(self._load(run_id), f"checkspec run {run_id}")
        if path in ("/compare", "/api/compare"):
            base, head = self._load(arg("base")), self._load(arg("head"))
            comparison = self.compare(base, head)
            if path == "/api/compare":
                return "application/json", json.dumps(comparison)
            return "text/html", render_compare(comparison, base=base, head=head)
        raise NotFound(path)


def make_server(
    viewer: Viewer, host: str, port: int, read_timeout: float = READ_TIMEOUT_S
) -> ThreadingHTTPServer:
    allowed = allowed_hosts(host)
    slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    class Handler(BaseHTTPRequestHandler):
        server_version = "checkspec-view"
        timeout = read_timeout  # an idle or slow client holds its thread this long at most

        def do_GET(self) -> None:
            name = (self.headers.get("Host") or "").rsplit(":", 1)[0]
            if allowed is not None and name not in allowed:
                self._send(HTTPStatus.FORBIDDEN, "text/plain", "unexpected Host header")
                return
            try:
                kind, body = viewer.answer(self.path)
            except NotFound as exc:
                self._send(HTTPStatus.NOT_FOUND, "text/plain", str(exc))
            except BadRequest as exc:
                self._send(HTTPStatus.BAD_REQUEST, "text/plain", str(exc))
            except Exception as exc:  # one bad run never stops the viewer
                self._send(HTTPStatus.INTERNAL_SERVER_ERROR, "text/plain", f"error: {exc}")
            else:
                self._send(HTTPStatus.OK, kind, body)

        def _send(self, status: HTTPStatus, kind: str, body: str) -> None:
            # Runs kept before secrets were masked show none either (core/redact.py).
            data = redactor().text(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: the URL printed at start is what the user needs

    class Server(ThreadingHTTPServer):
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        daemon_threads = True
        request_queue_size = BACKLOG

        def process_request(self, request: Any, client_address: Any) -> None:
            if not slots.acquire(blocking=False):  # as many as it serves at once: closed
                self.shutdown_request(request)
                return
            with held_lock:
                held.add(id(request))
            try:
                super().process_request(request, client_address)
            except BaseException:
                # A Ctrl-C while the request's thread starts: that thread may be running
                # (and gives the slot back itself). Released twice, the semaphore raised
                # ValueError in place of the KeyboardInterrupt, and the server went on.
                give_back(request)
                raise

        def process_request_thread(self, request: Any, client_address: Any) -> None:
            try:
                super().process_request_thread(request, client_address)
            finally:
                give_back(request)

    held: set[int] = set()  # the requests holding a slot
    held_lock = threading.Lock()

    def give_back(request: Any) -> None:
        with held_lock:
            if id(request) not in held:
                return
            held.discard(id(request))
        slots.release()

    return Server((host.strip("[]"), port), Handler)


def serve(viewer: Viewer, host: str, port: int) -> int:
    """Serve until Ctrl-C (exit 0); prints the URL first."""
    server = make_server(viewer, host, port)
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    try:  # the URL printed inside: a Ctrl-C as soon as it is seen still stops cleanly
        print(
            f"checkspec view: http://{shown}:{server.server_address[1]}/ (Ctrl-C stops)", flush=True
        )
        server.serve_forever()
    except KeyboardInterrupt:
        print("checkspec view: stopped", file=sys.stderr)
    finally:
        server.server_close()
    return 0
