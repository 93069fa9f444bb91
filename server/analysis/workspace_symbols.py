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
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checkspec.engine.curate.files import CurateError, Item, parse_spec
from checkspec.engine.spec.kinds import FileKind, kind_from_name
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


@dataclass
class WorkspaceIndex:
    """Every spec file under some roots, each re-read only when its text changed."""

    files: dict[Path, _File] = field(default_factory=dict)

    def refresh(self, roots: Iterable[Path], read: ReadText, also: Iterable[Path] = ()) -> None:
        """Bring the index up to date: the spec files under `roots`, and `also` (the open
        documents, saved or not)."""
        seen: set[Path] = set()
        wanted = [path for root in roots for path in spec_files(root)]
        wanted += [path for path in also if kind_from_name(path) not in (None, FileKind.CONFIG)]
        for path in wanted:
            key = path.resolve()
            if key in seen:
                continue
            seen.add(key)
            text = read(path)
            if text is None:
                self.files.pop(key, None)
                continue
            known = self.files.get(key)
            if known is None or (known.text is not text and known.text != text):
                self.files[key] = _File(text, _symbols(path, text))
        for gone in set(self.files) - seen:
            del self.files[gone]

    def symbols(self) -> Iterable[ScenarioSymbol]:
        for known in self.files.values():
            yield from known.symbols

    def tag_counts(self) -> Counter[str]:
        return Counter(tag for s in self.symbols() for tag in dict.fromkeys(s.tags))


def search(index: WorkspaceIndex, query: str, limit: int = MAX_SYMBOLS) -> list[ScenarioSymbol]:
    """The scenarios matching `query`: names holding it first, then other matches."""
    words = query.casefold().split()
    if not words:
        return list(_first(index.symbols(), limit))
    fuzzy = re.compile(".*?".join(map(re.escape, words[0]))) if len(words) == 1 else None
    named: list[ScenarioSymbol] = []
    other: list[ScenarioSymbol] = []
    for symbol in index.symbols():
        haystack = symbol.words
        if all(word in haystack for word in words):
            (named if words[0] in haystack.partition("\n")[0] else other).append(symbol)
        elif fuzzy is not None and fuzzy.search(haystack.partition("\n")[0]):
            other.append(symbol)
        if len(named) >= limit:
            break
    return (named + other)[:limit]


def _first(symbols: Iterable[ScenarioSymbol], limit: int) -> Iterable[ScenarioSymbol]:
    for count, symbol in enumerate(symbols):
        if count >= limit:
            return
        yield symbol


def _symbols(path: Path, text: str) -> list[ScenarioSymbol]:
    try:
        spec = parse_spec(path, b"", text)
    except CurateError:
        return []
    return [_symbol(path, item) for item in spec.items]


def _symbol(path: Path, item: Item) -> ScenarioSymbol:
    node = item.node
    name_node = node.get("name") if node.kind == "mapping" else None
    head = (name_node or node).range
    inputs: list[str] = []
    _inputs(node.value, inputs)
    tags = tuple(item.tags)
    words = "\n".join([item.name, *tags, *inputs]).casefold()
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
