"""How fast `checkspec traces collect` takes spans in and writes them out.

    .venv/bin/python bench/traces_ingest.py                          # 100,000 spans
    .venv/bin/python bench/traces_ingest.py --spans 20000 --batch 512 --clients 2

A `checkspec traces collect` subprocess receives; this process is the client: it builds
OTLP protobuf `ExportTraceServiceRequest`s beforehand (opentelemetry-proto's classes; not
timed), `--batch` spans each (512: the SDK's BatchSpanProcessor's default batch), then
POSTs them from `--clients` threads, as the OTLP/HTTP exporter does. The spans are those
of an agent on the bare openai SDK, as its instrumentation makes them: per question two
`chat` spans (GenAI conventions: model, tokens, input and output messages, the tool call
asked for and its result sent back), each its own trace. Printed: spans/s accepted
(every request answered 200, from the first request sent to the last answer), the time
from SIGINT to the dataset written and the process ended, and spans/s end to end (sent,
grouped into conversations, validated and written). The rows written are counted: one
per question.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]


def _messages(*messages: dict) -> str:
    return json.dumps(list(messages))


def requests_of(spans: int, batch: int) -> list[bytes]:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    def add(span, key: str, value: object) -> None:
        attribute = span.attributes.add()
        attribute.key = key
        if isinstance(value, str):
            attribute.value.string_value = value
        else:
            attribute.value.int_value = int(value)

    bodies: list[bytes] = []
    made = 0
    start = 1_700_000_000_000_000_000
    while made < spans:
        request = ExportTraceServiceRequest()
        resource = request.resource_spans.add()
        service = resource.resource.attributes.add()
        service.key, service.value.string_value = "service.name", "orders-agent"
        scope = resource.scope_spans.add()
        scope.scope.name = "opentelemetry.instrumentation.openai_v2"
        for _ in range(min(batch, spans - made) // 2):
            question = made // 2
            user = {
                "role": "user",
                "parts": [{"type": "text", "content": f"Where is A{question}?"}],
            }
            call = {
                "type": "tool_call",
                "id": f"call_{question}",
                "name": "lookup_order",
                "arguments": {"order_id": f"A{question}"},
            }
            asked = {"role": "assistant", "parts": [call]}
            result = {
                "role": "tool",
                "parts": [
                    {
                        "type": "tool_call_response",
                        "id": f"call_{question}",
                        "response": f"order A{question} ships tomorrow",
                    }
                ],
            }
            answer = {
                "role": "assistant",
                "parts": [{"type": "text", "content": "It ships tomorrow."}],
            }
            for n, (sent, said) in enumerate((([user], asked), ([user, asked, result], answer))):
                span = scope.spans.add()
                span.trace_id = (question * 2 + n + 1).to_bytes(16, "big")
                span.span_id = (question * 2 + n + 1).to_bytes(8, "big")
                span.name = "chat stub-model"
                span.kind = 3  # CLIENT
                span.start_time_unix_nano = start + question * 100_000_000 + n * 30_000_000
                span.end_time_unix_nano = span.start_time_unix_nano + 20_000_000
                for key, value in (
                    ("gen_ai.operation.name", "chat"),
                    ("gen_ai.provider.name", "openai"),
                    ("gen_ai.request.model", "gpt-4o-mini"),
                    ("gen_ai.response.model", "gpt-4o-mini-2024-07-18"),
                    ("gen_ai.response.id", f"chatcmpl-{question}-{n}"),
                    ("gen_ai.usage.input_tokens", 40 + n * 20),
                    ("gen_ai.usage.output_tokens", 12),
                    ("server.address", "api.openai.com"),
                    ("gen_ai.input.messages", _messages(*sent)),
                    ("gen_ai.output.messages", _messages({**said, "finish_reason": "stop"})),
                ):
                    add(span, key, value)
                made += 1
        bodies.append(request.SerializeToString())
    return bodies


def post_all(port: int, bodies: list[bytes], clients: int) -> float:
    """Send every body from `clients` threads; the seconds from the first to the last
    answer. Any answer but 200 stops the bench."""
    lock = threading.Lock()
    queue = list(reversed(bodies))
    failures: list[str] = []

    def work() -> None:
        while True:
            with lock:
                if not queue or failures:
                    return
                body = queue.pop()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            try:
                connection.request(
                    "POST", "/v1/traces", body, {"Content-Type": "application/x-protobuf"}
                )
                answer = connection.getresponse()
                text = answer.read()
                if answer.status != 200:
                    failures.append(f"{answer.status}: {text[:200]!r}")
            finally:
                connection.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=work) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise SystemExit(f"a request was refused: {failures[0]}")
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=512, help="spans a request")
    parser.add_argument("--clients", type=int, default=2, help="threads sending at once")
    args = parser.parse_args()
    bodies = requests_of(args.spans, args.batch)
    sent = args.spans - args.spans % 2
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "prod.dataset.jsonl"
        process = subprocess.Popen(
            [*CLI, "traces", "collect", "--port", "0", "-o", str(out)],
            cwd=tmp,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        assert process.stdout is not None
        line = process.stdout.readline()
        port = int(line.split("127.0.0.1:", 1)[1].split("/", 1)[0])
        receiving = post_all(port, bodies, args.clients)
        stopped = time.perf_counter()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=600)
        writing = time.perf_counter() - stopped
        if process.returncode != 0:
            raise SystemExit(f"collect exited {process.returncode}:\n{err}")
        rows = sum(1 for _ in out.open(encoding="utf-8"))
    print(
        f"{sent:,} spans in {len(bodies)} requests of {args.batch}, {args.clients} client(s), "
        f"{os.cpu_count()} CPUs: accepted in {receiving:.2f} s ({sent / receiving:,.0f} spans/s); "
        f"stop and write {writing:.2f} s ({rows:,} scenarios); end to end "
        f"{sent / (receiving + writing):,.0f} spans/s"
    )
    if rows != sent // 2:
        raise SystemExit(f"{rows} scenarios written, expected {sent // 2}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
