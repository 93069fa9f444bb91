"""What the run history (engine/history, `.checkspec/history.db`) says about one spec file:
the compare page of its last two recorded runs, and each scenario's previous verdict.

Pure: reads the SQLite file, runs nothing. Callers keep it off the event loop.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

RUNS_LOOKED_AT = 50  # the newest runs searched for two that include the file


def history_path(spec: Path) -> Path:
    """The history a spec file's runs are recorded in (its workspace's)."""
    from checkspec.engine.history.store import default_path  # type: ignore[import-not-found]

    return default_path(spec.parent)


def _same_file(recorded: str, run: dict[str, Any], spec: Path) -> bool:
    candidate = Path(recorded)
    if not candidate.is_absolute():
        base = (run.get("run") or {}).get("cwd") or (run.get("run") or {}).get("root")
        if not base:
            return candidate.name == spec.name
        candidate = Path(base) / candidate
    try:
        return candidate.resolve() == spec.resolve()
    except OSError:
        return False


def _recorded_runs(spec: Path) -> Iterator[dict[str, Any]]:
    """The newest recorded runs with scenarios of `spec`, newest first, each keeping only
    those scenarios."""
    from checkspec.engine.history.store import HistoryStore

    path = history_path(spec)
    if not path.is_file():
        return
    store = HistoryStore(path)
    for run in store.runs(RUNS_LOOKED_AT):
        payload = store.load(run["id"] if isinstance(run, dict) else run.id)
        scenarios = payload.get("scenarios", [])
        mine = [s for s in scenarios if _same_file(s.get("file", ""), payload, spec)]
        if mine:
            yield {**payload, "scenarios": mine}


def runs_of_file(spec: Path, count: int = 2) -> list[dict[str, Any]]:
    """The newest `count` recorded runs with scenarios of `spec`, newest first."""
    return list(islice(_recorded_runs(spec), count))


def previous_verdicts(spec: Path, names: Collection[str]) -> dict[str, dict[str, Any]]:
    """Each named scenario's last recorded verdict: {name: {status, run, started}}."""
    found: dict[str, dict[str, Any]] = {}
    wanted = set(names)
    for payload in _recorded_runs(spec):
        run = payload.get("run") or {}
        for scenario in payload["scenarios"]:
            name = scenario.get("scenario_name")
            if name in wanted and name not in found:
                found[name] = {
                    "status": scenario.get("status"),
                    "run": run.get("id"),
                    "started": run.get("started"),
                }
        if len(found) == len(wanted):
            break
    return found


def compare_previous(spec: Path) -> dict[str, Any]:
    """{html, title, base, head}: the compare page of the file's last two recorded runs;
    {error} when there are fewer than two."""
    runs = runs_of_file(spec)
    if len(runs) < 2:
        return {
            "error": f"{spec.name} has {len(runs) or 'no'} recorded run{'s' * (len(runs) != 1)}; "
            "compare needs two (run it again)"
        }
    from checkspec.engine.history.compare import compare  # type: ignore[import-not-found]
    from checkspec.engine.html import render_compare

    head, base = runs
    base_id, head_id = str(base["run"]["id"]), str(head["run"]["id"])
    title = f"{spec.name}: {base_id} → {head_id}"
    return {
        "html": render_compare(compare(base, head), title),
        "title": title,
        "base": base_id,
        "head": head_id,
    }
