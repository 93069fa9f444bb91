"""A well-framed message that is not JSON-RPC is answered, not fatal (issue 36, item 1).

Raw bytes on a real server's stdin: a body that is not JSON gets error -32700 (id null)
and the server goes on answering hover and publishing diagnostics; a body with invalid
UTF-8 inside a string is answered the same way, with no traceback in the log. A lost
framing (no header where one must be) still ends the server (tests/server/test_faults_lsp.py
covers the other framing errors).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SERVER = [sys.executable, "-m", "checkspec.server"]
SUITE = "name: s\ntarget: python:a:b\nscenarios:\n  - name: one\n    bogus_key: 1\n"


def frame_bytes(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def frame(message: dict[str, Any]) -> bytes:
    return frame_bytes(json.dumps(message).encode())


class RawClient:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            SERVER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "CHECKSPEC_LSP_LOG_LEVEL": "WARNING"},
        )

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        out = self.process.stdout
        assert out is not None
        length = None
        while True:
            line = out.readline()
            assert line, "the server closed its output"
            if not line.strip():
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        assert length is not None
        message: dict[str, Any] = json.loads(out.read(length))
        if "method" in message and "id" in message:  # a request of the server's: accept it
            self.send(frame({"jsonrpc": "2.0", "id": message["id"], "result": None}))
        return message

    def until(self, wanted: Any) -> dict[str, Any]:
        for _ in range(500):
            message = self.receive()
            if wanted(message):
                return message
        raise AssertionError("the awaited message never came")

    def close(self) -> tuple[int, str]:
        with contextlib.suppress(BrokenPipeError):
            self.send(frame({"jsonrpc": "2.0", "id": 99, "method": "shutdown"}))
            self.send(frame({"jsonrpc": "2.0", "method": "exit"}))
            assert self.process.stdin is not None
            self.process.stdin.close()
        try:
            code = self.process.wait(timeout=30)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        assert self.process.stderr is not None
        err = self.process.stderr.read().decode(errors="replace")
        assert self.process.stdout is not None
        self.process.stdout.close()
        self.process.stderr.close()
        return code, err


def started(workspace: Path) -> RawClient:
    client = RawClient()
    client.send(
        frame(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"capabilities": {}, "rootUri": workspace.as_uri()},
            }
        )
    )
    client.until(lambda m: m.get("id") == 1)
    client.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    return client


def still_serves(client: RawClient, workspace: Path) -> None:
    """Diagnostics for an opened document, and a hover answer."""
    uri = (workspace / "demo.suite.yaml").as_uri()
    item = {"uri": uri, "languageId": "yaml", "version": 1, "text": SUITE}
    client.send(
        frame(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {"textDocument": item},
            }
        )
    )
    published = client.until(
        lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
    )
    assert published["params"]["diagnostics"], published  # bogus_key is reported
    client.send(
        frame(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "textDocument/hover",
                "params": {
                    "textDocument": {"uri": uri},
                    "position": {"line": 1, "character": 2},
                },
            }
        )
    )
    answer = client.until(lambda m: m.get("id") == 7)
    assert "error" not in answer and answer["result"] is not None, answer


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
