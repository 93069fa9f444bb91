"""Pull diagnostics (LSP 3.17): textDocument/diagnostic and workspace/diagnostic.

Advertised only to clients that pull (`textDocument.diagnostic` in their capabilities;
protocol.py drops the provider otherwise); those get nothing pushed (diagnostics.py asks
them to pull again instead), so no document's problems arrive twice. Clients that do not
pull keep the push model for open files.

A document's report carries a result id (a digest of its diagnostics): a pull naming the
current id is answered `unchanged`. workspace/diagnostic lists the open spec files and,
with `checkspec.diagnostics.scope: workspace`, every other spec file of the workspace,
read from disk by a bounded background scan (workspace_scan.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .background import current_analysis, in_background
from .feature import handler
from .workspace_scan import FileReport, open_report, reports

if TYPE_CHECKING:
    from .host import Host

IDENTIFIER = "checkspec"
OPTIONS = types.DiagnosticOptions(
    identifier=IDENTIFIER, inter_file_dependencies=True, workspace_diagnostics=True
)


def _empty_document_report() -> types.RelatedFullDocumentDiagnosticReport:
    return types.RelatedFullDocumentDiagnosticReport(items=[])


@handler(types.TEXT_DOCUMENT_DIAGNOSTIC, OPTIONS, empty=_empty_document_report)
async def document_diagnostic(
    ls: Host, params: types.DocumentDiagnosticParams
) -> types.RelatedFullDocumentDiagnosticReport | types.RelatedUnchangedDocumentDiagnosticReport:
    uri = params.text_document.uri
    doc = ls.store.get(uri)
    if doc is not None and in_background(doc):
        await current_analysis(doc)  # made off the loop (background.py)
        doc = ls.store.get(uri)
    if doc is None or doc.too_large:
        return _empty_document_report()
    made = open_report(ls, doc)
    if params.previous_result_id == made.result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=made.result_id)
    return types.RelatedFullDocumentDiagnosticReport(
        items=made.diagnostics, result_id=made.result_id
    )


def _empty_workspace_report() -> types.WorkspaceDiagnosticReport:
    return types.WorkspaceDiagnosticReport(items=[])


@handler(types.WORKSPACE_DIAGNOSTIC, empty=_empty_workspace_report)
async def workspace_diagnostic(
    ls: Host, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    previous = {p.uri: p.value for p in params.previous_result_ids}
    items: list[
        types.WorkspaceFullDocumentDiagnosticReport
        | types.WorkspaceUnchangedDocumentDiagnosticReport
    ] = [_item(made, previous.get(made.uri)) for made in await reports(ls)]
    return types.WorkspaceDiagnosticReport(items=items)


def _item(
    made: FileReport, previous: str | None
) -> types.WorkspaceFullDocumentDiagnosticReport | types.WorkspaceUnchangedDocumentDiagnosticReport:
    if previous == made.result_id:
        return types.WorkspaceUnchangedDocumentDiagnosticReport(
            uri=made.uri, version=made.version, result_id=made.result_id
        )
    return types.WorkspaceFullDocumentDiagnosticReport(
        uri=made.uri, version=made.version, items=made.diagnostics, result_id=made.result_id
    )
