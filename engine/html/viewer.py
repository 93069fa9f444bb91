"""`checkspec view`: a local web app over the run history (standard library only).

Pages: `/` the runs (pass-rate trend, pick two to compare), `/runs/ID` a run's report page,
`/compare?base=A&head=B` a comparison page; the runs page reads `/api/runs`, and
`/api/runs/ID` and `/api/compare?base=&head=` give the same data as JSON. It listens on
loopback unless told otherwise, and then answers only requests whose Host is that address
(a page on another site cannot reach it through DNS rebinding).
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
from .page import page, render_compare, render_report


class History(Protocol):
    """What the viewer asks of the run history (engine/history/store.py's HistoryStore)."""

    def runs(self, limit: int) -> list[Any]: ...
    def load(self, run_id: str) -> dict[str, Any]: ...


class NotFound(Exception):
    """A run or page that does not exist (answered 404)."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


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
        path, query = parts.path, parse_qs(parts.query)

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
            limit = int(given) if given.isdigit() else 200
            runs = [run_summary(r) for r in self._runs(max(1, min(limit, 10_000)))]
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


def make_server(viewer: Viewer, host: str, port: int) -> ThreadingHTTPServer:
    allowed = {host, "localhost", "127.0.0.1", "[::1]"} if is_loopback(host) else None

    class Handler(BaseHTTPRequestHandler):
        server_version = "checkspec-view"

        def do_GET(self) -> None:
            name = (self.headers.get("Host") or "").rsplit(":", 1)[0]
            if allowed is not None and name not in allowed:
                self._send(HTTPStatus.FORBIDDEN, "text/plain", "unexpected Host header")
                return
            try:
                kind, body = viewer.answer(self.path)
            except NotFound as exc:
                self._send(HTTPStatus.NOT_FOUND, "text/plain", str(exc))
            except Exception as exc:  # one bad run never stops the viewer
                self._send(HTTPStatus.INTERNAL_SERVER_ERROR, "text/plain", f"error: {exc}")
            else:
                self._send(HTTPStatus.OK, kind, body)

        def _send(self, status: HTTPStatus, kind: str, body: str) -> None:
            data = body.encode("utf-8")
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
