"""`checkspec settings [PATHS] [--format json]`: every resolved setting and its origin.

As `git config --show-origin`: the value each setting has for a run of these paths (their
workspace, else the current folder's) and where it came from: `checkspec.yaml:3` (the
key's line), `CHECKSPEC_MODEL` (the variable), `--model` (the flag given here) or
`default`. Secrets are shown masked, the keys and the passwords and keys in URLs alike. Resolution is engine/settings.py's `resolve`, the
one every front end uses.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import asdict, fields, is_dataclass
from typing import Any

EXIT_OK, EXIT_INVALID = 0, 2


def add_parser(commands: Any, setting_options: Callable[[argparse.ArgumentParser], None]) -> None:
    parser = commands.add_parser(
        "settings", help="show every resolved setting and where it comes from"
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="whose workspace (default: .)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    setting_options(parser)  # the run's flags count as an origin (`--model`)


def rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    """{name, value, origin} of each setting, in the catalog's order (the secrets last)."""
    from ..catalog import SETTINGS
    from ..llm.snapshot import redactor
    from ..settings import SECRETS, Settings, masked
    from .project import open_project

    # A checkspec.yaml with errors is not in force: its problems, not defaults that look
    # set (ConfigUnreadable: exit 2, engine/cli/main.py).
    flags = {s.name: getattr(args, s.name, None) for s in SETTINGS if s.flag}
    resolved = open_project(args.paths).resolved(**flags)
    found = []
    for item in fields(Settings):
        value = getattr(resolved.settings, item.name)
        if item.name in SECRETS:
            value = masked(value)
        origin = resolved.origins[item.name]
        found.append({"name": item.name, "value": _shown(value), "origin": origin})
    # An endpoint's URL may hold a password or a key (its user-info, a `?key=` query):
    # shown masked as the keys are, in text and JSON alike (core/redact.py).
    return redactor().tree(found)


def _shown(value: Any) -> Any:
    """A value as JSON holds it: limits and prices by model ("" is the judge's)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {k: v for k, v in asdict(value).items() if v is not None}
    if isinstance(value, tuple) and all(
        isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) for v in value
    ):
        return {name: _shown(v) for name, v in value}
    if isinstance(value, tuple):
        return [_shown(v) for v in value]
    return value


def run(args: argparse.Namespace) -> int:
    from ..spec.workspace import WorkspaceConflict

    try:
        found = rows(args)
    except WorkspaceConflict as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    if args.format == "json":
        print(json.dumps(found, indent=2))
        return EXIT_OK
    texts = [(r["name"], _text(r["value"]), r["origin"]) for r in found]
    name_width = max(len(n) for n, _, _ in texts)
    value_width = max(len(v) for _, v, _ in texts)
    for name, value, origin in texts:
        print(f"{name:<{name_width}}  {value:<{value_width}}  {origin}".rstrip())
    return EXIT_OK


def _text(value: Any) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        return json.dumps(value) if value else "(none)"
    return str(value)
