"""The scenarios of a workspace, open or not: `workspace/symbol` and the tags completion
offers (with how many scenarios carry each).

Each spec file is read into its located tree (engine/curate/files.py: no analysis) once
per text, and kept as a list of entries: a name, where its head is, its tags and the
casefolded words a query is matched against (its name, inputs and tags). A query is then
a scan over plain strings: every word a substring of an entry's words, or, for one word,
its letters in order in the name (fuzzy, as editors match symbols).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checkspec.engine.core.gcpause import gc_paused
from checkspec.engine.curate.files import CurateError, Item, parse_spec
from checkspec.engine.spec.kinds import FileKind, kind_from_name
from checkspec.engine.spec.lines import LineIndex
from checkspec.engine.spec.problems import Range

from .workspace_files import spec_files

MAX_SYMBOLS = 500

ReadText = Callable[[Path], str | None]


@dataclass(frozen=True)
class ScenarioSymbol:
    name: str
    path: Path
    range: Range  # the scenario's head (its name, else its start), code points
    tags: tuple[str, ...]
    words: str  # casefolded name, inputs and tags, one per line
    index: int


@dataclass
class _File:
    text: str
    symbols: list[ScenarioSymbol]
    stamp: tuple[int, int] | None = None  # (mtime_ns, size) of the disk file it was read from
    _lines: LineIndex | None = None
    _names: tuple[str, list[int]] | None = None
    _blob: tuple[str, list[int]] | None = None

    def ready(self) -> _File:
        """Made ready for queries (its names and words joined, its line index built), so
        the first query after indexing costs what the others do."""
        _ = self.names, self.blob
        self.lines.position(len(self.text))  # builds every chunk of the index
        return self

    @property
    def lines(self) -> LineIndex:
        """Its line index, kept with it (a position conversion scans no text)."""
        if self._lines is None or self._lines.text is not self.text:
            self._lines = LineIndex(self.text)
        return self._lines

    @property
    def names(self) -> tuple[str, list[int]]:
        """Its symbols' casefolded names, one a line, and where each line starts."""
        if self._names is None:
            self._names = _joined([s.words.partition("\n")[0] for s in self.symbols], "\n")
        return self._names

    @property
    def blob(self) -> tuple[str, list[int]]:
        """Its symbols' words (name, tags, inputs) one after another, and where each starts."""
        if self._blob is None:
            self._blob = _joined([s.words for s in self.symbols], _SEPARATOR)
        return self._blob


_SEPARATOR = "\x00"


def _joined(texts: list[str], separator: str) -> tuple[str, list[int]]:
    starts, at = [], 0
    for text in texts:
        starts.append(at)
        at += len(text) + 1
    return separator.join(texts), starts


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_mtime_ns, found.st_size)


@dataclass
class WorkspaceIndex:
    """Every spec file under some roots, each re-read only when its text changed."""

    files: dict[Path, _File] = field(default_factory=dict)

    def refresh(self, roots: Iterable[Path], read: ReadText, also: Iterable[Path] = ()) -> None:
        """Bring the index up to date: the spec files under `roots`, and `also` (the open
        documents, saved or not)."""
        seen: set[Path] = set()
        opened = [path for path in also if kind_from_name(path) not in (None, FileKind.CONFIG)]
        open_keys = {path.resolve() for path in opened}
        wanted = opened + [path for root in roots for path in spec_files(root)]
        for path in wanted:
            key = path.resolve()
            if key in seen:
                continue
            seen.add(key)
            known = self.files.get(key)
            # A file not open is read again only when the disk says it changed.
            stamp = None if key in open_keys else _stamp(path)
            if known is not None and stamp is not None and known.stamp == stamp:
                continue
            text = read(path)
            if text is None:
                self.files.pop(key, None)
                continue
            if known is None or (known.text is not text and known.text != text):
                self.files[key] = _File(text, _symbols(path, text), stamp).ready()
            else:
                known.stamp = stamp
        for gone in set(self.files) - seen:
            del self.files[gone]

    def symbols(self) -> Iterable[ScenarioSymbol]:
        for known in self.files.values():
            yield from known.symbols

    def tag_counts(self) -> Counter[str]:
        return Counter(tag for s in self.symbols() for tag in dict.fromkeys(s.tags))


def search(index: WorkspaceIndex, query: str, limit: int = MAX_SYMBOLS) -> list[ScenarioSymbol]:
    """The scenarios matching `query`: names holding it first, then other matches (every
    word in the name, tags or inputs; one word also its letters in order in the name), in
    the files' order. Each file's names and words are one string each, searched with
    `str.find` (and, for the fuzzy match, one regular expression), not scenario by
    scenario: a query over 8,000 scenarios costs a few milliseconds."""
    words = query.casefold().split()
    if not words:
        return list(_first(index.symbols(), limit))
    if any(_SEPARATOR in word for word in words):
        return []
    first, rest = words[0], words[1:]

    def holds_rest(symbol: ScenarioSymbol) -> bool:
        return all(word in symbol.words for word in rest)

    def holds_all(symbol: ScenarioSymbol) -> bool:
        return all(word in symbol.words for word in words)

    named: list[ScenarioSymbol] = []
    named_at: dict[Path, set[int]] = {}
    for key, known in index.files.items():
        hits: Iterator[int]
        if rest:  # the rarest word's hits, not every name holding the first (`row`)
            blob, blob_starts = known.blob
            rarest = min(words, key=blob.count)
            hits = (
                at
                for at in _hits(blob, blob_starts, rarest)
                if first in known.symbols[at].words.partition("\n")[0]
            )
        else:
            names, starts = known.names
            hits = _hits(names, starts, first)
        for at in hits:
            if holds_rest(known.symbols[at]):
                named.append(known.symbols[at])
                named_at.setdefault(key, set()).add(at)
                if len(named) >= limit:
                    return named
    fuzzy = (
        re.compile("^[^\n]*?" + "[^\n]*?".join(map(re.escape, first)), re.MULTILINE)
        if not rest
        else None
    )
    left = limit - len(named)
    other: list[ScenarioSymbol] = []
    for key, known in index.files.items():
        skip = named_at.get(key, set())
        blob, starts = known.blob
        found: list[int] = []
        rarest = min(words, key=blob.count) if rest else first  # the fewest to look at
        for at in _hits(blob, starts, rarest):
            if at not in skip and holds_all(known.symbols[at]):
                found.append(at)
                if len(found) >= left:
                    break
        if fuzzy is not None:
            names, name_starts = known.names
            fuzzed = {bisect_right(name_starts, f.start()) - 1 for f in fuzzy.finditer(names)}
            found = sorted(set(found) | (fuzzed - skip))
        other.extend(known.symbols[at] for at in found[:left])
        left = limit - len(named) - len(other)
        if left <= 0:
            break
    return named + other


def _hits(blob: str, starts: list[int], word: str) -> Iterator[int]:
    """The positions of the symbols (their texts one after another in `blob`, each
    starting at its `starts` offset) whose text holds `word`, each once, in order."""
    at = blob.find(word)
    while at >= 0:
        found = bisect_right(starts, at) - 1
        yield found
        if found + 1 >= len(starts):
            return
        at = blob.find(word, starts[found + 1])


def _first(symbols: Iterable[ScenarioSymbol], limit: int) -> Iterable[ScenarioSymbol]:
    for count, symbol in enumerate(symbols):
        if count >= limit:
            return
        yield symbol


def _symbols(path: Path, text: str) -> list[ScenarioSymbol]:
    # Many small acyclic objects (gcpause.py); a JSON Lines row is read as its value and
    # the place of its name, never its tree (files.RowItem: 32,000 rows index in ~1 s).
    with gc_paused():
        try:
            spec = parse_spec(path, b"", text)
        except CurateError:
            return []
        return [_symbol(path, item) for item in spec.items]


def _symbol(path: Path, item: Item) -> ScenarioSymbol:
    head = item.head
    inputs: list[str] = []
    _inputs(item.value, inputs)
    tags = tuple(item.tags)
    # (a NUL would end the symbol's text in its file's blob: it matches as a space)
    words = "\n".join([item.name, *tags, *inputs]).casefold().replace(_SEPARATOR, " ")
    return ScenarioSymbol(item.name, path, head, tags, words, item.index)


def _inputs(value: Any, into: list[str], depth: int = 0) -> None:
    """The texts sent to the agent: `inputs` of interactions, `input` of dataset rows
    (their messages' content)."""
    if depth > 12:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("inputs", "input", "content") and isinstance(item, str):
                into.append(item)
            elif isinstance(item, dict | list):
                _inputs(item, into, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _inputs(item, into, depth + 1)
