"""A spec file saved in another encoding than UTF-8: the CLI refuses it (`file is not
UTF-8 text`, engine/spec/files.py), so the editor says so too.

The editor sends the text it decoded (with its own guess of the encoding, or U+FFFD for
the bytes it could not read), never the bytes: whether the file can be read is a
question for the file on disk. It is asked again only when the file's size or time
changed (a save), so typing reads nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from checkspec.engine.spec.problems import Problem, Range

CODE = "encoding"
_KNOWN: dict[str, tuple[tuple[int, int], Problem | None]] = {}  # path -> (stamp, problem)
_KEPT = 4096  # paths remembered; past that the memo starts afresh


def problem_of(data: bytes) -> Problem | None:
    """The CLI's problem for bytes that are not UTF-8, at the line of the first bad byte;
    None for UTF-8 text."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start)
        return Problem(
            CODE,
            f"file is not UTF-8 text: {exc.reason} (byte {exc.start + 1}); checkspec reads "
            "only UTF-8: save it as UTF-8",
            Range.point(line, 0),
        )
    return None


def on_disk(path: str, limit: int) -> Problem | None:
    """The encoding problem of the file at `path` as saved; None when it is UTF-8, over
    `limit` bytes (the size limit says so already) or not a readable file."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    stamp = (stat.st_size, stat.st_mtime_ns)
    known = _KNOWN.get(path)
    if known is not None and known[0] == stamp:
        return known[1]
    found = None
    if stat.st_size <= limit:
        try:
            found = problem_of(Path(path).read_bytes())
        except OSError:
            found = None
    if len(_KNOWN) >= _KEPT:
        _KNOWN.clear()
    _KNOWN[path] = (stamp, found)
    return found


def changed_on_disk(path: str, limit: int) -> bool:
    """Whether the file's encoding problem is not the one last shown (a save in another
    encoding changes no text: no edit would show it)."""
    known = _KNOWN.get(path)
    before = known[1] if known is not None else None
    return on_disk(path, limit) != before
