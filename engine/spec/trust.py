"""Whose checkspec.yaml checkspec reads: the current user's (or root's), as git reads only
the repositories the current user owns (`safe.directory`, since CVE-2022-24765).

A checkspec.yaml names code to run and places to send keys to (`python:` starts the
workers, `target:` imports a module, `api_base` receives the model key with the prompts).
Found in a parent folder that another user owns (a shared temporary folder, a checkout
someone else made), it would govern a workspace without its user knowing. Such a file is
not read at all: the workspace reports it as a located problem that stops every command
using settings (engine/settings.py: `require_readable`), says whose it is and how to trust
it: `CHECKSPEC_TRUSTED_FOLDERS`, folders separated by the path separator (`*`: any), each
trusting the configs in it and below it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..llm.snapshot import TRUSTED_FOLDERS_ENV, trusted_folders

__all__ = ["TRUSTED_FOLDERS_ENV", "untrusted_reason"]


def untrusted_reason(config: Path, environ: Mapping[str, str] | None = None) -> str | None:
    """Why `config` (a checkspec.yaml) is not read, or None when it is trusted: it and its
    folder belong to the current user or to root, or a trusted folder holds it."""
    getuid = getattr(os, "geteuid", None)
    if getuid is None:  # no owners to compare (Windows): every file is the user's
        return None
    me = getuid()
    for path in (config, config.parent):
        try:
            owner = path.stat().st_uid
        except OSError:  # not there (an unsaved file): nobody else's either
            continue
        if owner in (me, 0):
            continue
        if _trusted_by_user(config, trusted_folders(environ)):
            return None
        what = "it" if path == config else f"its folder {path}"
        return (
            f"{config} is not read: {what} belongs to {_user(owner)}, not to you ({_user(me)}), "
            "and a checkspec.yaml names code to run and where keys are sent. If you trust it, "
            f"set {TRUSTED_FOLDERS_ENV}={config.parent} (folders separated by "
            f"'{os.pathsep}', or '*'); or give your workspace a checkspec.yaml of its own "
            "(`checkspec init`)"
        )
    return None


def _trusted_by_user(config: Path, listed: list[str]) -> bool:
    if "*" in listed:
        return True
    where = config.parent.resolve()
    for folder in listed:
        trusted = Path(folder).expanduser().resolve()
        if where == trusted or where.is_relative_to(trusted):
            return True
    return False


def _user(uid: int) -> str:
    try:
        import pwd

        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        return f"uid {uid}"
