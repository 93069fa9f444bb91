"""The selectors of the one selection language (select.py): a file or folder,
`FILE::NAME` (every scenario of that name), `FILE::#INDEX` (0-based, ASCII digits),
`FILE::name=NAME` (a name taken literally, for a scenario named like `#1`).

`selector_of` writes the selector `list scenarios` prints; `resolve` answers which
scenario indices of which files a list of selectors names (a CurateError naming the
nearest names when a file, name or index is unknown). Apart from select.py's filters and
curation's file reader, which the project's loading of the files a command names (every
command, `checkspec validate` too) does not need: select.py re-exports these names."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ..core.near_paths import nearest_hint
from ..spec.files import collect
from .errors import CurateError


class _Named(Protocol):
    """A scenario as a selector names it: curation's `Item`, the analysis's entry."""

    @property
    def index(self) -> int: ...

    @property
    def name(self) -> str: ...


_Item = TypeVar("_Item", bound=_Named)

SEPARATOR = "::"
LITERAL = "name="
_ASCII_DIGITS = frozenset("0123456789")


def index_of(member: str) -> int | None:
    """The index `#INDEX` names (ASCII digits only: `#¹` is no index), else None."""
    digits = member[1:]
    if member.startswith("#") and digits and set(digits) <= _ASCII_DIGITS:
        return int(digits)
    return None


def selector_of(path: str, index: int, name: str | None, unique: bool) -> str:
    """The selector naming one scenario: `path::name` when its name is its own and reads
    as a name, else `path::#index`."""
    if name and unique and SEPARATOR not in name and name.strip() == name:
        if index_of(name) is None and not name.startswith(LITERAL):
            return f"{path}{SEPARATOR}{name}"
        return f"{path}{SEPARATOR}{LITERAL}{name}"
    return f"{path}{SEPARATOR}#{index}"


def resolve(
    selectors: Sequence[str],
    scenarios_of: Callable[[Path], Sequence[Any]] | None = None,
) -> tuple[list[str], dict[Path, set[int]] | None]:
    """The files the selectors name and, when any names scenarios (`FILE::...`), the
    indices it names in each such file (files named whole keep all their scenarios).
    `scenarios_of(path)`: a file's scenarios (each with `.index` and `.name`) as the
    caller reads them (the project: its analysis, so the file is read once); else its
    text is read here. Raises CurateError for an unknown file, name or index."""
    plain: list[str] = []
    only: dict[Path, set[int]] = {}
    whole: set[Path] = set()
    for text in selectors:
        raw, member, found = opening(text)
        if member is None:
            plain.append(raw)
            whole.update(p.resolve() for p in found)
            continue
        path = found[0]
        if scenarios_of is None:
            from .files import read_spec

            items: Sequence[Any] = read_spec(path).items
        else:
            items = scenarios_of(path)
        picked = members(items, path, member, text)
        if raw not in plain:
            plain.append(raw)
        only.setdefault(path.resolve(), set()).update(i.index for i in picked)
    if not only:
        return plain, None
    for path in whole:
        only.pop(path, None)
    return plain, only


def opening(text: str) -> tuple[str, str | None, list[Path]]:
    """What both resolvers start with: a selector split into its path and member, and the
    files it names (a folder's spec files; `FILE::...` its one file). Raises CurateError
    for a path that does not exist (a missing file with the nearest names)."""
    raw, member = split_selector(text)
    if member is None:
        found, missing = collect([raw])
        if missing:
            raise CurateError(f"{raw}: no such file or folder{nearest_hint(raw)}")
        return raw, None, found
    path = Path(raw)
    if not path.is_file():
        raise CurateError(f"{raw}: no such file{nearest_hint(raw)}")
    return raw, member, [path]


def is_selector(text: str) -> bool:
    """Whether a command-line word names scenarios (an existing path or `PATH::...`)."""
    if SEPARATOR in text:
        return True
    try:
        return Path(text).exists()
    except OSError:  # a word too long to be a file name (a 300-byte tag): not a path
        return False


def split_selector(text: str) -> tuple[str, str | None]:
    path, sep, rest = text.partition(SEPARATOR)
    return path, (rest if sep else None)


def members(items: Sequence[_Item], path: Path, member: str, shown: str) -> list[_Item]:
    """The scenarios of a file (`items`, in file order) that `FILE::MEMBER` names: `#INDEX`,
    `name=NAME` or `NAME`; CurateError naming the nearest names when none is."""
    at = index_of(member)
    if member.startswith("#") and at is None and not any(i.name == member for i in items):
        raise CurateError(f"{shown}: #INDEX takes ASCII digits (0 to {len(items) - 1})")
    if member.startswith(LITERAL):
        member = member[len(LITERAL) :]
    elif at is not None:
        if at < len(items):
            return [items[at]]
        raise CurateError(
            f"{shown}: no scenario #{at}: {path} has {len(items)} (#0 to #{len(items) - 1})"
            if items
            else f"{shown}: {path} has no scenario"
        )
    found = [item for item in items if item.name == member]
    if found:
        return found
    import difflib  # here: only a name not found needs it

    names = [item.name for item in items]
    near = difflib.get_close_matches(member, names, n=3, cutoff=0.5)
    if not near:  # a word of the name typed: names that contain it
        near = [n for n in names if member.lower() in n.lower()][:3]
    hint = f"; nearest: {', '.join(repr(n) for n in near)}" if near else ""
    raise CurateError(f"{shown}: no scenario named {member!r} in {path}{hint}")
