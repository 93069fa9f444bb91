"""workspace/executeCommand `checkspec.generate`: a generation in the server's worker pool.

The server never calls a model itself: the generation is a call job of the same warm
pool its runs use (runs.py `Runs.call`, engine/executor/pool.py `WorkerPool.call`), the
worker running engine/runs/generation.py's `generate`. What it is sent is a value
(`GenerationTask`): the checked request (a `GenerationRequest`, engine/generate/request.py,
as `checkspec generate` makes one; its relative paths the workspace folder's), the output,
the output's workspace from the server's index and the settings the server resolved for
it (the editor's over the environment and checkspec.yaml, each with its origin, as for
runs), never CHECKSPEC_* variables. Its progress events become work-done progress.
Cancelling the request (`$/cancelRequest`) or its progress kills the worker: nothing is
written. A worker that dies is this generation's error, with how it died; the server goes
on. The answer:
`{status: written|cancelled|error, output (a file URI), count, summary, messages}`.
`checkspec.listTopics [{docs}]` (a call job too: it reads the documents) and
`checkspec.listPresets` (the workspace's presets, read here: no model, no user code)
serve the editor's pickers.
"""

from __future__ import annotations

import itertools
import os
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..analysis.command_names import GENERATE, LIST_PRESETS, LIST_TOPICS
from .feature import command
from .host import Host  # at run time: pygls reads the commands' annotations

if TYPE_CHECKING:
    from checkspec.engine.generate.request import GenerationRequest

    from .feature import DocumentRequest

_tokens = itertools.count(1)
_MESSAGES = 40  # messages kept for the answer


@command(GENERATE, empty=lambda: {"status": "error", "error": "generation failed; see the log"})
async def generate(ls: Host, *args: Any) -> dict[str, Any]:
    from checkspec.engine.generate.request import GenerationRequest
    from checkspec.engine.runs import generation

    from ..analysis.generate_actions import output_uri

    # The one request value `checkspec generate` makes too, checked here: a bad request is
    # answered at once, with nothing sent to a worker.
    request = GenerationRequest.from_editor(args[0] if len(args) == 1 else None)
    if isinstance(request, str):
        return {"status": "error", "error": request}
    request = _absolute(request, _root(ls))
    assert request.output is not None  # from_editor requires it
    output = request.output
    task = _task(ls, request, output)
    answer: dict[str, Any] = {"output": output_uri(output)}
    if isinstance(task, str):
        return {**answer, "status": "error", "error": task}
    result = await _in_worker(ls, generation.generate, task, progress=True)
    found = {**answer, **result}
    found["messages"] = list(found.get("messages", []))[-_MESSAGES:]
    return found


@command(LIST_TOPICS, empty=lambda: {"error": "could not list the topics; see the checkspec log"})
async def list_topics(ls: Host, *args: Any) -> dict[str, Any]:
    from checkspec.engine.generate.request import GenerationRequest, as_path
    from checkspec.engine.runs import generation

    request = args[0] if args and isinstance(args[0], dict) else {}
    docs = request.get("docs")
    docs = [docs] if isinstance(docs, str) else docs
    if not isinstance(docs, list) or not docs or not all(isinstance(d, str) for d in docs):
        return {"error": f"{LIST_TOPICS} takes [{{docs: [paths]}}]"}
    listing = _absolute(GenerationRequest(docs=tuple(as_path(d) for d in docs)), _root(ls))
    task = _task(ls, listing, None)
    if isinstance(task, str):
        return {"error": task}
    found = await _in_worker(ls, generation.list_topics, task, progress=False)
    return found if "topics" in found else {"error": found.get("error", "no topics")}


@command(LIST_PRESETS, empty=lambda: {"error": "could not list the presets; see the checkspec log"})
async def list_presets(ls: Host, *args: Any) -> dict[str, Any]:
    from checkspec.engine.generate.presets import known_presets
    from checkspec.engine.generate.request import GenerationRequest

    task = _task(ls, GenerationRequest(), None)
    if isinstance(task, str):
        return {"presets": []}
    presets = known_presets(task.workspace.config.presets)
    return {
        "presets": [
            {"name": name, "description": preset.description}
            for name, preset in sorted(presets.items())
        ]
    }


def _absolute(request: GenerationRequest, root: str | None) -> GenerationRequest:
    """The request with its relative paths (docs, the files of `like`, the output) under
    the workspace folder `root`, the output (if any) absolute: the worker's current folder
    is not the editor's."""
    from dataclasses import replace

    def under(path: str) -> str:
        return os.path.join(root, path) if root is not None else path

    output = os.path.abspath(under(request.output)) if request.output else None
    if root is None:
        return replace(request, output=output)
    return replace(
        request,
        docs=tuple(under(d) for d in request.docs),
        like=tuple(under(s) for s in request.like),
        output=output,
    )


def _root(ls: Host) -> str | None:
    """The first workspace folder, from pygls's workspace."""
    from pygls.uris import to_fs_path

    workspace = getattr(ls, "workspace", None)  # not part of Host: pygls's own
    if workspace is None:
        return None
    folders = workspace.folders
    if folders:
        return to_fs_path(next(iter(folders.values())).uri)
    root = workspace.root_uri
    return to_fs_path(root) if root else None


async def _in_worker(ls: Host, function: Any, task: Any, *, progress: bool) -> dict[str, Any]:
    """`function(task)` as a call job of the server's pool, with work-done progress from its
    events and cancellation when asked; its answer, or `{status, error}` when it did not
    give one (cancelled, its worker died, workers cannot start)."""
    from checkspec.engine.executor.pool import (
        CallCancelled,
        CallFailed,
        StreamHandle,
        WorkerStartError,
    )

    handle = StreamHandle()
    request = ls.protocol.msg_id
    ls.protocol.on_cancel(request, handle.cancel)
    token = ls.protocol.work_done_tokens.get(request) if progress else None
    if progress and token is None and _supports_progress(ls):
        token = f"checkspec-generate-{next(_tokens)}"
        try:
            await ls.work_done_progress.create_async(token)
        except Exception:  # the client refused: generate without progress
            token = None
    if token is not None:
        ls.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title="checkspec", message="Generating scenarios", cancellable=True, percentage=0
            ),
        )
        future = ls.work_done_progress.tokens.get(token)
        if future is not None:
            future.add_done_callback(lambda f: handle.cancel() if f.cancelled() else None)

    def on_event(step: Any) -> None:
        if token is None or not isinstance(step, dict):
            return
        done, total = step.get("done"), step.get("total")
        if isinstance(done, int) and isinstance(total, int):
            ls.work_done_progress.report(
                token,
                types.WorkDoneProgressReport(
                    message=f"{done}/{total} scenarios", percentage=int(100 * done / max(1, total))
                ),
            )

    found: dict[str, Any]
    try:
        found = await ls.runs.call(task.settings.settings, function, task, on_event, handle)
    except CallCancelled:
        found = {"status": "cancelled", "summary": "cancelled: nothing was written"}
    except (CallFailed, WorkerStartError) as exc:
        found = {"status": "error", "error": f"the generation failed, nothing was written: {exc}"}
    finally:
        if request is not None:
            ls.protocol.cancel_hooks.pop(request, None)
    if token is not None:
        cancelled = found.get("status") == "cancelled"
        end = "cancelled: nothing was written" if cancelled else "done"
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=end))
        ls.work_done_progress.tokens.pop(token, None)
    return found


def _task(ls: Host, request: GenerationRequest, output: str | None) -> Any:
    """The generation's value for a worker (`GenerationTask`): the output's workspace and
    the settings it runs with (a `Resolved`: the editor's settings over the environment
    and the output's checkspec.yaml, as `run_settings` makes them for a run), or why there
    are none (a checkspec.yaml that cannot be used: nothing runs with defaults in its
    place)."""
    from pathlib import Path

    from checkspec.engine.generate.request import default_output
    from checkspec.engine.runs.generation import GenerationTask
    from checkspec.engine.settings import (
        ConfigUnreadable,
        Resolved,
        for_workspace,
        require_readable,
        resolve,
    )

    # Where a listing takes its settings from: the first folder's default output.
    written = Path(output or os.path.join(_root(ls) or os.getcwd(), default_output(False)))
    try:  # the output's workspace, from the server's index (never searched for again)
        workspace = require_readable(ls.store.workspaces.workspace_for(written))
    except ConfigUnreadable as exc:
        return exc.lines()[-1].removeprefix("error: ")
    found = resolve(workspace, editor=ls.store.editor.overrides())
    settings = Resolved(for_workspace(found.settings, workspace.root), found.origins)
    return GenerationTask(request, str(written), workspace, settings)


def _supports_progress(ls: Host) -> bool:
    window = ls.client_capabilities.window
    return bool(window and window.work_done_progress)


def code_actions(request: DocumentRequest[types.CodeActionParams]) -> list[types.CodeAction]:
    """ "Mark reviewed" (refactor.rewrite) and "Generate N more like these" (source)."""
    from ..analysis.generate_actions import generate_actions, review_actions
    from .convert import text_edits

    only = request.params.context.only
    document, doc, codec = request.analysis, request.doc, request.codec
    found: list[types.CodeAction] = []
    if not only or types.CodeActionKind.RefactorRewrite in only:
        for review in review_actions(document, request.range):
            found.append(
                types.CodeAction(
                    title=review.title,
                    kind=types.CodeActionKind.RefactorRewrite,
                    edit=types.WorkspaceEdit(changes={doc.uri: text_edits(review.edits, codec)}),
                )
            )
    if not only or types.CodeActionKind.Source in only:
        for action in generate_actions(document):
            found.append(
                types.CodeAction(
                    title=action.title,
                    kind=types.CodeActionKind.Source,
                    command=types.Command(
                        title=action.title, command=GENERATE, arguments=[action.arguments]
                    ),
                )
            )
    return found
