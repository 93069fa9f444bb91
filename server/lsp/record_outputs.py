"""The "Record outputs from the target" code action's command: `checkspec.recordOutputs
[uri, [scenario indexes]]` runs those scenarios against their target in the worker
processes (runs.py, as the editor's runs do), then asks the editor to apply
(workspace/applyEdit) the edit writing each interaction's live outputs into the file as
the editor has it: one edit the user can undo, made by the engine's record code (the
same as `checkspec run --record`). Answers {recorded, drifts, skipped, applied, edit}."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..analysis.command_names import RECORD_OUTPUTS
from .feature import command
from .host import Host  # at run time: pygls reads the commands' annotations

if TYPE_CHECKING:
    from checkspec.engine.runs import ScenarioRun
    from checkspec.engine.spec.scenario_analysis import ScenarioEntry

_USAGE = f"{RECORD_OUTPUTS} takes [uri, [scenario indexes]]"


@command(RECORD_OUTPUTS, empty=lambda: {"error": "recording failed; see the checkspec log"})
async def record_outputs(ls: Host, *args: Any) -> dict[str, Any]:
    # Deferred: the engine's executor and the analysis load with the first run.
    from checkspec.engine.executor import Ending, WorkerStartError

    from ..analysis.curation import recording_edit
    from .curation_actions import workspace_edit

    if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], list):
        return {"error": _USAGE}
    uri, indexes = args[0], args[1]
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in indexes):
        return {"error": _USAGE}
    doc = ls.store.get(uri) or ls.store.load(uri)
    if doc is None or not doc.path:
        return {"error": f"not a readable file: {uri}"}
    text = doc.text
    wanted = set(indexes)
    document = ls.store.analysis(doc)
    entries: list[ScenarioEntry] = [
        e
        for e in document.scenarios
        if e.index in wanted and e.scenario is not None and not e.scenario.replays
    ]
    if not entries:
        return {
            "error": "no scenario here runs against a target (set `target:`): nothing to record"
        }
    try:
        ran, cancelled, _ = await ls.runs.run(ls, doc, document, entries, lambda *_: None)
    except WorkerStartError as exc:
        return {"error": f"checkspec could not start its worker processes: {exc}"}
    if cancelled:
        return {"cancelled": True, "recorded": 0, "applied": False}
    runs: list[tuple[int, str, list[Any]]] = []
    skipped: list[str] = []
    for entry in entries:
        run: ScenarioRun | None = ran.get(entry.index)
        if run is None or run.ending is not Ending.FINISHED or run.result.replayed:
            skipped.append(f"{entry.name}: did not finish: not recorded")
            continue
        trace = run.result.final_trace
        runs.append((entry.index, entry.name, [i.outputs for i in trace.interactions]))
    now = ls.store.get(uri)
    if now is not None and now.text != text:
        return {"error": "the file changed during the run: nothing recorded (run it again)"}
    changes, done = recording_edit(text, Path(doc.path), runs)
    answer: dict[str, Any] = {
        "recorded": done.recorded,
        "drifts": [{"scenario": d.name, "line": d.line, "diff": d.diff} for d in done.drifts],
        "skipped": skipped + done.skipped,
        "applied": False,
    }
    if not changes:
        return answer
    edit = workspace_edit(ls, changes)
    result = await ls.workspace_apply_edit_async(
        types.ApplyWorkspaceEditParams(edit=edit, label="Record outputs from the target")
    )
    answer["applied"] = bool(result.applied)
    if not result.applied:
        answer["error"] = result.failure_reason or "the editor did not apply the edit"
    answer["edit"] = ls.protocol.as_json(edit)
    return answer
