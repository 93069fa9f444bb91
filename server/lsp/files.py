"""Files as features that look past the open documents see them: the editor's text when a
file is open (unsaved edits count), else the disk's, never more than the size limit."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import from_fs_path

from .convert import PositionCodec

if TYPE_CHECKING:
    from checkspec.engine.spec.problems import Range

    from ..analysis.definition import ReadText
    from .host import Host

_MAX_BYTES = 10_000_000


def uri_of(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


def reader(ls: Host) -> ReadText:
    """Reads a file's text, open or not; None when it cannot be read."""
    # A big document's queued edits are not waited for (background.py): its text as of
    # the last ones applied (the index reading it refreshes once they are).
    open_texts = {Path(doc.path).resolve(): doc.own_editing.text for doc in ls.store.all()}

    def read(path: Path) -> str | None:
        resolved = path.resolve()
        if resolved in open_texts:
            return open_texts[resolved]
        try:
            if path.stat().st_size > _MAX_BYTES:
                return None
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    return read


def location(ls: Host, path: Path, rng: Range, read: ReadText) -> types.Location:
    """A place in any file, in the client's position encoding."""
    codec = PositionCodec(read(path) or "", ls.encoding)
    return types.Location(uri=uri_of(path), range=codec.range(rng))
