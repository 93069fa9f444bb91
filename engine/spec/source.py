"""Parse spec text (YAML or JSON) into a tree of located nodes.

Pure functions, no file I/O. YAML is read with PyYAML's *safe* machinery only: tags are never
run, and anything outside the safe set is reported (`unsafe-tag`) and read as null. The tree
is built straight from the parser's event stream (not ``yaml.compose``'s node graph) because
events carry the position of every alias, which the node graph loses, and because skipping
the intermediate graph makes parsing several times faster.

Every node keeps its plain Python value (built once; aliases share their anchor's value) and
its 0-based range, so checks can read values and the CLI / language server can point at them.
"""

from __future__ import annotations

import json as jsonlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode
from yaml.reader import ReaderError
from yaml.resolver import Resolver

from ..core.gcpause import gc_paused
from .problems import Position, Problem, Range, Severity

try:  # libyaml is ~10x faster and reports the same marks
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

__all__ = ["Key", "Node", "Source", "parse_jsonl_lines", "parse_source"]

# A mapping key or a sequence index: one step of a path from the root.
Key = str | int | float | bool | None

_T = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL, _MERGE = (
    _T + "str",
    _T + "int",
    _T + "float",
    _T + "bool",
    _T + "null",
    _T + "merge",
)
_TIMESTAMP = _T + "timestamp"
_CONSTRUCTED = frozenset({_INT, _FLOAT, _BOOL, _NULL})
# Safe scalar tags whose value stays the source text: values must stay JSON-like, so
# timestamps and binary are not turned into datetime / bytes.
_AS_TEXT = frozenset({_STR, _TIMESTAMP, _T + "binary", _T + "value", _T + "yaml", _MERGE})
_MAPPING_TAGS = frozenset({_T + "map", _T + "set"})
_SEQUENCE_TAGS = frozenset({_T + "seq", _T + "omap", _T + "pairs"})

# Long strings count as several nodes (one per 100 characters) so a big anchored string that
# is aliased many times is caught by the same expansion limit as a classic alias bomb.
_CHARS_PER_NODE = 100

# Tag and anchor properties in front of a collection, to underline just them on a bad tag.
_PROPERTIES = re.compile(r"(?:[!&][^\s,\[\]{}]*[ \t]*)+")

_NESTING_ERROR = "exceeded maximum nesting depth"
_LIBYAML_MAX_DEPTH = 1000


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe loader with its own frozen resolver table.

    The table is a snapshot of PyYAML's default one minus timestamps (dates stay strings),
    so a global ``yaml.add_implicit_resolver`` elsewhere cannot change how specs read.
    """


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
    for first, resolvers in Resolver.yaml_implicit_resolvers.items()
}
_RESOLVERS: dict[str | None, list[tuple[str, re.Pattern[str]]]] = _Loader.yaml_implicit_resolvers
# Snapshot of the few constructors used, for the same reason as the resolver table.
_CONSTRUCTORS = {tag: SafeConstructor.yaml_constructors[tag] for tag in _CONSTRUCTED}
_CONSTRUCTOR = SafeConstructor()  # stateless for scalars; shared by all parses


class Node:
    """One YAML/JSON node: its kind, plain value, range and (for collections) children."""

    __slots__ = ("_index", "_merged", "entries", "items", "kind", "range", "value")

    kind: str  # "mapping" | "sequence" | "scalar"
    value: Any
    range: Range
    entries: list[tuple[Node, Node]]
    items: list[Node]

    def __init__(
        self,
        kind: str,
        value: Any,
        range: Range,
        entries: list[tuple[Node, Node]] | None = None,
        items: list[Node] | None = None,
        merged: int = 0,
    ) -> None:
        self.kind = kind
        self.value = value
        self.range = range
        # Mappings: the entries that make up `value`, last one winning. The first `merged` of
        # them come from `<<` merge keys and sit at their anchor, elsewhere in the file.
        self.entries = entries if entries is not None else []
        self.items = items if items is not None else []
        self._merged = merged
        self._index: dict[Any, int] | None = None

    def _entry(self, key: Key) -> tuple[Node, Node] | None:
        if self.kind != "mapping":
            return None
        if self._index is None:  # built on first lookup; later entries overwrite (last wins)
            self._index = {k.value: i for i, (k, _) in enumerate(self.entries)}
        try:
            i = self._index.get(key)
        except TypeError:  # unhashable key asked for
            return None
        return None if i is None else self.entries[i]

    def get(self, key: Key) -> Node | None:
        """The value node for `key` in a mapping (None if absent or not a mapping)."""
        entry = self._entry(key)
        return None if entry is None else entry[1]

    def key_node(self, key: Key) -> Node | None:
        """The key node for `key` in a mapping, to point at the key itself."""
        entry = self._entry(key)
        return None if entry is None else entry[0]

    def find(self, path: Sequence[Key]) -> Node | None:
        """Follow mapping keys and sequence indexes from this node."""
        node: Node | None = self
        for step in path:
            if node is None:
                return None
            if node.kind == "mapping":
                node = node.get(step)
            elif node.kind == "sequence" and type(step) is int and 0 <= step < len(node.items):
                node = node.items[step]
            else:
                return None
        return node

    def __repr__(self) -> str:
        start = self.range.start
        shown = repr(self.value)
        if len(shown) > 40:
            shown = shown[:37] + "..."
        return f"Node({self.kind} at {start.line}:{start.character}, {shown})"


@dataclass
class Source:
    """A parsed document: the root node (None if unreadable or empty) and what went wrong."""

    root: Node | None
    problems: list[Problem] = field(default_factory=list)
    text: str = ""

    def node_at(self, line: int, character: int) -> Node | None:
        """The deepest node (a key node when on a key) at this 0-based position."""
        return _locate(self.root, Position(line, character))[1]

    def path_at(self, line: int, character: int) -> list[Key]:
        """Keys and indexes from the root to the position; on a key the path ends with it."""
        return _locate(self.root, Position(line, character))[0]

    def find(self, path: Sequence[Key]) -> Node | None:
        return None if self.root is None else self.root.find(path)


def _hit(rng: Range, pos: Position, touching: bool) -> bool:
    if touching:  # a cursor just after a token (typing, completion) belongs to it
        return rng.end == pos
    return rng.start <= pos < rng.end or rng.start == pos


def _locate(root: Node | None, pos: Position) -> tuple[list[Key], Node | None]:
    if root is None or not (_hit(root.range, pos, False) or _hit(root.range, pos, True)):
        return [], None
    path: list[Key] = []
    node = root
    while True:
        # (path step, child, is it a key) in source order; merged entries live at their
        # anchor, not inside this mapping, so they are skipped here.
        children: list[tuple[Key, Node, bool]]
        if node.kind == "mapping":
            children = []
            for key, value in node.entries[node._merged :]:
                children.append((key.value, key, True))
                children.append((key.value, value, False))
        elif node.kind == "sequence":
            children = [(i, item, False) for i, item in enumerate(node.items)]
        else:
            return path, node
        found = next(
            (c for touching in (False, True) for c in children if _hit(c[1].range, pos, touching)),
            None,
        )
        if found is None:
            return path, node
        step, child, is_key = found
        path.append(step)
        if is_key:
            return path, child
        node = child


def _tag_name(tag: str) -> str:
    return "!!" + tag[len(_T) :] if tag.startswith(_T) else tag


def _tag_message(tag: str, kind: str) -> str:
    name = _tag_name(tag)
    if tag.startswith(_T + "python/"):
        return f"tag {name} is refused: spec files are read as plain data, never as Python objects"
    return f"tag {name} is not allowed on a {kind} here (only plain YAML data tags are read)"


def _size(n: int) -> str:
    for unit, scale in (("MB", 1_000_000), ("KB", 1_000)):
        if n >= scale:
            return f"{n / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n} bytes"


class _Abort(Exception):
    """A limit was hit: the problem is recorded and the document is not read further."""


class _Frame:
    """An open mapping or sequence while its events stream in."""

    __slots__ = (
        "anchor",
        "bad_tag",
        "entries",
        "height",
        "items",
        "key",
        "key_is_merge",
        "kind",
        "merges",
        "size",
        "start",
        "value",
    )

    def __init__(self, kind: str, start: Position, anchor: str | None, bad_tag: str | None):
        self.kind = kind
        self.start = start
        self.anchor = anchor
        self.bad_tag = bad_tag
        self.value: Any = {} if kind == "mapping" else []
        self.entries: list[tuple[Node, Node]] = []
        self.items: list[Node] = []
        self.key: Node | None = None  # mapping: key waiting for its value
        self.key_is_merge = False
        self.merges: list[Node] = []  # mapping: values of `<<` keys
        self.size = 1  # nodes in the expanded subtree
        self.height = 1  # nesting levels in the expanded subtree


class _Builder:
    """Turns the event stream of the first document into Nodes, enforcing the limits."""

    def __init__(
        self, text: str, *, json: bool, line_offset: int, max_depth: int, max_nodes: int
    ) -> None:
        self.text = text
        self.json = json
        self.line_offset = line_offset
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.problems: list[Problem] = []
        self.syntax_failed = False
        # name -> (node, expanded size, height); complete nodes only, so an alias to an anchor
        # that is still open (a recursive structure) is told apart.
        self.anchors: dict[str, tuple[Node, int, int]] = {}
        self.extra = 0  # nodes added by alias expansion
        self.plain_cache: dict[str, tuple[str, Any]] = {}

    # -- positions and problems ------------------------------------------------------------

    def _pos(self, mark: Any) -> Position:
        return Position(mark.line + self.line_offset, mark.column)

    def _range(self, ev: Any) -> Range:  # hot path: _pos inlined
        start, end, offset = ev.start_mark, ev.end_mark, self.line_offset
        return Range(
            Position(start.line + offset, start.column), Position(end.line + offset, end.column)
        )

    def _add(
        self, code: str, message: str, rng: Range, severity: Severity = Severity.ERROR
    ) -> None:
        self.problems.append(Problem(code, message, rng, severity))

    def _index_to_position(self, index: int) -> Position:
        index = max(0, min(index, len(self.text)))
        line = self.text.count("\n", 0, index)
        return Position(line + self.line_offset, index - (self.text.rfind("\n", 0, index) + 1))

    # -- driver ----------------------------------------------------------------------------

    def run(self) -> Node | None:
        loader = None
        try:
            loader = _Loader(self.text)
            with gc_paused():  # the tree is many small acyclic objects: see gcpause.py
                return self._document(loader)
        except _Abort:
            return None
        except yaml.MarkedYAMLError as e:
            self._syntax_error(e)
        except ReaderError as e:
            char = e.character if isinstance(e.character, int) else ord(e.character)
            pos = self._index_to_position(e.position)
            self.syntax_failed = True
            self._add("syntax", f"{e.reason} (found U+{char:04X})", Range(pos, pos))
        except yaml.YAMLError as e:  # pragma: no cover - every PyYAML error carries a mark
            self.syntax_failed = True
            self._add("syntax", str(e), Range.point(self.line_offset, 0))
        except RecursionError:  # pragma: no cover - the builder is iterative; belt and braces
            self._add("too-deep", "nesting is too deep to read", Range.point(self.line_offset, 0))
        except UnicodeEncodeError as e:  # a lone surrogate, e.g. from surrogateescape decoding
            pos = self._index_to_position(e.start)
            char = ord(e.object[e.start])
            self.syntax_failed = True
            self._add("syntax", f"text is not valid Unicode (found U+{char:04X})", Range(pos, pos))
        finally:
            if loader is not None:
                loader.dispose()
        return None

    def _syntax_error(self, e: yaml.MarkedYAMLError) -> None:
        mark = e.problem_mark or e.context_mark
        pos = self._pos(mark) if mark is not None else Position(self.line_offset, 0)
        if e.problem and _NESTING_ERROR in e.problem:
            # libyaml's own cap, which it can hit before our check sees the first event.
            limit = min(self.max_depth, _LIBYAML_MAX_DEPTH)
            self._add("too-deep", f"nesting is deeper than {limit} levels", Range(pos, pos))
            return
        self.syntax_failed = True
        message = e.problem or e.context or "invalid YAML"
        if e.problem and e.context:
            message = f"{e.problem} ({e.context})"
        self._add("syntax", message, Range(pos, pos))

    def _document(self, loader: Any) -> Node | None:
        get_event = loader.get_event
        get_event()  # StreamStart
        if loader.check_event(StreamEndEvent):  # empty or only comments
            return None
        get_event()  # DocumentStart
        root = self._root(get_event)
        get_event()  # DocumentEnd
        try:
            if loader.check_event(DocumentStartEvent):
                rng = self._range(loader.peek_event())
                self._add("syntax", "only the first YAML document is read", rng, Severity.WARNING)
        except yaml.MarkedYAMLError as e:  # broken text after the first document
            self._syntax_error(e)
        if root.kind == "scalar" and root.value is None and root.range.start == root.range.end:
            return None  # `---` with nothing after it
        return root

    def _root(self, get_event: Any) -> Node:
        stack: list[_Frame] = []
        max_depth = self.max_depth
        while True:
            ev = get_event()
            cls = type(ev)
            is_merge = False
            if cls is ScalarEvent:
                node, is_merge = self._scalar(ev)
                size = 1 + len(ev.value) // _CHARS_PER_NODE
                height = 0
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                if len(stack) >= max_depth:
                    pos = self._pos(ev.start_mark)
                    self._add(
                        "too-deep", f"nesting is deeper than {max_depth} levels", Range(pos, pos)
                    )
                    raise _Abort
                stack.append(self._open(ev, "mapping" if cls is MappingStartEvent else "sequence"))
                continue
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                frame = stack.pop()
                node = self._close(frame, ev)
                size, height = frame.size, frame.height
                if frame.bad_tag is not None:
                    size, height = 1, 0
                if frame.anchor is not None:
                    self.anchors[frame.anchor] = (node, size, height)
            elif cls is AliasEvent:
                node, size, height = self._alias(ev, stack)
            else:  # pragma: no cover - the parser guarantees balanced events
                raise yaml.YAMLError(f"unexpected {cls.__name__}")

            if cls is ScalarEvent and ev.anchor is not None:
                self.anchors[ev.anchor] = (node, size, height)
            if not stack:
                return node
            parent = stack[-1]
            parent.size += size
            if height >= parent.height:
                parent.height = height + 1
            if parent.kind == "sequence":
                parent.items.append(node)
                parent.value.append(node.value)
            else:
                self._attach(parent, node, is_merge)

    # -- nodes -----------------------------------------------------------------------------

    def _scalar(self, ev: ScalarEvent) -> tuple[Node, bool]:
        rng = self._range(ev)
        raw: str = ev.value
        if self.json:  # exact JSON semantics (numbers, escapes) from the source slice
            try:
                value = jsonlib.loads(self.text[ev.start_mark.index : ev.end_mark.index])
            except jsonlib.JSONDecodeError:
                # YAML read this valid JSON differently (e.g. an implied empty value next to a
                # key over 1024 characters): give up on positions, keep the JSON values.
                self.syntax_failed = True
                raise _Abort from None
            return Node("scalar", value, rng), False
        tag = ev.tag
        if tag is None and ev.implicit[0]:  # plain scalar: resolve like SafeLoader does
            hit = self.plain_cache.get(raw)
            if hit is None:
                tag = _STR
                for candidate, regexp in _RESOLVERS.get(raw[:1], ()):
                    if regexp.match(raw):
                        tag = candidate
                        break
                value = self._construct(tag, raw, rng) if tag in _CONSTRUCTED else raw
                hit = self.plain_cache[raw] = (tag, value)
            tag, value = hit
            return Node("scalar", value, rng), tag == _MERGE
        if tag is None or tag == "!" or tag in _AS_TEXT:
            return Node("scalar", raw, rng), tag == _MERGE
        if tag in _CONSTRUCTED:
            return Node("scalar", self._construct(tag, raw, rng), rng), False
        self._add("unsafe-tag", _tag_message(tag, "scalar"), rng)
        return Node("scalar", None, rng), False

    def _construct(self, tag: str, raw: str, rng: Range) -> Any:
        try:
            return _CONSTRUCTORS[tag](_CONSTRUCTOR, ScalarNode(tag, raw))
        except (ValueError, KeyError, TypeError, yaml.YAMLError):
            self._add("syntax", f"cannot read {raw!r} as {_tag_name(tag)}", rng)
            return None

    def _open(self, ev: Any, kind: str) -> _Frame:
        tag = ev.tag
        allowed = _MAPPING_TAGS if kind == "mapping" else _SEQUENCE_TAGS
        bad = None if tag is None or tag == "!" or tag in allowed else tag
        return _Frame(kind, self._pos(ev.start_mark), ev.anchor, bad)

    def _close(self, frame: _Frame, ev: Any) -> Node:
        rng = Range(frame.start, self._pos(ev.end_mark))
        if frame.bad_tag is not None:
            # Underline the tag (and anchor) rather than the whole collection.
            start = self._index_from_position(frame.start)
            m = _PROPERTIES.match(self.text, start) if start is not None else None
            width = len(m.group().rstrip()) if m else 0
            tag_range = Range(
                frame.start, Position(frame.start.line, frame.start.character + width)
            )
            self._add("unsafe-tag", _tag_message(frame.bad_tag, frame.kind), tag_range)
            return Node("scalar", None, rng)
        if frame.kind == "sequence":
            return Node("sequence", frame.value, rng, items=frame.items)
        if not frame.merges:
            return Node("mapping", frame.value, rng, entries=frame.entries)
        merged = self._merged_entries(frame.merges)
        value = {k.value: v.value for k, v in merged}
        value.update(frame.value)
        return Node("mapping", value, rng, entries=merged + frame.entries, merged=len(merged))

    def _index_from_position(self, pos: Position) -> int | None:
        # Only needed for the rare bad-tag underline, so a linear scan is fine.
        line = pos.line - self.line_offset
        index = 0
        for _ in range(line):
            index = self.text.find("\n", index) + 1
            if index == 0:
                return None
        return index + pos.character

    def _merged_entries(self, merges: list[Node]) -> list[tuple[Node, Node]]:
        # Same order as SafeConstructor.flatten_mapping: within a list of mappings the
        # earlier ones win, and explicit keys (appended after these) win over all of them.
        out: list[tuple[Node, Node]] = []
        for merge in merges:
            if merge.kind == "mapping":
                out.extend(merge.entries)
            elif merge.kind == "sequence" and all(i.kind == "mapping" for i in merge.items):
                for item in reversed(merge.items):
                    out.extend(item.entries)
            else:
                self._add(
                    "syntax", "a `<<` merge needs a mapping or a list of mappings", merge.range
                )
        return out

    def _attach(self, frame: _Frame, node: Node, is_merge: bool) -> None:
        key = frame.key
        if key is None:
            frame.key = node
            frame.key_is_merge = is_merge
            return
        frame.key = None
        if frame.key_is_merge:
            frame.merges.append(node)
            return
        if key.kind != "scalar":
            self._add("syntax", f"a mapping key must be a plain value, not a {key.kind}", key.range)
            return
        k = key.value
        if k in frame.value:
            self._add(
                "duplicate-key",
                f"duplicate key {k!r}: the later value wins",
                key.range,
                Severity.WARNING,
            )
        frame.value[k] = node.value
        frame.entries.append((key, node))

    def _alias(self, ev: AliasEvent, stack: list[_Frame]) -> tuple[Node, int, int]:
        rng = self._range(ev)
        name = ev.anchor
        if any(frame.anchor == name for frame in stack):
            self._add(
                "alias-bomb", f"alias *{name} refers to a node that contains it (endless)", rng
            )
            raise _Abort
        target = self.anchors.get(name)
        if target is None:
            self.syntax_failed = True
            self._add("syntax", f"found undefined alias *{name}", rng)
            raise _Abort
        node, size, height = target
        self.extra += size
        if self.extra > self.max_nodes:
            self._add(
                "alias-bomb", f"YAML aliases expand to more than {self.max_nodes:,} nodes", rng
            )
            raise _Abort
        if len(stack) + height > self.max_depth:
            self._add("too-deep", f"alias *{name} nests deeper than {self.max_depth} levels", rng)
            raise _Abort
        # A new node at the alias's position that shares the anchor's value and children.
        shared = Node(node.kind, node.value, rng, node.entries, node.items, node._merged)
        return shared, size, height


def _whole(text: str, line_offset: int) -> Range:
    last = text.rfind("\n")
    end = Position(text.count("\n") + line_offset, len(text) - last - 1)
    return Range(Position(line_offset, 0), end)


def _from_json(data: Any, rng: Range, depth: int, max_depth: int) -> Node:
    """Tree for valid JSON that YAML could not read: right values, whole-document ranges."""
    if depth > max_depth and isinstance(data, dict | list):  # levels of nesting, as in YAML
        raise _Abort
    if isinstance(data, dict):
        entries = [
            (Node("scalar", k, rng), _from_json(v, rng, depth + 1, max_depth))
            for k, v in data.items()
        ]
        return Node("mapping", data, rng, entries=entries)
    if isinstance(data, list):
        items = [_from_json(v, rng, depth + 1, max_depth) for v in data]
        return Node("sequence", data, rng, items=items)
    return Node("scalar", data, rng)


def _differs(root: Node | None, data: Any) -> bool:
    # Belt and braces: a JSON tree must carry exactly the values `json.loads` gives.
    try:
        return root is not None and root.value != data
    except RecursionError:  # pragma: no cover - only with a max_depth near the recursion limit
        return False


def _parse(
    text: str, *, json: bool, line_offset: int, max_depth: int, max_nodes: int
) -> tuple[Node | None, list[Problem]]:
    if not text.strip():
        return None, []
    data: Any = None
    json_too_deep = False
    if json:
        try:
            data = jsonlib.loads(text)
        except jsonlib.JSONDecodeError as e:
            pos = Range.point(e.lineno - 1 + line_offset, e.colno - 1)
            return None, [Problem("syntax", e.msg, pos)]
        except ValueError as e:  # valid syntax json will not convert (a 5,000-digit number)
            return None, [Problem("syntax", str(e), Range.point(line_offset, 0))]
        except RecursionError:  # the YAML pass below finds where it gets too deep
            json_too_deep = True
    builder = _Builder(
        text, json=json, line_offset=line_offset, max_depth=max_depth, max_nodes=max_nodes
    )
    root = builder.run()
    problems = builder.problems
    if json_too_deep:  # keep where the YAML pass found it too deep, else the whole text
        deep = [p for p in problems if p.code == "too-deep"]
        whole = Problem("too-deep", "nesting is too deep to read", _whole(text, line_offset))
        return None, deep or [whole]
    if json and (builder.syntax_failed or _differs(root, data)):
        # Valid JSON that YAML cannot read (e.g. a key over 1024 characters, a surrogate
        # escape): keep the JSON values and give up on exact positions.
        rng = _whole(text, line_offset)
        try:
            return _from_json(data, rng, 1, max_depth), []
        except (_Abort, RecursionError):
            return None, [Problem("too-deep", f"nesting is deeper than {max_depth} levels", rng)]
    return root, problems


def _too_large(text: str, max_bytes: int) -> Problem | None:
    if len(text) * 4 <= max_bytes:  # no need to encode: cannot be over
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= max_bytes:
        return None
    message = (
        f"file is {_size(size)}, over the {_size(max_bytes)} limit (setting checkspec.maxFileSize)"
    )
    return Problem("too-large", message, Range.point(0, 0))


def parse_source(
    text: str,
    *,
    json: bool = False,
    max_bytes: int = 10_000_000,
    max_depth: int = 200,
    max_nodes: int = 1_000_000,
) -> Source:
    """Parse YAML (or JSON with ``json=True``) text; never raises on bad input."""
    too_large = _too_large(text, max_bytes)
    if too_large is not None:
        return Source(None, [too_large], text)
    root, problems = _parse(
        text, json=json, line_offset=0, max_depth=max_depth, max_nodes=max_nodes
    )
    return Source(root, problems, text)


def parse_jsonl_lines(
    text: str,
    *,
    max_bytes: int = 10_000_000,
    max_depth: int = 200,
    max_nodes: int = 1_000_000,
) -> tuple[list[tuple[int, Node]], list[Problem]]:
    """Parse JSON Lines: (0-based line number, root node) per non-blank line, and problems.

    Positions are those in the whole text; a bad line gives a problem and the others still
    parse.
    """
    too_large = _too_large(text, max_bytes)
    if too_large is not None:
        return [], [too_large]
    rows: list[tuple[int, Node]] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.split("\n")):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        root, found = _parse(
            line, json=True, line_offset=number, max_depth=max_depth, max_nodes=max_nodes
        )
        problems.extend(found)
        if root is not None:
            rows.append((number, root))
    return rows, problems
