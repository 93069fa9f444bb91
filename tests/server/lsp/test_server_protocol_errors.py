"""A well-framed message that is not JSON-RPC is answered, not fatal (issue 36, item 1).

Raw bytes on a real server's stdin: a body that is not JSON gets error -32700 (id null)
and the server goes on answering hover and publishing diagnostics; a body with invalid
UTF-8 inside a string is answered the same way, with no traceback in the log. A lost
framing (no header where one must be) still ends the server (tests/server/test_faults_lsp.py
covers the other framing errors).
"""

from __future__ import annotations

from pathlib import Path

from tests.support.raw_lsp import frame_bytes, started, still_serves


def test_a_body_that_is_not_json_is_answered_minus_32700_and_the_server_goes_on(
    tmp_path: Path,
) -> None:
    client = started(tmp_path)
    try:
        client.send(frame_bytes(b"this is not json at all"))
        refused = client.until(lambda m: "error" in m)
        assert refused["id"] is None and refused["error"]["code"] == -32700, refused
        still_serves(client, tmp_path)
    finally:
        code, err = client.close()
    assert code == 0, err
    assert "framing error" not in err and "Traceback" not in err, err


def test_invalid_utf8_inside_a_string_is_answered_without_a_traceback(tmp_path: Path) -> None:
    client = started(tmp_path)
    try:
        body = b'{"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": "\xff\xfe"}'
        client.send(frame_bytes(body))
        refused = client.until(lambda m: "error" in m)
        assert refused["error"]["code"] == -32700, refused
        assert refused["id"] == 5  # the request it answers, so the client stops waiting
        still_serves(client, tmp_path)
    finally:
        code, err = client.close()
    assert code == 0, err
    assert "Traceback" not in err and "UnicodeDecodeError" not in err, err


def test_lost_framing_still_ends_the_server(tmp_path: Path) -> None:
    client = started(tmp_path)
    try:
        client.send(b"this is not a header\r\n\r\n")
        code = client.process.wait(timeout=30)
    finally:
        _, err = client.close()
    assert code == 1
    assert "LSP framing error" in err and "not an LSP header line" in err
