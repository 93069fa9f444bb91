"""The options of the one selection language, shared by every command that takes
scenarios; a module of its own so that building the parser loads no curation code."""

from __future__ import annotations

import argparse


def add_selection_options(command: argparse.ArgumentParser) -> None:
    """The options of the one selection language (engine/curate/select.py), the same on
    every command that takes scenarios; the parser takes them before, between or after
    the selectors (main._Intermixed)."""
    command.add_argument("--query", "-q", metavar="TEXT", help="scenarios holding every word")
    command.add_argument(
        "--tag",
        action="append",
        default=[],
        metavar="T",
        help="only scenarios with this tag; repeated, scenarios with every one (as words of --query)",
    )
    command.add_argument(
        "--status", choices=("draft", "active"), help="only scenarios of this review status"
    )
