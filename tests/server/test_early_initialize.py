"""`initialize` is answered before pygls loads, with exactly what pygls would answer.

The table (server/initialize_answers.json) must equal the live server's answer for every
choice it is keyed by and for real clients' full capabilities; the first message is read
without losing a byte for pygls; anything unexpected leaves the answer to pygls; a real
server over stdio answers once, early, and then works.
"""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from checkspec.server import early_initialize
from checkspec.server.early_initialize import Replay, answer_first, answer_key

CLIENTS = Path(__import__("pytest_lsp").__file__).parent / "clients"


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def initialize(capabilities: Any, request_id: Any = 1) -> dict[str, Any]:
    params = {"processId": None, "rootUri": None, "capabilities": capabilities}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def run_python(script: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_table_is_what_the_server_computes() -> None:
    # Fails after registering a feature without `make schema` (it regenerates the table).
    live = run_python(
        """
        import json
        from checkspec.server.lsp.answers import table
        print(json.dumps(table()))
        """
    )
    committed = json.loads(early_initialize.TABLE.read_text(encoding="utf-8"))
    assert committed == live


@pytest.mark.parametrize(
    "client", sorted(p.name for p in CLIENTS.glob("*.json")), ids=lambda name: name[:-5]
)
def test_real_clients_get_from_the_table_what_the_server_computes(client: str) -> None:
    # Full capabilities of real editors: a pygls that reads a capability the key leaves
    # out would answer differently here.
    capabilities = json.loads((CLIENTS / client).read_text(encoding="utf-8"))["capabilities"]
    early = answer_first(io.BytesIO(frame(initialize(capabilities))), io.BytesIO())
    live = run_python(
        f"""
        import json
        from checkspec.server.lsp.answers import computed_answer
        print(json.dumps(computed_answer(json.loads({json.dumps(json.dumps(capabilities))}))))
        """
    )
    assert early.result == live


def test_an_initialize_is_answered_and_kept_for_pygls_byte_for_byte() -> None:
    caps = {"general": {"positionEncodings": ["utf-8", "utf-32"]}}
    message = frame(initialize(caps, request_id="a"))
    later = frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    out = io.BytesIO()
    first = answer_first(io.BytesIO(message + later), out)

    header, _, body = out.getvalue().partition(b"\r\n\r\n")
    assert header == b"Content-Length: %d" % len(body)
    answer = json.loads(body)
    assert answer["id"] == "a" and first.request_id == "a"
    assert answer["result"]["capabilities"]["positionEncoding"] == "utf-32"
    assert answer["result"]["capabilities"]["renameProvider"] is True  # no prepareSupport
    assert answer["result"] == first.result
    assert first.raw == message  # not a byte of the next message was taken


def test_the_replay_gives_pygls_the_same_stream_as_the_pipe() -> None:
    stream = frame(initialize({})) + frame({"jsonrpc": "2.0", "method": "initialized"})
    pipe = io.BytesIO(stream)
    first = answer_first(pipe, io.BytesIO())
    replay = first.reader(pipe)
    # The way pygls reads: header lines, then the body by its length.
    read = bytearray()
    while line := replay.readline():
        read += line
        if line == b"\r\n":
            read += replay.read(int(read.split(b"Content-Length: ")[-1].split(b"\r\n")[0]))
    assert bytes(read) == stream


def test_a_replay_read_across_the_prefix_end_joins_both() -> None:
    replay = Replay(b"ab\r\ncd", io.BytesIO(b"ef\r\ngh"))
    assert replay.readline() == b"ab\r\n"
    assert replay.readline() == b"cdef\r\n"
    assert replay.read(5) == b"gh"
    replay = Replay(b"abc", io.BytesIO(b"def"))
    assert replay.read(2) == b"ab"
    assert replay.read(3) == b"cde"
    assert replay.read() == b"f"


@pytest.mark.parametrize(
    "stream",
    [
        pytest.param(b"", id="end of input"),
        pytest.param(b"Content-Length: 12\r\n", id="end inside the headers"),
        pytest.param(b"Content-Type: x\r\n\r\n{}", id="no Content-Length"),
        pytest.param(b"Content-Length: many\r\n\r\n{}", id="length not a number"),
        pytest.param(b"content-length: 2\r\n\r\n{}", id="a header pygls would not read"),
        pytest.param(b"Content-Length: 10\r\n\r\n{}", id="body cut short"),
        pytest.param(b"Content-Length: 3\r\n\r\n{x}", id="not JSON"),
        pytest.param(b"X" * 10000, id="a header line too long"),
        pytest.param(frame({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}), id="not initialize"),
        pytest.param(frame({**initialize({}), "id": None}), id="initialize as a notification"),
        pytest.param(frame({**initialize({}), "id": True}), id="an id of the wrong type"),
        pytest.param(frame({**initialize({}), "params": []}), id="params not an object"),
        pytest.param(frame(initialize([])), id="capabilities not an object"),
        pytest.param(
            frame(initialize({"general": {"positionEncodings": "utf-32"}})),
            id="encodings not a list",
        ),
        pytest.param(
            frame(initialize({"textDocument": {"rename": {"prepareSupport": "yes"}}})),
            id="prepareSupport not a boolean",
        ),
    ],
)
def test_anything_unexpected_is_left_to_pygls_unanswered(stream: bytes) -> None:
    out = io.BytesIO()
    rest = b"Content-Length: 2\r\n\r\n{}"
    pipe = io.BytesIO(stream + rest)
    first = answer_first(pipe, out)
    assert out.getvalue() == b""
    assert first.result is None
    replay = first.reader(pipe)
    assert replay.read() == stream + rest  # pygls reads everything, from the first byte


def test_a_missing_table_answers_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(early_initialize, "TABLE", tmp_path / "gone.json")
    out = io.BytesIO()
    assert answer_first(io.BytesIO(frame(initialize({}))), out).result is None
    assert out.getvalue() == b""


def test_the_key_reads_the_encoding_and_the_flags_pygls_reads() -> None:
    assert answer_key({}) == "utf-16,absent,absent,absent,absent"
    assert answer_key({"general": {"positionEncodings": ["utf-8"]}}).startswith("utf-16,")
    assert answer_key({"general": {"positionEncodings": ["utf-32"]}}).startswith("utf-32,")
    rename = {"textDocument": {"rename": {"prepareSupport": True}}}
    assert answer_key(rename) == "utf-16,true,absent,absent,absent"
    sync = {"textDocument": {"synchronization": {"willSave": False, "willSaveWaitUntil": True}}}
    assert answer_key(sync) == "utf-16,absent,false,true,absent"
    none = {"general": None, "textDocument": None}
    assert answer_key(none) == "utf-16,absent,absent,absent,absent"
    pull = {"textDocument": {"diagnostic": {"dynamicRegistration": True}}}
    assert answer_key(pull) == "utf-16,absent,absent,absent,present"
    assert answer_key({"textDocument": {"diagnostic": True}}) is None
    assert answer_key({"general": 3}) is None
    assert answer_key({"textDocument": {"rename": []}}) is None


def test_answering_loads_nothing_but_the_standard_library() -> None:
    loaded = run_python(
        f"""
        import io, json, sys
        from checkspec.server.early_initialize import answer_first
        stream = io.BytesIO({frame(initialize({}))!r})
        assert answer_first(stream, io.BytesIO()).result is not None
        print(json.dumps(sorted(sys.modules)))
        """
    )
    for heavy in ("pygls", "lsprotocol", "attrs", "cattrs", "pydantic", "yaml"):
        assert heavy not in loaded, heavy


def test_the_server_drops_its_own_answer_and_reports_a_stale_table(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from checkspec.server.lsp.protocol import CheckspecProtocol

    protocol = CheckspecProtocol.__new__(CheckspecProtocol)  # only what dropping needs
    protocol.answered = {1: {"capabilities": {"hoverProvider": True}}}
    with caplog.at_level(logging.ERROR):
        assert protocol.drop_answered(1, {"capabilities": {"hoverProvider": True}}, None)
    assert not caplog.records and protocol.answered == {}
    assert not protocol.drop_answered(1, {}, None)  # answered once only

    protocol.answered[2] = {"capabilities": {"hoverProvider": True}}
    with caplog.at_level(logging.ERROR):
        assert protocol.drop_answered(2, {"capabilities": {"hoverProvider": False}}, None)
    assert "answered early" in caplog.text and "hoverProvider" in caplog.text


def test_a_real_server_answers_once_and_then_serves(tmp_path: Path) -> None:
    spec = tmp_path / "a.scenario.yaml"
    spec.write_text("name: s\nsteps:\n  - interacts: []\n    checks:\n      - kind: nope\n")
    capabilities = json.loads((CLIENTS / "visual_studio_code_v1.65.2.json").read_text())
    messages = [
        initialize(capabilities["capabilities"]),
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {
                    "uri": spec.as_uri(),
                    "languageId": "yaml",
                    "version": 1,
                    "text": spec.read_text(),
                }
            },
        },
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
    ]
    server = subprocess.Popen(
        [sys.executable, "-m", "checkspec.server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert server.stdin is not None and server.stdout is not None
    for message in messages:
        server.stdin.write(frame(message))
    server.stdin.flush()
    received = []
    while not any(m.get("id") == 2 for m in received):
        length = 0
        while (line := server.stdout.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        assert line, "the server closed its output"
        received.append(json.loads(server.stdout.read(length)))
    server.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
    _, stderr = server.communicate(timeout=60)

    answers = [m for m in received if m.get("id") == 1]
    assert len(answers) == 1 and "capabilities" in answers[0]["result"]
    assert received[0] is answers[0]  # before anything else
    published = [m for m in received if m.get("method") == "textDocument/publishDiagnostics"]
    assert any("nope" in d["message"] for m in published for d in m["params"]["diagnostics"])
    assert b"answered early" not in stderr
