"""`checkspec history` and `checkspec compare`, and the run's record in the history.

Exit codes: history 0 (2 when the history cannot be read); compare 1 when something
newly fails, 5 when nothing was compared (no scenario in both runs), else 0, and 2 for a
run it cannot find (listing recent ones), a JSON report of another format version, or no
runs yet (docs/outcomes.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2


def add_parsers(commands: Any, wanted: Any) -> None:
    """The options of `history` and `compare` (those `wanted` names)."""
    if wanted("history"):
        history = commands.add_parser("history", help="list the runs kept, newest first")
        history.add_argument("--limit", type=int, default=20, metavar="N", help="runs shown")
        history.add_argument("--format", choices=("text", "json"), default="text")
    if wanted("compare"):
        compare = commands.add_parser(
            "compare",
            help="compare two runs: newly failing, fixed, changed outputs (exit 1: something "
            "newly fails)",
        )
        compare.add_argument(
            "base",
            nargs="?",
            default=None,
            metavar="BASE",
            help="run id, last, last~N, or a JSON report file (default: last~1)",
        )
        compare.add_argument(
            "head", nargs="?", default=None, metavar="HEAD", help="the same (default: last)"
        )
        compare.add_argument("--format", default="text", help="text, json, markdown, html")
        compare.add_argument("--output", "-o", metavar="FILE", help="write the comparison there")


def _root() -> Path | None:
    from .project import open_project

    return open_project().root


def open_store() -> Any:
    """The workspace's run history (at the root of the checkspec.yaml above, else here)."""
    from ..history.store import HistoryStore, history_path

    return HistoryStore(history_path(_root()))


def resolve_runs(*refs: str) -> list[dict[str, Any]] | None:
    """The runs named (run ids, last, last~N, JSON report files); None once it has said
    on stderr why one cannot be read."""
    import sqlite3

    from ..history.payload import ReportFormatError
    from ..history.store import HistoryError

    store = open_store()
    try:
        return [store.resolve(ref) for ref in refs]
    except (HistoryError, ReportFormatError) as exc:
        print(f"error: {exc}", file=sys.stderr)
    except sqlite3.Error as exc:
        print(f"error: {store.path}: {exc}", file=sys.stderr)
    finally:
        store.close()
    return None


def history(args: argparse.Namespace) -> int:
    import sqlite3

    from ..history.render import history_json, history_text
    from ..llm.snapshot import redactor

    store = open_store()
    try:
        runs = store.runs(args.limit) if store.path.exists() else []
    except sqlite3.Error as exc:
        print(f"error: {store.path}: {exc}", file=sys.stderr)
        return EXIT_INVALID
    finally:
        store.close()
    render = history_json if args.format == "json" else history_text
    sys.stdout.write(redactor().text(render(runs)))
    return EXIT_OK


def compare(args: argparse.Namespace) -> int:

    from ..history.compare import compare as compare_runs
    from ..history.render import COMPARE_FORMATS
    from ..llm.snapshot import redactor

    formats = {**COMPARE_FORMATS, "html": None}  # html: engine/html, given both runs below
    if args.format not in formats:
        known = ", ".join(formats)
        print(f"error: --format {args.format}: expected one of {known}", file=sys.stderr)
        return EXIT_INVALID
    base_ref = args.base or "last~1"
    head_ref = args.head or "last"
    if args.base and not args.head:  # `compare BASE`: BASE against the last run
        head_ref = "last"
    runs = resolve_runs(base_ref, head_ref)
    if runs is None:
        return EXIT_INVALID
    base, head = runs
    comparison = compare_runs(base, head)
    if args.format == "html":
        from ..html import render_compare

        rendered = render_compare(comparison, base=base, head=head)
    else:
        rendered = COMPARE_FORMATS[args.format](comparison)
    # Runs kept before secrets were masked, or reports from elsewhere (core/redact.py).
    rendered = redactor().text(rendered)
    if args.output:
        from .selection import write_output

        if problem := write_output(Path(args.output), rendered):
            print(f"error: {problem}", file=sys.stderr)
            return EXIT_INVALID
        newly = len(comparison.newly_failing)
        print(
            f"{newly} newly failing, {len(comparison.fixed)} fixed; wrote {args.output}",
            file=sys.stderr,
        )
    else:
        sys.stdout.write(rendered)
    if comparison.nothing and not comparison.newly_failing:
        text_out = args.format in ("text", "markdown") or args.output
        print(f"{comparison.nothing} (exit 5)", file=sys.stdout if text_out else sys.stderr)
    for line in _judge_drops(base, head):  # the calibrations kept beside the runs
        print(line, file=sys.stderr)
    return comparison.exit_code


def _judge_drops(base: dict[str, Any], head: dict[str, Any]) -> list[str]:
    """`judge agreement dropped: ...` for each judge whose agreement with the labels fell
    between the calibrations in force at the two runs (`checkspec calibrate`)."""
    import sqlite3

    from ..history.calibrations import drop_lines, drops_between

    started = [str((run.get("run") or {}).get("started") or "") for run in (base, head)]
    store = open_store()
    try:
        if not store.path.exists():
            return []
        return drop_lines(drops_between(store, *started))
    except sqlite3.Error:
        return []
    finally:
        store.close()
