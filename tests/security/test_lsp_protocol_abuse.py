"""JSON-RPC messages a hostile or broken client may send get the answers JSON-RPC 2.0 and
LSP define, and the server keeps answering (issue 48, item 7).

Raw bytes on a real server's stdin (tests/support/raw_lsp.py): each malformed message is
answered with its error (-32600 Invalid Request with id null when the message is not a
request at all; -32602 Invalid params with the request's id; -32002 ServerNotInitialized
before `initialize`), never with a result, never with a non-JSON answer (`Infinity`), and
without a traceback in the log; then the same server still publishes diagnostics and
answers a hover.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.raw_lsp import RawClient, frame, frame_bytes, started, still_serves

HOVER_PARAMS: dict[str, Any] = {
    "textDocument": {"uri": "file:///nowhere/demo.suite.yaml"},
    "position": {"line": 0, "character": 0},
}


def hover_body(request_id: str, params: Any = None) -> bytes:
    """A hover request whose id is written as `request_id` (raw JSON text)."""
    shown = json.dumps(HOVER_PARAMS if params is None else params)
    return (
        f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "textDocument/hover", '
        f'"params": {shown}}}'
    ).encode()


def nested(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


def answer_to(client: RawClient, body: bytes) -> dict[str, Any]:
    """The server's next answer (a message without a method) to `body`."""
    client.send(frame_bytes(body))
    return client.until(lambda m: "method" not in m)


NOT_REQUESTS = {
    "a batch": json.dumps([{"jsonrpc": "2.0", "id": 3, "method": "shutdown"}]).encode(),
    "an empty batch": b"[]",
    "an object as id": hover_body('{"a": 1}'),
    "an array as id": hover_body("[1]"),
    "1e400 as id": hover_body("1e400"),
    "a fraction as id": hover_body("1.5"),
    "true as id": hover_body("true"),
    "a method that is a number": b'{"jsonrpc": "2.0", "id": 4, "method": 12}',
    "no jsonrpc 2.0": b'{"jsonrpc": "1.0", "id": 4, "method": "shutdown"}',
    "neither method nor id": b'{"jsonrpc": "2.0"}',
}


def test_what_is_not_a_request_is_answered_minus_32600_with_id_null(tmp_path: Path) -> None:
    client = started(tmp_path)
    try:
        for case, body in NOT_REQUESTS.items():
            answer = answer_to(client, body)
            assert answer.get("id", "missing") is None, (case, answer)
            assert answer.get("error", {}).get("code") == -32600, (case, answer)
            assert "result" not in answer, (case, answer)
        still_serves(client, tmp_path)
    finally:
        code, err = client.close()
    assert code == 0, err
    assert "Traceback" not in err and "Infinity" not in err, err


INVALID_PARAMS = {
    "a string": hover_body("5", "not params"),
    "line 2**63": hover_body("5", {**HOVER_PARAMS, "position": {"line": 2**63, "character": 0}}),
    "character -1": hover_body("5", {**HOVER_PARAMS, "position": {"line": 0, "character": -1}}),
    "a list as line": hover_body("5", {**HOVER_PARAMS, "position": {"line": [1], "character": 0}}),
    "nesting 900 deep": hover_body("5", {**HOVER_PARAMS, "x": json.loads(nested(900))}),
    "nesting 900 deep in a command's arguments": (
        '{"jsonrpc": "2.0", "id": 5, "method": "workspace/executeCommand", '
        f'"params": {{"command": "checkspec.listTopics", "arguments": [{nested(900)}]}}}}'
    ).encode(),
}


@pytest.mark.parametrize("as_string_id", [False, True], ids=["integer id", "string id"])
def test_invalid_params_are_answered_minus_32602_with_the_request_id(
    tmp_path: Path, as_string_id: bool
) -> None:
    client = started(tmp_path)
    try:
        for case, body in INVALID_PARAMS.items():
            if as_string_id:
                body = body.replace(b'"id": 5', b'"id": "five"', 1)
            answer = answer_to(client, body)
            assert answer.get("id") == ("five" if as_string_id else 5), (case, answer)
            assert answer.get("error", {}).get("code") == -32602, (case, answer)
        still_serves(client, tmp_path)
    finally:
        code, err = client.close()
    assert code == 0, err
    assert "Traceback" not in err, err


def test_a_notification_with_invalid_params_is_not_answered_and_harms_nothing(
    tmp_path: Path,
) -> None:
    client = started(tmp_path)
    try:
        deep = nested(900)
        for body in (
            b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": "x"}',
            f'{{"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", '
            f'"params": {{"settings": {deep}}}}}'.encode(),
        ):
            client.send(frame_bytes(body))
        still_serves(client, tmp_path)  # its first answer is the hover's, not an error
    finally:
        code, err = client.close()
    assert code == 0, err
    assert "Traceback" not in err, err


def test_a_request_before_initialize_is_answered_minus_32002(tmp_path: Path) -> None:
    client = RawClient()
    try:
        client.send(frame_bytes(hover_body("1")))
        client.send(frame({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {}}))
        refused = client.until(lambda m: m.get("id") == 1)
        assert refused.get("error", {}).get("code") == -32002, refused
        assert "result" not in refused, refused
        client.send(
            frame(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "initialize",
                    "params": {"capabilities": {}, "rootUri": tmp_path.as_uri()},
                }
            )
        )
        initialized = client.until(lambda m: m.get("id") == 2)
        assert "capabilities" in initialized["result"], initialized
        client.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        still_serves(client, tmp_path)
    finally:
        code, err = client.close()
    assert code == 0, err
    assert "Traceback" not in err, err
