"""The spans of one target call read into an interaction's metadata (pure: no SDK).

Two conventions are read, each span by whichever it follows (docs/capture.md has the
table):

- OpenTelemetry's GenAI semantic conventions (`gen_ai.*`): a model call is a span whose
  `gen_ai.operation.name` is chat, text_completion or generate_content; a tool run is an
  `execute_tool` span (`gen_ai.tool.name`, `gen_ai.tool.call.arguments`/`.result`); a
  retrieval is a `retrieval` span (`gen_ai.retrieval.documents`). The tool calls a model
  asked for are the `tool_call` parts of its `gen_ai.output.messages`, their results the
  `tool_call_response` parts of a later call's `gen_ai.input.messages`.
- OpenInference (`openinference.span.kind` LLM, TOOL, RETRIEVER; `llm.*`, `tool.name`,
  `input.value`/`output.value`, `retrieval.documents.N.document.*`).

A model call inside another model call (a framework's span, the SDK's under it) counts
once, as the outer one. What ran wins over what was asked for: when any tool span was recorded, `tool_calls`
are those spans; otherwise they are the calls the models asked for (an agent on the
bare SDK runs its tools in plain code, so only the model's request says which).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# gen_ai.operation.name values that are a call of a model (embeddings are not: they are
# no turn of the conversation, and a check of "at most N model calls" means chat calls).
_MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
_KIND = "openinference.span.kind"
# A span may hold a very long attribute (a prompt): what is parsed as JSON is bounded.
MAX_JSON_CHARS = 1_000_000


@dataclass(frozen=True)
class SpanView:
    """What the mapping reads of a span, whoever made it (the SDK, an OTLP export)."""

    name: str
    attributes: Mapping[str, Any]
    start_ns: int = 0
    end_ns: int = 0
    error: str | None = None  # why it ended in error (status ERROR, error.type); None: it did not
    events: Sequence[tuple[str, Mapping[str, Any]]] = field(default_factory=tuple)
    span_id: int = 0
    parent_id: int | None = None

    @property
    def latency_ms(self) -> float:
        return round(max(0, self.end_ns - self.start_ns) / 1e6, 3)


def metadata_of(spans: Iterable[SpanView], latency_ms: float) -> dict[str, Any]:
    """The metadata keys of one target call that took `latency_ms`, from its spans."""
    ordered = sorted(spans, key=lambda s: (s.start_ns, s.end_ns))
    models = _outermost([s for s in ordered if _is_model_call(s)], ordered)
    tools = [s for s in ordered if _is_tool_run(s)]
    retrievals = [s for s in ordered if _is_retrieval(s)]
    tool_calls = [_tool_run(s) for s in tools] if tools else _requested_calls(models)
    model_calls = [_model_call(s) for s in models]
    found: dict[str, Any] = {
        "tools_called": [call["name"] for call in tool_calls],
        "tool_calls": tool_calls,
        "model_calls": model_calls,
        "latency_ms": round(latency_ms, 3),
        "span_count": len(ordered),
    }
    for key in ("prompt_tokens", "completion_tokens"):
        counted = [c[key] for c in model_calls if c[key] is not None]
        if counted:
            found[key] = sum(counted)
    totals = [c["token_count"] for c in model_calls if c["token_count"] is not None]
    if totals:
        found["token_count"] = sum(totals)
    if retrievals:
        documents = [doc for s in retrievals for doc in _documents(s)]
        found["retrieved_docs"] = documents
        found["context"] = [d["content"] for d in documents if isinstance(d.get("content"), str)]
    return found


def model_calls_in(spans: Iterable[SpanView]) -> list[SpanView]:
    """The model calls of these spans, in the order they started, each counted once (the
    outermost of a call inside another)."""
    ordered = sorted(spans, key=lambda s: (s.start_ns, s.end_ns))
    return _outermost([s for s in ordered if _is_model_call(s)], ordered)


# -- what a span is ------------------------------------------------------------------


def _operation(span: SpanView) -> str | None:
    value = span.attributes.get("gen_ai.operation.name")
    return value if isinstance(value, str) else None


def _is_model_call(span: SpanView) -> bool:
    return _operation(span) in _MODEL_OPERATIONS or span.attributes.get(_KIND) == "LLM"


def _is_tool_run(span: SpanView) -> bool:
    return _operation(span) == "execute_tool" or span.attributes.get(_KIND) == "TOOL"


def _is_retrieval(span: SpanView) -> bool:
    return _operation(span) == "retrieval" or span.attributes.get(_KIND) == "RETRIEVER"


# -- model calls ---------------------------------------------------------------------


def _outermost(models: list[SpanView], spans: list[SpanView]) -> list[SpanView]:
    """The model calls not inside another: a framework's chat span and the SDK's own
    under it (pydantic-ai on the openai SDK, both instrumented) are one call."""
    parents = {s.span_id: s.parent_id for s in spans if s.span_id}
    calls = {s.span_id for s in models if s.span_id}
    kept = []
    for span in models:
        above, seen = span.parent_id, 0
        while above is not None and above not in calls and seen < len(parents):
            above, seen = parents.get(above), seen + 1
        if above is None or above not in calls:
            kept.append(span)
    return kept


def _model_call(span: SpanView) -> dict[str, Any]:
    a = span.attributes
    prompt = _int(a.get("gen_ai.usage.input_tokens", a.get("llm.token_count.prompt")))
    completion = _int(a.get("gen_ai.usage.output_tokens", a.get("llm.token_count.completion")))
    total = _int(a.get("llm.token_count.total"))
    if total is None and (prompt is not None or completion is not None):
        total = (prompt or 0) + (completion or 0)
    model = a.get("gen_ai.response.model") or a.get("gen_ai.request.model")
    return {
        "model": model or a.get("llm.model_name"),
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "token_count": total,
        "latency_ms": span.latency_ms,
        "error": span.error,
    }


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


# -- tool calls ----------------------------------------------------------------------


def _tool_run(span: SpanView) -> dict[str, Any]:
    a = span.attributes
    if _operation(span) == "execute_tool":
        name = a.get("gen_ai.tool.name")
        arguments = a.get("gen_ai.tool.call.arguments")
        result = a.get("gen_ai.tool.call.result")
    else:  # OpenInference
        name = a.get("tool.name")
        arguments = a.get("tool_call.function.arguments", a.get("input.value"))
        result = a.get("output.value")
    return {
        "name": name if isinstance(name, str) and name else span.name,
        "arguments": parse_json(arguments),
        "result": parse_json(result),
        "error": span.error,
    }


def _requested_calls(models: list[SpanView]) -> list[dict[str, Any]]:
    """The tool calls the models asked for, in order, each with the result a later call
    sent back (matched by call id), when one did."""
    calls: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    for span in models:
        for call_id, result in _sent_results(span):
            if call_id in by_id and by_id[call_id]["result"] is None:
                by_id[call_id]["result"] = parse_json(result)
        for asked_id, name, arguments in _asked_calls(span):
            call = {"name": name, "arguments": parse_json(arguments), "result": None, "error": None}
            calls.append(call)
            if asked_id:
                by_id[asked_id] = call
    return calls


def _asked_calls(span: SpanView) -> list[tuple[str | None, str, Any]]:
    """(id, name, arguments) of each tool call in the span's output messages."""
    found: list[tuple[str | None, str, Any]] = []
    for message in _messages(span.attributes.get("gen_ai.output.messages")):
        for part in message.get("parts") or []:
            if isinstance(part, dict) and part.get("type") == "tool_call" and part.get("name"):
                found.append((part.get("id"), str(part["name"]), part.get("arguments")))
    for message in flattened(span.attributes, "llm.output_messages"):
        for call in flattened(message, "message.tool_calls"):
            name = call.get("tool_call.function.name")
            if name:
                arguments = call.get("tool_call.function.arguments")
                found.append((call.get("tool_call.id"), str(name), arguments))
    return found


def _sent_results(span: SpanView) -> list[tuple[str, Any]]:
    """(call id, result) of each tool result the span's input messages send back."""
    found: list[tuple[str, Any]] = []
    for message in _messages(span.attributes.get("gen_ai.input.messages")):
        for part in message.get("parts") or []:
            is_result = isinstance(part, dict) and part.get("type") == "tool_call_response"
            if is_result and isinstance(part.get("id"), str):
                found.append((part["id"], part.get("response")))
    for message in flattened(span.attributes, "llm.input_messages"):
        call_id = message.get("message.tool_call_id")
        if message.get("message.role") == "tool" and isinstance(call_id, str):
            found.append((call_id, message.get("message.content")))
    return found


def _messages(value: Any) -> list[dict[str, Any]]:
    parsed = parse_json(value)
    if not isinstance(parsed, list):
        return []
    return [m for m in parsed if isinstance(m, dict)]


def flattened(attributes: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """OpenInference's flattened lists: `prefix.0.rest` -> [{"rest": ...}, ...] in order."""
    items: dict[int, dict[str, Any]] = {}
    dotted = prefix + "."
    for key, value in attributes.items():
        if not key.startswith(dotted):
            continue
        index, _, rest = key[len(dotted) :].partition(".")
        if index.isdigit() and rest:
            items.setdefault(int(index), {})[rest] = value
    return [items[i] for i in sorted(items)]


# -- retrieval -----------------------------------------------------------------------


def _documents(span: SpanView) -> list[dict[str, Any]]:
    a = span.attributes
    documents: list[dict[str, Any]] = []
    given = parse_json(a.get("gen_ai.retrieval.documents"))
    if isinstance(given, list):
        documents += [_document(d) for d in given]
    for item in flattened(a, "retrieval.documents"):
        found = {
            key.removeprefix("document."): value
            for key, value in item.items()
            if key.startswith("document.")
        }
        if "metadata" in found:
            found["metadata"] = parse_json(found["metadata"])
        documents.append(found)
    return documents


def _document(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        return {"content": value if isinstance(value, str) else json.dumps(value, default=str)}
    document = dict(value)
    if "content" not in document:
        for key in ("text", "page_content"):
            if isinstance(document.get(key), str):
                document["content"] = document.pop(key)
                break
    return document


def error_of(
    failed: bool,
    description: str | None,
    values: Mapping[str, Any],
    events: Sequence[tuple[str, Mapping[str, Any]]],
) -> str | None:
    """Why a span ended in error (its status ERROR, or an `error.type`), else None: the
    `exception` event's type and message, else `error.type: description`."""
    kind = values.get("error.type")
    if not failed and not kind:
        return None
    for name, found in events:
        if name == "exception" and found.get("exception.message"):
            return f"{found.get('exception.type', kind or 'error')}: {found['exception.message']}"
    if kind and description and not description.startswith(str(kind)):
        return f"{kind}: {description}"
    return description or (str(kind) if kind else "error")


# -- values --------------------------------------------------------------------------


def parse_json(value: Any) -> Any:
    """A JSON text as its value (tool arguments and results arrive as text); anything
    else, or text that is not JSON, as it is."""
    if isinstance(value, tuple):
        return list(value)
    if not isinstance(value, str) or len(value) > MAX_JSON_CHARS:
        return value
    text = value.strip()
    if not text or (text[0] not in '[{"' and text not in ("true", "false", "null")):
        return value
    try:
        return json.loads(text)
    except ValueError:
        return value
