"""The process's environment, read here only.

What reads it: the settings' resolver (engine/llm/snapshot.py reads the CHECKSPEC_*
settings, the keys and the trusted folders through `variables`; engine/settings.py
resolves them with their origins), the reference library's GISKARD_CHECKS_* variables
and `.env` (`reference_values`: its `GiskardChecksSettings` and a printed suite's
failure limit), and the language server's own switches (`server_switches`: read once at
its start, a value afterwards). This module imports only the standard library, so the
server reads its switches before any other engine module loads.

tests/engine/test_settings_snapshot.py fails on a read of the environment anywhere else;
its allow-list says why each other module may touch it (a child process's environment
built from it, a library's variable set up before that library loads).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple


def variables(environ: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """The environment to read: `environ` when given (a test's, a resolved copy), else
    this process's."""
    return os.environ if environ is None else environ


def raw_state() -> tuple[tuple[Any, Any], ...]:
    """The environment as the OS holds it (bytes on POSIX): a cheap key of its state."""
    raw = getattr(os.environ, "_data", None)  # os.environ's own store, not decoded
    return tuple(raw.items()) if isinstance(raw, dict) else tuple(os.environ.items())


# -- the reference library's variables (giskard.checks.settings) -------------------------

REFERENCE_PREFIX = "GISKARD_CHECKS_"


def reference_values(
    environ: Mapping[str, str] | None = None,
    env_file: str | Path | Sequence[str | Path] | None = ".env",
) -> dict[str, str]:
    """giskard-checks' settings as its pydantic-settings class reads them: each
    GISKARD_CHECKS_* variable (any case) by its field name (`disable_rich_pretty`), over
    the same variables in `env_file` (relative to the current folder; several: the later
    over the earlier; None: no file)."""
    found: dict[str, str] = {}
    files = [env_file] if isinstance(env_file, str | Path) else list(env_file or ())
    for each in files:
        if Path(each).is_file():
            from dotenv import dotenv_values  # pydantic-settings' own reader of `.env`

            found.update(_prefixed(dotenv_values(each, encoding="utf-8")))
    found.update(_prefixed(variables(environ)))
    return found


def _prefixed(values: Mapping[str, str | None]) -> dict[str, str]:
    size = len(REFERENCE_PREFIX)
    return {
        name[size:].lower(): value
        for name, value in values.items()
        if value is not None and name.upper().startswith(REFERENCE_PREFIX)
    }


# -- the language server's own switches --------------------------------------------------

DEFAULT_MAX_MESSAGE_MB = 64.0
DEFAULT_BODY_TIMEOUT = 10.0
DEFAULT_BACKGROUND_CHARS = 1_000_000


class ServerSwitches(NamedTuple):
    """The language server's diagnostics and limits: settings of the server process
    (not of a workspace), from CHECKSPEC_LSP_* variables and CHECKSPEC_GC_LOG. (A named
    tuple: `dataclasses` is not loaded before the server's first answer.)"""

    log_level: str = "WARNING"  # CHECKSPEC_LSP_LOG_LEVEL: the log's level (DEBUG: messages)
    gc_log: str | None = None  # CHECKSPEC_GC_LOG: a file the GC's pauses are written to
    max_message_mb: float = DEFAULT_MAX_MESSAGE_MB  # CHECKSPEC_LSP_MAX_MESSAGE_MB
    body_timeout: float = DEFAULT_BODY_TIMEOUT  # CHECKSPEC_LSP_BODY_TIMEOUT (seconds)
    # CHECKSPEC_LSP_BACKGROUND_CHARS: texts this long are analysed off the loop
    background_chars: int = DEFAULT_BACKGROUND_CHARS

    @property
    def max_message_bytes(self) -> int:
        return int(self.max_message_mb * (1 << 20))


def server_switches(environ: Mapping[str, str] | None = None) -> ServerSwitches:
    """The switches the environment sets (a value that does not read as one, or is not
    above 0: the default)."""
    found = variables(environ)
    return ServerSwitches(
        log_level=found.get("CHECKSPEC_LSP_LOG_LEVEL", "").strip().upper() or "WARNING",
        gc_log=found.get("CHECKSPEC_GC_LOG") or None,
        max_message_mb=_above_zero(
            found.get("CHECKSPEC_LSP_MAX_MESSAGE_MB"), DEFAULT_MAX_MESSAGE_MB
        ),
        body_timeout=_above_zero(found.get("CHECKSPEC_LSP_BODY_TIMEOUT"), DEFAULT_BODY_TIMEOUT),
        background_chars=int(
            _above_zero(found.get("CHECKSPEC_LSP_BACKGROUND_CHARS"), DEFAULT_BACKGROUND_CHARS)
        ),
    )


@cache
def process_switches() -> ServerSwitches:
    """This server process's switches: read at its first call (its start), a value after."""
    return server_switches()


def _above_zero(raw: str | None, default: float) -> float:
    try:
        value = float(raw.strip()) if raw and raw.strip() else default
    except ValueError:
        return default
    return value if 0 < value < float("inf") else default
