"""Selectors shared by the curation commands: a file or folder, `FILE::NAME`, `FILE::#INDEX`
(the identity `--shard` uses), narrowed by `--query TEXT` and `--tag T`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..spec.files import collect
from .files import CurateError, Item, SpecFile, read_spec, scan_spec

SEPARATOR = "::"


@dataclass
class Selected:
    """The scenarios chosen in one file, in file order."""

    spec: SpecFile
    items: list[Item]


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


def select(
    selectors: Sequence[str],
    *,
    query: str | None = None,
    tags: Sequence[str] = (),
    files: dict[Path, SpecFile] | None = None,
    quick: bool = False,
) -> list[Selected]:
    """The scenarios the selectors name (each once, files in order), then filtered.

    A path that does not exist or a name or index a file does not have is a CurateError
    naming the nearest names; a file that cannot be parsed is one too.
    """
    files = {} if files is None else files
    words = query_words(query)
    # Listing with a query reads only the scenarios whose text may match (files.scan_spec).
    prefilter = (words, list(tags)) if quick and (words or tags) else None
    chosen: dict[Path, dict[int, Item]] = {}
    for text in selectors:
        raw, member = split_selector(text)
        if member is None:
            found, missing = collect([raw])
            if missing:
                raise CurateError(f"{raw}: no such file or folder")
            if Path(raw).is_file() and not found:
                found = [Path(raw)]
            for path in found:
                spec = _read(path, files, prefilter)
                chosen.setdefault(spec.path, {}).update((i.index, i) for i in spec.items)
            continue
        path = Path(raw)
        if not path.is_file():
            raise CurateError(f"{raw}: no such file")
        spec = _read(path, files, None)
        items = _member(spec, member, text)
        chosen.setdefault(spec.path, {}).update((i.index, i) for i in items)
    result = []
    for path, picked in chosen.items():
        spec = files[path]
        kept = [
            item
            for _, item in sorted(picked.items())
            if (not tags or _has_tags(spec, item, tags)) and (not words or matches(item, words))
        ]
        if kept:
            result.append(Selected(spec, kept))
    return result


def _read(
    path: Path,
    files: dict[Path, SpecFile],
    prefilter: tuple[list[str], list[str]] | None,
) -> SpecFile:
    key = Path(path)
    if key not in files or (files[key].partial and prefilter is None):
        files[key] = scan_spec(key, *prefilter) if prefilter else read_spec(key)
        files[key].path = key
    return files[key]


def _member(spec: SpecFile, member: str, shown: str) -> list[Item]:
    if member.startswith("#") and member[1:].isdigit():
        at = int(member[1:])
        if at < len(spec.items):
            return [spec.items[at]]
        raise CurateError(
            f"{shown}: no scenario #{at}: {spec.path} has {len(spec.items)} "
            f"(#0 to #{len(spec.items) - 1})"
            if spec.items
            else f"{shown}: {spec.path} has no scenario"
        )
    found = [item for item in spec.items if item.name == member]
    if found:
        return found
    names = [item.name for item in spec.items]
    near = difflib.get_close_matches(member, names, n=3, cutoff=0.5)
    if not near:  # a word of the name typed: names that contain it
        near = [n for n in names if member.lower() in n.lower()][:3]
    hint = f"; nearest: {', '.join(repr(n) for n in near)}" if near else ""
    raise CurateError(f"{shown}: no scenario named {member!r} in {spec.path}{hint}")


def _has_tags(spec: SpecFile, item: Item, tags: Iterable[str]) -> bool:
    own = set(item.tags) | set(spec.tags)
    return all(tag in own for tag in tags)


def query_words(query: str | None) -> list[str]:
    return [word.casefold() for word in (query or "").split()]


def matches(item: Item, words: Sequence[str]) -> bool:
    """Every word is in the scenario's text: its names, descriptions, inputs, recorded
    outputs, check parameters and comments (every value it holds, not its keys)."""
    text = searchable(item.node.value)
    return all(word in text for word in words)


def searchable(value: Any) -> str:
    parts: list[str] = []
    _gather(value, parts)
    return "\n".join(parts).casefold()


def _gather(value: Any, into: list[str]) -> None:
    stack = [value]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            into.append(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif value is not None and not isinstance(value, bool):
            into.append(str(value))
