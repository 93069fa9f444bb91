"""`checkspec view`: a local web app over the run history (standard library only).

Pages: `/` the runs (pass-rate trend, pick two to compare), `/runs/ID` a run's report page,
`/compare?base=A&head=B` a comparison page; the runs page reads `/api/runs`, and
`/api/runs/ID` and `/api/compare?base=&head=` give the same data as JSON. It listens on
loopback unless told otherwise, and then answers only requests whose Host is that address
(a page on another site cannot reach it through DNS rebinding). Any spelling of a loopback
address counts (`127.1`, `0x7f.1`, `2130706433`, as inet_aton reads them). On another
address the Host check is off, and `checkspec view` says so.

Cross-site requests: `serve` makes a token at each start and prints the URL carrying it
(`/?token=...`, as Jupyter does); a request with it in the URL gets it as a cookie
(`checkspec-view-PORT`, HttpOnly, SameSite=Strict), and a request with neither is refused
(403). A request a browser marks `Sec-Fetch-Site: cross-site` or `same-site` is refused
too, before any work: a page of another origin cannot make the viewer build comparisons.

Bounds: a request's query holds at most MAX_FIELDS fields, `?limit=` at most MAX_RUNS
(more: 400, as is a malformed request). Connections (engine/html/viewer_server.py): a
request head must arrive whole within LIMITS.head_deadline seconds (in all, however it
trickles) and LIMITS.max_head_bytes; only then does the request take one of
LIMITS.max_serving slots (all taken: 503). At most LIMITS.max_waiting connections wait for
their head, the oldest closed past that, so idle and half-open connections never keep a
normal request out. LIMITS.backlog wait to be accepted. GET only (others: 501); a GET
changes nothing.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
import socket
import sys
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from ..core.redact import unmasked
from ..history.store import HistoryError
from ..llm.snapshot import redactor
from .page import page, render_compare, render_report
from .viewer_server import HeadFirstHandler, HeadFirstServer, Limits


class History(Protocol):
    """What the viewer asks of the run history (engine/history/store.py's HistoryStore)."""

    def runs(self, limit: int) -> list[Any]: ...
    def load(self, run_id: str) -> dict[str, Any]: ...


MAX_RUNS = 10_000
MAX_FIELDS = 20
READ_TIMEOUT_S = 30.0  # to write an answer to a client that does not read it
LIMITS = Limits(
    backlog=128,
    head_deadline=10.0,  # to send a whole request head, however it trickles
    max_head_bytes=128 * 1024,
    max_waiting=512,
    max_serving=64,
)
# Sec-Fetch-Site values let through: the viewer's own pages, and a URL typed or opened
# from outside a browser page. Absent (a client that is not a browser) counts too: the
# token stops those.
SITES_ALLOWED = frozenset({"same-origin", "none"})


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


def token_cookie(port: int) -> str:
    """The cookie holding the token; named by port, as cookies are shared between ports."""
    return f"checkspec-view-{port}"


def new_token() -> str:
    return secrets.token_urlsafe(32)


def make_server(
    viewer: Viewer,
    host: str,
    port: int,
    read_timeout: float = READ_TIMEOUT_S,
    *,
    token: str,
    limits: Limits = LIMITS,
) -> HeadFirstServer:
    """The viewer's server on `host:port`; it answers only requests carrying `token` (in
    `?token=`, which sets the cookie, or in the cookie)."""
    allowed = allowed_hosts(host)
    cookie_name: list[str] = []  # known once bound (port 0: any free one)

    def has_token(query: str, cookie_header: str) -> tuple[bool, bool]:
        """(whether the request carries the token, whether it came in the URL)."""
        try:
            given = parse_qs(query, max_num_fields=MAX_FIELDS).get("token", [])
        except ValueError:
            given = []
        if any(hmac.compare_digest(value.encode(), token.encode()) for value in given):
            return True, True
        jar = SimpleCookie()
        try:
            jar.load(cookie_header)
        except CookieError:
            return False, False
        kept = jar.get(cookie_name[0])
        return kept is not None and hmac.compare_digest(kept.value.encode(), token.encode()), False

    class Handler(HeadFirstHandler):
        server_version = "checkspec-view"
        timeout = read_timeout  # a client that does not read its answer holds a slot this long

        def do_GET(self) -> None:
            name = (self.headers.get("Host") or "").rsplit(":", 1)[0]
            if allowed is not None and name not in allowed:
                self._send(HTTPStatus.FORBIDDEN, "text/plain", "unexpected Host header")
                return
            # A browser names where a request comes from: a page of another site (even
            # another port of localhost, which is "same-site") is refused before any work.
            site = (self.headers.get("Sec-Fetch-Site") or "").strip().lower()
            if site and site not in SITES_ALLOWED:
                self._send(HTTPStatus.FORBIDDEN, "text/plain", f"{site} request refused")
                return
            carried, in_url = has_token(urlsplit(self.path).query, self.headers.get("Cookie", ""))
            if not carried:
                self._send(
                    HTTPStatus.FORBIDDEN,
                    "text/plain",
                    "missing or wrong token: open the URL `checkspec view` printed",
                )
                return
            set_cookie = in_url
            try:
                kind, body = viewer.answer(self.path)
            except NotFound as exc:
                self._send(HTTPStatus.NOT_FOUND, "text/plain", str(exc), set_cookie)
            except BadRequest as exc:
                self._send(HTTPStatus.BAD_REQUEST, "text/plain", str(exc), set_cookie)
            except Exception as exc:  # one bad run never stops the viewer
                self._send(
                    HTTPStatus.INTERNAL_SERVER_ERROR, "text/plain", f"error: {exc}", set_cookie
                )
            else:
                self._send(HTTPStatus.OK, kind, body, set_cookie)

        def _send(self, status: HTTPStatus, kind: str, body: str, set_cookie: bool = False) -> None:
            # Runs kept before secrets were masked show none either (core/redact.py).
            data = redactor().text(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            if set_cookie:  # the page's own requests (fetch, links) carry it from now on
                self.send_header(
                    "Set-Cookie", f"{cookie_name[0]}={token}; Path=/; HttpOnly; SameSite=Strict"
                )
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: the URL printed at start is what the user needs

    server = HeadFirstServer.on(host, port, Handler, limits)
    cookie_name.append(token_cookie(server.server_address[1]))
    return server


def serve(viewer: Viewer, host: str, port: int) -> int:
    """Serve until Ctrl-C (exit 0); prints the URL first."""
    token = new_token()
    server = make_server(viewer, host, port, token=token)
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    url = f"http://{shown}:{server.server_address[1]}/?token={token}"
    try:  # the URL printed inside: a Ctrl-C as soon as it is seen still stops cleanly
        # Unmasked: the token is the user's way in (core/redact.py would hide `?token=`).
        print(f"checkspec view: {url} (Ctrl-C stops)", file=unmasked(sys.stdout), flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        print("checkspec view: stopped", file=sys.stderr)
    finally:
        server.server_close()
    return 0
