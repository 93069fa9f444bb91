"""Exported spans read into what the mapping reads (engine/capture/otlp.py), and export
files read with each refusal at its place (engine/capture/export_files.py)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from checkspec.engine.capture.export_files import ExportFileError, read_export
from checkspec.engine.capture.otlp import OtlpError, spans_of_json, spans_of_protobuf

TRACE = "5b8efff798038103d269b633813fc60c"
SPAN = "eee19b7ec3c1b174"


def otlp(*spans: dict, service: str = "orders-agent") -> dict:
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]}
    return {
        "resourceSpans": [
            {"resource": resource, "scopeSpans": [{"scope": {}, "spans": list(spans)}]}
        ]
    }


def span(**fields: object) -> dict:
    base = {
        "traceId": TRACE,
        "spanId": SPAN,
        "name": "chat stub-model",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000000250000000",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
            {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "12"}},
            {
                "key": "gen_ai.response.finish_reasons",
                "value": {"arrayValue": {"values": [{"stringValue": "stop"}]}},
            },
            {
                "key": "x.nested",
                "value": {"kvlistValue": {"values": [{"key": "a", "value": {"doubleValue": 1.5}}]}},
            },
            {"key": "x.flag", "value": {"boolValue": True}},
        ],
    }
    base.update(fields)
    return base


def test_otlp_json_as_the_collector_writes_it() -> None:
    (found,) = spans_of_json(otlp(span(parentSpanId="00f067aa0ba902b7")))
    assert found.trace_id == TRACE
    assert found.service == "orders-agent"
    view = found.view
    assert view.span_id == int(SPAN, 16) and view.parent_id == int("00f067aa0ba902b7", 16)
    assert view.latency_ms == 250.0
    assert view.attributes["gen_ai.usage.input_tokens"] == 12
    assert view.attributes["gen_ai.response.finish_reasons"] == ("stop",)
    assert view.attributes["x.nested"] == {"a": 1.5}
    assert view.attributes["x.flag"] is True
    assert view.error is None


def test_ids_in_base64_and_proto_field_names_are_read() -> None:
    raw = bytes.fromhex(TRACE)
    written = {
        "resource_spans": [
            {
                "scope_spans": [
                    {"spans": [{"trace_id": base64.b64encode(raw).decode(), "name": "x"}]}
                ]
            }
        ]
    }
    (found,) = spans_of_json(written)
    assert found.trace_id == TRACE and found.service is None


def test_a_span_in_error_says_why() -> None:
    failed = span(
        status={"code": 2, "message": "boom"},
        events=[
            {
                "name": "exception",
                "attributes": [
                    {"key": "exception.type", "value": {"stringValue": "TimeoutError"}},
                    {"key": "exception.message", "value": {"stringValue": "model timed out"}},
                ],
            }
        ],
    )
    (found,) = spans_of_json(otlp(failed))
    assert found.view.error == "TimeoutError: model timed out"
    (named,) = spans_of_json(otlp(span(status={"code": "STATUS_CODE_ERROR", "message": "boom"})))
    assert named.view.error == "boom"


def test_the_sdk_console_json_of_a_span() -> None:
    written = {
        "name": "chat",
        "context": {"trace_id": "0x" + TRACE, "span_id": "0x" + SPAN, "trace_state": "[]"},
        "parent_id": None,
        "start_time": "2024-01-01T00:00:00.000000Z",
        "end_time": "2024-01-01T00:00:00.500000Z",
        "status": {"status_code": "ERROR", "description": "refused"},
        "attributes": {"gen_ai.operation.name": "chat"},
        "events": [],
        "resource": {"attributes": {"service.name": "svc"}, "schema_url": ""},
    }
    (found,) = spans_of_json(written)
    assert (found.trace_id, found.service, found.view.error) == (TRACE, "svc", "refused")
    assert found.view.latency_ms == 500.0


@pytest.mark.parametrize(
    ("bad", "where"),
    [
        ({"traceId": "xyz"}, "spans[0].traceId"),
        ({"startTimeUnixNano": "soon"}, "spans[0].startTimeUnixNano"),
        (
            {"attributes": [{"key": "k", "value": {"intValue": "many"}}]},
            "attributes[0].value.intValue",
        ),
        ({"attributes": {"k": "v"}}, "spans[0].attributes"),
        ({"status": "bad"}, "spans[0].status"),
    ],
)
def test_a_value_that_is_not_otlp_is_refused_at_its_path(bad: dict, where: str) -> None:
    with pytest.raises(OtlpError) as raised:
        list(spans_of_json(otlp(span(**bad))))
    assert raised.value.where.endswith(where)
    assert raised.value.where.startswith("resourceSpans[0].scopeSpans[0]")


def test_protobuf_is_read_with_the_proto_classes() -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.proto.trace.v1.trace_pb2 import Status

    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    attribute = resource_spans.resource.attributes.add()
    attribute.key, attribute.value.string_value = "service.name", "svc"
    made = resource_spans.scope_spans.add().spans.add()
    made.trace_id, made.span_id, made.name = (
        bytes.fromhex(TRACE),
        bytes.fromhex(SPAN),
        "execute_tool",
    )
    made.start_time_unix_nano, made.end_time_unix_nano = 10, 2_000_010
    made.status.code = Status.STATUS_CODE_ERROR
    made.status.message = "tool failed"
    tool = made.attributes.add()
    tool.key, tool.value.string_value = "gen_ai.tool.name", "lookup_order"
    (found,) = spans_of_protobuf(request.SerializeToString())
    assert (found.trace_id, found.service, found.view.name) == (TRACE, "svc", "execute_tool")
    assert found.view.attributes == {"gen_ai.tool.name": "lookup_order"}
    assert (found.view.error, found.view.latency_ms) == ("tool failed", 2.0)
    with pytest.raises(OtlpError):
        spans_of_protobuf(b"\xff\xff\xff not protobuf")


# -- files ---------------------------------------------------------------------------


def test_a_whole_file_json_lines_and_console_output_are_all_read(tmp_path: Path) -> None:
    whole = tmp_path / "whole.json"
    whole.write_text(json.dumps(otlp(span(), span(spanId="00f067aa0ba902b7")), indent=2))
    lines = tmp_path / "traces.jsonl"
    lines.write_text("\n".join(json.dumps(otlp(span())) for _ in range(3)) + "\n")
    console = tmp_path / "console.txt"
    sdk = {"name": "chat", "context": {"trace_id": "0x" + TRACE, "span_id": "0x" + SPAN}}
    console.write_text(json.dumps(sdk, indent=4) + "\n" + json.dumps(sdk, indent=4) + "\n")
    assert [len(read_export(p)) for p in (whole, lines, console)] == [2, 3, 2]


def test_text_that_is_not_json_is_refused_at_its_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(otlp(span())) + "\n" + '{"resourceSpans": [}\n')
    with pytest.raises(ExportFileError) as raised:
        read_export(path)
    assert (raised.value.line, raised.value.column) == (2, 20)
    assert str(raised.value).startswith(f"{path}:2:20: not JSON")


def test_a_value_that_is_not_a_span_export_is_refused_where_it_starts(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(otlp(span())) + "\n" + json.dumps({"spans": []}) + "\n")
    with pytest.raises(ExportFileError) as raised:
        read_export(path)
    assert (raised.value.line, raised.value.column) == (2, 1)
    assert "neither OTLP/JSON" in str(raised.value)


def test_more_spans_than_the_limit_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text("\n".join(json.dumps(otlp(span())) for _ in range(3)) + "\n")
    with pytest.raises(ExportFileError, match="more than 2 spans"):
        read_export(path, limit=2)
