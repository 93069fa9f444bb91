"""Curation in the editor: code actions on the scenarios a selection touches (add or
remove a tag, mark draft or active, delete: each a WorkspaceEdit; "Add tag…", "Move to
file…", "Add comment…" carry an editor command that asks, then calls `checkspec.curate`,
for clients that declare they implement those commands; "Record outputs from the
target" carries the server's `checkspec.recordOutputs`, record_outputs.py),
and that command, which answers the WorkspaceEdit of one operation."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..analysis.command_names import CURATE, LIST_TAGS
from .feature import command
from .files import reader, uri_of
from .host import Host  # at run time: pygls reads the commands' annotations

if TYPE_CHECKING:
    from ..analysis.curation import FileChange
    from .feature import DocumentRequest


def curation_actions(request: DocumentRequest[types.CodeActionParams]) -> list[types.CodeAction]:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.curation import curation_actions as actions_at
    from .workspace_symbols import workspace_index

    doc, ls = request.doc, request.ls
    if doc.folder is None and not doc.path:
        return []

    def recordable(indexes: Sequence[int]) -> list[int]:
        """The scenarios among these that run against a target (not a replay)."""
        wanted = set(indexes)
        return [
            e.index
            for e in ls.store.analysis(doc).scenarios
            if e.index in wanted and e.scenario is not None and not e.scenario.replays
        ]

    found = actions_at(
        doc.text,
        Path(doc.path),
        request.range,
        doc.uri,
        lambda: workspace_index(ls).tag_counts(),
        recordable,
    )
    prompts = _takes_prompts(ls)
    answer = []
    for action in found:
        if action.changes is not None:
            answer.append(
                types.CodeAction(
                    title=action.title,
                    kind=types.CodeActionKind.RefactorRewrite,
                    edit=workspace_edit(ls, action.changes),
                )
            )
        elif action.command is not None and (prompts or action.server_command):
            answer.append(
                types.CodeAction(
                    title=action.title,
                    kind=types.CodeActionKind.RefactorRewrite,
                    command=types.Command(
                        title=action.title, command=action.command, arguments=action.arguments
                    ),
                )
            )
    return answer


PROMPTS_CAPABILITY = "checkspecCurationPrompts"


def _takes_prompts(ls: Host) -> bool:
    """The client implements the editor commands "Add tag…", "Move to file…" and "Add
    comment…" carry (it says so with `experimental.checkspecCurationPrompts: true`):
    others get only the actions that are edits."""
    experimental = ls.client_capabilities.experimental
    return isinstance(experimental, dict) and experimental.get(PROMPTS_CAPABILITY) is True


def workspace_edit(ls: Host, changes: list[FileChange]) -> types.WorkspaceEdit:
    """Edits of existing files as `changes`; with a file made or deleted, or an edited file
    open in the editor (and a client that takes `documentChanges`), `documentChanges`: an
    open file's edit names the version it was computed on, so the editor applies it to
    that text, unsaved edits included, and refuses it if the text moved on."""
    from .convert import PositionCodec

    read = reader(ls)
    opened = {Path(doc.path).resolve(): doc for doc in ls.store.all()}
    converted: list[tuple[FileChange, list[types.TextEdit], str, int | None]] = []
    for change in changes:
        codec = PositionCodec("" if change.create else read(change.path) or "", ls.encoding)
        edits = [
            types.TextEdit(range=codec.range(e.range), new_text=e.new_text) for e in change.edits
        ]
        doc = opened.get(change.path.resolve())
        uri = doc.uri if doc is not None else uri_of(change.path)
        converted.append((change, edits, uri, doc.version if doc is not None else None))
    made = any(c.create or c.delete for c in changes)
    versioned = _takes_document_changes(ls) and any(v is not None for *_, v in converted)
    if not made and not versioned:
        return types.WorkspaceEdit(changes={uri: e for _, e, uri, _ in converted})
    document_changes: list[Any] = []
    for change, edits, uri, version in converted:
        if change.delete:
            document_changes.append(types.DeleteFile(uri=uri))
            continue
        if change.create:
            document_changes.append(
                types.CreateFile(uri=uri, options=types.CreateFileOptions(ignore_if_exists=True))
            )
        document_changes.append(
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=uri, version=version
                ),
                edits=list(edits),
            )
        )
    return types.WorkspaceEdit(document_changes=document_changes)


def _takes_document_changes(ls: Host) -> bool:
    workspace = ls.client_capabilities.workspace
    edit = workspace.workspace_edit if workspace is not None else None
    return bool(edit is not None and edit.document_changes)


@command(CURATE, empty=lambda: {"error": "the edit failed; see the checkspec log"})
def curate(ls: Host, *args: Any) -> Any:
    """[uri, [indexes], operation, value?] -> the WorkspaceEdit, or {"error": why}."""
    from pygls.uris import to_fs_path

    from checkspec.engine.curate.files import CurateError

    from ..analysis.curation import curation_edit

    if len(args) < 3 or not isinstance(args[0], str) or not isinstance(args[1], list):
        return {"error": f"{CURATE} takes [uri, [scenario indexes], operation, value?]"}
    uri, indexes, operation = args[0], args[1], args[2]
    value = args[3] if len(args) > 3 and isinstance(args[3], str) else None
    path = to_fs_path(uri)
    if not path:
        return {"error": f"not a file: {uri}"}
    text = reader(ls)(Path(path))
    if text is None:
        return {"error": f"cannot read {path}"}
    if value is not None and operation in ("move", "copy") and not Path(value).is_absolute():
        value = str(Path(path).parent / value)
    try:
        changes = curation_edit(
            text, Path(path), [int(i) for i in indexes], operation, value, reader(ls)
        )
    except (CurateError, ValueError) as exc:
        return {"error": str(exc)}
    return workspace_edit(ls, changes)


@command(LIST_TAGS, empty=dict)
def list_tags(ls: Host, *args: Any) -> dict[str, int]:
    """The workspace's tags and how many scenarios carry each (the editor's tag picker)."""
    from .workspace_symbols import workspace_index

    return dict(workspace_index(ls).tag_counts().most_common())
