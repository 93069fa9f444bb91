"""A language server over raw bytes: a client that writes any bytes to a real server's
stdin and reads its framed answers (tests of the protocol's error answers)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
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
        # Read by a thread: a message left unanswered fails a test (receive's timeout)
        # rather than hang it in a blocking read.
        self._messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        # Its log drained as it comes: a full pipe would block the server.
        self._log: list[bytes] = []
        self._log_reader = threading.Thread(target=self._drain, daemon=True)
        self._log_reader.start()

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._log.append(line)

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        return
                    if not line.strip():
                        break
                    name, _, value = line.decode().partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                assert length is not None
                self._messages.put(json.loads(out.read(length)))
        except (OSError, ValueError):  # the output closed (close())
            return
        finally:
            self._messages.put(None)

    def receive(self, timeout: float = 60.0) -> dict[str, Any]:
        """The server's next message; fails when none comes within `timeout` seconds."""
        try:
            message = self._messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no message from the server within {timeout:g} s") from None
        assert message is not None, "the server closed its output"
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
        # Closed even when the server is gone: a pipe left to the garbage collector with
        # unsent bytes raised BrokenPipeError there (an unraisable warning, 3.13).
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.close()
        try:
            code = self.process.wait(timeout=30)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        self._log_reader.join(timeout=30)
        err = b"".join(self._log).decode(errors="replace")
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
