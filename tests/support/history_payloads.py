"""A run payload as the history store keeps it, for tests that fill a store."""

from __future__ import annotations

from typing import Any

from checkspec.engine.history.payload import FORMAT


def payload(run_id: str, statuses: dict[str, str] | None = None) -> dict[str, Any]:
    statuses = statuses if statuses is not None else {"a.scenario.yaml::one": "pass"}
    scenarios = [
        {
            "id": identity,
            "scenario_name": identity.split("::")[1],
            "file": identity.split("::")[0],
            "line": 1,
            "status": status,
            "tags": ["t"],
            "steps": [{"results": [{"status": status, "check": "equals", "message": "m"}]}],
            "final_trace": {"interactions": [{"inputs": "hi", "outputs": "ho"}]},
        }
        for identity, status in statuses.items()
    ]
    counts = {s: sum(v == s for v in statuses.values()) for s in ("pass", "fail", "error", "skip")}
    return {
        "format": FORMAT,
        "run": {
            "id": run_id,
            "started": "2026-12-02T10:00:00+00:00",
            "source": "cli",
            "git": None,
            "counts": {**counts, "total": len(statuses)},
            "pass_rate": 1.0,
            "cost_usd": None,
            "duration_s": 0.1,
        },
        "status": "pass",
        "summary": counts,
        "scenarios": scenarios,
    }
