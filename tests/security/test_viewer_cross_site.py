"""`checkspec view` against pages of other origins (issue 48 item 8): a page anywhere
could fire blind GETs at the viewer (`<img src=http://127.0.0.1:8765/api/compare?...>`)
and make it build comparisons of thousands of scenarios. Now each start makes a token,
printed in the URL (as Jupyter does) and kept as a cookie after the first visit; requests
without it, and requests a browser marks cross-site or same-site, are refused before any
work."""

from __future__ import annotations

import http.client
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from checkspec.engine.html.viewer import Viewer, make_server
from tests.support.viewer_process import start_view


def _request(port: int, path: str, **headers: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", path, headers={k.replace("_", "-"): v for k, v in headers.items()})
    answer = connection.getresponse()
    answer.read()
    connection.close()
    return answer


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0


def test_the_printed_url_carries_a_token_and_sets_it_as_a_cookie(tmp_path: Path) -> None:
    (tmp_path / "checkspec.yaml").write_text("{}\n", encoding="utf-8")
    process, _, port, token = start_view(tmp_path)
    try:
        assert len(token) >= 32
        first = _request(port, f"/?token={token}", Sec_Fetch_Site="none")
        assert first.status == 200
        cookie = first.getheader("Set-Cookie") or ""
        assert cookie.startswith(f"checkspec-view-{port}={token};")
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        # The page's own requests carry the cookie, not the URL's token.
        kept = f"checkspec-view-{port}={token}"
        assert _request(port, "/api/runs", Cookie=kept, Sec_Fetch_Site="same-origin").status == 200
        # Without it, or with another one: refused.
        assert _request(port, "/api/runs").status == 403
        assert _request(port, "/").status == 403
        assert _request(port, "/api/runs?token=guess").status == 403
        assert _request(port, "/api/runs", Cookie=f"checkspec-view-{port}=guess").status == 403
        assert _request(port, "/api/runs", Cookie=f"checkspec-view-1={token}x").status == 403
    finally:
        _stop(process)
    again, _, port_again, token_again = start_view(tmp_path)
    try:
        assert token_again != token  # one per start
        assert _request(port_again, f"/api/runs?token={token}").status == 403
    finally:
        _stop(again)


class _History:
    def runs(self, limit: int) -> list[Any]:
        return []

    def load(self, run_id: str) -> dict[str, Any]:
        return {"id": run_id}


def _serve(viewer: Viewer, token: str) -> Iterator[int]:
    server = make_server(viewer, "127.0.0.1", 0, token=token)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_a_cross_site_or_same_site_request_builds_nothing_even_with_the_token() -> None:
    """A browser sends the cookie with some cross-site requests (and a page of another
    port of localhost is same-site): Sec-Fetch-Site refuses those before any work."""
    compared: list[str] = []

    def compare(base: dict[str, Any], head: dict[str, Any]) -> dict[str, Any]:
        compared.append(f"{base['id']}..{head['id']}")
        return {}

    for port in _serve(Viewer(_History(), compare), "tok"):
        cookie = f"checkspec-view-{port}=tok"
        path = "/api/compare?base=a&head=b"
        for site in ("cross-site", "same-site", "Cross-Site"):
            assert _request(port, path, Cookie=cookie, Sec_Fetch_Site=site).status == 403
            assert _request(port, path + "&token=tok", Sec_Fetch_Site=site).status == 403
        assert _request(port, path).status == 403  # no token: a blind GET of any origin
        assert compared == []
        assert _request(port, path, Cookie=cookie, Sec_Fetch_Site="same-origin").status == 200
        assert _request(port, path, Cookie=cookie).status == 200  # not a browser: the token
        assert compared == ["a..b", "a..b"]
