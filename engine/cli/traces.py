"""`checkspec traces import FILE... -o DATASET` and `checkspec traces collect --port N -o
DATASET`: an agent's OpenTelemetry traces made draft dataset scenarios (docs/capture.md,
"Production traces to scenarios").

`import` reads span export files (engine/capture/export_files.py: OTLP/JSON, JSON Lines
of it, the SDK's console JSON); `collect` receives OTLP/HTTP on loopback until Ctrl-C or
SIGTERM (traces_collect.py). Both group the spans into conversations
(engine/capture/conversations.py) and write one draft row per conversation: the file is
analysed as the dataset it will be first, then written at once (core/write.py's rule;
an existing file only with --force). A refusal writes nothing.

Exit codes: 0 written (or, for collect, nothing received); 2 an export that cannot be
read (at its file:line:col), an output that cannot be written, a port that cannot be
listened on, no conversation to write from the files given.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_INVALID = 0, 2
SHOWN_SKIPS = 5
# collect's bounds (its options' defaults; traces_collect.py says what each refuses).
MAX_BODY_BYTES = 16 * 1024 * 1024
MAX_SPANS_PER_REQUEST = 100_000
MAX_SPANS = 1_000_000


def add_parser(commands: Any) -> None:
    traces = commands.add_parser(
        "traces", help="turn an agent's OpenTelemetry traces into draft dataset scenarios"
    )
    actions = traces.add_subparsers(dest="traces_action", required=True, metavar="ACTION")
    imported = actions.add_parser(
        "import", help="span exports (OTLP/JSON, JSON Lines) into a dataset of draft scenarios"
    )
    imported.add_argument("files", nargs="+", metavar="FILE", type=Path)
    _output_options(imported)
    collect = actions.add_parser(
        "collect",
        help="receive OTLP/HTTP spans on 127.0.0.1 (POST /v1/traces); Ctrl-C writes the dataset",
    )
    collect.add_argument("--port", type=int, required=True, help="port (0: any free one)")
    collect.add_argument(
        "--host", default="127.0.0.1", help="loopback address to listen on (default 127.0.0.1)"
    )
    collect.add_argument(
        "--max-body-bytes",
        type=int,
        default=MAX_BODY_BYTES,
        metavar="N",
        help=f"largest request body accepted, after gzip (default {MAX_BODY_BYTES:,}; more: 413)",
    )
    collect.add_argument(
        "--max-spans",
        type=int,
        default=MAX_SPANS,
        metavar="N",
        help=f"spans kept in all (default {MAX_SPANS:,}); past it requests are refused (507)",
    )
    collect.add_argument(
        "--max-spans-per-request",
        type=int,
        default=MAX_SPANS_PER_REQUEST,
        metavar="N",
        help=f"spans in one request (default {MAX_SPANS_PER_REQUEST:,}; more: 413)",
    )
    _output_options(collect)


def _output_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--output",
        "-o",
        required=True,
        metavar="DATASET",
        type=Path,
        help="the dataset to write (*.dataset.jsonl, *.dataset.yaml, *.dataset.json)",
    )
    command.add_argument("--force", action="store_true", help="overwrite the dataset if it exists")


def run(args: argparse.Namespace) -> int:
    problem = output_refusal(args.output, args.force)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_INVALID
    if args.traces_action == "import":
        return _import(args)
    from .traces_collect import collect

    return collect(args, write_drafts)


def output_refusal(path: Path, force: bool) -> str | None:
    """Why the dataset cannot be written, checked before any work."""
    from ..spec.kinds import FileKind, kind_from_name
    from .selection import output_problem

    if kind_from_name(path) is not FileKind.DATASET:
        return f"{path}: name it *.dataset.jsonl, *.dataset.yaml or *.dataset.json"
    if (path.exists() or path.is_symlink()) and not force:
        return f"{path}: exists; --force overwrites it"
    problem = output_problem(path)
    return f"cannot write {path}: {problem}" if problem else None


def _import(args: argparse.Namespace) -> int:
    from ..capture.export_files import MAX_SPANS, ExportFileError, read_export

    spans: list[Any] = []
    for path in args.files:
        try:
            spans.extend(read_export(path, MAX_SPANS - len(spans)))
        except ExportFileError as exc:
            print(f"error: {exc}; nothing was written", file=sys.stderr)
            return EXIT_INVALID
    if not spans:
        print(f"error: no spans in {_names(args.files)}; nothing was written", file=sys.stderr)
        return EXIT_INVALID
    return write_drafts(spans, args.output, args.force, require=True)


def _names(paths: list[Path]) -> str:
    return ", ".join(str(p) for p in paths[:3]) + (" ..." if len(paths) > 3 else "")


def write_drafts(spans: list[Any], out: Path, force: bool, *, require: bool) -> int:
    """Write the draft scenarios of these spans to `out`; with `require`, no conversation
    is an error (import), else a note (collect)."""
    from ..core.gcpause import gc_paused

    # Rows, their text and its analysis: many small acyclic objects, beside every span
    # received; the collector rescanning those made 100,000 spans' writing ~2x slower.
    with gc_paused():
        return _write_drafts(spans, out, force, require=require)


def _write_drafts(spans: list[Any], out: Path, force: bool, *, require: bool) -> int:
    from ..capture.conversations import drafts
    from ..core.write import os_problem, write_bytes_atomically
    from .selection import output_root

    made = drafts(spans)
    for note in made.skipped[:SHOWN_SKIPS]:
        print(f"skipped: {note}", file=sys.stderr)
    if len(made.skipped) > SHOWN_SKIPS:
        print(f"skipped: ... and {len(made.skipped) - SHOWN_SKIPS} more", file=sys.stderr)
    if not made.rows:
        what = f"no conversation with a user message in {made.traces} trace(s)"
        if require:
            print(f"error: {what}; nothing was written", file=sys.stderr)
            return EXIT_INVALID
        print(f"{what}: nothing written", file=sys.stderr)
        return EXIT_OK
    text = dataset_text(made.rows, out)
    errors = dataset_errors(text, out)
    if errors:
        print(
            f"error: the dataset would not validate, nothing was written: {'; '.join(errors[:5])}",
            file=sys.stderr,
        )
        return EXIT_INVALID
    if (out.exists() or out.is_symlink()) and not force:  # made since the start (collect)
        print(f"error: {out}: exists; --force overwrites it", file=sys.stderr)
        return EXIT_INVALID
    try:
        write_bytes_atomically(out, text.encode("utf-8"), output_root())
    except OSError as exc:
        print(f"error: {os_problem(out, exc)}", file=sys.stderr)
        return EXIT_INVALID
    print(
        f"wrote {len(made.rows)} draft scenario(s) from {made.traces} trace(s) to {out}"
        "; they hold no checks yet: add them (on the answer, and on what the agent did: "
        f"trace.annotations.captured), then `checkspec run {out} --include-drafts` replays them",
        file=sys.stderr,
    )
    return EXIT_OK


def dataset_text(rows: list[dict[str, Any]], out: Path) -> str:
    from ..curate import hub

    if out.suffix == ".jsonl":
        return "".join(hub.json_line(row) for row in rows)
    name = out.name.split(".")[0]
    return (
        hub.file_head(out, name) + hub.rows_text(out, rows, first=True) + hub.file_tail(out, True)
    )


def dataset_errors(text: str, out: Path) -> list[str]:
    """The errors checkspec would find in the dataset (nothing is written with any)."""
    from ..spec.document import analyze
    from ..spec.kinds import FileKind
    from ..spec.problems import Severity
    from .project import open_project

    workspace = open_project([out.absolute()]).workspace
    # Only the problems are wanted: the runnable scenarios are not built (keep=False).
    document = analyze(text, str(out), workspace, kind=FileKind.DATASET, keep=False)
    return [p.format(str(out)) for p in document.every_problem() if p.severity is Severity.ERROR]
