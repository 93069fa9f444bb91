"""`checkspec report [RUN] --format html -o FILE` and `checkspec view`: the HTML pages of
recorded runs (engine/html), from the run history (engine/history)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .history import open_store, resolve_runs

EXIT_OK, EXIT_INVALID = 0, 2


def add_parsers(commands: Any, wanted: Any) -> None:
    if wanted("report"):
        report = commands.add_parser(
            "report", help="write the self-contained HTML page of a recorded run"
        )
        report.add_argument(
            "run",
            nargs="?",
            default="last",
            metavar="RUN",
            help="a run id, last, last~N or a JSON report file (default: last)",
        )
        report.add_argument("--format", choices=("html", "json"), default="html")
        report.add_argument("--output", "-o", metavar="FILE", help="write the page to FILE")
    if wanted("view"):
        view = commands.add_parser(
            "view", help="browse the run history in a local web app (runs, trend, compare)"
        )
        view.add_argument("--port", type=int, default=8765, help="port (0: any free one)")
        view.add_argument(
            "--host",
            default=None,
            help="address to listen on (default 127.0.0.1; any other is reachable from "
            "the network and is warned about)",
        )


def report(args: argparse.Namespace) -> int:
    import json

    from ..html import render_report
    from ..llm.snapshot import redactor

    runs = resolve_runs(args.run)
    if runs is None:
        return EXIT_INVALID
    (payload,) = runs
    text = (
        render_report(payload)
        if args.format == "html"
        else json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    )
    text = redactor().text(text)  # a run kept before secrets were masked, a foreign report
    if not args.output:
        sys.stdout.write(text)
        return EXIT_OK
    from .selection import write_output

    if problem := write_output(Path(args.output), text):
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_INVALID
    print(f"wrote {args.output}", file=sys.stderr)
    return EXIT_OK


def view(args: argparse.Namespace) -> int:
    from ..history.compare import compare
    from ..html.viewer import Viewer, is_loopback, serve

    host = args.host or "127.0.0.1"
    if not is_loopback(host):
        print(
            f"warning: listening on {host}: anyone who can reach this address can read the "
            "run history (its conversations and outputs), and the Host check that stops "
            "DNS rebinding is off (it holds only on loopback)",
            file=sys.stderr,
        )
    store = open_store()

    def compared(base: dict[str, Any], head: dict[str, Any]) -> dict[str, Any]:
        return compare(base, head).to_json()

    try:
        return serve(Viewer(store, compared, label=str(store.path)), host, args.port)
    except OSError as exc:
        print(f"error: cannot listen on {host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INVALID
