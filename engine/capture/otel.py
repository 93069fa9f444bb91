"""The OpenTelemetry side of capture: one span processor per process, spans per call.

`install()` runs once per process (a worker, a Ray task's process, the in-process
executor): it sets an SDK TracerProvider as the global one (or adds to the SDK provider
the agent's code already set), adds `Collector` to it, and turns on the instrumentations
that are installed (`INSTRUMENTATIONS`). OpenTelemetry allows one global provider per
process, so it is never replaced.

`call_spans()` wraps one target call: it starts a span of its own and makes it current,
so every span the call makes (in the user thread it runs in: that thread gets a copy of
the context) belongs to that span's trace. The collector keeps the finished spans of the
traces that are open, by trace id; a span that starts a trace of its own in that context
(an agent starting a root span) is attributed to the call all the same.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.trace import StatusCode

from .spans import SpanView, error_of, metadata_of

# A call that makes spans in a loop must not exhaust the worker's memory.
MAX_SPANS_PER_CALL = 10_000
CALL_SPAN_NAME = "checkspec.target_call"

# The GenAI instrumentations put prompts, answers and tool arguments on spans only when
# asked: capture reads tool calls from there. Defaults only: the user's own values win.
CONTENT_DEFAULTS = {
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_only",
    "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
}

# (module, instrumentor class, the package it instruments): each one installed is turned
# on; of two for the same package, only the first (two would record every call twice).
INSTRUMENTATIONS: tuple[tuple[str, str, str], ...] = (
    ("opentelemetry.instrumentation.openai_v2", "OpenAIInstrumentor", "openai"),
    ("openinference.instrumentation.openai", "OpenAIInstrumentor", "openai"),
    ("openinference.instrumentation.litellm", "LiteLLMInstrumentor", "litellm"),
    ("openinference.instrumentation.langchain", "LangChainInstrumentor", "langchain_core"),
    ("openinference.instrumentation.openai_agents", "OpenAIAgentsInstrumentor", "agents"),
)


class CaptureUnavailable(RuntimeError):
    """Capture cannot see this process's spans."""


class _Call:
    """The spans of one open target call."""

    __slots__ = ("dropped", "own_span_id", "spans", "trace_ids")

    def __init__(self, trace_id: int, own_span_id: int) -> None:
        self.trace_ids = {trace_id}
        self.own_span_id = own_span_id
        self.spans: list[SpanView] = []
        self.dropped = 0


_current: ContextVar[_Call | None] = ContextVar("checkspec_capture_call", default=None)


class Collector(SpanProcessor):
    """Keeps the finished spans of the open calls (on_end runs in whatever thread ended
    the span: the lock guards the maps)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[int, _Call] = {}  # trace id -> its call

    def open(self, call: _Call) -> None:
        with self._lock:
            for trace_id in call.trace_ids:
                self._calls[trace_id] = call

    def close(self, call: _Call) -> None:
        with self._lock:
            for trace_id in call.trace_ids:
                self._calls.pop(trace_id, None)

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        trace_id = span.context.trace_id
        call = _current.get()
        if call is None:
            return
        with self._lock:
            if trace_id not in self._calls and trace_id not in call.trace_ids:
                call.trace_ids.add(trace_id)
                self._calls[trace_id] = call

    def on_end(self, span: ReadableSpan) -> None:
        context = span.context
        if context is None:
            return
        with self._lock:
            call = self._calls.get(context.trace_id)
        if call is None or context.span_id == call.own_span_id:
            return
        if len(call.spans) >= MAX_SPANS_PER_CALL:
            call.dropped += 1
            return
        call.spans.append(view_of(span))

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def view_of(span: ReadableSpan) -> SpanView:
    """What the mapping reads of an SDK span."""
    attributes = dict(span.attributes or {})
    events = tuple((e.name, dict(e.attributes or {})) for e in span.events)
    context, parent = span.context, span.parent
    return SpanView(
        name=span.name,
        attributes=attributes,
        start_ns=span.start_time or 0,
        end_ns=span.end_time or 0,
        error=_error_of(span, attributes, events),
        events=events,
        span_id=context.span_id if context is not None else 0,
        parent_id=parent.span_id if parent is not None else None,
    )


def _error_of(
    span: ReadableSpan, attributes: dict[str, Any], events: tuple[tuple[str, Any], ...]
) -> str | None:
    failed = span.status.status_code is StatusCode.ERROR
    return error_of(failed, span.status.description, attributes, events)


_collector: Collector | None = None
_tracer: trace.Tracer | None = None
_failure: str | None = None  # why install() failed: said again to every later job
_install_lock = threading.Lock()


def install() -> None:
    """Collect this process's spans from now on (once; later calls do nothing, or raise
    again what the first one raised)."""
    global _collector, _failure
    with _install_lock:
        if _failure is not None:
            raise CaptureUnavailable(_failure)
        if _collector is not None:
            return
        try:
            _collector = _installed_collector()
        except CaptureUnavailable as exc:
            _failure = str(exc)
            raise


def _installed_collector() -> Collector:
    for name, value in CONTENT_DEFAULTS.items():
        os.environ.setdefault(name, value)
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        trace.set_tracer_provider(TracerProvider())
        provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        raise CaptureUnavailable(
            f"this process's OpenTelemetry tracer provider is a {type(provider).__name__}, "
            "not the SDK's TracerProvider: capture cannot see its spans"
        )
    _instrument()
    collector = Collector()
    provider.add_span_processor(collector)
    return collector


def _instrument() -> None:
    """Turn on each instrumentation that is installed, for a package that is installed.
    One installed that does not load (a version that does not match its dependencies)
    is an error: capture would otherwise see nothing of what it instruments, silently."""
    done: set[str] = set()
    for module, name, package in INSTRUMENTATIONS:
        if package in done or not _installed(package) or not _installed(module):
            continue
        try:
            with _without_httpx_cli():
                instrumentor = getattr(importlib.import_module(module), name)()
        except Exception as exc:
            raise CaptureUnavailable(
                f"{module} is installed but does not load ({type(exc).__name__}: {exc}): "
                "reinstall it with its dependencies (pip install 'checkspec[otel]'), or "
                "uninstall it"
            ) from None
        if not instrumentor.is_instrumented_by_opentelemetry:
            instrumentor.instrument()
        done.add(package)


@contextmanager
def _without_httpx_cli() -> Iterator[None]:
    """Import an instrumentation without httpx's command-line client. The openai SDK's
    instrumentation imports httpx (for `httpx.URL`), whose `__init__` imports its CLI
    module when `rich` and `click` are installed: rich's console, click and pygments, two
    thirds of the time capture took to set up in each worker (~0.15 s of CPU), for a
    terminal program no worker runs. httpx falls back to a `main()` that says the CLI's
    dependencies are missing when that import fails; only `httpx.main` in a capturing
    worker differs. Nothing changes when httpx is already imported (the agent's own)."""
    if "httpx" in sys.modules or "httpx._main" in sys.modules:
        yield
        return
    sys.modules["httpx._main"] = None  # type: ignore[assignment]  # an import of it fails
    try:
        yield
    finally:
        if sys.modules.get("httpx._main", 0) is None:
            del sys.modules["httpx._main"]  # a later `import httpx._main` loads it


_pydantic_ai_on = False


def _instrument_imported() -> None:
    """Frameworks that instrument themselves, once the agent's code has imported them:
    importing one for every capturing worker would cost each agent that does not use it
    its import (pydantic-ai: most of a second). Checked as each call starts: an agent that
    imports the framework inside its first call has that call's spans uninstrumented."""
    global _pydantic_ai_on
    if not _pydantic_ai_on and "pydantic_ai" in sys.modules:
        with _install_lock:
            if not _pydantic_ai_on:
                # GenAI conventions, tools as execute_tool spans.
                sys.modules["pydantic_ai"].Agent.instrument_all()
                _pydantic_ai_on = True


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package that is not there, or is broken
        return False


@contextmanager
def call_spans() -> Iterator[dict[str, Any]]:
    """Around one target call: the dict it yields is filled, when the call ends, with the
    metadata its spans give (left empty when the call raised). `install()` first."""
    assert _collector is not None, "install() first"
    _instrument_imported()
    global _tracer
    if _tracer is None:  # once: get_tracer makes a new Tracer at each call
        _tracer = trace.get_tracer("checkspec.capture")
    with spans_of_call(_collector, _tracer) as found:
        yield found


@contextmanager
def spans_of_call(collector: Collector, tracer: trace.Tracer) -> Iterator[dict[str, Any]]:
    """`call_spans` with the collector and the tracer given (a test's own provider)."""
    found: dict[str, Any] = {}
    # A new trace for each call, whatever span is current (a pytest test's, the user's).
    with tracer.start_as_current_span(CALL_SPAN_NAME, context=Context()) as span:
        context = span.get_span_context()
        call = _Call(context.trace_id, context.span_id)
        collector.open(call)
        token = _current.set(call)
        started = time.perf_counter()
        try:
            yield found
            latency_ms = (time.perf_counter() - started) * 1000
        finally:
            _current.reset(token)
            collector.close(call)
    found.update(metadata_of(call.spans, latency_ms))
    if call.dropped:
        found["spans_dropped"] = call.dropped
