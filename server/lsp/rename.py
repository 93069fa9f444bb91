"""textDocument/prepareRename and rename: custom checks, renamed in every file of the
workspace (checkspec.yaml and files not open included). Built-in kinds are refused."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from .convert import PositionCodec
from .feature import DocumentRequest, document_request
from .files import reader, uri_of


@document_request(types.TEXT_DOCUMENT_PREPARE_RENAME, empty=lambda: None)
def prepare_rename(
    request: DocumentRequest[types.PrepareRenameParams],
) -> types.PrepareRenamePlaceholder | None:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.references import prepare_rename as prepare_at

    found = prepare_at(request.analysis, request.position)
    if found is None:
        return None  # a built-in kind, or not a check at all: nothing to rename
    identifier, rng = found
    return types.PrepareRenamePlaceholder(range=request.codec.range(rng), placeholder=identifier)


@document_request(
    types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True), empty=lambda: None
)
def rename(request: DocumentRequest[types.RenameParams]) -> types.WorkspaceEdit | None:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.references import prepare_rename as prepare_at
    from ..analysis.references import rename_edits

    ls, doc = request.ls, request.doc
    found = prepare_at(request.analysis, request.position)
    if found is None:
        return None
    read = reader(ls)
    also = (Path(doc.path),) if doc.folder is not None else ()
    try:
        edits = rename_edits(found[0], request.params.new_name, doc.workspace, read, also=also)
    except ValueError as exc:
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=f"checkspec: {exc}")
        )
        return None
    changes: dict[str, list[types.TextEdit]] = {}
    for path, file_edits in edits.items():
        codec = PositionCodec(read(path) or "", ls.encoding)
        changes[uri_of(path)] = [
            types.TextEdit(range=codec.range(e.range), new_text=e.new_text) for e in file_edits
        ]
    return types.WorkspaceEdit(changes=changes)
