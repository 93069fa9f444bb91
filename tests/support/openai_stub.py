"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for the LLM check tests.

Tests talk to it through litellm exactly as they would to a provider, so the whole
path (request building, HTTP, response parsing, our retries) is exercised. Replies
are scripted per test: a queue consumed first, then an optional function of the
request body. A reply is the assistant's text, a dict (the assistant's message itself,
e.g. `{"tool_calls": [...]}` for an agent's tool call), or an int to answer with that
HTTP error status. An unscripted request gets HTTP 500 so a forgotten script can never
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

Reply = str | int | dict[str, Any]
ChatScript = Callable[[dict[str, Any]], Reply]
EmbeddingScript = Callable[[str], list[float]]


class OpenAIStub:
    """State of one stub server: scripts in, recorded request bodies out."""

    def __init__(self, keep_alive: bool = False) -> None:
        # HTTP/1.1 with persistent connections, as providers answer (benchmarks); the
        # tests' default, HTTP/1.0, closes each connection after its answer.
        self.keep_alive = keep_alive
        self.chat_requests: list[dict[str, Any]] = []
        self.chat_headers: list[dict[str, str]] = []
        self.embedding_requests: list[dict[str, Any]] = []
        self.embedding_headers: list[dict[str, str]] = []
        self.chat: ChatScript | None = None
        self.embeddings: EmbeddingScript | None = None
        self.chat_times: list[float] = []  # time.monotonic() of each chat request
        self.retry_after: str | None = None  # Retry-After header of HTTP 429 answers
        # Answer a `response_format` of type json_schema with HTTP 400, as providers
        # without structured output do (the client then falls back to JSON mode).
        self.refuse_json_schema = False
        # The message of error answers (default: `stub error STATUS`): a provider's long one.
        self.error_message: str | None = None
        # Echo the request's key and URL in each error's message, as some proxies do
        # ("Incorrect API key provided: sk-..."): what the outputs must not repeat.
        self.echo_key = False
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
def running_stub(keep_alive: bool = False) -> Iterator[OpenAIStub]:
    stub = OpenAIStub(keep_alive)
    stub.start()
    try:
        yield stub
    finally:
        stub.stop()


def _words(body: dict[str, Any]) -> int:
    """The stub's token count of a request: the words of its messages."""
    return sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))


def _chat_completion(
    model: str, reply: str | dict[str, Any], prompt_tokens: int = 1
) -> dict[str, Any]:
    # Tokens as the stub counts them (words), so tests can know the usage exactly.
    message = {"role": "assistant", "content": reply} if isinstance(reply, str) else reply
    message = {"role": "assistant", "content": None, **message}
    calls = message.get("tool_calls") or []
    words = str(message["content"] or "") + "".join(
        str(call.get("function", {}).get("arguments", "")) for call in calls
    )
    completion_tokens = len(words.split())
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if calls else "stop",
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
        protocol_version = "HTTP/1.1" if stub.keep_alive else "HTTP/1.0"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            path = self.path.rstrip("/")
            model = str(body.get("model", ""))
            headers = {name.lower(): value for name, value in self.headers.items()}
            if path.endswith("/chat/completions"):
                stub.chat_times.append(time.monotonic())
                response_format = body.get("response_format") or {}
                if stub.refuse_json_schema and response_format.get("type") == "json_schema":
                    with stub._lock:  # noqa: SLF001 (the stub's own handler)
                        stub.chat_requests.append(body)
                    self._error(400, "response_format json_schema is not supported")
                    return
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

        def _error(self, status: int, text: str | None = None) -> None:
            text = text or stub.error_message or f"stub error {status}"
            if stub.echo_key:
                key = self.headers.get("Authorization", "").removeprefix("Bearer ")
                text += f" (Incorrect API key provided: {key}; url: {self.path})"
            message = {
                "message": text,
                "type": "stub_error",
                "code": status,
            }
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


_ORDINALS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]
_SUBJECTS = [
    "order",
    "invoice",
    "password",
    "delivery",
    "refund",
    "account",
    "coupon",
    "warranty",
    "subscription",
    "address",
    "parcel",
    "payment",
    "voucher",
    "login",
    "basket",
    "receipt",
    "discount",
    "exchange",
    "repair",
    "upgrade",
    "newsletter",
    "membership",
    "booking",
    "ticket",
    "printer",
    "laptop",
    "phone",
    "charger",
    "battery",
    "screen",
]


class GenerationAnswers:
    """A chat script that answers `checkspec generate`'s prompts as a model would.

    Each kind of prompt is told by its first line; answers are made from the prompt (the
    passage's first sentence as the reference answer, so each chunk gives its own
    question), valid against the schema the request sends; an out-of-scope question asks
    what the passage's first words cost on Mars, and its check says the passages do not
    answer it unless it holds a word of `in_scope`. `unanswerable` holds words:
    a self-check of a question containing one says it is not answerable. `latency` sleeps
    before each answer (benchmarks). `garbage` answers every request with prose.
    """

    def __init__(self, latency: float = 0.0, unanswerable: tuple[str, ...] = ()) -> None:
        self.latency = latency
        self.unanswerable = unanswerable
        self.in_scope: tuple[str, ...] = ()  # words of out-of-scope questions the KB answers
        self.garbage = False
        self.variants = True  # False: the same question again for each variant of a chunk
        self.kinds: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        if self.latency:
            time.sleep(self.latency)
        prompt = body["messages"][-1]["content"]
        if self.garbage:
            return "Sure! Here are some great questions for you."
        kind, answer = self._answer(prompt)
        with self._lock:
            self.kinds.append(kind)
        return json.dumps(answer)

    @staticmethod
    def _turns_wanted(prompt: str) -> int:
        marker = "holds the conversation's "
        at = prompt.find(marker)
        if at < 0:
            return 1
        return int(prompt[at + len(marker) :].split(" ", 1)[0])

    def _answer(self, prompt: str) -> tuple[str, dict[str, Any]]:
        first = prompt.split("\n", 1)[0]
        if first.startswith("You write test questions"):
            passage = prompt.split("Passage", 1)[1].split(":\n", 1)[1]
            passage = passage.split("\n\nDistracting passage:", 1)[0]
            passage = passage.split("\n\nPassage 2", 1)[0]  # multi_context: the first
            sentence = passage.strip().split(". ")[0].strip().rstrip(".")
            variant = ""
            if "This is variant " in prompt and self.variants:
                number = int(prompt.split("This is variant ", 1)[1].split(" ", 1)[0])
                variant = " (take " + _ORDINALS[number % len(_ORDINALS)] + ")"
            turns = self._turns_wanted(prompt)
            question = f"Is it true that {sentence[:200]}{variant}?"
            context = [f"Some context for my question, part {i + 1}." for i in range(turns - 1)]
            return "question", {"turns": [*context, question], "reference_answer": sentence + "."}
        if first.startswith("You write out-of-scope"):
            passage = prompt.split("Passage", 1)[1].split(":\n", 1)[1]
            words = passage.split()[:3]
            turns = self._turns_wanted(prompt)
            question = f"What will {' '.join(words)} cost on Mars next year?"
            context = [f"Some context for my question, part {i + 1}." for i in range(turns - 1)]
            return "out_of_scope", {"turns": [*context, question], "missing": "the future."}
        if first.startswith("Check an out-of-scope"):
            conversation = prompt.split("Conversation:\n", 1)[1]
            answered = any(word in conversation for word in self.in_scope)
            return "out_of_scope_check", {"answerable": answered, "reason": "stub"}
        if first.startswith("Check a test question"):
            conversation = prompt.split("Conversation:\n", 1)[1]
            bad = any(word in conversation for word in self.unanswerable)
            return "self_check", {"answerable": not bad, "reason": "stub"}
        if first.startswith("These passages"):
            words = prompt.split("Their most telling words: ", 1)[1].split(".", 1)[0]
            return "topic", {"name": words.split(", ")[0].title()}
        if first.startswith("You write test conversations"):
            count = int(prompt.split("\nWrite ", 1)[1].split(" ", 1)[0])
            batch = prompt.split("(batch ", 1)[1].split(",", 1)[0]
            turns = self._turns_wanted(prompt)
            scenarios = [
                {
                    "turns": [
                        f"Message {t + 1}: I need help with my "
                        f"{_SUBJECTS[(int(batch) * 5 + i) % len(_SUBJECTS)]} right now"
                        for t in range(turns)
                    ],
                    "expected_behavior": f"The agent handles request {batch}.{i} calmly.",
                }
                for i in range(count)
            ]
            return "persona", {"scenarios": scenarios}
        if first.startswith("You help write a test suite"):
            return "preview", {
                "samples": ["Where is my order?!", "Answer NOW.", "Why so slow?"],
                "rules": ["The agent stays polite.", "The agent answers the request."],
            }
        return "unknown", {"error": "unknown prompt"}


class ToolCallingAnswers:
    """A chat script of a tool-calling model: a request without a tool result is answered
    with one call of `tool` (its arguments the last user message, as `{argument: text}`);
    a request holding tool results is answered with text that quotes the last one. An
    agent on the openai SDK then makes one tool call and answers (tests of capture)."""

    def __init__(self, tool: str = "lookup_order", argument: str = "order_id") -> None:
        self.tool = tool
        self.argument = argument
        self._lock = threading.Lock()
        self._calls = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = body.get("messages", [])
        results = [m for m in messages if m.get("role") == "tool"]
        if results:
            return f"Here is what I found: {results[-1].get('content')}"
        with self._lock:
            self._calls += 1
            call_id = f"call_{self._calls}"
        question = next(
            (str(m.get("content")) for m in reversed(messages) if m.get("role") == "user"), ""
        )
        arguments = json.dumps({self.argument: question})
        return {
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": self.tool, "arguments": arguments},
                }
            ]
        }
