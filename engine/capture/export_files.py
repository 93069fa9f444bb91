"""Reading span export files (`checkspec traces import`), each refusal at its place.

A file holds JSON values one after the other: one OTLP/JSON object (a whole file, however
it is indented), one per line (JSON Lines: the collector's `file` exporter, the OTLP file
exporter), or the OpenTelemetry SDK's spans as its ConsoleSpanExporter writes them (one
indented object after another); otlp.py reads each value. What is not JSON is refused
at its line and column, a value that is not a span export at the line and column where
it starts, with the path inside it that is wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .otlp import ExportedSpan, OtlpError, spans_of_json

MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_SPANS = 1_000_000  # of one import, all its files together
_BLANK = " \t\r\n"


@dataclass
class ExportFileError(ValueError):
    """An export file that cannot be read, at its place."""

    path: Path
    line: int | None
    column: int | None
    message: str

    def __str__(self) -> str:
        place = str(self.path)
        if self.line is not None:
            place += f":{self.line}"
            if self.column is not None:
                place += f":{self.column}"
        return f"{place}: {self.message}"


def read_export(path: Path, limit: int = MAX_SPANS) -> list[ExportedSpan]:
    """The spans of one export file (at most `limit`: past it, ExportFileError)."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ExportFileError(
                path,
                None,
                None,
                f"{size:,} bytes, over the {MAX_FILE_BYTES:,} read at once: split it",
            )
        data = path.read_bytes()
    except OSError as exc:
        raise ExportFileError(path, None, None, exc.strerror or str(exc)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _place(data[: exc.start].decode("utf-8", "replace"), exc.start)
        raise ExportFileError(path, line, column, "not UTF-8 text") from None
    return spans_in_text(text, path, limit)


def spans_in_text(text: str, path: Path, limit: int = MAX_SPANS) -> list[ExportedSpan]:
    decoder = json.JSONDecoder()
    found: list[ExportedSpan] = []
    at = _skip(text, 0)
    if text.startswith("\ufeff"):
        at = _skip(text, 1)
    while at < len(text):
        try:
            value, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            line, column = _place(text, exc.pos)
            raise ExportFileError(path, line, column, f"not JSON: {exc.msg}") from None
        except RecursionError:
            line, column = _place(text, at)
            raise ExportFileError(path, line, column, "nested too deeply to be read") from None
        try:
            for span in spans_of_json(value):
                found.append(span)
                if len(found) > limit:
                    line, column = _place(text, at)
                    raise ExportFileError(
                        path, line, column, f"more than {limit:,} spans: split the export"
                    )
        except OtlpError as exc:
            line, column = _place(text, at)
            raise ExportFileError(path, line, column, str(exc)) from None
        except RecursionError:
            line, column = _place(text, at)
            raise ExportFileError(path, line, column, "nested too deeply to be read") from None
        at = _skip(text, end)
    return found


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _BLANK:
        at += 1
    return at


def _place(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


__all__ = ["MAX_FILE_BYTES", "MAX_SPANS", "ExportFileError", "read_export", "spans_in_text"]
