"""The "Calibrate" code lens's command: `checkspec.calibrateFile [uri]` judges the file's
labelled checks (`expect:`) on their recorded answers, as `checkspec calibrate` does
(engine/calibrate): each label's scenario (its steps up to the label, replayed, no target)
runs through the editor's run session (runs.py: the warm worker pool, work-done progress,
cancellation by `$/cancelRequest` or the progress), driven by the same loop as the CLI's
(engine/runs/calibration.py), so both make the same calibration. The calibration is kept in the
workspace's history, so hover on `expect:` shows it. Answers {labels, judges, text,
cancelled} or {error}."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..analysis.command_names import CALIBRATE_FILE
from .feature import command
from .host import Host  # at run time: pygls reads the commands' annotations
from .runs import config_refusal, placing, root_of, settings_of, stream_handle

if TYPE_CHECKING:
    from checkspec.engine.runs import RunSession

log = logging.getLogger(__name__)


@command(CALIBRATE_FILE, empty=lambda: {"error": "calibration failed; see the checkspec log"})
async def calibrate_file(ls: Host, *args: Any) -> dict[str, Any]:
    # Deferred: the engine's executor and calibration load with the first run.
    from checkspec.engine.calibrate.labels import labelled
    from checkspec.engine.calibrate.render import text
    from checkspec.engine.executor import WorkerStartError
    from checkspec.engine.runs.calibration import CalibrationRun
    from checkspec.engine.runs.report import scenario_identity

    if not args or not isinstance(args[0], str):
        return {"error": f"{CALIBRATE_FILE} takes [uri]"}
    uri = args[0]
    doc = ls.store.get(uri) or ls.store.load(uri)
    if doc is None or not doc.path:
        return {"error": f"not a readable file: {uri}"}
    if (refused := config_refusal(doc)) is not None:  # never judged with defaults instead
        return {"error": refused}
    document = ls.store.analysis(doc)
    runnable = [(document, e) for e in document.scenarios if e.scenario is not None]
    root = doc.workspace.root or Path.cwd()  # its workspace's (the store's index)
    planned, disabled = labelled(runnable, lambda path, e: scenario_identity(path, e, root))
    if not planned:
        return {"error": "no labelled check here (`expect: pass | fail` labels one)"}
    settings = settings_of(doc)
    # The one calibration loop of `checkspec calibrate` too; each session on the warm pool.
    calibrating = CalibrationRun(
        planned,
        settings=settings,
        source="editor",
        root=root_of(doc),
        prepare=placing(doc, settings),
        handle=stream_handle,
        disabled=disabled,
    )

    async def drive(session: RunSession) -> None:
        await ls.runs.drive(ls, session, lambda *_: None, what=(doc.uri, "calibrate"))

    try:
        calibration = await calibrating.run(drive)
    except WorkerStartError as exc:
        return {"error": f"checkspec could not start its worker processes: {exc}"}
    cancelled = calibration.interrupted
    if not cancelled:
        await asyncio.to_thread(_keep, calibration.to_json(), settings, root_of(doc))
    ls.window_show_message(
        types.ShowMessageParams(type=types.MessageType.Info, message=_said(calibration))
    )
    return {
        "labels": len(planned),
        "judges": [j.summary() for j in calibration.judges],
        "text": text(calibration),
        "cancelled": cancelled,
    }


def _said(calibration: Any) -> str:
    """One line a judge: `Calibration: llm_judge @ m [p]: agreement 80.0% (n 10), kappa
    0.600, 2 disagreement(s)` (the hover on each `expect:` says more)."""
    parts = []
    for judge in calibration.judges:
        matrix = judge.confusion
        agreement = "-" if matrix.agreement is None else f"{matrix.agreement * 100:.1f}%"
        kappa = "-" if matrix.kappa is None else f"{matrix.kappa:.3f}"
        parts.append(
            f"{judge.key}: agreement {agreement} (n {matrix.n}), kappa {kappa}, "
            f"{len(judge.disagreements)} disagreement(s)"
        )
    ended = " (cancelled)" if calibration.interrupted else ""
    return f"Calibration{ended}: " + ("; ".join(parts) or "nothing judged")


def _keep(data: dict[str, Any], settings: Any, root: Any) -> None:
    from checkspec.engine.calibrate.keep import keep_calibration

    said = io.StringIO()
    with contextlib.redirect_stderr(said):  # the server's stderr is its log
        keep_calibration(data, settings, root, stderr=said)
    if said.getvalue():
        log.warning("%s", said.getvalue().strip())
