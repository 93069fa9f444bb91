"""The editor's runs kept in the workspace's run history (`.checkspec/history.db`).

Each `checkspec.runFile` run, once it ends, is saved by its run session (engine/runs/)
as `checkspec run` saves one (source "editor"; the `history` setting of the workspace and editor decides; without a
checkspec.yaml, in the file's folder), in a
thread: the SQLite write never holds the event loop. A failure to save is logged and
changes nothing of the run's answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from checkspec.engine.runs import RunSession

log = logging.getLogger(__name__)


async def keep(session: RunSession) -> str | None:
    """Save the session's run; its run id (None when not kept)."""
    try:
        return await asyncio.to_thread(_keep, session)
    except Exception:  # never the run's answer
        log.exception("the run was not kept in the history")
        return None


def _keep(session: RunSession) -> str | None:
    said = io.StringIO()
    with contextlib.redirect_stderr(said):  # the server's stderr is its log
        run_id = session.keep(session.report())
    if said.getvalue():
        log.warning("%s", said.getvalue().strip())
    return run_id
