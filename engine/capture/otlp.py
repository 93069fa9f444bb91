"""Spans exported by OpenTelemetry, read into what the mapping reads (`ExportedSpan`).

Three shapes of the same data are read (pure: the protobuf classes are imported only for
a protobuf body):

- OTLP/JSON: a `TracesData` / `ExportTraceServiceRequest` object (`{"resourceSpans":
  [...]}`), as the OTLP/HTTP exporter sends it, the collector's `file` exporter writes it
  (one object per line) and the OTLP file exporter specification describes it. Field
  names in lowerCamelCase or as the proto spells them (`trace_id`); ids in hex (the OTLP
  JSON encoding), or base64 (what a generic protobuf-to-JSON printer writes); integers as
  numbers or strings (64-bit values are strings in proto JSON).
- The OpenTelemetry Python SDK's own JSON of a span (`ReadableSpan.to_json()`, what its
  ConsoleSpanExporter writes): `{"name", "context": {"trace_id": "0x..."}, "parent_id",
  "attributes", "events", "status", "resource": {"attributes"}}`.
- OTLP protobuf (`application/x-protobuf`, what the OTLP/HTTP exporter sends by default).

A value that is not what the format says raises `OtlpError` naming where it is in the
object (`resourceSpans[0].scopeSpans[1].spans[3].traceId`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .spans import SpanView, error_of

# OTLP's status codes: 2 is ERROR (as a number, or its name in proto JSON).
_STATUS_ERROR = (2, "STATUS_CODE_ERROR", "ERROR")
# An attribute value nested deeper than this (an array of kvlists of arrays...) is refused.
MAX_VALUE_DEPTH = 32


class OtlpError(ValueError):
    """A span export that is not what its format says (`where`: the path in the object)."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.message = message


@dataclass(frozen=True)
class ExportedSpan:
    """A span as exported: what the mapping reads, and which trace and service it is of."""

    trace_id: str  # 32 hex digits
    view: SpanView
    service: str | None = None


def _field(obj: Mapping[str, Any], camel: str, snake: str) -> Any:
    value = obj.get(camel)
    return obj.get(snake) if value is None else value


def _list(obj: Mapping[str, Any], camel: str, snake: str, where: str) -> list[Any]:
    value = _field(obj, camel, snake)
    if value is None:
        return []
    if not isinstance(value, list):
        raise OtlpError(f"{where}.{camel}", f"expected a list, got {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "a number"
    )


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise OtlpError(where, f"expected an object, got {_kind(value)}")
    return value


# -- ids, times, values ---------------------------------------------------------------


def hex_id(value: Any, size: int, where: str) -> str:
    """An id of `size` bytes as lowercase hex, from hex (OTLP JSON, `0x...` of the SDK's
    JSON) or base64 (a generic proto JSON printer)."""
    if isinstance(value, bytes):
        if len(value) != size:
            raise OtlpError(where, f"expected {size} bytes, got {len(value)}")
        return value.hex()
    if not isinstance(value, str):
        raise OtlpError(where, f"expected an id (hex text), got {_kind(value)}")
    text = value.removeprefix("0x")
    if len(text) == size * 2:
        try:
            bytes.fromhex(text)
        except ValueError:
            pass
        else:
            return text.lower()
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) == size:
        return raw.hex()
    raise OtlpError(where, f"expected {size * 2} hex digits, got {value[:80]!r}")


def _optional_id(value: Any, size: int, where: str) -> int | None:
    if value in (None, "", b""):
        return None
    return int(hex_id(value, size, where), 16)


def _nanos(value: Any, where: str) -> int:
    if value is None or value == "":
        return 0
    if isinstance(value, bool):
        raise OtlpError(where, "expected nanoseconds, got a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    raise OtlpError(where, f"expected nanoseconds (a whole number), got {str(value)[:80]!r}")


def any_value(value: Any, where: str, depth: int = 0) -> Any:
    """An OTLP/JSON AnyValue (`{"stringValue": ...}`, ...) as a plain value."""
    if depth > MAX_VALUE_DEPTH:
        raise OtlpError(where, f"a value nested deeper than {MAX_VALUE_DEPTH} levels")
    if not isinstance(value, dict):
        raise OtlpError(where, f"expected an AnyValue object, got {_kind(value)}")
    if not value:
        return None
    for key in ("stringValue", "string_value"):
        if key in value:
            found = value[key]
            if not isinstance(found, str):
                raise OtlpError(f"{where}.{key}", f"expected a string, got {_kind(found)}")
            return found
    for key in ("boolValue", "bool_value"):
        if key in value:
            return bool(value[key])
    for key in ("intValue", "int_value"):
        if key in value:  # a string in OTLP/JSON (64 bits), a number from some exporters
            return _number(value[key], int, (int, str), f"{where}.{key}", "a whole number")
    for key in ("doubleValue", "double_value"):
        if key in value:
            return _number(value[key], float, (int, float, str), f"{where}.{key}", "a number")
    for key in ("arrayValue", "array_value"):
        if key in value:
            items = _mapping(value[key], f"{where}.{key}").get("values") or []
            if not isinstance(items, list):
                raise OtlpError(f"{where}.{key}.values", "expected a list")
            return tuple(
                any_value(item, f"{where}.{key}.values[{n}]", depth + 1)
                for n, item in enumerate(items)
            )
    for key in ("kvlistValue", "kvlist_value"):
        if key in value:
            items = _mapping(value[key], f"{where}.{key}").get("values") or []
            return attributes(items, f"{where}.{key}.values", depth + 1)
    for key in ("bytesValue", "bytes_value"):
        if key in value:
            return str(value[key])
    raise OtlpError(where, f"not an AnyValue (keys {', '.join(sorted(value))[:80]})")


def _number(found: Any, make: type, given: tuple[type, ...], where: str, what: str) -> Any:
    """`found` made a number by `make` (int or float) when it is one of the `given` types
    (never a bool) and reads as one; else refused at `where`."""
    if isinstance(found, given) and not isinstance(found, bool):
        try:
            return make(found)
        except ValueError:
            pass
    raise OtlpError(where, f"expected {what}, got {str(found)[:80]!r}")


def attributes(items: Any, where: str, depth: int = 0) -> dict[str, Any]:
    """OTLP/JSON key-value pairs (`[{"key": ..., "value": {...}}]`) as a dict."""
    if items is None:
        return {}
    if not isinstance(items, list):
        raise OtlpError(where, f"expected a list of key-value pairs, got {_kind(items)}")
    found: dict[str, Any] = {}
    for n, item in enumerate(items):
        at = f"{where}[{n}]"
        item = _mapping(item, at)
        key = item.get("key")
        if not isinstance(key, str):
            raise OtlpError(f"{at}.key", f"expected a string, got {_kind(key)}")
        found[key] = any_value(item.get("value") or {}, f"{at}.value", depth)
    return found


# -- OTLP/JSON -----------------------------------------------------------------------


def is_otlp(obj: Any) -> bool:
    return isinstance(obj, dict) and ("resourceSpans" in obj or "resource_spans" in obj)


def is_sdk_span(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("context"), dict) and "name" in obj


def spans_of_json(obj: Any, where: str = "") -> Iterator[ExportedSpan]:
    """The spans of one exported JSON value: an OTLP/JSON object, an SDK span, or a list
    of either."""
    if isinstance(obj, list):
        for n, item in enumerate(obj):
            yield from spans_of_json(item, f"{where}[{n}]")
        return
    if is_otlp(obj):
        yield from _otlp_spans(obj, where)
    elif is_sdk_span(obj):
        yield _sdk_span(obj, where)
    else:
        raise OtlpError(
            where,
            "neither OTLP/JSON (an object with resourceSpans) nor a span the OpenTelemetry "
            "SDK wrote (an object with name and context)",
        )


def _dot(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _otlp_spans(obj: Mapping[str, Any], where: str) -> Iterator[ExportedSpan]:
    for r, resource_spans in enumerate(_list(obj, "resourceSpans", "resource_spans", where)):
        at = f"{_dot(where, 'resourceSpans')}[{r}]"
        resource_spans = _mapping(resource_spans, at)
        resource = _mapping(resource_spans.get("resource") or {}, f"{at}.resource")
        service = attributes(resource.get("attributes"), f"{at}.resource.attributes").get(
            "service.name"
        )
        name = service if isinstance(service, str) else None
        scopes = _list(resource_spans, "scopeSpans", "scope_spans", at)
        scopes += _list(resource_spans, "instrumentationLibrarySpans", "_", at)  # before 1.0
        for s, scope_spans in enumerate(scopes):
            scope_at = f"{at}.scopeSpans[{s}]"
            scope_spans = _mapping(scope_spans, scope_at)
            for n, span in enumerate(_list(scope_spans, "spans", "spans", scope_at)):
                yield _otlp_span(
                    _mapping(span, f"{scope_at}.spans[{n}]"), f"{scope_at}.spans[{n}]", name
                )


def _otlp_span(span: Mapping[str, Any], where: str, service: str | None) -> ExportedSpan:
    trace_id = hex_id(_field(span, "traceId", "trace_id"), 16, f"{where}.traceId")
    span_id = _optional_id(_field(span, "spanId", "span_id"), 8, f"{where}.spanId")
    parent = _optional_id(
        _field(span, "parentSpanId", "parent_span_id"), 8, f"{where}.parentSpanId"
    )
    name = span.get("name", "")
    if not isinstance(name, str):
        raise OtlpError(f"{where}.name", f"expected a string, got {_kind(name)}")
    values = attributes(span.get("attributes"), f"{where}.attributes")
    events = tuple(
        (
            str(_mapping(event, f"{where}.events[{n}]").get("name") or ""),
            attributes(event.get("attributes"), f"{where}.events[{n}].attributes"),
        )
        for n, event in enumerate(_list(span, "events", "events", where))
    )
    status = _mapping(span.get("status") or {}, f"{where}.status")
    failed = status.get("code") in _STATUS_ERROR
    message = status.get("message")
    view = SpanView(
        name=name,
        attributes=values,
        start_ns=_nanos(
            _field(span, "startTimeUnixNano", "start_time_unix_nano"), f"{where}.startTimeUnixNano"
        ),
        end_ns=_nanos(
            _field(span, "endTimeUnixNano", "end_time_unix_nano"), f"{where}.endTimeUnixNano"
        ),
        error=error_of(failed, message if isinstance(message, str) else None, values, events),
        events=events,
        span_id=span_id or 0,
        parent_id=parent,
    )
    return ExportedSpan(trace_id, view, service)


def _sdk_span(span: Mapping[str, Any], where: str) -> ExportedSpan:
    """A span as `ReadableSpan.to_json()` writes it."""
    context = _mapping(span["context"], f"{where}.context")
    trace_id = hex_id(context.get("trace_id"), 16, f"{where}.context.trace_id")
    span_id = _optional_id(context.get("span_id"), 8, f"{where}.context.span_id")
    parent = _optional_id(span.get("parent_id"), 8, f"{where}.parent_id")
    values = dict(_mapping(span.get("attributes") or {}, f"{where}.attributes"))
    events = tuple(
        (
            str(_mapping(event, f"{where}.events[{n}]").get("name") or ""),
            dict(_mapping(event.get("attributes") or {}, f"{where}.events[{n}].attributes")),
        )
        for n, event in enumerate(span.get("events") or [])
    )
    status = _mapping(span.get("status") or {}, f"{where}.status")
    description = status.get("description")
    resource = _mapping(span.get("resource") or {}, f"{where}.resource")
    service = _mapping(resource.get("attributes") or {}, f"{where}.resource.attributes").get(
        "service.name"
    )
    view = SpanView(
        name=str(span.get("name") or ""),
        attributes=values,
        start_ns=_iso_nanos(span.get("start_time"), f"{where}.start_time"),
        end_ns=_iso_nanos(span.get("end_time"), f"{where}.end_time"),
        error=error_of(
            status.get("status_code") == "ERROR",
            description if isinstance(description, str) else None,
            values,
            events,
        ),
        events=events,
        span_id=span_id or 0,
        parent_id=parent,
    )
    return ExportedSpan(trace_id, view, service if isinstance(service, str) else None)


def _iso_nanos(value: Any, where: str) -> int:
    """The SDK writes times as ISO 8601 text (`2024-01-01T00:00:00.123456Z`)."""
    if value is None:
        return 0
    from datetime import datetime

    if not isinstance(value, str):
        raise OtlpError(where, f"expected an ISO 8601 time, got {_kind(value)}")
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise OtlpError(where, f"expected an ISO 8601 time, got {value[:80]!r}") from None
    return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000


# -- OTLP protobuf -------------------------------------------------------------------


def spans_of_protobuf(body: bytes) -> list[ExportedSpan]:
    """The spans of an `ExportTraceServiceRequest` in protobuf; OtlpError when it is not
    one (ImportError without opentelemetry-proto: the caller says which extra)."""
    import importlib

    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    # Looked up, not imported: protobuf has no type stubs here (opentelemetry-proto does).
    decode_error = importlib.import_module("google.protobuf.message").DecodeError
    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(body)
    except (decode_error, RuntimeError) as exc:  # RuntimeError: nested past the parser's limit
        raise OtlpError("", f"not an OTLP ExportTraceServiceRequest in protobuf ({exc})") from None
    found: list[ExportedSpan] = []
    for r, resource_spans in enumerate(request.resource_spans):
        service = _proto_attributes(resource_spans.resource.attributes).get("service.name")
        name = service if isinstance(service, str) else None
        for s, scope_spans in enumerate(resource_spans.scope_spans):
            for n, span in enumerate(scope_spans.spans):
                where = f"resourceSpans[{r}].scopeSpans[{s}].spans[{n}]"
                found.append(_proto_span(span, where, name))
    return found


def _proto_span(span: Any, where: str, service: str | None) -> ExportedSpan:
    trace_id = hex_id(span.trace_id, 16, f"{where}.traceId")
    span_id = _optional_id(span.span_id, 8, f"{where}.spanId")
    parent = _optional_id(span.parent_span_id, 8, f"{where}.parentSpanId")
    values = _proto_attributes(span.attributes)
    events = tuple((event.name, _proto_attributes(event.attributes)) for event in span.events)
    failed = span.status.code == 2
    view = SpanView(
        name=span.name,
        attributes=values,
        start_ns=span.start_time_unix_nano,
        end_ns=span.end_time_unix_nano,
        error=error_of(failed, span.status.message or None, values, events),
        events=events,
        span_id=span_id or 0,
        parent_id=parent,
    )
    return ExportedSpan(trace_id, view, service)


def _proto_attributes(items: Any, depth: int = 0) -> dict[str, Any]:
    return {item.key: _proto_value(item.value, depth) for item in items}


def _proto_value(value: Any, depth: int) -> Any:
    which = value.WhichOneof("value")
    if which is None:
        return None
    if depth > MAX_VALUE_DEPTH:
        raise OtlpError("", f"a value nested deeper than {MAX_VALUE_DEPTH} levels")
    if which == "array_value":
        return tuple(_proto_value(item, depth + 1) for item in value.array_value.values)
    if which == "kvlist_value":
        return _proto_attributes(value.kvlist_value.values, depth + 1)
    if which == "bytes_value":
        return base64.b64encode(value.bytes_value).decode("ascii")
    return getattr(value, which)


__all__ = [
    "ExportedSpan",
    "OtlpError",
    "any_value",
    "attributes",
    "hex_id",
    "is_otlp",
    "is_sdk_span",
    "spans_of_json",
    "spans_of_protobuf",
]
