"""A finished run kept in its workspace's history (`.checkspec/history.db`), the same way
for every front end (source cli, pytest or editor)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..settings import Settings
    from .report import RunReport


def keep_run(report: RunReport, settings: Settings, root: Path | None) -> str | None:
    """Save a finished run in the workspace's history (unless the settings say not to);
    its run id. Never raises: a run's exit code does not depend on its history."""
    if not settings.history:
        return None
    try:
        from ..history.payload import build_payload
        from ..history.store import save_run

        payload = build_payload(report)
    except Exception as exc:
        print(f"checkspec: the run was not kept in the history: {exc}", file=sys.stderr)
        return None
    return save_run(payload, root, settings.history_max_runs)
