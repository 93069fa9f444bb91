"""workspace/executeCommand `checkspec.generate`: `checkspec generate` in a child process.

The server never calls a model itself: the generation runs as `python -m
checkspec.engine.cli.main generate ... --progress json --settings-from-stdin` (the same
interpreter). Its settings are the ones the server resolves for the output's workspace
(the editor's over the environment and checkspec.yaml, each with its origin, as for
runs), handed to it as a value on its stdin, not turned into CHECKSPEC_* variables. Its
JSON progress lines become work-done progress. Cancelling the request (`$/cancelRequest`)
or its progress interrupts the child (SIGINT: it writes nothing and exits 130). The answer:
`{status: written|cancelled|error, output (a file URI), count, summary, messages}`.
`checkspec.listTopics [{docs}]` and `checkspec.listPresets` serve the editor's pickers.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..analysis.command_names import GENERATE, LIST_PRESETS, LIST_TOPICS
from .feature import command
from .host import Host  # at run time: pygls reads the commands' annotations

if TYPE_CHECKING:
    from .feature import DocumentRequest

_tokens = itertools.count(1)
_CLI = (sys.executable, "-m", "checkspec.engine.cli.main", "generate")
_MESSAGES = 40  # stderr lines kept for the answer


@command(GENERATE, empty=lambda: {"status": "error", "error": "generation failed; see the log"})
async def generate(ls: Host, *args: Any) -> dict[str, Any]:
    from ..analysis.generate_actions import command_line, output_uri

    made = command_line(args[0] if len(args) == 1 else None)  # type: ignore[arg-type]
    if isinstance(made, str):
        return {"status": "error", "error": made}
    argv, output = made
    server = ls
    root = _root(server)
    if root is not None and not os.path.isabs(output):
        output = os.path.join(root, output)  # as the child, started in the root, reads it
    settings = _settings(server, output)
    if isinstance(settings, str):
        return {"output": output_uri(output), "status": "error", "error": settings}
    result = await _child(server, [*argv, "--progress", "json"], settings, progress=True)
    code, lines = result
    answer: dict[str, Any] = {"output": output_uri(output), "exitCode": code}
    final = next((d for d in reversed(_json_lines(lines)) if "written" in d), None)
    messages = [line for line in lines if not line.startswith("{")][-_MESSAGES:]
    answer["messages"] = messages
    if code == 0 and final is not None:
        return {
            **answer,
            "status": "written",
            "count": final["count"],
            "summary": final["summary"],
        }
    if code == 130:
        return {**answer, "status": "cancelled", "summary": "cancelled: nothing was written"}
    errors = [m.removeprefix("error: ") for m in messages if m.startswith("error:")]
    return {**answer, "status": "error", "error": errors[-1] if errors else f"exit {code}"}


@command(LIST_TOPICS, empty=lambda: {"error": "could not list the topics; see the checkspec log"})
async def list_topics(ls: Host, *args: Any) -> dict[str, Any]:
    from ..analysis.generate_actions import as_path

    request = args[0] if args and isinstance(args[0], dict) else {}
    docs = request.get("docs")
    docs = [docs] if isinstance(docs, str) else docs
    if not isinstance(docs, list) or not docs or not all(isinstance(d, str) for d in docs):
        return {"error": f"{LIST_TOPICS} takes [{{docs: [paths]}}]"}
    argv = ["--from-docs", *(as_path(d) for d in docs), "--list-topics", "--format", "json"]
    settings = _settings(ls, None)
    if isinstance(settings, str):
        return {"error": settings}
    code, lines = await _child(ls, argv, settings, progress=False, out=True)
    if code != 0:
        errors = [line.removeprefix("error: ") for line in lines if line.startswith("error:")]
        return {"error": errors[-1] if errors else f"exit {code}"}
    try:
        listed = json.loads("\n".join(lines))
    except ValueError:
        listed = []
    topics = [
        {"id": t.get("id"), "name": t.get("name"), "chunks": t.get("chunks")}
        for t in (listed if isinstance(listed, list) else [])
        if isinstance(t, dict)
    ]
    return {"topics": topics}


@command(LIST_PRESETS, empty=lambda: {"error": "could not list the presets; see the checkspec log"})
async def list_presets(ls: Host, *args: Any) -> dict[str, Any]:
    settings = _settings(ls, None)
    if isinstance(settings, str):
        return {"presets": []}
    code, lines = await _child(ls, ["--list-presets"], settings, progress=False, out=True)
    presets = []
    for line in lines:
        name, sep, description = line.partition(": ")
        if sep and code == 0:
            presets.append({"name": name, "description": description})
    return {"presets": presets}


def _json_lines(lines: list[str]) -> list[dict[str, Any]]:
    found = []
    for line in lines:
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                found.append(value)
    return found


def _root(ls: Host) -> str | None:
    """The first workspace folder (the child runs there), from pygls's workspace."""
    from pygls.uris import to_fs_path

    workspace = getattr(ls, "workspace", None)  # not part of Host: pygls's own
    if workspace is None:
        return None
    folders = workspace.folders
    if folders:
        return to_fs_path(next(iter(folders.values())).uri)
    root = workspace.root_uri
    return to_fs_path(root) if root else None


async def _child(
    ls: Host, argv: list[str], settings: Any, *, progress: bool, out: bool = False
) -> tuple[int, list[str]]:
    """Run `checkspec generate argv` with `settings` (the server's `Resolved`); its exit
    code and output lines (stderr, or stdout when `out`), with work-done progress from
    its JSON lines and cancellation when asked."""
    process = await asyncio.create_subprocess_exec(
        *_CLI,
        *argv,
        "--settings-from-stdin",
        cwd=_root(ls),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdin is not None
    # The settings, as a value (JSON the child validates, never pickle: stdin is data):
    # the child reads them before anything else, then its stdin is closed.
    from checkspec.engine.settings import resolved_to_json

    process.stdin.write(resolved_to_json(settings))
    with contextlib.suppress(ConnectionError):  # a child that died at start says why below
        await process.stdin.drain()
    process.stdin.close()
    request = ls.protocol.msg_id
    token = ls.protocol.work_done_tokens.get(request) if progress else None
    if progress and token is None and _supports_progress(ls):
        token = f"checkspec-generate-{next(_tokens)}"
        try:
            await ls.work_done_progress.create_async(token)
        except Exception:  # the client refused: generate without progress
            token = None
    cancelled = False

    def cancel() -> None:
        nonlocal cancelled
        cancelled = True
        if process.returncode is None:
            process.send_signal(signal.SIGINT)

    ls.protocol.on_cancel(request, cancel)
    if token is not None:
        ls.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title="checkspec", message="Generating scenarios", cancellable=True, percentage=0
            ),
        )
        future = ls.work_done_progress.tokens.get(token)
        if future is not None:
            future.add_done_callback(lambda f: cancel() if f.cancelled() else None)
    lines: list[str] = []

    async def read_err() -> None:
        assert process.stderr is not None
        async for raw in process.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if token is not None and line.startswith('{"done"'):
                try:
                    step = json.loads(line)
                    percentage = int(100 * step["done"] / max(1, step["total"]))
                    message = f"{step['done']}/{step['total']} scenarios"
                except (ValueError, KeyError, TypeError):
                    continue
                ls.work_done_progress.report(
                    token, types.WorkDoneProgressReport(message=message, percentage=percentage)
                )
                continue
            if not out:
                lines.append(line)

    async def read_out() -> None:
        assert process.stdout is not None
        async for raw in process.stdout:
            if out:
                lines.append(raw.decode("utf-8", "replace").rstrip("\r\n"))

    try:
        await asyncio.gather(read_err(), read_out())
        code = await process.wait()
    finally:
        if request is not None:
            ls.protocol.cancel_hooks.pop(request, None)
        if process.returncode is None:  # the server is going away: so does the child
            process.kill()
        if token is not None:
            end = "cancelled: nothing was written" if cancelled else "done"
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=end))
            ls.work_done_progress.tokens.pop(token, None)
    return (130 if cancelled and code != 0 else code), lines


def _settings(ls: Host, output: str | None) -> Any:
    """The settings a generation writing `output` runs with (a `Resolved`: the editor's
    settings over the environment and the output's checkspec.yaml, as `run_settings`
    makes them for a run), or why there are none (a checkspec.yaml that cannot be used:
    nothing runs with defaults in its place)."""
    from pathlib import Path

    from checkspec.engine.settings import (
        ConfigUnreadable,
        Resolved,
        for_workspace,
        require_readable,
        resolve,
    )

    # The child's default output, where none is given (the pickers' listings).
    written = Path(output) if output else Path(_root(ls) or os.getcwd()) / "generated.dataset.yaml"
    try:  # the output's workspace, from the server's index (never searched for again)
        workspace = require_readable(ls.store.workspaces.workspace_for(written))
    except ConfigUnreadable as exc:
        return exc.lines()[-1].removeprefix("error: ")
    found = resolve(workspace, editor=ls.store.editor.overrides())
    return Resolved(for_workspace(found.settings, workspace.root), found.origins)


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
