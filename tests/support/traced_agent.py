"""An agent instrumented as in production: the source of a script (`export_agent.py`) a
test writes beside the agent's module (tests/support/tool_agent.py). It sets up the real
OpenTelemetry SDK, turns on the openai SDK's instrumentation (and pydantic-ai's, for the
framework agent), asks the agent each question given, one after the other, and flushes
its spans before it exits, to one of:

- `http://...`: the real OTLP/HTTP exporter (protobuf), as an agent sends to a collector;
- `jsonl:PATH`: OTLP/JSON, one ExportTraceServiceRequest a line, as the collector's
  `file` exporter writes what it received (the exporter's own encoder, then proto JSON
  with the ids in hex, as the OTLP JSON encoding has them);
- `console:PATH`: the SDK's ConsoleSpanExporter (each span's `to_json()`).

    python export_agent.py DESTINATION SERVICE QUESTION...
"""

EXPORTING = '''
import json
import os
import sys

os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")
os.environ.setdefault("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")

from opentelemetry import trace
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

destination, service, *questions = sys.argv[1:]


class OtlpJsonLines(SpanExporter):
    """What the collector's file exporter writes: a request a line, in OTLP/JSON."""

    def __init__(self, path):
        self.out = open(path, "w", encoding="utf-8")

    def export(self, spans):
        from google.protobuf.json_format import MessageToDict
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

        request = MessageToDict(encode_spans(spans))
        for resource_spans in request.get("resourceSpans", []):
            for scope_spans in resource_spans.get("scopeSpans", []):
                for span in scope_spans.get("spans", []):
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in span:  # proto JSON writes bytes in base64, OTLP/JSON in hex
                            span[key] = __import__("base64").b64decode(span[key]).hex()
        self.out.write(json.dumps(request) + "\\n")
        self.out.flush()
        return SpanExportResult.SUCCESS

    def shutdown(self):
        self.out.close()


if destination.startswith("jsonl:"):
    exporter = OtlpJsonLines(destination[len("jsonl:"):])
elif destination.startswith("console:"):
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter

    exporter = ConsoleSpanExporter(out=open(destination[len("console:"):], "w"))
else:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    exporter = OTLPSpanExporter(endpoint=destination)
provider = TracerProvider(resource=Resource.create({"service.name": service}))
provider.add_span_processor(BatchSpanProcessor(exporter))
trace.set_tracer_provider(provider)
OpenAIInstrumentor().instrument()

import agent

if "pydantic_ai" in sys.modules:
    sys.modules["pydantic_ai"].Agent.instrument_all()

for question in questions:
    print(agent.answer(question), flush=True)
provider.shutdown()  # every span exported before the process ends
'''
