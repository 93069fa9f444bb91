"""The language server's transport, fed raw bytes on its stdin (issue 31): a framing error
(a bad, missing or lying Content-Length, a header without a body, a message over the
size limit) is logged with what was seen and ends the process with code 1, so the client
restarts it; never a server that is alive and deaf, never a MemoryError."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from checkspec.engine.core.environment import ServerSwitches, server_switches
from checkspec.server.framing import FramedInput, FramingError

SERVER = [sys.executable, "-m", "checkspec.server"]


def frame(message: dict[str, object], lie: int = 0) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body) + lie, body)


INITIALIZE = frame(
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
)
INITIALIZED = frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
SHUTDOWN = {"jsonrpc": "2.0", "id": 2, "method": "shutdown"}
EXIT = frame({"jsonrpc": "2.0", "method": "exit"})


def serve(
    data: bytes, *, close: bool = True, timeout: float = 30, **env: str
) -> tuple[int, bytes, str, float]:
    """Feed the server `data` (then end its input, or keep it open); its exit code,
    stdout, stderr and how long it took to exit."""
    process = subprocess.Popen(
        SERVER,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **env},
    )
    assert process.stdin is not None
    started = time.monotonic()
    try:
        process.stdin.write(data)
        process.stdin.flush()
        if close:
            process.stdin.close()
    except BrokenPipeError:  # it left before reading all of it: what some tests want
        pass
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        pytest.fail("the server neither answered nor exited")
    took = time.monotonic() - started
    out = process.stdout.read()  # type: ignore[union-attr]
    err = process.stderr.read().decode(errors="replace")  # type: ignore[union-attr]
    with contextlib.suppress(BrokenPipeError):
        process.stdin.close()
    return process.returncode, out, err, took


def test_a_well_framed_session_shuts_down_cleanly() -> None:
    code, out, err, _ = serve(INITIALIZE + INITIALIZED + frame(SHUTDOWN) + EXIT)
    assert code == 0, err
    assert b'"id": 2' in out or b'"id":2' in out  # shutdown was answered
    assert "framing error" not in err


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        # A wrong length: the body is refused (-32700), then the next header is none.
        (frame(SHUTDOWN, lie=-10), "not an LSP header line"),
        (frame(SHUTDOWN, lie=10) + EXIT, "a message without a Content-Length header"),
        (
            b"Content-Length: abc\r\n\r\n{}",
            "a Content-Length that is not a number: b'Content-Length: abc",
        ),
        (b"Content-Type: application/json\r\n\r\n{}", "a message without a Content-Length header"),
        (b'{"jsonrpc": "2.0", "id": 2, "method": "shutdown"}\r\n', "not an LSP header line"),
        (
            b"Content-Length: 99999999999\r\n\r\n{}",
            "a message of 99999999999 bytes, over the limit",
        ),
    ],
    ids=["10-too-small", "10-too-large", "not-a-number", "missing", "no-header", "huge"],
)
def test_a_framing_error_is_logged_and_the_server_exits_non_zero(bad: bytes, said: str) -> None:
    # Input stays open: the server must leave on its own, not wait for more.
    code, out, err, _ = serve(INITIALIZE + INITIALIZED + bad + frame(SHUTDOWN) + EXIT, close=False)
    assert code == 1
    assert "LSP framing error" in err and said in err
    assert "MemoryError" not in err and "Traceback" not in err
    assert out.startswith(b"Content-Length: ")  # initialize was answered before


def test_a_header_without_a_body_is_an_error_after_the_body_timeout() -> None:
    header = b'Content-Length: 500\r\n\r\n{"jsonrpc"'
    code, _, err, took = serve(INITIALIZE + header, close=False, CHECKSPEC_LSP_BODY_TIMEOUT="1")
    assert code == 1
    assert "announced" not in err  # the input did not end: it stopped arriving
    assert "a message stopped arriving: nothing for 1 s" in err
    assert took < 15


def test_input_that_ends_inside_a_message_is_an_error() -> None:
    code, _, err, _ = serve(INITIALIZE + b'Content-Length: 500\r\n\r\n{"js')
    assert code == 1
    assert "the header announced 500 bytes, but only 4 came before the input ended" in err


def test_a_message_over_the_limit_is_refused_before_its_body_is_read() -> None:
    # Only the header is sent: refusing it does not wait for (or read) the 2 MiB body.
    header = b"Content-Length: %d\r\n\r\n" % (2 << 20)
    code, _, err, took = serve(
        INITIALIZE + header, close=False, CHECKSPEC_LSP_MAX_MESSAGE_MB="1",
        CHECKSPEC_LSP_BODY_TIMEOUT="60",
    )  # fmt: skip
    assert code == 1
    assert f"a message of {2 << 20} bytes, over the limit of {1 << 20}" in err
    assert took < 30


def test_a_message_under_a_raised_limit_is_read() -> None:
    text = "x" * (3 << 20)
    did_open = frame(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {
                    "uri": "file:///tmp/big.scenario.yaml",
                    "languageId": "yaml",
                    "version": 1,
                    "text": text,
                }
            },
        }
    )
    data = INITIALIZE + INITIALIZED + did_open + frame(SHUTDOWN) + EXIT
    code, _, err, _ = serve(data, CHECKSPEC_LSP_MAX_MESSAGE_MB="1")
    assert code == 1 and "over the limit" in err
    code, _, err, _ = serve(data, CHECKSPEC_LSP_MAX_MESSAGE_MB="8")
    assert code == 0, err


# The server's workers die with it ---------------------------------------------------------


def test_the_servers_workers_die_with_it_even_inside_c_code(tmp_path: Path) -> None:
    from tests.support.processes import CHECKS, wait_gone

    (tmp_path / "agent.py").write_text("def ok(question):\n    return 'ok'\n")
    (tmp_path / "checks_here.py").write_text(textwrap.dedent(CHECKS))
    spec = tmp_path / "re.scenario.yaml"
    text = textwrap.dedent(
        """\
        name: re
        target: python:agent:ok
        steps:
          - interacts: [{inputs: hello}]
            checks: [{kind: fn, fn: "checks_here:backtracks"}]
        """
    )
    spec.write_text(text)
    uri = spec.as_uri()
    process = subprocess.Popen(
        [*SERVER], cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert process.stdin is not None
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"capabilities": {}, "rootUri": tmp_path.as_uri()},
    }  # fmt: skip
    opened = {
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
    }  # fmt: skip
    run = {
        "jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand",
        "params": {"command": "checkspec.runFile", "arguments": [uri]},
    }  # fmt: skip
    process.stdin.write(frame(initialize) + INITIALIZED + frame(opened) + frame(run))
    process.stdin.flush()
    deadline = time.monotonic() + 60
    while not (markers := list(tmp_path.glob("regex-*"))):
        assert time.monotonic() < deadline, "the run never started"
        assert process.poll() is None
        time.sleep(0.05)
    worker = int(markers[0].name.split("-")[1])
    time.sleep(0.3)  # inside the regex
    process.kill()
    process.wait(timeout=20)
    wait_gone({worker}, seconds=5)


# The framing rules one by one, in-process (no exit: the error itself) --------------------


def framed(data: bytes, **options: float) -> FramedInput:
    read, write = os.pipe()
    os.write(write, data)
    os.close(write)
    return FramedInput(read, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"X-A: 1\r\n" * 40 + b"\r\n{}", "more than 32 header lines"),
        (b"Content-Length: " + b"1" * 9000, "a header line longer than 8192 bytes"),
        (b"Content-Length: 2\r\n", "the input ended inside a message's header"),
        (b"Content-Length: 5\r\n\r\n" + b"a" * 3, "but only 3 came"),
    ],
)
def test_framing_errors_say_what_was_seen(data: bytes, said: str) -> None:
    reader = framed(data, max_bytes=1 << 20, body_timeout=5)
    with pytest.raises(FramingError, match=re.escape(said)):
        reader._message()  # noqa: SLF001
    reader.close()


def test_good_messages_are_handed_on_whole_and_end_of_input_is_clean() -> None:
    body = b'{"jsonrpc": "2.0", "method": "exit"}'
    data = b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
    data += b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    second = b'{"jsonrpc":"2.0","id":2}'  # a response: no method
    data += b"content-length: %d\n\n%s" % (len(second), second)  # lenient: any case, \n
    reader = framed(data)
    assert reader.readline() == b"Content-Length: %d\r\n" % len(body)
    assert reader.readline(1) == b"\r"
    assert reader.readline() == b"\n"
    assert reader.read(5) + reader.read() == body
    assert reader.read() == b"Content-Length: %d\r\n\r\n%s" % (len(second), second)
    assert reader.readline() == b"" and reader.read() == b""
    reader.close()


def test_the_limit_and_timeout_come_from_the_environment() -> None:
    """The server's switches, read by the one reader of the environment (its start reads
    them once: the subprocess tests above set them as variables)."""
    switches = server_switches(
        {"CHECKSPEC_LSP_MAX_MESSAGE_MB": "2", "CHECKSPEC_LSP_BODY_TIMEOUT": "3"}
    )
    assert (switches.max_message_bytes, switches.body_timeout) == (2 << 20, 3.0)
    for bad in ("lots", "-1", "0", "inf"):
        shown = server_switches({"CHECKSPEC_LSP_MAX_MESSAGE_MB": bad})
        assert shown.max_message_bytes == 64 << 20
    assert server_switches({}) == ServerSwitches()
    assert server_switches({"CHECKSPEC_LSP_LOG_LEVEL": "debug"}).log_level == "DEBUG"
    assert server_switches({"CHECKSPEC_LSP_BACKGROUND_CHARS": "5000"}).background_chars == 5000
