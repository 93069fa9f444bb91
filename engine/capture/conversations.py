"""Exported spans (otlp.py) turned into draft dataset scenarios, one per conversation.

A conversation is the traces that name the same conversation id on a span (GenAI's
`gen_ai.conversation.id`, OpenInference's `session.id`), else one trace. Each trace of it
is one turn, in the order the traces started:

- the user's message: the last user message with text in the input of the turn's first
  model call (GenAI `gen_ai.input.messages`, OpenInference `llm.input_messages.N.*`,
  OpenLLMetry `gen_ai.prompt.N.*`), else the root span's `input.value` (OpenInference);
- the agent's answer: the text of the last model call's output (`gen_ai.output.messages`,
  `llm.output_messages.N.*`, `gen_ai.completion.N.*`), else the root span's
  `output.value`;
- what the agent did: the metadata capture gives a call (spans.metadata_of), its
  `latency_ms` the trace's (its first span's start to its last span's end).

A row (the Hub's format, `status: draft`): each turn an interaction whose input is the
conversation so far (`{"messages": [...]}`: the earlier turns' messages and answers, then
this message) and whose output is the answer as a live run records it (`{"response":
{"role": "assistant", "content": ...}}`), so that `run --record` against the agent shows
drift in the answer only. What was captured of each turn and where it came from (trace
ids, service, conversation id) are the row's annotations.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .otlp import ExportedSpan
from .spans import SpanView, flattened, metadata_of, model_calls_in, parse_json

CONVERSATION_KEYS = ("gen_ai.conversation.id", "session.id")
TAG = "from-traces"


@dataclass
class Trace:
    trace_id: str
    spans: list[SpanView] = field(default_factory=list)
    service: str | None = None
    conversation: str | None = None

    @property
    def start_ns(self) -> int:
        return min((s.start_ns for s in self.spans), default=0)

    @property
    def end_ns(self) -> int:
        return max((s.end_ns for s in self.spans), default=0)


@dataclass
class Drafts:
    """The rows made, and why each trace or conversation left out was."""

    rows: list[dict[str, Any]]
    skipped: list[str]
    traces: int


def traces_of(spans: Iterable[ExportedSpan]) -> list[Trace]:
    found: dict[str, Trace] = {}
    for span in spans:
        trace = found.get(span.trace_id)
        if trace is None:
            trace = found[span.trace_id] = Trace(span.trace_id)
        trace.spans.append(span.view)
        if trace.service is None and span.service:
            trace.service = span.service
        if trace.conversation is None:
            for key in CONVERSATION_KEYS:
                value = span.view.attributes.get(key)
                if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
                    trace.conversation = str(value)
                    break
    return list(found.values())


def drafts(spans: Iterable[ExportedSpan]) -> Drafts:
    """The draft scenarios of these spans, in the order their conversations started."""
    global _read
    _read = {}
    try:
        return _drafts(spans)
    finally:
        _read = None


def _drafts(spans: Iterable[ExportedSpan]) -> Drafts:
    traces = sorted(traces_of(spans), key=lambda t: (t.start_ns, t.trace_id))
    conversations: list[_Conversation] = []
    by_id: dict[str, _Conversation] = {}
    # The conversations with no id by the messages their last model call ended with: a
    # trace looks its opening's prefixes up here, not every conversation (a day of
    # traces is tens of thousands).
    by_closing: dict[tuple[str, ...], _Conversation] = {}
    for trace in traces:
        opening, closing = _ends(trace)
        if trace.conversation:
            found = by_id.get(trace.conversation)
            if found is None:
                found = by_id[trace.conversation] = _Conversation(trace.conversation)
                conversations.append(found)
                found.turns.append([trace])
            else:
                found.add(trace, opening)
            found.closing = closing
            continue
        found = _continued(by_closing, opening)
        if found is None:
            found = _Conversation(None)
            conversations.append(found)
            found.turns.append([trace])
        else:
            found.add(trace, opening)
            before = _key(found.closing)
            if by_closing.get(before) is found:
                del by_closing[before]
        found.closing = closing
        if closing:
            by_closing[_key(closing)] = found  # the latest conversation of a closing wins
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    for conversation in conversations:
        row = _row(conversation, skipped)
        if row is not None:
            rows.append(row)
    return Drafts(rows, skipped, len(traces))


# A message as compared between model calls: (role, its text or None, its whole value).
_Message = tuple[str, str | None, str]


@dataclass
class _Conversation:
    """Turns of traces: a turn is the traces of one user message (an agent on the bare
    SDK, with no span around its work, makes a trace of each model call)."""

    conversation: str | None
    turns: list[list[Trace]] = field(default_factory=list)
    closing: list[_Message] = field(default_factory=list)  # its last model call's messages

    def add(self, trace: Trace, opening: list[_Message]) -> None:
        """The trace's place: the turn it goes on (its first model call sends back what the
        last one said, and no new user message), else a new turn."""
        extra = _extension(self.closing, opening)
        if extra is not None and not any(role == "user" and text for role, text, _ in extra):
            self.turns[-1].append(trace)
        else:
            self.turns.append([trace])


def _ends(trace: Trace) -> tuple[list[_Message], list[_Message]]:
    """The messages the trace's first model call was sent, and those of its last one
    (sent and answered): how a later trace is known to continue this one."""
    models = model_calls_in(trace.spans)
    if not models:
        return [], []
    last = models[-1]
    return _messages(models[0], "input"), _messages(last, "input") + _messages(last, "output")


def _extension(closing: list[_Message], opening: list[_Message]) -> list[_Message] | None:
    """What `opening` adds to `closing` when it starts with it (None when it does not)."""
    if not closing or len(opening) < len(closing):
        return None
    if [m[2] for m in opening[: len(closing)]] != [m[2] for m in closing]:
        return None
    return opening[len(closing) :]


def _key(messages: list[_Message]) -> tuple[str, ...]:
    return tuple(m[2] for m in messages)


def _continued(
    by_closing: dict[tuple[str, ...], _Conversation], opening: list[_Message]
) -> _Conversation | None:
    """The conversation (with no id) whose last model call this opening continues: of
    those, the one with the longest closing."""
    whole = _key(opening)
    for length in range(len(whole), 0, -1):
        found = by_closing.get(whole[:length])
        if found is not None:
            return found
    return None


def _row(conversation: _Conversation, skipped: list[str]) -> dict[str, Any] | None:
    history: list[dict[str, Any]] = []
    interactions: list[dict[str, Any]] = []
    captured: list[dict[str, Any]] = []
    used: list[str] = []
    traces = [trace for turn in conversation.turns for trace in turn]
    for turn in conversation.turns:
        spans = [span for trace in turn for span in trace.spans]
        user = user_message(spans)
        if user is None:
            ids = ", ".join(t.trace_id for t in turn)
            skipped.append(
                f"trace {ids}{_of(turn[0])}: no user message on its spans (model calls record "
                "their messages only when asked: "
                "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only for the openai "
                "SDK's instrumentation)"
            )
            continue
        answer = agent_answer(spans)
        messages = [*history, {"role": "user", "content": user}]
        interaction: dict[str, Any] = {"input": {"messages": messages}}
        if answer is not None:
            interaction["output"] = {"response": {"role": "assistant", "content": answer}}
        interactions.append(interaction)
        start = min(t.start_ns for t in turn)
        latency_ms = max(0, max(t.end_ns for t in turn) - start) / 1e6
        captured.append(metadata_of(spans, latency_ms))
        used.extend(t.trace_id for t in turn)
        history = [*messages, *([{"role": "assistant", "content": answer}] if answer else [])]
    if not interactions:
        return None
    first = traces[0]
    annotations: dict[str, Any] = {"source": "opentelemetry", "trace_ids": used}
    service = next((t.service for t in traces if t.service), None)
    if service:
        annotations["service"] = service
    if conversation.conversation:
        annotations["conversation_id"] = conversation.conversation
    if first.start_ns:
        started = datetime.fromtimestamp(first.start_ns / 1e9, tz=UTC)
        annotations["started"] = started.isoformat(timespec="milliseconds")
    annotations["captured"] = captured
    return {
        "status": "draft",
        "tags": [TAG],
        "interactions": interactions,
        "annotations": annotations,
    }


def _of(trace: Trace) -> str:
    return f" ({trace.service})" if trace.service else ""


# -- messages ------------------------------------------------------------------------


def user_message(spans: list[SpanView]) -> str | None:
    """The user's message of one turn (see the module)."""
    models = model_calls_in(spans)
    if models:
        said = [text for role, text in messages_of(models[0], "input") if role == "user"]
        if said:
            return said[-1]
    return _root_value(spans, "input.value")


def agent_answer(spans: list[SpanView]) -> str | None:
    """The agent's answer of one turn (see the module)."""
    models = model_calls_in(spans)
    for model in reversed(models):
        said = [text for role, text in messages_of(model, "output") if role == "assistant"]
        if said:
            return "\n".join(said)
    return _root_value(spans, "output.value")


def _root_value(spans: list[SpanView], key: str) -> str | None:
    ids = {s.span_id for s in spans}
    roots = [s for s in spans if s.parent_id is None or s.parent_id not in ids]
    for span in sorted(roots, key=lambda s: s.start_ns):
        value = span.attributes.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


# The messages of each span read so far in one `drafts` (a span's are read to chain its
# trace, then again for the turn's message and answer): parsed and keyed once.
_read: dict[tuple[int, str], list[_Message]] | None = None


def _messages(span: SpanView, direction: str) -> list[_Message]:
    """Every message of a model call's input or output: (role, text, its value as JSON
    without what differs between a call's answer and the next call's copy of it)."""
    if _read is None:
        return _read_messages(span, direction)
    key = (id(span), direction)
    found = _read.get(key)
    if found is None:
        found = _read[key] = _read_messages(span, direction)
    return found


def _read_messages(span: SpanView, direction: str) -> list[_Message]:
    a = span.attributes
    found: list[_Message] = []
    given = parse_json(a.get(f"gen_ai.{direction}.messages"))
    if isinstance(given, list):
        for message in given:
            if isinstance(message, dict):
                role = str(message.get("role") or "assistant")
                same = {
                    "role": role,
                    "parts": message.get("parts"),
                    "content": message.get("content"),
                }
                found.append((role, _text_of(message), _json(same)))
        return found
    for message in flattened(a, f"llm.{direction}_messages"):
        role = str(message.get("message.role") or "assistant")
        found.append((role, _openinference_text(message), _json(message)))
    if found:
        return found
    prefix = "gen_ai.prompt" if direction == "input" else "gen_ai.completion"
    for message in flattened(a, prefix):
        role = str(message.get("role") or "assistant")
        content = message.get("content")
        text = content if isinstance(content, str) and content else None
        same = {k: v for k, v in message.items() if k != "finish_reason"}
        found.append((role, text, _json(same)))
    return found


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def messages_of(span: SpanView, direction: str) -> list[tuple[str, str]]:
    """(role, text) of each message with text a model call's input or output holds, in
    whichever convention the span follows."""
    return [(role, text) for role, text, _ in _messages(span, direction) if text]


def _text_of(message: Mapping[str, Any]) -> str | None:
    """A GenAI message's text: its `text` parts (tool calls and their results are not
    text), or an older message's `content`."""
    parts = message.get("parts")
    if isinstance(parts, list):
        texts = [
            p["content"]
            for p in parts
            if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("content"), str)
        ]
        return "\n".join(texts) if texts else None
    content = message.get("content")
    return content if isinstance(content, str) and content else None


def _openinference_text(message: Mapping[str, Any]) -> str | None:
    content = message.get("message.content")
    if isinstance(content, str) and content:
        return content
    texts = [
        item.get("message_content.text")
        for item in flattened(message, "message.contents")
        if item.get("message_content.type", "text") == "text"
    ]
    kept = [t for t in texts if isinstance(t, str) and t]
    return "\n".join(kept) if kept else None


__all__ = ["CONVERSATION_KEYS", "TAG", "Drafts", "Trace", "drafts", "messages_of", "traces_of"]
