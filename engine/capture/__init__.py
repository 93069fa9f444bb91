"""Capture: what an agent did during a target call, read from OpenTelemetry spans.

With the setting `capture: otel` (`--capture otel`), each job runs inside
`capturing("otel")` (executor/jobs.py): the process collects OpenTelemetry spans
(`otel.install`, once), and each call of the target (interactions.py) runs inside
`target_call()`, which gives the interaction's metadata what the call's spans say
(`spans.metadata_of`: tools_called, tool_calls, token_count, latency_ms, model_calls,
retrieved_docs, ...). The agent needs no code of its own: the instrumentations of the
libraries it uses are turned on (the openai SDK's with the `otel` extra). Values the
target returns itself win over captured ones (`with_captured`).

Only this package's `otel` module imports OpenTelemetry, and only when capture is on:
a run without it loads none of it. docs/capture.md maps span attributes to keys.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

MODES = ("off", "otel")
INSTALL_HINT = "pip install 'checkspec[otel]'"
_SDK = "opentelemetry.sdk.trace"

# The capture mode of the job running in this context (set per job: a worker may run
# jobs of runs with different settings, one after the other).
_mode: ContextVar[str] = ContextVar("checkspec_capture_mode", default="off")


class CaptureUnavailable(RuntimeError):
    """`capture: otel` where the OpenTelemetry SDK is not installed."""


def unavailable_message(python: str | None = None) -> str:
    where = f" in {python}" if python and python != sys.executable else ""
    return (
        f"capture: otel needs the OpenTelemetry SDK, which is not installed{where}: {INSTALL_HINT}"
    )


def capture_problem(mode: str, python: str | None = None) -> str | None:
    """Why a run with this capture mode cannot start (checked before it does), else None.
    `python`: the workers' interpreter, asked when it is not this one."""
    if mode not in MODES:
        return f"capture must be one of {', '.join(MODES)}, got {mode!r}"
    if mode == "off":
        return None
    if not python or python == sys.executable:
        present = importlib.util.find_spec("opentelemetry") is not None and (
            importlib.util.find_spec(_SDK) is not None
        )
    else:
        present = _importable_in(python, _SDK)
    return None if present else unavailable_message(python)


def _importable_in(python: str, module: str) -> bool:
    import subprocess  # here: only a run on another interpreter asks

    probe = f"import importlib.util as u, sys; sys.exit(u.find_spec({module!r}) is None)"
    try:
        done = subprocess.run(
            [python, "-c", probe],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return True  # the run itself will say what is wrong with that interpreter
    return done.returncode == 0


@contextmanager
def capturing(mode: str) -> Iterator[None]:
    """Run a job with this capture mode (executor/jobs.py). `otel` installs the span
    collector in this process first (CaptureUnavailable without the SDK)."""
    if mode == "off":
        yield
        return
    if mode != "otel":
        raise ValueError(f"capture must be one of {', '.join(MODES)}, got {mode!r}")
    try:
        from . import otel
    except ImportError:
        raise CaptureUnavailable(unavailable_message()) from None
    try:
        otel.install()
    except otel.CaptureUnavailable as exc:
        raise CaptureUnavailable(str(exc)) from None
    token = _mode.set(mode)
    try:
        yield
    finally:
        _mode.reset(token)


@contextmanager
def target_call() -> Iterator[dict[str, Any] | None]:
    """Around one call of the target: None when nothing is captured; else a dict filled,
    once the call returned, with what its spans say."""
    if _mode.get() == "off":
        yield None
        return
    from .otel import call_spans

    with call_spans() as found:
        yield found


def with_captured(
    metadata: dict[str, Any], captured: dict[str, Any] | None, outputs: Any = None
) -> dict[str, Any]:
    """The interaction's metadata: the captured keys, then `metadata` (the spec's, or the
    interaction the target returned) over them. A key the target's own answer gives in its
    `metadata` (`{response, metadata}`, the Hub format) is taken from there: the target
    said it. The answer itself is left as the target gave it (it is what `--record`
    writes and what drift compares)."""
    if not captured:
        return metadata
    own = outputs.get("metadata") if isinstance(outputs, dict) else None
    said = own if isinstance(own, dict) else {}
    merged = {key: said.get(key, value) for key, value in captured.items()}
    merged.update(metadata)
    return merged


__all__ = [
    "INSTALL_HINT",
    "MODES",
    "CaptureUnavailable",
    "capture_problem",
    "capturing",
    "target_call",
    "unavailable_message",
    "with_captured",
]
