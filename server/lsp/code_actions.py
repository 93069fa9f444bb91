"""textDocument/codeAction: the quick fixes problems carry (e.g. rename a misspelt kind);
on dataset files, "Generate N more like these" and "Mark reviewed" (generate.py); and the
curation actions on the scenarios a selection touches (curation_actions.py)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from .convert import to_code_action
from .curation_actions import curation_actions
from .feature import DocumentRequest, document_request


@document_request(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[
            types.CodeActionKind.QuickFix,
            types.CodeActionKind.RefactorRewrite,
            types.CodeActionKind.Source,
        ]
    ),
    empty=list,
)
def code_action(request: DocumentRequest[types.CodeActionParams]) -> list[types.CodeAction]:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.actions import quick_fixes
    from .generate import code_actions as generation_actions

    only = request.params.context.only
    doc, codec = request.doc, request.codec
    answer: list[types.CodeAction] = []
    if not only or types.CodeActionKind.QuickFix in only:
        fixes = quick_fixes(request.analysis, request.range, doc.workspace)
        answer.extend(to_code_action(fix, doc.uri, codec) for fix in fixes)
        answer.extend(_label_actions(request))
    if not only or any(kind.startswith("refactor") for kind in only):
        answer.extend(curation_actions(request))
    return answer + generation_actions(request)


def _label_actions(request: DocumentRequest[types.CodeActionParams]) -> list[types.CodeAction]:
    """ "Label as correct / incorrect" on a check's last verdict, "Label as the judge
    said" on a label its last calibration disagreed with (analysis/calibration.py)."""
    from pathlib import Path

    from ..analysis.calibration import label_actions
    from ..analysis.last_run import current_runs
    from ..analysis.run_history import history_path
    from .convert import text_edits

    doc, codec, document = request.doc, request.codec, request.analysis
    if not doc.path:
        return []
    verdicts: dict[tuple[int, int, int], str] = {}
    answers: dict[int, tuple[Any, ...]] = {}  # what the run judged, to record with a label
    for entry, run in current_runs(document, doc.text, request.ls.last_runs.of(doc.uri)):
        for check in run.summary.get("checks") or []:
            verdicts[(entry.index, check.get("step"), check.get("index"))] = check.get("status")
        if run.outputs is not None:
            answers[entry.index] = run.outputs
    path = Path(doc.path)
    found = label_actions(
        doc.text,
        path,
        document,
        request.range,
        verdicts,
        history_path(path, doc.workspace.root),
        answers,
        root=doc.workspace.root,
    )
    return [
        types.CodeAction(
            title=action.title,
            kind=types.CodeActionKind.QuickFix,
            edit=types.WorkspaceEdit(changes={doc.uri: text_edits(action.edits, codec)}),
        )
        for action in found
    ]
