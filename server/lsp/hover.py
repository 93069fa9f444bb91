"""textDocument/hover: check documentation, parameter docs, JSONPaths on recorded data,
and after a run: on a scenario's name its transcript, on a check's kind what it found."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lsprotocol import types

from .convert import to_hover
from .feature import DocumentRequest, document_request


@document_request(types.TEXT_DOCUMENT_HOVER, empty=lambda: None)
def hover(request: DocumentRequest[types.HoverParams]) -> types.Hover | None:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.hover import hover as hover_at
    from ..analysis.hover import last_run_hover, with_last_check

    doc, document, position = request.doc, request.analysis, request.position
    runs = request.ls.last_runs.of(doc.uri)
    found = last_run_hover(document, doc.text, runs, position)
    found = found or hover_at(document, position, doc.workspace, doc.resolved)
    found = with_last_check(found, document, doc.text, runs, position)
    found = _with_calibration(found, document, position, doc.path, doc.workspace.root)
    if found is None:
        return None
    # Every hover's text masked (core/redact.py): a setting's effective value
    # (`api_base` with a password in its user-info), a transcript, a calibration's messages.
    from checkspec.engine.llm.snapshot import redactor

    return to_hover(replace(found, markdown=redactor().text(found.markdown)), request.codec)


def _with_calibration(found: Any, document: Any, position: Any, path: str, root: Any) -> Any:
    """On a check's `expect:`, what its last calibration said, above the field's doc."""
    from ..analysis.calibration import calibration_markdown, label_at, last_calibration_of

    label = label_at(document, position)
    if label is None:
        return found
    from pathlib import Path

    from checkspec.engine.runs.report import scenario_identity

    from ..analysis.hover import HoverInfo
    from ..analysis.run_history import history_path

    identity = scenario_identity(path, label.entry, root or Path.cwd())
    last = last_calibration_of(
        history_path(Path(path), root), identity, label.check.step, label.check.index
    )
    if last is None:
        return found
    text = calibration_markdown(*last)
    if found is not None:
        return HoverInfo(f"{text}\n\n---\n\n{found.markdown}", found.range)
    return HoverInfo(text, label.range)
