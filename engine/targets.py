"""Targets: the agent a scenario talks to.

- `python:package.module:function`: imported (the spec file's folder, then the
  workspace root, then sys.path) and called with the inputs, or inputs and trace.
- `http://...` / `https://...`: the inputs are POSTed as JSON; the answer is JSON
  (`{response, metadata}` for agent endpoints) or plain text.

Resolution happens only when a scenario runs, never when a file is validated.
A target that raises or exceeds its timeout makes that step an ERROR.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any

from pydantic import WithJsonSchema

from .core.inference import infer_input_type
from .imports import import_reference
from .interactions import call_flexible

DEFAULT_TIMEOUT_SECONDS = 60.0

# What a target reference looks like in a file: the same shape describe_target_problem
# accepts (a test holds them together). Here, not beside the Scenario model, so that
# reading a checkspec.yaml (checkspec validate's start-up) does not load that model.
TARGET_PATTERN = r"^(python:[^:]+:[^:]+|https?://.*)$"
# A target as written in a file (scenario, suite, dataset, checkspec.yaml).
TargetText = Annotated[
    str | None, WithJsonSchema({"type": ["string", "null"], "pattern": TARGET_PATTERN})
]

AsyncTarget = Callable[[Any, Any], Awaitable[Any]]

# Calls that did not answer in time. Their threads cannot be stopped and keep running: a
# worker process that has any retires when idle, so hung calls never pile up.
_abandoned = 0


def abandoned_calls() -> int:
    return _abandoned


class TargetError(RuntimeError):
    """The target could not be resolved or did not answer."""


def describe_target_problem(spec: str) -> str | None:
    """Why `spec` is not a target reference (shape only; nothing is imported)."""
    if spec.startswith(("http://", "https://")):
        return None
    if spec.startswith("python:"):
        reference = spec[len("python:") :]
        if reference.count(":") == 1 and all(reference.split(":")):
            return None
        return f"python target must look like 'python:package.module:function', got {spec!r}"
    return f"unknown target {spec!r}: use 'python:package.module:function' or an http(s):// URL"


def resolve_target(
    spec: str, base_dirs: Sequence[str] = (), timeout: float | None = None
) -> AsyncTarget:
    """An async callable `(inputs, trace) -> outputs` for the target reference."""
    timeout = timeout or DEFAULT_TIMEOUT_SECONDS
    problem = describe_target_problem(spec)
    if problem:
        raise TargetError(problem)
    if spec.startswith("python:"):
        reference = spec[len("python:") :]
        try:
            fn = import_reference(reference, base_dirs)
        except Exception as exc:
            raise TargetError(f"cannot import target {reference!r}: {exc}") from exc
        if not callable(fn):
            raise TargetError(f"target {reference!r} is not callable")
        return _with_timeout(fn, timeout, spec)
    return _with_timeout(_http_target(spec, timeout), timeout, spec)


def _with_timeout(fn: Callable[..., Any], timeout: float, spec: str) -> AsyncTarget:
    import asyncio  # here: asyncio costs start-up that validating a file need not pay

    async def call(inputs: Any, trace: Any) -> Any:
        try:
            return await asyncio.wait_for(
                call_flexible(fn, inputs, trace, thread=True), timeout=timeout
            )
        except TimeoutError:
            global _abandoned
            _abandoned += 1
            raise TargetError(f"target {spec} did not answer within {timeout:g}s") from None

    call.__name__ = f"target({spec})"
    # What the function takes (a `str` for `answer(question: str)`): a Hub-format row
    # gives such a target the text of its last user message (interactions.ChatInteract).
    call.input_type = infer_input_type(fn)  # type: ignore[attr-defined]
    return call


def _http_target(url: str, timeout: float) -> Callable[[Any], Any]:
    # Here, not at the top: `checkspec validate` reads this module and sends nothing.
    import urllib.error
    import urllib.request

    def post(inputs: Any) -> Any:
        body = json.dumps(inputs, default=str).encode()
        request = urllib.request.Request(
            url, data=body, method="POST", headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                raw = response.read().decode(response.headers.get_content_charset() or "utf-8")
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode(errors="replace")[:500]
            raise TargetError(f"target {url} answered HTTP {exc.code}: {detail}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise TargetError(f"target {url} is unreachable: {reason}") from None
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw

    return post
