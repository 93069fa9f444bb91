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


def workspace_root(spec: Path, root: Path | None) -> Path:
    """Where a spec file's runs are recorded: its workspace root (checkspec.yaml's folder,
    as the server's index of workspaces knows it), else its own folder."""
    return root if root is not None else spec.parent


def history_path(spec: Path, root: Path | None) -> Path:
    """The history a spec file's runs are recorded in (its workspace's)."""
    from checkspec.engine.history.store import history_path as at_root

    return at_root(workspace_root(spec, root))


def _same_file(scenario: dict[str, Any], root: Path, spec: Path) -> bool:
    """Whether a report's scenario is of `spec`: its id starts with its file's path from
    the workspace root (whoever ran it; `file` is as the run was given it)."""
    identity = str(scenario.get("id") or "")
    if "::" not in identity:
        return False
    written = Path(identity.split("::", 1)[0])
    try:
        return (written if written.is_absolute() else root / written).resolve() == spec.resolve()
    except OSError:
        return False


def _recorded_runs(spec: Path, root: Path | None) -> Iterator[dict[str, Any]]:
    """The newest recorded runs with scenarios of `spec`, newest first, each keeping only
    those scenarios."""
    from checkspec.engine.history.store import HistoryStore

    path = history_path(spec, root)
    root = workspace_root(spec, root)
    if not path.is_file():
        return
    with HistoryStore(path) as store:
        for run in store.runs(RUNS_LOOKED_AT):
            payload = store.load(run.id)
            scenarios = payload.get("scenarios", [])
            mine = [s for s in scenarios if _same_file(s, root, spec)]
            if mine:
                yield {**payload, "scenarios": mine}


def runs_of_file(spec: Path, root: Path | None, count: int = 2) -> list[dict[str, Any]]:
    """The newest `count` recorded runs with scenarios of `spec`, newest first."""
    return list(islice(_recorded_runs(spec, root), count))


def previous_verdicts(
    spec: Path, root: Path | None, names: Collection[str]
) -> dict[str, dict[str, Any]]:
    """Each named scenario's last recorded verdict: {name: {status, run, started}}."""
    found: dict[str, dict[str, Any]] = {}
    wanted = set(names)
    for payload in _recorded_runs(spec, root):
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


def compare_previous(spec: Path, root: Path | None) -> dict[str, Any]:
    """{html, title, base, head}: the compare page of the file's last two recorded runs;
    {error} when there are fewer than two."""
    runs = runs_of_file(spec, root)
    if len(runs) < 2:
        return {
            "error": f"{spec.name} has {len(runs) or 'no'} recorded run{'s' * (len(runs) != 1)}; "
            "compare needs two (run it again)"
        }
    from checkspec.engine.history.compare import compare
    from checkspec.engine.html import render_compare

    head, base = runs
    base_id, head_id = str(base["run"]["id"]), str(head["run"]["id"])
    title = f"{spec.name}: {base_id} → {head_id}"
    return {
        "html": render_compare(compare(base, head), title, base=base, head=head),
        "title": title,
        "base": base_id,
        "head": head_id,
    }
