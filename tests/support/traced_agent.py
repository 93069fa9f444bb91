"""An agent instrumented as in production: the source of a script (`export_agent.py`) a
test writes beside the agent's module (tests/support/tool_agent.py). It sets up the real
OpenTelemetry SDK with the real OTLP/HTTP exporter (protobuf) to the endpoint it is given,
turns on the openai SDK's instrumentation (and pydantic-ai's, for the framework agent),
asks the agent each question given, one trace per question, and flushes before it exits.

    python export_agent.py ENDPOINT SERVICE QUESTION...
"""

EXPORTING = """
import os
import sys

os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")
os.environ.setdefault("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

endpoint, service, *questions = sys.argv[1:]
provider = TracerProvider(resource=Resource.create({"service.name": service}))
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
trace.set_tracer_provider(provider)
OpenAIInstrumentor().instrument()

import agent

if "pydantic_ai" in sys.modules:
    sys.modules["pydantic_ai"].Agent.instrument_all()

for question in questions:
    print(agent.answer(question), flush=True)
provider.shutdown()  # the batch exported before the process ends
"""
