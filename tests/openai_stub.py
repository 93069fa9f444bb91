"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for the LLM check tests.

Tests talk to it through litellm exactly as they would to a provider, so the whole
path (request building, HTTP, response parsing, our retries) is exercised. Replies
are scripted per test: a queue consumed first, then an optional function of the
request body. A reply is the assistant's text, or an int to answer with that HTTP
error status. An unscripted request gets HTTP 500 so a forgotten script can never
look like a passing verdict.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = str | int
ChatScript = Callable[[dict[str, Any]], Reply]
EmbeddingScript = Callable[[str], list[float]]


class OpenAIStub:
    """State of one stub server: scripts in, recorded request bodies out."""

    def __init__(self) -> None:
        self.chat_requests: list[dict[str, Any]] = []
        self.chat_headers: list[dict[str, str]] = []
        self.embedding_requests: list[dict[str, Any]] = []
        self.embedding_headers: list[dict[str, str]] = []
        self.chat: ChatScript | None = None
        self.embeddings: EmbeddingScript | None = None
        self.chat_times: list[float] = []  # time.monotonic() of each chat request
        self.retry_after: str | None = None  # Retry-After header of HTTP 429 answers
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- scripting -----------------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next chat requests, in order."""
        with self._lock:
            self._queue.extend(replies)

    @staticmethod
    def verdict(passed: bool, reason: str = "") -> str:
        return json.dumps({"passed": passed, "reason": reason})

    @property
    def prompts(self) -> list[str]:
        """The user message of every chat request received so far."""
        return [body["messages"][-1]["content"] for body in self.chat_requests]

    # -- server ----------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        assert self._server is not None, "stub server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        # A short poll interval keeps shutdown (once per test) quick.
        serve = self._server.serve_forever
        threading.Thread(target=serve, kwargs={"poll_interval": 0.01}, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    # -- request handling (server threads) -------------------------------------------

    def _chat_reply(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        with self._lock:
            self.chat_requests.append(body)
            self.chat_headers.append(headers)
            if self._queue:
                return self._queue.popleft()
        if self.chat is not None:
            return self.chat(body)
        return 500

    def _embedding_reply(
        self, body: dict[str, Any], headers: dict[str, str]
    ) -> list[list[float]] | int:
        with self._lock:
            self.embedding_requests.append(body)
            self.embedding_headers.append(headers)
        if self.embeddings is None:
            return 500
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        return [self.embeddings(text) for text in texts]


@contextmanager
def running_stub() -> Iterator[OpenAIStub]:
    stub = OpenAIStub()
    stub.start()
    try:
        yield stub
    finally:
        stub.stop()


def _words(body: dict[str, Any]) -> int:
    """The stub's token count of a request: the words of its messages."""
    return sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))


def _chat_completion(model: str, content: str, prompt_tokens: int = 1) -> dict[str, Any]:
    # Tokens as the stub counts them (words), so tests can know the usage exactly.
    completion_tokens = len(content.split())
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _embedding_response(model: str, vectors: list[list[float]]) -> dict[str, Any]:
    return {
        "object": "list",
        "model": model,
        "data": [
            {"object": "embedding", "index": i, "embedding": vector}
            for i, vector in enumerate(vectors)
        ],
        "usage": {"prompt_tokens": 1, "total_tokens": 1},
    }


def _handler_for(stub: OpenAIStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            path = self.path.rstrip("/")
            model = str(body.get("model", ""))
            headers = {name.lower(): value for name, value in self.headers.items()}
            if path.endswith("/chat/completions"):
                stub.chat_times.append(time.monotonic())
                reply = stub._chat_reply(body, headers)  # noqa: SLF001 (the stub's own handler)
                if isinstance(reply, int):
                    self._error(reply)
                else:
                    self._json(200, _chat_completion(model, reply, _words(body)))
            elif path.endswith("/embeddings"):
                vectors = stub._embedding_reply(body, headers)  # noqa: SLF001
                if isinstance(vectors, int):
                    self._error(vectors)
                else:
                    self._json(200, _embedding_response(model, vectors))
            else:
                self._error(404)

        def _error(self, status: int) -> None:
            message = {"message": f"stub error {status}", "type": "stub_error", "code": status}
            extra = {"Retry-After": stub.retry_after} if status == 429 and stub.retry_after else {}
            self._json(status, {"error": message}, extra)

        def _json(
            self, status: int, payload: dict[str, Any], extra: dict[str, str] | None = None
        ) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep pytest output clean

    return Handler


class SlowVerdicts:
    """A chat script that passes every verdict after `latency` seconds and records the
    most requests it ever had in flight at once (provider-limit tests and benchmarks)."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self._lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        time.sleep(self.latency)
        with self._lock:
            self.in_flight -= 1
        return OpenAIStub.verdict(True, "It apologises.")


def judged_suite(count: int, prefix: str = "s") -> str:
    """A suite of `count` scenarios, each with one recorded answer and one LLM judge."""
    parts = ["name: judged", "scenarios:"]
    for i in range(count):
        parts += [
            f"  - name: {prefix}{i}",
            "    steps:",
            f"      - interacts: [{{inputs: q{i}, outputs: 'Sorry, case {i}.'}}]",
            "        checks: [{kind: conformity, rule: apologises}]",
        ]
    return "\n".join(parts) + "\n"
