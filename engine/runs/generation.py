"""The editor's generation as a job of the worker pool (engine/executor/pool.py
`WorkerPool.call`): the language server sends a `GenerationTask` (the checked request,
a `GenerationRequest` as `checkspec generate` makes one too, the output path, the
workspace it writes into and the settings it resolved for it, with their origins: a
value, never CHECKSPEC_* variables) and a worker runs `generate` or `list_topics` with
it. The request becomes the service's through generate/request.py's `service_request`,
the function the CLI uses: the same options mean the same generation in both. Model
calls, the reading of the knowledge base (PDFs and all) and the write happen in the
worker; the server only shows progress and the answer.

It lives here, beside the run session, because it checks the models it will call as a
run does (runs/models.py), which the generate feature below cannot import. Progress is
emitted as `{"done": n, "total": m}`; the answer is a plain dict: `{status: written,
count, summary, messages}` or `{status: error, error, messages}`. Nothing is written
unless the whole generation succeeded and its text passed the project's analysis; a
worker stopped before the end (a cancel) writes nothing (the write is one rename).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..generate.request import GenerationRequest
    from ..settings import Resolved
    from ..spec.workspace import Workspace

Emit = Callable[[Any], None]


@dataclass(frozen=True)
class GenerationTask:
    """What a worker needs for one generation: plain values it can be sent as."""

    request: GenerationRequest  # checkspec.generate's, checked (generate/request.py)
    output: str  # the file written (absolute); for a listing, where settings were taken
    workspace: Workspace  # the output's, from the server's index (never searched again)
    settings: Resolved  # the server's, editor settings included, with their origins


def _error(message: str, messages: list[str]) -> dict[str, Any]:
    return {"status": "error", "error": message, "messages": messages}


async def generate(task: GenerationTask, emit: Emit) -> dict[str, Any]:
    """Generate the request's scenarios into `task.output` (as `checkspec generate` does)."""
    from contextlib import ExitStack

    from ..generate import pipeline, service
    from ..generate.output import output_refusal
    from ..generate.request import in_editor_words, service_request
    from ..llm import limits
    from ..llm.endpoints import get_default_embedding_model, get_default_generator
    from ..llm.errors import ProviderError
    from ..llm.usage import Meter
    from ..settings import use_settings
    from .models import setting_problems

    messages: list[str] = []
    request, workspace = task.request, task.workspace
    output = Path(task.output)
    root = workspace.root or output.parent
    try:  # the one turning of a request into the service's, as the CLI's
        made = service_request(request, workspace.config)
    except service.RequestError as exc:
        return _error(in_editor_words(str(exc)), messages)
    append, force = request.append, request.force
    unwritable = output_refusal(
        output, root, force=force, append=append, simulate=request.simulate, dashes=""
    )
    if unwritable:
        return _error(unwritable, messages)
    # The request's models over the server's settings, as the CLI's flags go over its own.
    flags = request.settings_flags()
    given: dict[str, Any] = {name: value for name, value in flags.items() if value}
    settings = replace(task.settings.settings, **given)
    with ExitStack() as scope:
        scope.enter_context(use_settings(settings))
        generator = get_default_generator()
        try:
            prepared = service.prepare(made, workspace.config.presets)
        except service.RequestError as exc:
            return _error(in_editor_words(str(exc)), messages)
        messages += [f"warning: {w}" for w in prepared.warnings]
        generator = generator.model_copy(update={"max_concurrency": request.concurrency})
        embedding = get_default_embedding_model()
        embedding = embedding if getattr(embedding, "model", None) else None
        if not getattr(generator, "model", None):
            return _error(
                "no model configured to generate with: set `model:` in checkspec.yaml or "
                "the editor's checkspec.model",
                messages,
            )
        names = ["model", "embedding_model"] if embedding is not None else ["model"]
        if unroutable := setting_problems(
            settings, workspace, names, origins=task.settings.origins, **flags
        ):
            return _error(unroutable[0].removeprefix("error: "), [*messages, *unroutable])
        if settings.limits:
            scope.enter_context(limits.gating(limits.RateLimiter(settings.limits)))
        meter = scope.enter_context(Meter())

        def progress(done: int, total: int, what: str) -> None:
            emit({"done": done, "total": total})

        try:
            outcome = await service.generate(prepared, generator, embedding, progress)
        except service.RequestError as exc:
            return _error(in_editor_words(str(exc)), messages)
        except ProviderError as exc:
            return _error(f"the provider failed, nothing was written: {exc}", messages)
        except pipeline.GenerationError as exc:
            return _error(f"nothing was written: {exc}", messages)
        spent = f"; {meter.usage.describe()}" if meter.usage else ""
    if not outcome.scenarios:
        return _error(f"{outcome.summary()}; nothing was written{spent}", messages)
    written = service.write_outcome(
        prepared, outcome, output, append=append, workspace=workspace, root=root
    )
    if written.error is not None:
        return _error(written.error, messages)
    if written.problems:
        return _error(
            "the generated file would not validate; nothing was written",
            [*messages, *written.problems[:20]],
        )
    verb = "added to" if append else "written to"
    summary = outcome.summary()
    messages.append(f"{summary}, {verb} {output} (status: draft){spent}")
    return {
        "status": "written",
        "count": len(outcome.scenarios),
        "summary": summary,
        "messages": messages,
    }


async def list_topics(task: GenerationTask, emit: Emit) -> dict[str, Any]:
    """The knowledge base's topics, named by their words (no model is called): read as
    `checkspec generate --list-topics` reads it (checkspec.yaml's exclude globs too)."""
    from ..generate import service
    from ..generate.request import in_editor_words, service_request
    from ..settings import use_settings

    config = task.workspace.config
    with use_settings(task.settings.settings):
        try:
            prepared = service.prepare(service_request(task.request, config), config.presets)
        except service.RequestError as exc:
            return {"error": in_editor_words(str(exc))}
        found = await service.topics_of(prepared)
    return {"topics": [{"id": t.id, "name": t.name, "chunks": t.chunks} for t in found]}
