"""A spec file as curation sees it: its text, format and scenarios with their nodes.

Only the located tree is read (engine/spec/source.py), never the analysis: listing and
editing need where each scenario lies, its name and tags, not its runnable form. A JSON
Lines row is not even read into its tree until an edit asks (`RowItem`: its value from
`json.loads`, its line kept), and lets the tree go after (`release`): a 100,000-row
dataset lists, filters and exports without 100,000 trees (issue 41).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..catalog import SCHEMA_KEY
from ..spec import source as _source
from ..spec.datasets import record_name
from ..spec.json_rows import row_places, row_value
from ..spec.kinds import FileKind, is_json, is_jsonl, kind_from_name, kind_from_schema
from ..spec.lines import LineIndex, LinesView, index_of
from ..spec.problems import Position, Range, Severity
from ..spec.source import parse_source, read_jsonl_row
from ..spec.tree import Node
from .errors import CurateError

__all__ = ["CurateError"]  # where every curation module takes it from (errors.py holds it)


@dataclass
class Item:
    """One scenario of a file: its position among the file's scenarios and its node."""

    index: int
    node: Node
    name: str
    named: bool
    offset: int = 0  # lines above the text the node was read from (see `scan_spec`)

    @property
    def line(self) -> int:
        return self.node.line + self.offset

    @property
    def tags(self) -> list[str]:
        return _strings(self.node.get("tags"))

    @property
    def status(self) -> str | None:
        found = self.node.get("status")
        return found.value if found is not None and isinstance(found.value, str) else None

    @property
    def value(self) -> Any:
        """The scenario's parsed value (what `--query` searches, what `hub export` writes)."""
        return self.node.value

    @property
    def head(self) -> Range:
        """Where the scenario is named: its `name` value, else the whole scenario."""
        node = self.node
        name = node.get("name") if node.kind == "mapping" else None
        return (name if name is not None else node).range

    def may_hold(self, words: Sequence[str]) -> bool:
        """False only when the scenario surely holds not every word (casefolded): a cheap
        test before the values are searched. Here always True."""
        return True

    def release(self) -> None:
        """Let go of what was read to edit it (a JSON Lines row's tree); nothing here."""


class RowItem(Item):
    """One row of a JSON Lines dataset, kept as its line's text: its values are read
    when asked for (`json.loads`, no tree), its located tree (`node`) only for an edit.
    A 100,000-row dataset so lists, filters and exports without 100,000 trees."""

    def __init__(self, index: int, name: str, named: bool, text: str, number: int) -> None:
        self.index, self.name, self.named, self.offset = index, name, named, 0
        self.text, self.number = text, number
        self._node: Node | None = None

    @property
    def node(self) -> Node:
        if self._node is None:
            root = read_jsonl_row(self.text, self.number).root
            assert root is not None  # its value was read: so is its tree
            self._node = root
        return self._node

    @node.setter
    def node(self, node: Node) -> None:
        self._node = node

    @property
    def line(self) -> int:
        return self.number + self.offset

    @property
    def value(self) -> Any:
        if self._node is not None:
            return self._node.value
        return _value_of(self.text)[1]

    @property
    def head(self) -> Range:
        places = row_places(self.text, "name") if self._node is None else None
        if places is None:
            return super().head
        (start, end), name = places
        if name is not None:
            start, end = name
        return Range(Position(self.number, start), Position(self.number, end))

    @property
    def tags(self) -> list[str]:
        value = self.value
        tags = value.get("tags") if isinstance(value, dict) else None
        return [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []

    @property
    def status(self) -> str | None:
        value = self.value
        found = value.get("status") if isinstance(value, dict) else None
        return found if isinstance(found, str) else None

    def release(self) -> None:
        self._node = None  # read again if asked: an edit of every row holds one tree

    def may_hold(self, words: Sequence[str]) -> bool:
        folded = self.text.casefold()  # keys too, and escapes unread: a superset
        return all(w in folded for w in words) or _unescaped_match(self.text, words)


@dataclass
class SpecFile:
    """A file read for curation. `data` is its bytes as read (to detect a later change)."""

    path: Path
    data: bytes
    text: str
    kind: FileKind
    format: str  # "yaml" | "json" | "jsonl"
    root: Node | None
    items: list[Item] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)  # the file's own `tags:` (suites, datasets)
    partial: bool = False  # only the items a query may match were read (`scan_spec`)
    _shown: tuple[Path, str] | None = field(default=None, repr=False, compare=False)

    @property
    def lines(self) -> LineIndex:
        return index_of(self.text)

    @property
    def eol(self) -> str:
        """The file's line end (its first one; `\\n` when it has none)."""
        at = self.text.find("\n")
        if at > 0 and self.text[at - 1] == "\r":
            return "\r\n"
        if at < 0 and "\r" in self.text:
            return "\r"
        return "\n"

    @property
    def scenarios_node(self) -> Node | None:
        if self.root is None or self.kind is FileKind.SCENARIO or self.format == "jsonl":
            return None
        return self.root.get("scenarios")

    def identity(self, item: Item, root: Path) -> str:
        """The scenario's identity, as `--shard` and `--last-failed` name it
        (engine/runs/report.py, scenario_identity): its file relative to `root` (the
        file's workspace root, the project's `root_for`)."""
        if self._shown is None or self._shown[0] != self.path:  # once a file, not a row
            self._shown = (self.path, shown_path(self.path, root))
        return f"{self._shown[1]}::{item.name if item.named else f'#{item.index}'}"


def shown_path(path: Path, root: Path) -> str:
    """The file relative to its workspace root, as scenario identities give it."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(root).as_posix()
    except ValueError:
        return resolved.as_posix()


def spec_kind(path: Path, root: Node | None) -> FileKind | None:
    kind = kind_from_name(path)
    if kind is None and root is not None and root.kind == "mapping":
        kind = kind_from_schema(root.value.get(SCHEMA_KEY))
    return kind


def read_spec(path: Path) -> SpecFile:
    """Read and parse one spec file; a file that cannot be read or parsed is refused."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        from ..core.near_paths import nearest_hint

        raise CurateError(f"{path}: no such file{nearest_hint(path)}") from None
    except OSError as exc:
        raise CurateError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CurateError(f"{path}: not UTF-8 text: {exc.reason}") from None
    return parse_spec(path, data, text)


def parse_spec(path: Path, data: bytes, text: str) -> SpecFile:
    if is_jsonl(path):
        return _jsonl(path, data, text)
    source = parse_source(text, json=is_json(path))
    errors = [p for p in source.problems if p.severity is Severity.ERROR]
    if errors:
        first = errors[0]
        where = f"{path}:{first.range.start.line + 1}:{first.range.start.character + 1}"
        raise CurateError(f"{where}: {first.message} (the file is left as it is)")
    root = source.root
    kind = spec_kind(path, root)
    if kind is None or kind is FileKind.CONFIG:
        raise CurateError(f"{path}: not a scenario, suite or dataset file")
    spec = SpecFile(path, data, text, kind, "json" if is_json(path) else "yaml", root)
    if root is None or root.kind != "mapping":
        if root is not None:
            raise CurateError(f"{path}: expected a mapping at the top of the file")
        return spec
    if kind is FileKind.SCENARIO:
        spec.items.append(_item(root, 0, kind))
        return spec
    spec.tags = _strings(root.get("tags"))
    scenarios = root.get("scenarios")
    if scenarios is not None and scenarios.kind == "sequence":
        spec.items = [_item(node, at, kind) for at, node in enumerate(scenarios.items)]
    return spec


def _jsonl(path: Path, data: bytes, text: str) -> SpecFile:
    spec = SpecFile(path, data, text, FileKind.DATASET, "jsonl", None)
    for number, line in enumerate(LinesView(index_of(text))):
        if not line.strip():
            continue
        # Most rows: their values only, the tree when an edit asks (RowItem). The others
        # (and a bad row, whose problem it gives) are read in full, as the analysis reads.
        plain, value = _value_of(line)
        if plain:
            name, named = _row_name(value, len(spec.items))
            spec.items.append(RowItem(len(spec.items), name, named, line, number))
            continue
        row = read_jsonl_row(line, number)  # the limits are each row's, not the file's
        if row.root is None or (
            row.problems and any(p.severity is Severity.ERROR for p in row.problems)
        ):
            first = row.problems[0] if row.problems else None
            message = first.message if first is not None else "not a JSON value"
            column = first.range.start.character + 1 if first is not None else 1
            raise CurateError(
                f"{path}:{number + 1}:{column}: {message} (the file is left as it is)"
            )
        spec.items.append(_item(row.root, len(spec.items), FileKind.DATASET))
    return spec


def _item(node: Node, index: int, kind: FileKind) -> Item:
    name_node = node.get("name") if node.kind == "mapping" else None
    if name_node is not None:
        value = name_node.value
        return Item(index, node, value if isinstance(value, str) else str(value), True)
    fallback = f"scenario {index + 1}"
    if kind is FileKind.DATASET and node.kind == "mapping":
        first = node.find(["interactions", 0, "input"])
        return Item(
            index, node, record_name(None if first is None else first.value, fallback), False
        )
    return Item(index, node, fallback, False)


def _value_of(line: str) -> tuple[bool, Any]:
    """A row's value without its tree, under the limits `read_jsonl_row` reads it under."""
    return row_value(line, max_depth=_source.MAX_ROW_DEPTH, max_nodes=_source.MAX_NODES)


def _row_name(value: Any, index: int) -> tuple[str, bool]:
    """A dataset row's name and whether it is its own, from its value (as `_item` from
    its node)."""
    if isinstance(value, dict) and "name" in value:
        name = value["name"]
        return (name if isinstance(name, str) else str(name)), True
    fallback = f"scenario {index + 1}"
    if not isinstance(value, dict):
        return fallback, False
    turns = value.get("interactions")
    first = turns[0] if isinstance(turns, list) and turns else None
    given = first.get("input") if isinstance(first, dict) else None
    return record_name(given, fallback), False


def _strings(node: Node | None) -> list[str]:
    if node is None or node.kind != "sequence":
        return []
    return [item.value for item in node.items if isinstance(item.value, str)]


# -- reading only what a query may match ----------------------------------------------

_SCENARIOS_KEY = re.compile(r"^scenarios:[ \t]*(?:#[^\r\n]*)?\r?$", re.M)
_FIRST_ITEM = re.compile(r"^( *)-(?=[ \r\n]|\Z)", re.M)
# Escapes of double-quoted scalars, and the doubled quote of single-quoted ones: a value
# may hold a word its text does not (`caf\\u00e9`, `it''s`).
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)|''", re.S)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "_": "\xa0", "N": "\x85"}


def _unescape(found: re.Match[str]) -> str:
    code = found.group(1)
    if code is None:
        return "'"
    if len(code) > 1:
        try:
            return chr(int(code[1:], 16))
        except ValueError:  # beyond Unicode
            return ""
    return _SIMPLE.get(code, code)


def _unescaped_match(chunk: str, words: Sequence[str]) -> bool:
    """Whether the text with its escapes read holds every word (a superset of what the
    values hold: escapes are read wherever they are, quoted or not)."""
    if "\\" not in chunk and "''" not in chunk:
        return False
    folded = _ESCAPE.sub(_unescape, chunk).casefold()
    return all(w in folded for w in words)


def scan_spec(path: Path, words: Sequence[str], tags: Sequence[str] = ()) -> SpecFile:
    """A file with only the scenarios whose text holds every word (casefolded): each
    block-list item's lines are looked at as text, and only those that may match are
    parsed. Anything unusual (flow style, JSON, an item that does not read alone) reads
    the whole file as `read_spec` does. For listing only: the items keep their index and
    line, but the file is not checked for syntax errors outside them."""
    try:
        data = path.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return read_spec(path)
    if is_json(path) or is_jsonl(path) or not (words or tags):
        return parse_spec(path, data, text)
    scanned = _scan(path, data, text, words, tags)
    return scanned if scanned is not None else parse_spec(path, data, text)


def _scan(
    path: Path, data: bytes, text: str, words: Sequence[str], tags: Sequence[str]
) -> SpecFile | None:
    key = _SCENARIOS_KEY.search(text)
    if key is None:
        return None
    first = _FIRST_ITEM.search(text, key.end())
    between = text[key.end() : first.start() if first is not None else key.end()].splitlines()
    if first is None or not all(not x.strip() or x.lstrip().startswith("#") for x in between):
        return None
    indent = first.group(1)
    head = parse_source(text[: key.start()])
    if any(p.severity is Severity.ERROR for p in head.problems):
        return None
    root = head.root
    kind = spec_kind(path, root)
    if kind not in (FileKind.SUITE, FileKind.DATASET):
        return None
    spec = SpecFile(path, data, text, kind, "yaml", None, partial=True)
    if root is not None and root.kind == "mapping":
        spec.tags = _strings(root.get("tags"))
    # A tag of the file's own is every scenario's: only the others narrow the scan.
    words = [*words, *(t.casefold() for t in tags if t not in spec.tags)]
    starts = [
        m.start() for m in re.finditer(rf"^{indent}-(?=[ \r\n]|\Z)", text[first.start() :], re.M)
    ]
    base = first.start()
    ends = re.compile(rf"^ {{0,{len(indent) - 1}}}[^\s#]" if indent else r"^[^\s#-]", re.M)
    stop = ends.search(text, base + 1)
    limit = stop.start() if stop is not None else len(text)
    bounds = [base + at for at in starts if base + at < limit] + [limit]
    line = text.count("\n", 0, base)
    candidates = []
    for index in range(len(bounds) - 1):
        chunk = text[bounds[index] : bounds[index + 1]]
        folded = chunk.casefold()
        if all(w in folded for w in words) or _unescaped_match(chunk, words):
            candidates.append((index, chunk, line))
        line += chunk.count("\n")
    if len(candidates) * 4 > len(bounds) > 100:  # most may match: one read costs less
        return None
    for index, chunk, line in candidates:
        source = parse_source(chunk)
        root = source.root
        if source.problems or root is None or root.kind != "sequence" or len(root.items) != 1:
            return None
        item = _item(root.items[0], index, kind)
        item.offset = line
        spec.items.append(item)
    return spec
